// Draws a plan as a standalone SVG: each cluster the plan uses is a box with its GPUs
// (coloured by pipeline stage), pipelines crossing clusters are arrows labelled with the link
// bandwidth and the bytes per iteration, cross-cluster DP all-reduce edges are dashed lines.
#pragma once

#include <string>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

std::string plan_to_svg(const Plan& plan, const Topology& topology);

// How wide `text` is drawn at `font_size` px in a sans-serif font, a little generously (about
// 0.6 em a character, as DejaVu Sans and Liberation Sans set digits and lower case): the
// picture is made at least this wide so that no line is cut off.
double svg_text_width(const std::string& text, double font_size);

}  // namespace spiderflow
