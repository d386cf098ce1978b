// The concrete topology readers, one factory function each, so reader_factory.cpp can build
// them by name without knowing their classes. See reader.h for the interface.
#pragma once

#include <memory>

#include "common/topology/reader.h"

namespace spiderflow {

std::unique_ptr<TopologyReader> make_spiderflow_reader();  // spiderflow_reader.cpp
std::unique_ptr<TopologyReader> make_slurm_reader();       // slurm_reader.cpp
std::unique_ptr<TopologyReader> make_hwloc_reader();       // hwloc_reader.cpp

}  // namespace spiderflow
