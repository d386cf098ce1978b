// Builds a topology reader by name; the one place that knows the list of readers.
#include <filesystem>

#include "common/topology/reader.h"
#include "common/topology/readers.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

struct Entry {
    const char* name;
    std::unique_ptr<TopologyReader> (*make)();
};

constexpr Entry kReaders[] = {
    {"spiderflow", &make_spiderflow_reader},
    {"slurm", &make_slurm_reader},
    {"hwloc", &make_hwloc_reader},
};

}  // namespace

std::unique_ptr<TopologyReader> make_topology_reader(const std::string& name) {
    for (const Entry& e : kReaders) {
        if (name == e.name) return e.make();
    }
    std::string valid;
    for (const Entry& e : kReaders) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
    throw InputError("topology reader", 0, "", "unknown name '" + name + "' (valid: " + valid + ")");
}

Topology read_topology(const std::string& path, const std::string& reader_name) {
    std::string name = reader_name;
    if (name.empty()) {
        const std::filesystem::path p(path);
        if (p.extension() == ".xml") {
            name = "hwloc";
        } else if (p.filename() == "slurm.conf") {
            name = "slurm";
        } else {
            name = "spiderflow";
        }
    }
    return make_topology_reader(name)->read(path);
}

}  // namespace spiderflow
