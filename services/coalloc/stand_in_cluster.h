// A cluster that answers the co-allocator's orders at once, as an agent over an otherwise idle
// Slurm would: will-run from its book of reservations, a reservation when enough nodes are free
// for the whole time asked, a part running from its reservation's start. For the co-allocation
// bench and the unit tests, which have no Slurm; no daemon calls it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "services/coalloc/coallocator.h"

namespace spiderflow::coalloc {

class StandInCluster {
public:
    // `step_s`: how finely will-run looks for a start (Slurm's backfill looks minute by minute).
    StandInCluster(std::string name, int nodes, int64_t step_s = 60);

    // The report answering `order` at `now`; nothing while a submit waits for its start.
    std::optional<Report> answer(const Order& order, int64_t now, uint32_t job_id);
    // Ended (completed) for this cluster's parts of running jobs `work_s` after their start.
    std::vector<Report> parts_done(const std::map<std::string, XJob>& jobs, int64_t now, int64_t work_s) const;
    // Reservations past their end go away, as Slurm's do.
    void expire(int64_t now);

    const std::string& name() const { return name_; }

private:
    struct Reservation {
        int64_t start = 0, end = 0;
        int nodes = 0;
    };
    int busy(int64_t from, int64_t to, const std::string& except) const;
    int64_t earliest(int want, int64_t from, int64_t length) const;

    std::string name_;
    int nodes_;
    int64_t step_s_;
    std::map<std::string, Reservation> reserved_;
};

}  // namespace spiderflow::coalloc
