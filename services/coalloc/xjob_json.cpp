#include "services/coalloc/xjob_json.h"

#include <cctype>
#include <limits>

#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"

namespace spiderflow::coalloc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const json& member(const json& obj, const char* key, const std::string& source, const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end()) throw InputError(source, 0, jsonread::join(path, key), "missing");
    return *it;
}

int64_t get_i64(const json& obj, const char* key, const std::string& source, const std::string& path,
                int64_t lo = 0, int64_t hi = std::numeric_limits<int64_t>::max()) {
    const json& v = member(obj, key, source, path);
    const std::string at = jsonread::join(path, key);
    if (!v.is_number_integer()) throw InputError(source, 0, at, "expected an integer");
    const bool too_big = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi);
    const int64_t x = too_big ? hi : v.get<int64_t>();
    if (too_big || x < lo || x > hi) {
        throw InputError(source, 0, at, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return x;
}

int get_count(const json& obj, const char* key, const std::string& source, const std::string& path, int lo, int hi) {
    return static_cast<int>(get_i64(obj, key, source, path, lo, hi));
}

std::string get_str(const json& obj, const char* key, const std::string& source, const std::string& path) {
    return jsonread::get_string(member(obj, key, source, path), source, jsonread::join(path, key));
}

std::string opt_str(const json& obj, const char* key, const std::string& source, const std::string& path) {
    return obj.contains(key) ? get_str(obj, key, source, path) : std::string();
}

int64_t opt_i64(const json& obj, const char* key, const std::string& source, const std::string& path) {
    return obj.contains(key) ? get_i64(obj, key, source, path) : 0;
}

bool opt_bool(const json& obj, const char* key, const std::string& source, const std::string& path) {
    return obj.contains(key) && jsonread::get_bool(obj.at(key), source, jsonread::join(path, key));
}

std::vector<std::string> get_names(const json& obj, const char* key, const std::string& source, const std::string& path) {
    std::vector<std::string> out;
    if (!obj.contains(key)) return out;
    const json& a = obj.at(key);
    const std::string at = jsonread::join(path, key);
    if (!a.is_array()) throw InputError(source, 0, at, "expected an array of names");
    for (size_t i = 0; i < a.size(); ++i) out.push_back(jsonread::get_string(a[i], source, at + "[" + std::to_string(i) + "]"));
    return out;
}

// A cluster, user or account name as it travels: a Slurm name, never a path or an option.
std::string get_name(const json& obj, const char* key, const std::string& source, const std::string& path,
                     bool allow_empty = false) {
    const std::string s = obj.contains(key) || !allow_empty ? get_str(obj, key, source, path) : std::string();
    if (s.empty() && allow_empty) return s;
    if (s.empty() || s.size() > 128) throw InputError(source, 0, jsonread::join(path, key), "expected a name of 1 to 128 characters");
    for (char c : s) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
        if (!ok) throw InputError(source, 0, jsonread::join(path, key), "'" + s + "' holds a character a Slurm name does not");
    }
    return s;
}

// A batch script's text: Slurm wants "#!" first; 1 MiB is far beyond any training launcher.
std::string get_script(const json& obj, const std::string& source, const std::string& path) {
    const std::string s = get_str(obj, "script", source, path);
    const std::string at = jsonread::join(path, "script");
    if (s.rfind("#!", 0) != 0) throw InputError(source, 0, at, "a batch script starts with #! (its interpreter)");
    if (s.size() > (1u << 20)) throw InputError(source, 0, at, "longer than 1 MiB");
    return s;
}

// The plan's settings for the parts' steps: SPIDERFLOW_* names only (the broker never sets
// anything else in a job's environment), values on one line, 64 KiB in all.
std::vector<std::pair<std::string, std::string>> get_step_env(const json& obj, const std::string& source,
                                                              const std::string& path) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!obj.contains("step_env")) return out;
    const std::string at = jsonread::join(path, "step_env");
    const json& e = obj.at("step_env");
    if (!e.is_object()) throw InputError(source, 0, at, "expected an object of SPIDERFLOW_* names and values");
    size_t bytes = 0;
    for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string& name = it.key();
        bool ok = name.rfind("SPIDERFLOW_", 0) == 0 && name.size() <= 64;
        for (char c : name) ok = ok && (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
        if (!ok) throw InputError(source, 0, at, "'" + name + "' is not a SPIDERFLOW_* variable name");
        if (!it.value().is_string()) throw InputError(source, 0, at + "." + name, "expected a string");
        const std::string v = it.value().get<std::string>();
        if (v.find_first_of(std::string("\n\0", 2)) != std::string::npos) throw InputError(source, 0, at + "." + name, "holds a line break");
        bytes += name.size() + v.size();
        if (bytes > (64u << 10)) throw InputError(source, 0, at, "larger than 64 KiB");
        out.emplace_back(name, v);
    }
    return out;
}

