// hwloc XML of one node -> one-cluster, one-node Topology (see hwloc_reader.h).
#include "common/topology/hwloc_reader.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <tuple>
#include <type_traits>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/topology/gpu_alias.h"
#include "common/topology/readers.h"
#include "common/util/errors.h"
#include "common/util/text_file.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

constexpr unsigned kNvidia = 0x10de;

// Owns the hwloc topology so every exit path destroys it.
class HwlocTopology {
public:
    HwlocTopology() {
        if (hwloc_topology_init(&t_) < 0) t_ = nullptr;
    }
    ~HwlocTopology() {
        if (t_) hwloc_topology_destroy(t_);
    }
    HwlocTopology(const HwlocTopology&) = delete;
    HwlocTopology& operator=(const HwlocTopology&) = delete;
    hwloc_topology_t get() const { return t_; }

private:
    hwloc_topology_t t_ = nullptr;
};

bool starts_with(const char* s, const char* prefix) { return s && std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

hwloc_obj_t pci_parent(hwloc_obj_t obj) {
    for (hwloc_obj_t p = obj->parent; p; p = p->parent) {
        if (p->type == HWLOC_OBJ_PCI_DEVICE) return p;
        if (p->type != HWLOC_OBJ_OS_DEVICE) break;
    }
    return nullptr;
}

// hwloc 2.9 keeps an XML file's osdev_type as written, even a number outside its enum (found
// by fuzz_hwloc_xml): loading that as the enum is undefined, so read the stored integer.
int osdev_type(hwloc_obj_t os) {
    std::underlying_type_t<hwloc_obj_osdev_type_t> raw;
    static_assert(sizeof raw == sizeof os->attr->osdev.type);
    std::memcpy(&raw, &os->attr->osdev.type, sizeof raw);
    return static_cast<int>(raw);
}

// Root-first chain of ancestors, the object included.
std::vector<hwloc_obj_t> chain(hwloc_obj_t obj) {
    std::vector<hwloc_obj_t> out;
    for (hwloc_obj_t p = obj; p; p = p->parent) out.push_back(p);
    std::reverse(out.begin(), out.end());
    return out;
}

size_t common_depth(const std::vector<hwloc_obj_t>& a, const std::vector<hwloc_obj_t>& b) {
    size_t d = 0;
    while (d < a.size() && d < b.size() && a[d] == b[d]) ++d;
    return d;
}

int numa_of(hwloc_topology_t t, hwloc_obj_t obj) {
    hwloc_obj_t cpu_side = hwloc_get_non_io_ancestor_obj(t, obj);
    if (!cpu_side || !cpu_side->nodeset || hwloc_bitmap_weight(cpu_side->nodeset) != 1) return -1;
    return hwloc_bitmap_first(cpu_side->nodeset);
}

std::string info(hwloc_obj_t obj, const char* name) {
    const char* v = obj ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
    return v ? std::string(v) : std::string();
}

struct PciOrder {
    bool operator()(hwloc_obj_t a, hwloc_obj_t b) const {
        auto key = [](hwloc_obj_t o) {
            if (o->type != HWLOC_OBJ_PCI_DEVICE) return std::tuple<unsigned, unsigned, unsigned, unsigned, unsigned long long>(UINT_MAX, 0, 0, 0, o->gp_index);
            const auto& p = o->attr->pcidev;
            return std::tuple<unsigned, unsigned, unsigned, unsigned, unsigned long long>(p.domain, p.bus, p.dev, p.func, o->gp_index);
        };
        return key(a) < key(b);
    }
};

struct GpuFound {
    hwloc_obj_t anchor = nullptr;  // PCI device, or the OS device when it has none
    std::vector<hwloc_obj_t> osdevs;
};

struct NicFound {
    hwloc_obj_t anchor = nullptr;
    std::string rdma_name;  // OpenFabrics
    std::string net_name;   // Network
};

// hwloc 2.9's XML import can itself crash on malformed input (fuzz_hwloc_xml found a SEGV in
// hwloc_insert_object_by_parent from a one-byte mutation of a valid file). We cannot fix
// hwloc, so the XML is loaded once in a child process first: a crash there becomes an
// InputError instead of taking down the caller (the CLI, or a daemon reading a node's XML).
enum class TrialLoad { ok, failed, crashed, unavailable };

constexpr int kLoadFailed = 42;

TrialLoad load_in_child(const std::string& text) {
    const pid_t pid = fork();
    if (pid < 0) return TrialLoad::unavailable;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);  // the real load prints hwloc's messages
        hwloc_topology_t t;
        // 42, not 1: sanitizers report a crash with exit status 1.
        if (hwloc_topology_init(&t) < 0) _exit(kLoadFailed);
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
        if (hwloc_topology_set_xmlbuffer(t, text.c_str(), static_cast<int>(text.size()) + 1) < 0) _exit(kLoadFailed);
        _exit(hwloc_topology_load(t) < 0 ? kLoadFailed : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return TrialLoad::unavailable;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return TrialLoad::ok;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kLoadFailed) return TrialLoad::failed;
    return TrialLoad::crashed;  // a signal, or a sanitizer's exit status
}

