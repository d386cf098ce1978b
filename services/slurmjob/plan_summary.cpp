#include "services/slurmjob/plan_summary.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "common/plan/plan.h"
#include "common/util/parse_number.h"
#include "services/launch/launch_contract.h"

namespace spiderflow::slurmjob {
namespace {

constexpr const char* kPrefix = "spiderflow plan ";

// The summary's counts and ports: 0 .. 1e8.
bool read_count(const std::string& s, int* out) {
    const auto v = to_int(s, 0, 100000000);
    if (v) *out = *v;
    return v.has_value();
}

std::string format_parts(const std::vector<SummaryPart>& parts) {
    std::string out;
    for (const SummaryPart& p : parts) {
        out += (out.empty() ? "" : ",") + p.cluster + ":" + std::to_string(p.nodes) + "x" + std::to_string(p.gpus_per_node) +
               ":" + std::to_string(p.ranks);
    }
    return out;
}

bool parse_parts(const std::string& text, std::vector<SummaryPart>* out) {
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const auto c1 = item.find(':'), x = item.find('x', c1 == std::string::npos ? 0 : c1), c2 = item.rfind(':');
        if (c1 == std::string::npos || x == std::string::npos || c2 == c1 || c1 == 0) return false;
        SummaryPart p;
        p.cluster = item.substr(0, c1);
        if (!read_count(item.substr(c1 + 1, x - c1 - 1), &p.nodes) || !read_count(item.substr(x + 1, c2 - x - 1), &p.gpus_per_node) ||
            !read_count(item.substr(c2 + 1), &p.ranks) || p.nodes == 0 || p.ranks == 0) {
            return false;
        }
        out->push_back(p);
    }
    return true;
}

}  // namespace

std::string format_rendezvous(const std::string& xjob, int part, int rank_base, int world, const std::string& master_addr,
                              int master_port) {
    return " xjob=" + xjob + " xpart=" + std::to_string(part) + " rank_base=" + std::to_string(rank_base) + " world=" +
           std::to_string(world) + " master=" + master_addr + ":" + std::to_string(master_port);
}

PlanSummary plan_summary_of(const Plan& plan, int nodes, int gpus_per_node, const std::string& carried_plan) {
    PlanSummary s;
    s.model = plan.job.model.name;
    s.tp = plan.tp;
    s.pp = plan.pp;
    s.dp = plan.dp;
    s.micro_batch = plan.micro_batch;
    s.nodes = nodes;
    s.gpus_per_node = gpus_per_node;
    s.iteration_s = plan.prediction.iteration_s;
    if (carried_plan.size() <= kMaxSummaryPlanBytes) s.plan_data = carried_plan;
    return s;
}

std::string format_plan_summary(const PlanSummary& s) {
    char iter[64];
    std::snprintf(iter, sizeof iter, "%.3g", s.iteration_s);
    return kPrefix + std::string("model=") + s.model + " tp=" + std::to_string(s.tp) + " pp=" + std::to_string(s.pp) +
           " dp=" + std::to_string(s.dp) + " mb=" + std::to_string(s.micro_batch) + " nodes=" + std::to_string(s.nodes) +
           "x" + std::to_string(s.gpus_per_node) + " iter_s=" + iter +
           (s.parts.empty() ? "" : " xparts=" + format_parts(s.parts)) +
           (s.clusters.empty() ? "" : " clusters=" + s.clusters) + (s.wan_rtt_ms.empty() ? "" : " wan_rtt_ms=" + s.wan_rtt_ms) +
           (s.wan_gbps.empty() ? "" : " wan_gbps=" + s.wan_gbps) +
           (s.failure_requeues == 0 ? "" : " requeues=" + std::to_string(s.failure_requeues)) +
           (s.replan_any ? " replan=any" : "") + (s.plan_data.empty() ? "" : " plan=" + s.plan_data) +
           (s.xjob.empty() ? "" : format_rendezvous(s.xjob, s.xjob_part, s.rank_base, s.world, s.master_addr, s.master_port));
}

bool parse_plan_summary(const std::string& text, PlanSummary* out) {
    if (text.compare(0, std::string(kPrefix).size(), kPrefix) != 0) return false;
    std::map<std::string, std::string> kv;
    std::istringstream in(text.substr(std::string(kPrefix).size()));
    for (std::string word; in >> word;) {
        const auto eq = word.find('=');
        if (eq == std::string::npos) return false;
        kv[word.substr(0, eq)] = word.substr(eq + 1);
    }
    PlanSummary s;
    s.model = kv["model"];
    const std::string nodes = kv["nodes"];
    const auto x = nodes.find('x');
    if (s.model.empty() || x == std::string::npos || !read_count(kv["tp"], &s.tp) || !read_count(kv["pp"], &s.pp) ||
        !read_count(kv["dp"], &s.dp) || !read_count(kv["mb"], &s.micro_batch) || !read_count(nodes.substr(0, x), &s.nodes) ||
        !read_count(nodes.substr(x + 1), &s.gpus_per_node) || s.tp == 0 || s.pp == 0 || s.dp == 0) {
        return false;
    }
    s.iteration_s = to_number(kv["iter_s"]).value_or(0);
    s.plan_data = kv["plan"];
    if (kv.count("xparts") != 0 && !parse_parts(kv["xparts"], &s.parts)) return false;
    s.clusters = kv["clusters"];
    s.wan_rtt_ms = kv["wan_rtt_ms"];
    s.wan_gbps = kv["wan_gbps"];
    if (kv.count("requeues") != 0 && !read_count(kv["requeues"], &s.failure_requeues)) return false;
    s.replan_any = kv["replan"] == "any";
    if (kv.count("xjob") != 0) {
        const std::string master = kv["master"];
        const auto colon = master.rfind(':');
        s.xjob = kv["xjob"];
        if (s.xjob.empty() || colon == std::string::npos || colon == 0 || !read_count(kv["xpart"], &s.xjob_part) ||
            !read_count(kv["rank_base"], &s.rank_base) || !read_count(kv["world"], &s.world) ||
            !read_count(master.substr(colon + 1), &s.master_port) || s.world == 0) {
            return false;
        }
        s.master_addr = master.substr(0, colon);
    }
    *out = s;
    return true;
}

std::vector<std::pair<std::string, std::string>> summary_step_env(const PlanSummary& s) {
    std::vector<std::pair<std::string, std::string>> env = {
        {env::kTp, std::to_string(s.tp)},
        {env::kPp, std::to_string(s.pp)},
        {env::kDp, std::to_string(s.dp)},
        {env::kMicroBatch, std::to_string(s.micro_batch)},
    };
    if (!s.plan_data.empty()) env.push_back({env::kPlanData, s.plan_data});
    if (!s.clusters.empty()) env.push_back({env::kClusters, s.clusters});
    if (!s.wan_rtt_ms.empty()) env.push_back({env::kWanRttMs, s.wan_rtt_ms});
    if (!s.wan_gbps.empty()) env.push_back({env::kWanGbps, s.wan_gbps});
    if (!s.xjob.empty()) {
        env.push_back({env::kXJob, s.xjob});
        env.push_back({env::kXJobPart, std::to_string(s.xjob_part)});
        env.push_back({env::kRankBase, std::to_string(s.rank_base)});
        env.push_back({env::kWorldSize, std::to_string(s.world)});
        env.push_back({env::kMasterAddr, s.master_addr});
        env.push_back({env::kMasterPort, std::to_string(s.master_port)});
        // Only the first run releases the held home job; later runs' parts are submitted anew.
        env.push_back({env::kAttempt, "1"});
    }
    return env;
}

}  // namespace spiderflow::slurmjob
