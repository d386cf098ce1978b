#include "common/site/site_delta.h"

#include <type_traits>

#include "common/site/site_json_fields.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow {

using sitejson::json;
using sitejson::ordered_json;

const char* delta_kind(const SiteDelta& delta) {
    return std::visit(
        [](const auto& d) -> const char* {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, NodeStateChanged>) return "node_state_changed";
            else if constexpr (std::is_same_v<T, JobAllocated>) return "job_allocated";
            else if constexpr (std::is_same_v<T, JobReleased>) return "job_released";
            else if constexpr (std::is_same_v<T, ReservationAdded>) return "reservation_added";
            else if constexpr (std::is_same_v<T, ReservationRemoved>) return "reservation_removed";
            else return "link_measured";
        },
        delta);
}

std::string delta_to_json(const SiteDelta& delta, int indent) {
    ordered_json o;
    o["delta"] = delta_kind(delta);
    std::visit(
        [&o](const auto& d) {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, NodeStateChanged>) sitejson::put_node_state(o, d);
            else if constexpr (std::is_same_v<T, JobAllocated>) sitejson::put_allocation(o, d.allocation);
            else if constexpr (std::is_same_v<T, JobReleased>) o["job"] = d.job;
            else if constexpr (std::is_same_v<T, ReservationAdded>) sitejson::put_reservation(o, d.reservation);
            else if constexpr (std::is_same_v<T, ReservationRemoved>) o["name"] = d.name;
            else sitejson::put_measurement(o, d.measurement);
        },
        delta);
    return o.dump(indent);
}

SiteDelta delta_from_json(const std::string& text, const std::string& source) {
    const json doc = jsonread::parse(text, source);
    const jsonread::Object o(doc, source, "");
    const std::string kind = o.string("delta");
    if (kind == "node_state_changed") {
        o.only({"delta", "cluster", "node", "state", "reason", "features"});
        return sitejson::get_node_state(o);
    }
    if (kind == "job_allocated") {
        o.only({"delta", "job", "start", "end", "nodes"});
        return JobAllocated{sitejson::get_allocation(o)};
    }
    if (kind == "job_released") {
        o.only({"delta", "job"});
        return JobReleased{o.name("job")};
    }
    if (kind == "reservation_added") {
        o.only({"delta", "name", "start", "end", "nodes"});
        return ReservationAdded{sitejson::get_reservation(o)};
    }
    if (kind == "reservation_removed") {
        o.only({"delta", "name"});
        return ReservationRemoved{o.name("name")};
    }
    if (kind == "link_measured") {
        o.only({"delta", "a", "b", "gbps", "latency_ms", "timestamp", "source"});
        return LinkMeasured{sitejson::get_measurement(o)};
    }
    o.fail_at("delta",
              "unknown delta '" + kind +
                         "' (known: node_state_changed, job_allocated, job_released, reservation_added, "
                         "reservation_removed, link_measured)");
}

}  // namespace spiderflow
