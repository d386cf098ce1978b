#include "services/coalloc/xjob_json.h"

#include <algorithm>

#include <cctype>
#include <limits>

#include "common/util/json_read.h"

namespace spiderflow::coalloc {
namespace {

using jsonread::Object;
using nlohmann::json;
using nlohmann::ordered_json;
using jsonread::kI64Max;
using jsonread::kIntMax;

// A list of node or reservation names; absent is empty.
std::vector<std::string> get_names(const Object& o, const char* key) {
    return o.has(key) ? o.strings(key) : std::vector<std::string>();
}

// A cluster, user or account name as it travels: a Slurm name, never a path or an option.
std::string get_name(const Object& o, const char* key, bool allow_empty = false) {
    const std::string s = o.has(key) || !allow_empty ? o.string(key) : std::string();
    if (s.empty() && allow_empty) return s;
    if (s.empty() || s.size() > 128) o.fail_at(key, "expected a name of 1 to 128 characters");
    for (char c : s) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
        if (!ok) o.fail_at(key, "'" + s + "' holds a character a Slurm name does not");
    }
    return s;
}

// A batch script's text: Slurm wants "#!" first; 1 MiB is far beyond any training launcher.
std::string get_script(const Object& o) {
    const std::string s = o.string("script");
    if (s.rfind("#!", 0) != 0) o.fail_at("script", "a batch script starts with #! (its interpreter)");
    if (s.size() > (1u << 20)) o.fail_at("script", "longer than 1 MiB");
    return s;
}

// The plan's settings for the parts' steps: SPIDERFLOW_* names only (the broker never sets
// anything else in a job's environment), values on one line, 64 KiB in all.
std::vector<std::pair<std::string, std::string>> get_step_env(const Object& o) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!o.has("step_env")) return out;
    const Object e = o.object("step_env");
    size_t bytes = 0;
    for (auto it = e.value().begin(); it != e.value().end(); ++it) {
        const std::string& name = it.key();
        bool ok = name.rfind("SPIDERFLOW_", 0) == 0 && name.size() <= 64;
        for (char c : name) ok = ok && (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
        if (!ok) e.fail("'" + name + "' is not a SPIDERFLOW_* variable name");
        const std::string v = e.string(name.c_str());
        if (v.find_first_of(std::string("\n\0", 2)) != std::string::npos) e.fail_at(name.c_str(), "holds a line break");
        bytes += name.size() + v.size();
        if (bytes > (64u << 10)) e.fail("larger than 64 KiB");
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
std::string get_address(const Object& o) {
    const std::string s = o.string("address");
    bool ok = !s.empty() && s.size() <= 253 && s[0] != '-';
    for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '_');
    if (!ok) o.fail_at("address", "'" + s + "' is not a host name or IP address");
    return s;
}

PartSpec get_spec(const Object& p) {
    PartSpec s;
    s.cluster = get_name(p, "cluster");
    s.nodes = p.integer("nodes", 1, 100000);
    s.gpus_per_node = p.integer("gpus_per_node", 0, 1024);
    s.ranks = p.integer("ranks", 1, 10000000);
    return s;
}

void put_spec(ordered_json& o, const PartSpec& s) {
    o["cluster"] = s.cluster;
    o["nodes"] = s.nodes;
    o["gpus_per_node"] = s.gpus_per_node;
    o["ranks"] = s.ranks;
}

void get_extras(const Object& j, XJob* job) {
    job->home_job = static_cast<uint32_t>(j.i64_or("home_job", 0, 1, UINT32_MAX - 1));
    job->step_env = get_step_env(j);
    job->one_task_per_node = j.boolean_or("one_task_per_node", false);
    if (j.has("on_failure")) {
        const Object f = j.object("on_failure", {"requeues", "replan"});
        job->on_failure.requeues = f.integer_or("requeues", 0, 0, 100);
        const std::string replan = f.string_or("replan", "keep");
        if (replan != "keep" && replan != "any") f.fail_at("replan", "expected keep or any, got '" + replan + "'");
        job->on_failure.any_layout = replan == "any";
    }
}

void put_on_failure(ordered_json& j, const FailurePolicy& f) {
    if (f.requeues == 0 && !f.any_layout) return;
    j["on_failure"] = {{"requeues", f.requeues}, {"replan", f.any_layout ? "any" : "keep"}};
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
    put_on_failure(j, job.on_failure);
    j["parts"] = ordered_json::array();
    for (const Part& p : job.parts) {
        ordered_json o;
        put_spec(o, p.spec);
        j["parts"].push_back(o);
    }
    return j;
}

XJob xjob_request_from_json(const json& doc, const std::string& source) {
    const Object j(doc, source, "",
                   {"id", "user", "account", "time_limit_s", "script", "home_job", "step_env", "one_task_per_node", "on_failure",
                    "parts"});
    XJob job;
    job.id = get_name(j, "id");
    job.user = get_name(j, "user");
    job.account = get_name(j, "account", true);
    job.time_limit_s = j.i64("time_limit_s", 1, 366LL * 24 * 3600);
    job.script = get_script(j);
    get_extras(j, &job);
    for (const Object& p : j.objects("parts", {"cluster", "nodes", "gpus_per_node", "ranks"})) job.parts.push_back(Part{get_spec(p)});
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
    j["run"] = run_number(job);
    j["failure_requeues"] = job.failure_requeues;
    j["lost_clusters"] = job.lost_clusters;
    j["lost_nodes"] = job.lost_nodes;
    j["replan_at"] = job.replan_at;
    j["runs"] = ordered_json::array();
    for (const Run& r : job.runs) {
        j["runs"].push_back({{"number", r.number}, {"layout", r.layout}, {"placement", r.placement},
                             {"started_at", r.started_at}, {"ended_at", r.ended_at}, {"end", r.end}});
    }
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
        if (p.completed_at != 0) o["completed_at"] = p.completed_at;
    }
    if (!job.retired.empty()) {
        j["retired"] = ordered_json::array();
        for (const Part& p : job.retired) {
            ordered_json o;
            put_spec(o, p.spec);
            o["job_id"] = p.job_id;
            o["ended"] = p.ended;
            o["to_release"] = p.to_release;
            j["retired"].push_back(o);
        }
    }
    j["events"] = ordered_json::array();
    for (const Event& e : job.events) j["events"].push_back({{"at", e.at}, {"text", e.text}});
    return j;
}