bool is_nvidia_gpu_pci(hwloc_obj_t pci) {
    if (!pci || pci->type != HWLOC_OBJ_PCI_DEVICE) return false;
    const auto& p = pci->attr->pcidev;
    return p.vendor_id == kNvidia && (p.class_id == 0x0302 || p.class_id == 0x0300);
}

}  // namespace

Topology HwlocReader::read(const std::string& path) const {
    return parse(read_text_file(path), path);
}

Topology HwlocReader::parse(const std::string& text, const std::string& source) const {
    if (text.size() >= static_cast<size_t>(INT_MAX)) throw InputError(source, 0, "", "file too large for an hwloc XML topology");
    if (text.find('<') == std::string::npos) throw InputError(source, 0, "", "not an hwloc XML topology (no XML element)");
    if (load_in_child(text) == TrialLoad::crashed)
        throw InputError(source, 0, "", "malformed hwloc XML: the hwloc library crashed reading it; re-export it with `lstopo --of xml`");
    HwlocTopology topo;
    hwloc_topology_t t = topo.get();
    if (!t) throw std::runtime_error("spiderflow: hwloc_topology_init failed");
    // I/O devices are filtered out by default; GPUs and NICs are what we came for.
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_set_xmlbuffer(t, text.c_str(), static_cast<int>(text.size()) + 1) < 0)
        throw InputError(source, 0, "", "not an hwloc XML topology");
    if (hwloc_topology_load(t) < 0)
        throw InputError(source, 0, "", std::string("hwloc cannot load it as a topology (") + std::strerror(errno) +
                                            "); export it with `lstopo --of xml` from hwloc 2.x");

    // GPUs, keyed by their PCI device so "cuda0" and "nvml0" of one board count once.
    std::map<hwloc_obj_t, GpuFound, PciOrder> gpus;
    std::map<hwloc_obj_t, NicFound, PciOrder> nics;
    for (hwloc_obj_t os = hwloc_get_next_osdev(t, nullptr); os; os = hwloc_get_next_osdev(t, os)) {
        hwloc_obj_t pci = pci_parent(os);
        hwloc_obj_t anchor = pci ? pci : os;
        const int type = osdev_type(os);
        if (type == HWLOC_OBJ_OSDEV_GPU || type == HWLOC_OBJ_OSDEV_COPROC) {
            const bool nvidia = starts_with(os->name, "cuda") || starts_with(os->name, "nvml") ||
                                (pci && pci->attr->pcidev.vendor_id == kNvidia);
            if (!nvidia) continue;
            auto& g = gpus[anchor];
            g.anchor = anchor;
            g.osdevs.push_back(os);
        } else if (type == HWLOC_OBJ_OSDEV_OPENFABRICS || type == HWLOC_OBJ_OSDEV_NETWORK) {
            if (!os->name) continue;
            auto& n = nics[anchor];
            n.anchor = anchor;
            std::string& slot = type == HWLOC_OBJ_OSDEV_OPENFABRICS ? n.rdma_name : n.net_name;
            if (slot.empty()) slot = os->name;
        }
    }
    for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, nullptr); pci; pci = hwloc_get_next_pcidev(t, pci)) {
        if (is_nvidia_gpu_pci(pci) && !gpus.count(pci)) gpus[pci].anchor = pci;
    }

    hwloc_obj_t root = hwloc_get_root_obj(t);
    std::string host = info(root, "HostName");
    if (host.empty()) host = std::filesystem::path(source).stem().string();
    if (host.empty()) host = "node";

    Node node;
    node.name = host;
    std::vector<std::vector<hwloc_obj_t>> nic_chains;
    for (const auto& [anchor, n] : nics) {
        Nic nic;
        nic.name = n.rdma_name.empty() ? n.net_name : n.rdma_name;
        if (!n.rdma_name.empty()) nic.kind = (n.net_name.empty() || starts_with(n.net_name.c_str(), "ib")) ? "ib" : "roce";
        else nic.kind = starts_with(n.net_name.c_str(), "ib") ? "ib" : "ethernet";
        double link_GBps = anchor->type == HWLOC_OBJ_PCI_DEVICE ? anchor->attr->pcidev.linkspeed : 0.0;
        if (link_GBps > 0 && std::isfinite(link_GBps)) nic.bandwidth_Bps = units::GBps_to_Bps(link_GBps);
        else nic.bandwidth_Bps = units::gbps_to_Bps(nic.kind == "ethernet" ? 10.0 : 100.0);
        nic.numa = numa_of(t, anchor);
        node.nics.push_back(nic);
        nic_chains.push_back(chain(anchor));
    }

    std::vector<hwloc_obj_t> gpu_anchors;
    std::string model;
    for (const auto& [anchor, g] : gpus) {
        gpu_anchors.push_back(anchor);
        for (hwloc_obj_t os : g.osdevs)
            if (model.empty()) model = info(os, "GPUModel");
        if (model.empty()) model = info(anchor, "PCIDevice");
    }
    node.gpus = static_cast<int>(gpu_anchors.size());
    node.gpu_type = model.empty() ? std::string() : canonical_gpu_type(model);

    for (size_t i = 0; i < gpu_anchors.size(); ++i) {
        GpuSlot slot;
        slot.index = static_cast<int>(i);
        slot.numa = numa_of(t, gpu_anchors[i]);
        auto gc = chain(gpu_anchors[i]);
        int best = -1;
        size_t best_depth = 0;
        auto better = [&](size_t k, size_t depth) {
            if (best < 0 || depth > best_depth) return true;
            if (depth < best_depth) return false;
            const Nic& a = node.nics[k];
            const Nic& b = node.nics[static_cast<size_t>(best)];
            bool a_local = a.numa >= 0 && a.numa == slot.numa, b_local = b.numa >= 0 && b.numa == slot.numa;
            if (a_local != b_local) return a_local;
            return a.kind != "ethernet" && b.kind == "ethernet";
        };
        for (size_t k = 0; k < node.nics.size(); ++k) {
            size_t d = common_depth(gc, nic_chains[k]);
            if (better(k, d)) {
                best = static_cast<int>(k);
                best_depth = d;
            }
        }
        if (best >= 0) slot.nearest_nic = node.nics[static_cast<size_t>(best)].name;
        node.gpu_slots.push_back(slot);
    }

    // NVLink domains from hwloc's NVLinkBandwidth matrix (between NVML OS devices).
    unsigned nr = 1;
    hwloc_distances_s* dist = nullptr;
    if (node.gpus > 1 && hwloc_distances_get_by_name(t, "NVLinkBandwidth", &nr, &dist, 0) == 0 && nr >= 1 && dist) {
        std::vector<int> parent(static_cast<size_t>(node.gpus));
        std::iota(parent.begin(), parent.end(), 0);
        auto find = [&](int x) {
            while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)];
            return x;
        };
        auto gpu_of = [&](hwloc_obj_t o) {
            hwloc_obj_t pci = o && o->type == HWLOC_OBJ_OS_DEVICE ? pci_parent(o) : o;
            for (size_t i = 0; i < gpu_anchors.size(); ++i)
                if (gpu_anchors[i] == pci || gpu_anchors[i] == o) return static_cast<int>(i);
            return -1;
        };
        bool any = false;
        for (unsigned i = 0; i < dist->nbobjs; ++i) {
            for (unsigned j = 0; j < dist->nbobjs; ++j) {
                if (i == j || dist->values[i * dist->nbobjs + j] == 0) continue;
                int a = gpu_of(dist->objs[i]), b = gpu_of(dist->objs[j]);
                if (a < 0 || b < 0 || a == b) continue;
                parent[static_cast<size_t>(find(a))] = find(b);
                any = true;
            }
        }
        if (any) {
            std::map<int, int> domain_id, domain_size;
            for (auto& slot : node.gpu_slots) {
                int r = find(slot.index);
                auto [it, fresh] = domain_id.emplace(r, static_cast<int>(domain_id.size()));
                slot.nvlink_domain = it->second;
                ++domain_size[it->second];
            }
            // One figure per node: the smallest domain, so a TP group sized by it fits anywhere.
            int smallest = node.gpus;
            for (const auto& [d, size] : domain_size) smallest = std::min(smallest, size);
            node.nvlink_domain_size = smallest;
        }
        hwloc_distances_release(t, dist);
    }

    Cluster cluster;
    cluster.name = host;
    cluster.nodes.push_back(std::move(node));
    Topology result;
    result.name = host;
    result.clusters.push_back(std::move(cluster));
    result.finalize(source);
    return result;
}

std::unique_ptr<TopologyReader> make_hwloc_reader() { return std::make_unique<HwlocReader>(); }

}  // namespace spiderflow