void put_step_env(ordered_json& j, const std::vector<std::pair<std::string, std::string>>& env) {
    if (env.empty()) return;
    ordered_json e = ordered_json::object();
    for (const auto& [k, v] : env) e[k] = v;
    j["step_env"] = e;
}

// A host name or IP address for MASTER_ADDR: what resolvers and sockets take, nothing else.
std::string get_address(const json& obj, const std::string& source, const std::string& path) {
    const std::string s = get_str(obj, "address", source, path);
    bool ok = !s.empty() && s.size() <= 253 && s[0] != '-';
    for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '_');
    if (!ok) throw InputError(source, 0, jsonread::join(path, "address"), "'" + s + "' is not a host name or IP address");
    return s;
}

PartSpec get_spec(const json& p, const std::string& source, const std::string& path) {
    PartSpec s;
    s.cluster = get_name(p, "cluster", source, path);
    s.nodes = get_count(p, "nodes", source, path, 1, 100000);
    s.gpus_per_node = get_count(p, "gpus_per_node", source, path, 0, 1024);
    s.ranks = get_count(p, "ranks", source, path, 1, 10000000);
    return s;
}

void put_spec(ordered_json& o, const PartSpec& s) {
    o["cluster"] = s.cluster;
    o["nodes"] = s.nodes;
    o["gpus_per_node"] = s.gpus_per_node;
    o["ranks"] = s.ranks;
}

const json& get_array(const json& obj, const char* key, const std::string& source, const std::string& path) {
    const json& a = member(obj, key, source, path);
    if (!a.is_array()) throw InputError(source, 0, jsonread::join(path, key), "expected an array");
    return a;
}

void get_extras(const json& j, const std::string& source, XJob* job) {
    job->home_job = static_cast<uint32_t>(j.contains("home_job") ? get_i64(j, "home_job", source, "", 1, UINT32_MAX - 1) : 0);
    job->step_env = get_step_env(j, source, "");
    job->one_task_per_node = opt_bool(j, "one_task_per_node", source, "");
}

}  // namespace

ordered_json xjob_request_to_json(const XJob& job) {
    ordered_json j;
    j["id"] = job.id;
    j["user"] = job.user;
    j["account"] = job.account;
    j["time_limit_s"] = job.time_limit_s;
    j["script"] = job.script;
    if (job.home_job != 0) j["home_job"] = job.home_job;
    put_step_env(j, job.step_env);
    if (job.one_task_per_node) j["one_task_per_node"] = true;
    j["parts"] = ordered_json::array();
    for (const Part& p : job.parts) {
        ordered_json o;
        put_spec(o, p.spec);
        j["parts"].push_back(o);
    }
    return j;
}

XJob xjob_request_from_json(const json& j, const std::string& source) {
    jsonread::require_object(j, source, "");
    jsonread::only_keys(j, {"id", "user", "account", "time_limit_s", "script", "home_job", "step_env", "one_task_per_node", "parts"},
                        source, "");
    XJob job;
    job.id = get_name(j, "id", source, "");
    job.user = get_name(j, "user", source, "");
    job.account = get_name(j, "account", source, "", true);
    job.time_limit_s = get_i64(j, "time_limit_s", source, "", 1, 366LL * 24 * 3600);
    job.script = get_script(j, source, "");
    get_extras(j, source, &job);
    const json& parts = get_array(j, "parts", source, "");
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string path = "parts[" + std::to_string(i) + "]";
        jsonread::require_object(parts[i], source, path);
        jsonread::only_keys(parts[i], {"cluster", "nodes", "gpus_per_node", "ranks"}, source, path);
        job.parts.push_back(Part{get_spec(parts[i], source, path)});
    }
    return job;
}

