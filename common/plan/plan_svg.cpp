#include "common/plan/plan_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "common/plan/plan_traffic.h"
#include "common/util/human_format.h"
#include "common/util/markup_text.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

constexpr int kBoxW = 260;
constexpr int kGapX = 140;
constexpr int kGapY = 110;
constexpr int kGpu = 12;            // GPU square incl. spacing
constexpr int kGpusPerRow = 18;
constexpr int kMaxDrawnGpus = 144;  // more are summarised as "+N"
constexpr int kLegendRows = 16;     // legend entries per column
constexpr int kLegendColW = 150;

std::string esc(const std::string& s) { return markup_text(s); }

std::string fmt(const char* f, double v) { return format_number(f, v); }

std::string bytes_str(double b) {
    if (b >= 1e9) return fmt("%.2f GB", b / 1e9);
    return fmt("%.1f MB", b / 1e6);
}

// Evenly spread hues so neighbouring stages are told apart.
std::string stage_colour(int stage, int pp) {
    const double hue = pp > 0 ? std::fmod(stage * 360.0 / pp, 360.0) : 0;
    return "hsl(" + fmt("%.0f", hue) + ",65%,55%)";
}

struct Box {
    int cluster = -1;
    double x = 0, y = 0, h = 0;
    std::vector<int> gpu_stage;  // stage of each used GPU, in cell order
    double cx() const { return x + kBoxW / 2.0; }
    double cy() const { return y + h / 2.0; }
};

}  // namespace

double svg_text_width(const std::string& text, double font_size) {
    size_t chars = 0;
    for (unsigned char c : text) chars += (c & 0xC0) != 0x80;  // UTF-8: count characters, not bytes
    return static_cast<double>(chars) * 0.62 * font_size;
}

