// TopologyReader "hwloc": the inside of one node from an hwloc 2.x XML export
// (`lstopo --of xml` or `hwloc-gather-topology`), read with the hwloc library itself.
//
// What is taken from where:
//   node/cluster name  the root's HostName info (else the file name)
//   GPUs               NVIDIA devices: OS devices "cudaN"/"nvmlN" (or any GPU/CoProc OS device
//                      under a PCI device of vendor 0x10de), and PCI devices of vendor 0x10de,
//                      class 0x0300/0x0302 with no OS device; one GPU per PCI device, in PCI
//                      bus order
//   GPU type           GPUModel info (else the PCI device name), via canonical_gpu_type()
//   NICs               OpenFabrics ("mlx5_0") and Network ("eth0", "ib0") OS devices, one per
//                      PCI device, named by the OpenFabrics name when there is one (what
//                      NCCL_IB_HCA takes). Bandwidth: the NIC's PCIe link speed as hwloc reports
//                      it (an upper bound of the port); when hwloc has none, 100 Gb/s for
//                      InfiniBand/RoCE and 10 Gb/s for Ethernet, placeholders to be overridden
//                      in our topology file.
//   GpuSlot.numa       the NUMA node of the GPU's CPU-side ancestor (-1 when it spans several)
//   GpuSlot.nearest_nic the NIC sharing the deepest common ancestor with the GPU (same PCIe
//                      switch beats same host bridge beats same package); ties go to the NIC on
//                      the GPU's NUMA node, then to RDMA NICs over plain Ethernet
//   NVLink domains     from hwloc's "NVLinkBandwidth" distance matrix when present (GPUs joined
//                      by NVLink share a domain); else all GPUs in domain 0 and the node's
//                      nvlink_domain_size 0 (unknown)
//
// hwloc 2.9 can crash on malformed XML, so parse() first loads the XML in a forked child and
// turns a crash there into an InputError. Forking is meant for single-threaded callers (the
// CLI, spiderflow-probe); do not call this reader from inside a multi-threaded daemon.
#pragma once

#include <string>

#include "common/topology/reader.h"
#include "common/topology/topology.h"

namespace spiderflow {

class HwlocReader : public TopologyReader {
public:
    std::string name() const override { return "hwloc"; }
    Topology read(const std::string& path) const override;
    Topology parse(const std::string& text, const std::string& source) const override;
};

}  // namespace spiderflow
