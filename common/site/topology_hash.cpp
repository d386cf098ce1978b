#include "common/site/topology_hash.h"

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace spiderflow {
namespace {

// FNV-1a: not cryptographic, and need not be; it only tells topologies apart.
struct Fnv {
    uint64_t h = 14695981039346656037ull;
    void bytes(std::string_view s) {
        for (const unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ull;
        }
    }
    // Each field ends with a separator that names cannot hold unnoticed ("ab","c" != "a","bc").
    void field(std::string_view s) {
        bytes(s);
        bytes(std::string_view("\0", 1));
    }
    void field(long v) { field(std::to_string(v)); }
};

}  // namespace

std::string topology_hash(const Topology& topology) {
    Fnv f;
    f.field(static_cast<long>(topology.clusters.size()));
    for (const Cluster& c : topology.clusters) {
        f.field(c.name);
        f.field(static_cast<long>(c.nodes.size()));
        for (const Node& n : c.nodes) {
            f.field(n.name);
            f.field(n.gpu_type);
            f.field(n.gpus);
            f.field(n.nvlink_domain_size);
        }
    }
    f.field(static_cast<long>(topology.links.size()));
    for (const Link& l : topology.links) {
        f.field(l.a);
        f.field(l.b);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(f.h));
    return buf;
}

}  // namespace spiderflow