ordered_json xjob_to_json(const XJob& job, bool with_script) {
    ordered_json j = xjob_request_to_json(job);
    if (!with_script) j.erase("script");
    j["seq"] = job.seq;
    j["home"] = job.home;
    j["state"] = state_name(job.state);
    j["attempt"] = job.attempt;
    j["requeues"] = job.requeues;
    j["submitted_at"] = job.submitted_at;
    j["seeking_since"] = job.seeking_since;
    j["not_before"] = job.not_before;
    j["start_at"] = job.start_at;
    j["state_since"] = job.state_since;
    j["reason"] = job.reason;
    j["setback"] = job.setback;
    j["requeue"] = job.requeue;
    j["world_size"] = world_size(job);
    j["master_port"] = job.master_port;
    j["rendezvous"] = rendezvous(job);
    for (size_t k = 0; k < job.parts.size(); ++k) {
        const Part& p = job.parts[k];
        ordered_json& o = j["parts"][k];
        o["first_rank"] = first_rank(job, k);
        o["offer"] = p.offer;
        o["reservation"] = p.reservation;
        o["node_list"] = p.nodes;
        if (!p.address.empty()) o["address"] = p.address;
        o["to_release"] = p.to_release;
        o["job_id"] = p.job_id;
        o["running"] = p.running;
        o["ended"] = p.ended;
        o["abandoned"] = p.abandoned;
        o["end_reason"] = p.end_reason;
    }
    j["events"] = ordered_json::array();
    for (const Event& e : job.events) j["events"].push_back({{"at", e.at}, {"text", e.text}});
    return j;
}

XJob xjob_from_json(const json& j, const std::string& source) {
    jsonread::require_object(j, source, "");
    jsonread::only_keys(j,
                        {"id", "user", "account", "time_limit_s", "script", "home_job", "step_env", "one_task_per_node", "parts", "seq", "home", "state", "attempt", "requeues",
                         "submitted_at", "seeking_since", "not_before", "start_at", "state_since", "reason", "setback", "requeue", "world_size", "master_port", "rendezvous",
                         "events"},
                        source, "");
    XJob job;
    job.id = get_name(j, "id", source, "");
    job.user = get_name(j, "user", source, "");
    job.account = get_name(j, "account", source, "", true);
    job.time_limit_s = get_i64(j, "time_limit_s", source, "", 1);
    job.script = get_script(j, source, "");
    get_extras(j, source, &job);
    job.seq = static_cast<uint64_t>(get_i64(j, "seq", source, ""));
    job.home = get_name(j, "home", source, "");
    if (!state_from_name(get_str(j, "state", source, ""), &job.state)) throw InputError(source, 0, "state", "unknown state");
    job.attempt = get_count(j, "attempt", source, "", 0, std::numeric_limits<int>::max());
    job.requeues = get_count(j, "requeues", source, "", 0, std::numeric_limits<int>::max());
    job.submitted_at = get_i64(j, "submitted_at", source, "");
    job.seeking_since = opt_i64(j, "seeking_since", source, "");
    job.not_before = get_i64(j, "not_before", source, "");
    job.start_at = get_i64(j, "start_at", source, "");
    job.state_since = get_i64(j, "state_since", source, "");
    job.reason = get_str(j, "reason", source, "");
    job.setback = opt_str(j, "setback", source, "");
    job.requeue = opt_bool(j, "requeue", source, "");
    job.master_port = j.contains("master_port") ? get_count(j, "master_port", source, "", 0, 65535) : 0;
    const json& parts = get_array(j, "parts", source, "");
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string path = "parts[" + std::to_string(i) + "]";
        const json& o = parts[i];
        jsonread::require_object(o, source, path);
        jsonread::only_keys(o,
                            {"cluster", "nodes", "gpus_per_node", "ranks", "first_rank", "offer", "reservation", "node_list",
                             "to_release", "job_id", "running", "ended", "abandoned", "end_reason", "address"},
                            source, path);
        Part p{get_spec(o, source, path)};
        p.offer = opt_i64(o, "offer", source, path);
        p.reservation = opt_str(o, "reservation", source, path);
        p.nodes = get_names(o, "node_list", source, path);
        p.address = o.contains("address") ? get_address(o, source, path) : std::string();
        p.to_release = get_names(o, "to_release", source, path);
        p.job_id = static_cast<uint32_t>(o.contains("job_id") ? get_i64(o, "job_id", source, path, 0, UINT32_MAX) : 0);
        p.running = opt_bool(o, "running", source, path);
        p.ended = opt_bool(o, "ended", source, path);
        p.abandoned = opt_bool(o, "abandoned", source, path);
        p.end_reason = opt_str(o, "end_reason", source, path);
        job.parts.push_back(std::move(p));
    }
    if (j.contains("events")) {
        const json& events = get_array(j, "events", source, "");
        for (size_t i = 0; i < events.size(); ++i) {
            const std::string path = "events[" + std::to_string(i) + "]";
            jsonread::require_object(events[i], source, path);
            jsonread::only_keys(events[i], {"at", "text"}, source, path);
            job.events.push_back({get_i64(events[i], "at", source, path), get_str(events[i], "text", source, path)});
        }
    }
    return job;
}