std::string plan_to_svg(const Plan& plan, const Topology& topo) {
    // Clusters in first-use order (stage-major), so pipelines read left to right.
    std::vector<Box> boxes;
    std::map<int, size_t> box_of;
    for (int s = 0; s < plan.pp; ++s) {
        for (int r = 0; r < plan.dp; ++r) {
            const size_t i = static_cast<size_t>(s) * plan.dp + r;
            if (i >= plan.cells.size()) continue;
            const int c = plan.cells[i].cluster;
            auto it = box_of.find(c);
            if (it == box_of.end()) {
                it = box_of.emplace(c, boxes.size()).first;
                boxes.push_back(Box{});
                boxes.back().cluster = c;
            }
            for (int t = 0; t < plan.tp; ++t) boxes[it->second].gpu_stage.push_back(s);
        }
    }

    // Link labels, known before the layout: columns sit far enough apart for the widest one to
    // stand between two boxes side by side.
    auto link_bw = [&](int a, int b) {
        if (!topo.finalized() || a >= static_cast<int>(topo.clusters.size()) || b >= static_cast<int>(topo.clusters.size()))
            return std::string("? Gbps");
        return fmt("%.1f Gbps", units::Bps_to_gbps(topo.path(a, b).bandwidth_Bps));
    };
    const double boundary = pp_boundary_bytes(plan);
    std::map<std::pair<int, int>, int> pp_dir;  // directed (from stage s to s+1) -> boundaries
    for (int s = 0; s + 1 < plan.pp; ++s)
        for (const ClusterFlow& f : pp_boundary_flows(plan, s, true)) pp_dir[{f.src, f.dst}] += 1;
    std::map<std::pair<int, int>, std::string> pp_label;
    double widest_label = 0;
    for (const auto& [ab, count] : pp_dir) {
        pp_label[ab] = "PP x" + std::to_string(count) + ": " + link_bw(ab.first, ab.second) + ", " +
                       bytes_str(count * boundary) + "/iter";
        widest_label = std::max(widest_label, svg_text_width(pp_label[ab], 12));
    }
    const std::vector<CrossTraffic> traffic = cross_cluster_traffic(plan);
    for (const auto& t : traffic)
        if (t.dp_stages > 0)
            widest_label = std::max(widest_label, svg_text_width("DP: " + link_bw(t.a, t.b) + ", " + bytes_str(t.dp_bytes) + "/iter", 12));
    const double gap_x = std::max<double>(kGapX, widest_label + 24);

    const int n = static_cast<int>(boxes.size());
    const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))));
    std::vector<double> row_h;
    for (int i = 0; i < n; ++i) {
        const int drawn = std::min<int>(static_cast<int>(boxes[i].gpu_stage.size()), kMaxDrawnGpus);
        boxes[i].h = 56 + ((drawn + kGpusPerRow - 1) / kGpusPerRow) * kGpu + 10;
        const size_t row = static_cast<size_t>(i / cols);
        if (row_h.size() <= row) row_h.push_back(0);
        row_h[row] = std::max(row_h[row], boxes[i].h);
    }
    double y = 106;  // below the title and its two lines of explanation
    for (size_t row = 0; row < row_h.size(); ++row) {
        for (int i = static_cast<int>(row) * cols; i < std::min(n, static_cast<int>(row + 1) * cols); ++i) {
            boxes[i].x = 40 + (i % cols) * (kBoxW + gap_x);
            boxes[i].y = y;
        }
        y += row_h[row] + kGapY;
    }
    const std::string title = plan.job.model.name + ": tp=" + std::to_string(plan.tp) + " pp=" + std::to_string(plan.pp) +
                              " dp=" + std::to_string(plan.dp) + " on " + std::to_string(plan.world_size()) + " GPUs (" +
                              plan.policy + ")";
    const std::string figures = "predicted iteration " + fmt("%.3f s", plan.prediction.iteration_s) + ", " +
                                fmt("%.0f tokens/s", plan.prediction.tokens_per_s);
    const std::string key = "arrows: pipeline boundaries, dashed: DP all-reduce; labels: link bandwidth, bytes per iteration";
    // Every stage in the legend, 16 to a column.
    const int legend_rows = std::min(plan.pp, kLegendRows);
    const int legend_cols = (plan.pp + kLegendRows - 1) / kLegendRows;
    // Wide enough for the text as well as the boxes (svg_text_width: a sans-serif estimate).
    const double width = std::max({80.0 + cols * kBoxW + (cols - 1) * gap_x, 80 + svg_text_width(title, 16),
                                   80 + svg_text_width(figures, 12), 80 + svg_text_width(key, 12),
                                   80.0 + legend_cols * kLegendColW});
    const double height = y + 60 + 16.0 * legend_rows;

    std::ostringstream o;
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<title>" << esc("SpiderFlow plan: " + plan.job.model.name) << "</title>\n";
    o << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
         "markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n";
    o << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n";
    o << "<text x=\"40\" y=\"30\" font-size=\"16\" font-weight=\"bold\">" << esc(title) << "</text>\n";
    o << "<text x=\"40\" y=\"52\">" << esc(figures) << "</text>\n";
    o << "<text x=\"40\" y=\"68\">" << esc(key) << "</text>\n";

    auto pos = [&](int cluster) -> const Box& { return boxes[box_of.at(cluster)]; };
    // A label's place: along its line (middle first, then further out) just above or below it,
    // where its text box meets no cluster box and stays inside the picture; the middle when no
    // such place exists. Labels are drawn after the boxes, so even then they stay readable.
    std::ostringstream labels;
    auto place_label = [&](double x1, double y1, double x2, double y2, const std::string& text, const char* colour) {
        const double w = svg_text_width(text, 12);
        double lx = (x1 + x2) / 2, ly = (y1 + y2) / 2 - 4;
        bool placed = false;
        for (double t : {0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8}) {
            for (double dy : {-4.0, 16.0}) {
                const double cx = x1 + (x2 - x1) * t, base = y1 + (y2 - y1) * t + dy;
                const double left = cx - w / 2 - 2, right = cx + w / 2 + 2, top = base - 13, bottom = base + 4;
                bool clear = left >= 0 && right <= width && top >= 0 && bottom <= height;
                for (const Box& b : boxes)
                    clear = clear && (right < b.x || left > b.x + kBoxW || bottom < b.y || top > b.y + b.h);
                if (clear) {
                    lx = cx, ly = base, placed = true;
                    break;
                }
            }
            if (placed) break;
        }
        labels << "<text x=\"" << lx << "\" y=\"" << ly << "\" text-anchor=\"middle\"" << colour << ">" << esc(text)
               << "</text>\n";
    };

    // Edges first so boxes are drawn over their ends.
    o << "<g id=\"links\">\n";
    for (const auto& [ab, count] : pp_dir) {
        const Box& A = pos(ab.first);
        const Box& B = pos(ab.second);
        // Offset opposite directions so both stay visible.
        const double off = ab.first < ab.second ? -6 : 6;
        const double dx = B.cx() - A.cx(), dy = B.cy() - A.cy();
        const double len = std::max(1.0, std::hypot(dx, dy));
        const double ux = dx / len, uy = dy / len;
        const double shrink_a = std::min(kBoxW / 2.0, A.h / 2.0), shrink_b = std::min(kBoxW / 2.0, B.h / 2.0);
        const double x1 = A.cx() + ux * shrink_a - uy * off, y1 = A.cy() + uy * shrink_a + ux * off;
        const double x2 = B.cx() - ux * shrink_b - uy * off, y2 = B.cy() - uy * shrink_b + ux * off;
        o << "<line class=\"pp\" x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2
          << "\" stroke=\"#333\" stroke-width=\"2\" marker-end=\"url(#arrow)\"/>\n";
        place_label(x1, y1, x2, y2, pp_label[ab], "");
    }
    for (const auto& t : traffic) {
        if (t.dp_stages == 0) continue;
        const Box& A = pos(t.a);
        const Box& B = pos(t.b);
        o << "<line class=\"dp\" x1=\"" << A.cx() << "\" y1=\"" << A.y + A.h << "\" x2=\"" << B.cx() << "\" y2=\""
          << B.y + B.h << "\" stroke=\"#2a6\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n";
        place_label(A.cx(), A.y + A.h + 10, B.cx(), B.y + B.h + 10,
                    "DP: " + link_bw(t.a, t.b) + ", " + bytes_str(t.dp_bytes) + "/iter", " fill=\"#2a6\"");
    }
    o << "</g>\n";

    o << "<g id=\"clusters\">\n";
    for (const Box& b : boxes) {
        const bool known = b.cluster >= 0 && b.cluster < static_cast<int>(topo.clusters.size());
        const std::string name = known ? topo.clusters[b.cluster].name : "#" + std::to_string(b.cluster);
        const int total = known ? topo.clusters[b.cluster].total_gpus() : 0;
        o << "<g class=\"cluster\">\n<rect x=\"" << b.x << "\" y=\"" << b.y << "\" width=\"" << kBoxW
          << "\" height=\"" << b.h << "\" rx=\"8\" fill=\"#f4f6fa\" stroke=\"#446\" stroke-width=\"1.5\"/>\n";
        o << "<text x=\"" << b.x + 10 << "\" y=\"" << b.y + 20 << "\" font-weight=\"bold\">" << esc(name)
          << "</text>\n";
        o << "<text x=\"" << b.x + 10 << "\" y=\"" << b.y + 38 << "\">"
          << esc(std::to_string(b.gpu_stage.size()) + " of " + std::to_string(total) + " GPUs used") << "</text>\n";
        const int drawn = std::min<int>(static_cast<int>(b.gpu_stage.size()), kMaxDrawnGpus);
        for (int g = 0; g < drawn; ++g) {
            const double gx = b.x + 10 + (g % kGpusPerRow) * kGpu;
            const double gy = b.y + 50 + (g / kGpusPerRow) * kGpu;
            o << "<rect x=\"" << gx << "\" y=\"" << gy << "\" width=\"" << kGpu - 2 << "\" height=\"" << kGpu - 2
              << "\" fill=\"" << stage_colour(b.gpu_stage[g], plan.pp) << "\"/>\n";
        }
        if (static_cast<int>(b.gpu_stage.size()) > drawn)
            o << "<text x=\"" << b.x + kBoxW - 10 << "\" y=\"" << b.y + 20 << "\" text-anchor=\"end\">"
              << esc("+" + std::to_string(b.gpu_stage.size() - drawn) + " more") << "</text>\n";
        o << "</g>\n";
    }
    o << "</g>\n";
    o << "<g id=\"link-labels\">\n" << labels.str() << "</g>\n";

    // Legend: stage colours.
    o << "<g id=\"legend\">\n";
    for (int s = 0; s < plan.pp; ++s) {
        const double lx = 40 + (s / kLegendRows) * kLegendColW;
        const double ly = y + 10 + (s % kLegendRows) * 16;
        o << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"10\" height=\"10\" fill=\"" << stage_colour(s, plan.pp)
          << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly + 9 << "\">"
          << esc("stage " + std::to_string(s) + " (" +
                 std::to_string(s < static_cast<int>(plan.layers_per_stage.size()) ? plan.layers_per_stage[s] : 0) +
                 " layers)")
          << "</text>\n";
    }
    o << "</g>\n</svg>\n";
    return o.str();
}

}  // namespace spiderflow
