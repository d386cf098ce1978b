#include "common/cost/wan_shares.h"

#include <algorithm>
#include <limits>

namespace spiderflow::cost {

WanShares::Pair& WanShares::slot(int a, int b, RouteKind route) {
    if (a > b) std::swap(a, b);
    for (Pair& p : pairs_)
        if (p.a == a && p.b == b && p.route == route) return p;
    pairs_.push_back({a, b, route, 0, topology_.route_links(a, b, route), 0.0});
    return pairs_.back();
}

void WanShares::add(int a, int b, RouteKind route) {
    ++slot(a, b, route).count;
    settled_ = false;
}

void WanShares::settle() {
    load_.assign(topology_.links.size(), 0);
    for (const Pair& p : pairs_)
        for (int l : p.links) load_[static_cast<size_t>(l)] += p.count;
    for (Pair& p : pairs_) {
        double share = p.links.empty() ? 0.0 : std::numeric_limits<double>::infinity();
        for (int l : p.links)
            share = std::min(share, topology_.links[static_cast<size_t>(l)].bandwidth_Bps /
                                        std::max(1, load_[static_cast<size_t>(l)]));
        p.share_Bps = share;
    }
    settled_ = true;
}

double WanShares::per_crossing_Bps(int a, int b, RouteKind route) {
    Pair& p = slot(a, b, route);
    if (p.count == 0) {
        // Never added: as if it were one more crossing on top of the others.
        ++p.count;
        settle();
        const double share = p.share_Bps;
        --p.count;
        settled_ = false;
        return share;
    }
    if (!settled_) settle();
    return p.share_Bps;
}

}  // namespace spiderflow::cost