ordered_json order_to_json(const Order& o) {
    ordered_json j;
    j["order"] = order_name(o.kind);
    j["xjob"] = o.xjob;
    j["part"] = o.part;
    j["attempt"] = o.attempt;
    j["user"] = o.user;
    j["account"] = o.account;
    j["nodes"] = o.nodes;
    j["gpus_per_node"] = o.gpus_per_node;
    switch (o.kind) {
    case OrderKind::WillRun:
        j["not_before"] = o.not_before;
        j["duration_s"] = o.duration_s;
        break;
    case OrderKind::Reserve:
        j["start_at"] = o.start_at;
        j["duration_s"] = o.duration_s;
        j["reservation"] = o.reservation;
        break;
    case OrderKind::Release:
        j["reservation"] = o.reservation;
        break;
    case OrderKind::Submit:
        j["start_at"] = o.start_at;
        j["duration_s"] = o.duration_s;
        j["reservation"] = o.reservation;
        j["job_name"] = o.job_name;
        j["script"] = o.script;
        j["world_size"] = o.world_size;
        j["first_rank"] = o.first_rank;
        j["master_node"] = o.master_node;
        j["master_port"] = o.master_port;
        if (o.held_job != 0) j["held_job"] = o.held_job;
        put_step_env(j, o.step_env);
        if (o.one_task_per_node) j["one_task_per_node"] = true;
        break;
    case OrderKind::Cancel:
        j["job_id"] = o.job_id;
        j["reason"] = o.reason;
        break;
    }
    return j;
}

Order order_from_json(const json& j, const std::string& source, const std::string& path) {
    jsonread::require_object(j, source, path);
    jsonread::only_keys(j,
                        {"order", "xjob", "part", "attempt", "user", "account", "nodes", "gpus_per_node", "not_before",
                         "duration_s", "start_at", "reservation", "job_name", "script", "world_size", "first_rank", "master_node",
                         "master_port", "job_id", "reason", "held_job", "step_env", "one_task_per_node"},
                        source, path);
    Order o;
    const std::string kind = get_str(j, "order", source, path);
    bool known = false;
    for (OrderKind k : {OrderKind::WillRun, OrderKind::Reserve, OrderKind::Release, OrderKind::Submit, OrderKind::Cancel}) {
        if (kind == order_name(k)) o.kind = k, known = true;
    }
    if (!known) throw InputError(source, 0, jsonread::join(path, "order"), "unknown order '" + kind + "'");
    o.xjob = get_name(j, "xjob", source, path);
    o.part = static_cast<size_t>(get_i64(j, "part", source, path, 0, 100000));
    o.attempt = get_count(j, "attempt", source, path, 0, std::numeric_limits<int>::max());
    o.user = get_name(j, "user", source, path);
    o.account = get_name(j, "account", source, path, true);
    o.nodes = get_count(j, "nodes", source, path, 1, 100000);
    o.gpus_per_node = get_count(j, "gpus_per_node", source, path, 0, 1024);
    o.not_before = opt_i64(j, "not_before", source, path);
    o.duration_s = opt_i64(j, "duration_s", source, path);
    o.start_at = opt_i64(j, "start_at", source, path);
    o.reservation = j.contains("reservation") ? get_name(j, "reservation", source, path) : std::string();
    o.job_name = j.contains("job_name") ? get_name(j, "job_name", source, path) : std::string();
    o.script = j.contains("script") ? get_script(j, source, path) : std::string();
    o.world_size = j.contains("world_size") ? get_count(j, "world_size", source, path, 1, 10000000) : 0;
    o.first_rank = j.contains("first_rank") ? get_count(j, "first_rank", source, path, 0, 10000000) : 0;
    o.master_node = j.contains("master_node") ? get_name(j, "master_node", source, path, true) : std::string();
    o.master_port = j.contains("master_port") ? get_count(j, "master_port", source, path, 0, 65535) : 0;
    o.job_id = static_cast<uint32_t>(j.contains("job_id") ? get_i64(j, "job_id", source, path, 0, UINT32_MAX) : 0);
    o.reason = opt_str(j, "reason", source, path);
    o.held_job = static_cast<uint32_t>(j.contains("held_job") ? get_i64(j, "held_job", source, path, 1, UINT32_MAX - 1) : 0);
    o.step_env = get_step_env(j, source, path);
    o.one_task_per_node = opt_bool(j, "one_task_per_node", source, path);
    return o;
}

