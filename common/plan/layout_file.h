// A layout file: the parallel layout a user already runs, written by hand (doc/layout-file.md):
// the degrees, the micro-batch, the memory choices and, per pipeline stage, the clusters or
// nodes it runs on and its layer count. Built into a Plan on a topology, it is priced like any
// plan (`spiderflow estimate --layout`, `spiderflow plan --compare-with`), so a planned layout
// can be weighed against the one a team runs today without hand-editing a plan's cells.
#pragma once

#include <string>

#include "common/model/job_spec.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

// The value of a layout file's "schema" key; a plan file's is "spiderflow-plan".
inline constexpr const char* kLayoutSchemaName = "spiderflow-layout";
inline constexpr int kLayoutSchemaVersion = 1;

// The plan that the layout file `text` describes for `job` on `topology`. Each stage's dp cells
// take, in order, the tp-wide GPU groups still free on its nodes (a cluster's nodes in
// Cluster::node_order; a cell never leaves a node); a later stage never reuses an earlier one's
// GPUs. The file's memory choices (recompute, sequence_parallel, flash_attention, zero1) replace
// the job's; its micro_batch, when absent, is the job's (1 if the job leaves it open). Throws
// InputError(source, line, field) naming the file's own key ("stages[2].layers", "tp") for
// anything wrong: unknown cluster or node, too few free GPUs, layer counts that do not sum to
// the model's layers, tp wider than a node, a global batch the degrees do not divide.
Plan plan_from_layout(const std::string& text, const std::string& source, const Topology& topology, const JobSpec& job);

// A layout file or a plan JSON (`spiderflow plan`'s output), told apart by "schema". A plan
// keeps its own job, which must be `job`'s model, global batch and sequence length: iteration
// times of two different jobs say nothing about their layouts.
Plan plan_from_layout_or_plan(const std::string& text, const std::string& source, const Topology& topology,
                              const JobSpec& job);

}  // namespace spiderflow