XJob xjob_from_json(const json& doc, const std::string& source, bool with_script) {
    const Object j(doc, source, "",
                   {"id", "user", "account", "time_limit_s", "script", "home_job", "step_env", "one_task_per_node", "on_failure", "parts", "seq", "home", "state", "attempt", "requeues",
                    "failure_requeues", "lost_clusters", "lost_nodes", "replan_at", "runs", "run", "retired",
                    "submitted_at", "seeking_since", "not_before", "start_at", "state_since", "reason", "setback", "requeue", "world_size", "master_port", "rendezvous",
                    "events"});
    XJob job;
    job.id = get_name(j, "id");
    job.user = get_name(j, "user");
    job.account = get_name(j, "account", true);
    job.time_limit_s = j.i64("time_limit_s", 1, kI64Max);
    job.script = with_script || j.has("script") ? get_script(j) : std::string();
    get_extras(j, &job);
    job.seq = static_cast<uint64_t>(j.i64("seq", 0, kI64Max));
    job.home = get_name(j, "home");
    if (!state_from_name(j.string("state"), &job.state)) j.fail_at("state", "unknown state");
    job.attempt = j.integer("attempt", 0, kIntMax);
    job.requeues = j.integer("requeues", 0, kIntMax);
    job.submitted_at = j.i64("submitted_at", 0, kI64Max);
    job.seeking_since = j.i64_or("seeking_since", 0, 0, kI64Max);
    job.not_before = j.i64("not_before", 0, kI64Max);
    job.start_at = j.i64("start_at", 0, kI64Max);
    job.state_since = j.i64("state_since", 0, kI64Max);
    job.reason = j.string("reason");
    job.setback = j.string_or("setback", "");
    job.requeue = j.boolean_or("requeue", false);
    job.failure_requeues = j.integer_or("failure_requeues", 0, 0, kIntMax);
    job.lost_clusters = get_names(j, "lost_clusters");
    job.lost_nodes = get_names(j, "lost_nodes");
    job.replan_at = j.i64_or("replan_at", 0, 0, kI64Max);
    if (j.has("runs")) {
        for (const Object& r : j.objects("runs", {"number", "layout", "placement", "started_at", "ended_at", "end"})) {
            job.runs.push_back({r.integer("number", 1, kIntMax), r.string("layout"), r.string("placement"),
                                r.i64("started_at", 0, kI64Max), r.i64("ended_at", 0, kI64Max), r.string("end")});
        }
    }
    job.master_port = j.integer_or("master_port", 0, 0, 65535);
    const std::vector<Object> parts =
        j.objects("parts", {"cluster", "nodes", "gpus_per_node", "ranks", "first_rank", "offer", "reservation", "node_list",
                            "to_release", "job_id", "running", "ended", "abandoned", "end_reason", "address",
                            "completed_at"});
    for (const Object& o : parts) {
        Part p{get_spec(o)};
        p.offer = o.i64_or("offer", 0, 0, kI64Max);
        p.reservation = o.string_or("reservation", "");
        p.nodes = get_names(o, "node_list");
        p.address = o.has("address") ? get_address(o) : std::string();
        p.to_release = get_names(o, "to_release");
        p.job_id = static_cast<uint32_t>(o.i64_or("job_id", 0, 0, UINT32_MAX));
        p.running = o.boolean_or("running", false);
        p.ended = o.boolean_or("ended", false);
        p.abandoned = o.boolean_or("abandoned", false);
        p.end_reason = o.string_or("end_reason", "");
        p.completed_at = o.i64_or("completed_at", 0, 0, kI64Max);
        job.parts.push_back(std::move(p));
    }
    if (j.has("retired")) {
        for (const Object& o : j.objects("retired", {"cluster", "nodes", "gpus_per_node", "ranks", "job_id", "ended", "to_release"})) {
            Part p{get_spec(o)};
            p.job_id = static_cast<uint32_t>(o.i64_or("job_id", 0, 0, UINT32_MAX));
            p.ended = o.boolean_or("ended", false);
            p.to_release = get_names(o, "to_release");
            job.retired.push_back(std::move(p));
        }
    }
    if (j.has("events")) {
        for (const Object& e : j.objects("events", {"at", "text"})) job.events.push_back({e.i64("at", 0, kI64Max), e.string("text")});
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

Order order_from_json(const json& doc, const std::string& source, const std::string& path) {
    const Object j(doc, source, path,
                   {"order", "xjob", "part", "attempt", "user", "account", "nodes", "gpus_per_node", "not_before",
                    "duration_s", "start_at", "reservation", "job_name", "script", "world_size", "first_rank", "master_node",
                    "master_port", "job_id", "reason", "held_job", "step_env", "one_task_per_node"});
    Order o;
    const std::string kind = j.string("order");
    if (!order_from_name(kind, &o.kind)) j.fail_at("order", "unknown order '" + kind + "'");
    o.xjob = get_name(j, "xjob");
    o.part = static_cast<size_t>(j.i64("part", 0, 100000));
    o.attempt = j.integer("attempt", 0, kIntMax);
    o.user = get_name(j, "user");
    o.account = get_name(j, "account", true);
    o.nodes = j.integer("nodes", 1, 100000);
    o.gpus_per_node = j.integer("gpus_per_node", 0, 1024);
    o.not_before = j.i64_or("not_before", 0, 0, kI64Max);
    o.duration_s = j.i64_or("duration_s", 0, 0, kI64Max);
    o.start_at = j.i64_or("start_at", 0, 0, kI64Max);
    o.reservation = j.has("reservation") ? get_name(j, "reservation") : std::string();
    o.job_name = j.has("job_name") ? get_name(j, "job_name") : std::string();
    o.script = j.has("script") ? get_script(j) : std::string();
    o.world_size = j.integer_or("world_size", 0, 1, 10000000);
    o.first_rank = j.integer_or("first_rank", 0, 0, 10000000);
    o.master_node = j.has("master_node") ? get_name(j, "master_node", true) : std::string();
    o.master_port = j.integer_or("master_port", 0, 0, 65535);
    o.job_id = static_cast<uint32_t>(j.i64_or("job_id", 0, 0, UINT32_MAX));
    o.reason = j.string_or("reason", "");
    o.held_job = static_cast<uint32_t>(j.i64_or("held_job", 0, 1, UINT32_MAX - 1));
    o.step_env = get_step_env(j);
    o.one_task_per_node = j.boolean_or("one_task_per_node", false);
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
        if (r.still_running) j["still_running"] = true;  // only when set: older brokers read the rest
        if (!r.lost_nodes.empty()) j["lost_nodes"] = r.lost_nodes;
        break;
    case ReportKind::Refused:
        j["reason"] = r.reason;
        break;
    }
    return j;
}

Report report_from_json(const json& doc, const std::string& source, const std::string& path) {
    const Object j(doc, source, path,
                   {"report", "xjob", "part", "attempt", "earliest_start", "reservation", "node_list", "address", "job_id",
                    "completed", "still_running", "lost_nodes", "reason"});
    Report r;
    const std::string kind = j.string("report");
    if (!report_from_name(kind, &r.kind)) j.fail_at("report", "unknown report '" + kind + "'");
    r.xjob = get_name(j, "xjob");
    r.part = static_cast<size_t>(j.i64("part", 0, 100000));
    r.attempt = j.integer("attempt", 0, kIntMax);
    switch (r.kind) {
    case ReportKind::Offer:
        r.earliest_start = j.i64("earliest_start", 1, kI64Max);
        break;
    case ReportKind::Reserved:
    case ReportKind::Released:
        r.reservation = get_name(j, "reservation");
        break;
    case ReportKind::Submitted:
    case ReportKind::Running:
        r.job_id = static_cast<uint32_t>(j.i64("job_id", 1, UINT32_MAX));
        break;
    default:
        break;
    }
    if (r.kind == ReportKind::ReserveFailed && j.has("reservation")) r.reservation = get_name(j, "reservation");
    if (r.kind == ReportKind::Ended) r.job_id = static_cast<uint32_t>(j.i64_or("job_id", 0, 0, UINT32_MAX));
    r.nodes = get_names(j, "node_list");
    r.address = j.has("address") ? get_address(j) : std::string();
    r.completed = j.boolean_or("completed", false);
    r.still_running = j.boolean_or("still_running", false);
    r.lost_nodes = get_names(j, "lost_nodes");
    for (const std::string& n : r.lost_nodes) {
        const bool ok = !n.empty() && n.size() <= 128 && std::all_of(n.begin(), n.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
        if (!ok) j.fail_at("lost_nodes", "'" + n + "' is not a node name");
    }
    r.reason = j.string_or("reason", "");
    if (r.reason.size() > 4096) r.reason.resize(4096);
    return r;
}

}  // namespace spiderflow::coalloc