ordered_json report_to_json(const Report& r) {
    ordered_json j;
    j["report"] = report_name(r.kind);
    j["xjob"] = r.xjob;
    j["part"] = r.part;
    j["attempt"] = r.attempt;
    switch (r.kind) {
    case ReportKind::Offer:
        j["earliest_start"] = r.earliest_start;
        break;
    case ReportKind::Reserved:
        j["reservation"] = r.reservation;
        j["node_list"] = r.nodes;
        if (!r.address.empty()) j["address"] = r.address;
        break;
    case ReportKind::ReserveFailed:
        j["reservation"] = r.reservation;
        j["reason"] = r.reason;
        break;
    case ReportKind::Released:
        j["reservation"] = r.reservation;
        break;
    case ReportKind::Submitted:
    case ReportKind::Running:
        j["job_id"] = r.job_id;
        break;
    case ReportKind::Ended:
        j["job_id"] = r.job_id;
        j["completed"] = r.completed;
        j["reason"] = r.reason;
        break;
    case ReportKind::Refused:
        j["reason"] = r.reason;
        break;
    }
    return j;
}

Report report_from_json(const json& j, const std::string& source, const std::string& path) {
    jsonread::require_object(j, source, path);
    jsonread::only_keys(j,
                        {"report", "xjob", "part", "attempt", "earliest_start", "reservation", "node_list", "address", "job_id",
                         "completed", "reason"},
                        source, path);
    Report r;
    const std::string kind = get_str(j, "report", source, path);
    if (!report_from_name(kind, &r.kind)) {
        throw InputError(source, 0, jsonread::join(path, "report"), "unknown report '" + kind + "'");
    }
    r.xjob = get_name(j, "xjob", source, path);
    r.part = static_cast<size_t>(get_i64(j, "part", source, path, 0, 100000));
    r.attempt = get_count(j, "attempt", source, path, 0, std::numeric_limits<int>::max());
    switch (r.kind) {
    case ReportKind::Offer:
        r.earliest_start = get_i64(j, "earliest_start", source, path, 1);
        break;
    case ReportKind::Reserved:
    case ReportKind::Released:
        r.reservation = get_name(j, "reservation", source, path);
        break;
    case ReportKind::Submitted:
    case ReportKind::Running:
        r.job_id = static_cast<uint32_t>(get_i64(j, "job_id", source, path, 1, UINT32_MAX));
        break;
    default:
        break;
    }
    if (r.kind == ReportKind::ReserveFailed && j.contains("reservation")) r.reservation = get_name(j, "reservation", source, path);
    if (r.kind == ReportKind::Ended && j.contains("job_id")) {
        r.job_id = static_cast<uint32_t>(get_i64(j, "job_id", source, path, 0, UINT32_MAX));
    }
    r.nodes = get_names(j, "node_list", source, path);
    r.address = j.contains("address") ? get_address(j, source, path) : std::string();
    r.completed = opt_bool(j, "completed", source, path);
    r.reason = opt_str(j, "reason", source, path);
    if (r.reason.size() > 4096) r.reason.resize(4096);
    return r;
}

}  // namespace spiderflow::coalloc
