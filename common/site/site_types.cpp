#include "common/site/site_types.h"

#include <ctime>

#include "common/util/errors.h"

namespace spiderflow {

std::string time_text(SiteTime t) { return t == kForever ? "forever" : std::to_string(t); }

std::string when_text(SiteTime t) {
    if (t < 1000000000 || t == kForever) return time_text(t);
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

const char* to_string(NodeState s) {
    switch (s) {
        case NodeState::up: return "up";
        case NodeState::drained: return "drained";
        case NodeState::down: return "down";
    }
    return "?";
}

NodeState node_state_from_string(const std::string& s, const std::string& source, const std::string& field) {
    for (NodeState st : {NodeState::up, NodeState::drained, NodeState::down}) {
        if (s == to_string(st)) return st;
    }
    throw InputError(source, 0, field, "node state must be up, drained or down, not '" + s + "'");
}

namespace {
int sum_gpus(const std::vector<NodeShare>& nodes) {
    int sum = 0;
    for (const auto& n : nodes) sum += n.gpus;
    return sum;
}
}  // namespace

int JobAllocation::total_gpus() const { return sum_gpus(nodes); }
int Reservation::total_gpus() const { return sum_gpus(nodes); }

}  // namespace spiderflow
