#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "common/plan/layer_split.h"
#include "common/plan/plan_svg.h"
#include "common/plan/plan_text.h"
#include "common/plan/plan_traffic.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

namespace spiderflow {
namespace {

using test::cross_plan;
using test::two_sites;

// Keeps every replica's pipeline inside one cluster: replicas 0,1 in east, 2,3 in west.
Plan local_pipelines_plan() {
    Plan p = cross_plan();
    for (int s = 0; s < p.pp; ++s)
        for (int r = 0; r < p.dp; ++r) p.cell(s, r) = StageCell{r / 2, s, (r % 2) * 4};
    return p;
}

// A small XML well-formedness check: balanced tags, quoted attributes, no stray '<' or '&'.
// Returns an empty string when well formed, else what is wrong.
std::string xml_problem(const std::string& s) {
    std::vector<std::string> stack;
    size_t i = 0;
    if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
    bool root_seen = false;
    while (i < s.size()) {
        if (s[i] == '&') {
            const size_t semi = s.find(';', i);
            if (semi == std::string::npos || semi - i > 6) return "bare & at " + std::to_string(i);
            i = semi + 1;
            continue;
        }
        if (s[i] != '<') {
            if (stack.empty() && !isspace(static_cast<unsigned char>(s[i]))) return "text outside root";
            ++i;
            continue;
        }
        const size_t end = s.find('>', i);
        if (end == std::string::npos) return "unterminated tag";
        std::string tag = s.substr(i + 1, end - i - 1);
        i = end + 1;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '/') {
            const std::string name = tag.substr(1);
            if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
            stack.pop_back();
            continue;
        }
        const bool self_closing = tag.back() == '/';
        if (self_closing) tag.pop_back();
        static const std::regex tag_re(R"(^([A-Za-z][\w:.-]*)(\s+[\w:.-]+="[^"<]*")*\s*$)");
        std::smatch m;
        if (!std::regex_match(tag, m, tag_re)) return "bad tag <" + tag + ">";
        if (stack.empty()) {
            if (root_seen) return "second root element";
            root_seen = true;
        }
        if (!self_closing) stack.push_back(m[1]);
    }
    if (!stack.empty()) return "unclosed <" + stack.back() + ">";
    return root_seen ? "" : "no root";
}

TEST(PlanTraffic, CrossingPipelinesCarryActivationsOnly) {
    const Plan p = cross_plan();
    const auto t = cross_cluster_traffic(p);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].a, 0);
    EXPECT_EQ(t[0].b, 1);
    EXPECT_EQ(t[0].pp_boundaries, 4);  // every replica crosses once
    EXPECT_EQ(t[0].dp_stages, 0);      // each stage's replicas stay in one cluster
    // micro 2 x 8 micro-batches x 2048 tokens x 2048 hidden x 2 bytes, both directions.
    EXPECT_DOUBLE_EQ(pp_boundary_bytes(p), 2.0 * 16 * 2048 * 2048 * 2);
    EXPECT_DOUBLE_EQ(t[0].pp_bytes, 4 * pp_boundary_bytes(p));
}

TEST(PlanTraffic, LocalPipelinesCarryGradientsOnly) {
    const Plan p = local_pipelines_plan();
    const auto t = cross_cluster_traffic(p);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].pp_boundaries, 0);
    EXPECT_EQ(t[0].dp_stages, 2);
    // Hierarchical DP: a two-cluster ring moves 2 (k-1)/k = 1x each stage's gradients.
    EXPECT_DOUBLE_EQ(t[0].dp_bytes, stage_gradient_bytes(p, 0) + stage_gradient_bytes(p, 1));
    EXPECT_GT(stage_gradient_bytes(p, 0), 0);
}

TEST(PlanTraffic, JobLevelFiguresBeforeAPlanAgreeWithThePlans) {
    const Plan p = cross_plan();
    EXPECT_DOUBLE_EQ(activation_bytes(p.job, p.micro_batch), activation_bytes(p));
    EXPECT_DOUBLE_EQ(activation_bytes(p.job, 1) * 2, activation_bytes(p));
    // A ring edge carries 2 (k-1)/k of the all-reduced bytes; nothing without a second member.
    EXPECT_DOUBLE_EQ(ring_edge_bytes(100, 2), 100);
    EXPECT_DOUBLE_EQ(ring_edge_bytes(100, 4), 150);
    EXPECT_DOUBLE_EQ(ring_edge_bytes(100, 1), 0);
}

TEST(PlanText, ExplainsLinksAndRunnerUp) {
    const Topology topo = two_sites();
    const Plan p = cross_plan();
    Plan other = local_pipelines_plan();
    other.prediction.iteration_s = 2.5;
    other.prediction.dp_comm_s = 1.3;
    const std::string text = plan_to_text(p, topo, &other, "solver: optimal");
    EXPECT_NE(text.find("east <-> west"), std::string::npos) << text;
    EXPECT_NE(text.find("10.0 Gbps"), std::string::npos) << text;
    EXPECT_NE(text.find("PP: 4 pipeline boundaries"), std::string::npos) << text;
    EXPECT_NE(text.find("pipelines across clusters, DP inside"), std::string::npos) << text;
    EXPECT_NE(text.find("Runner-up"), std::string::npos) << text;
    EXPECT_NE(text.find("2.00x faster"), std::string::npos) << text;
    EXPECT_NE(text.find("exposed DP communication"), std::string::npos) << text;
    EXPECT_NE(text.find("solver: optimal"), std::string::npos) << text;
    EXPECT_EQ(plan_orientation(other), "pipelines inside clusters, DP across");
}

TEST(PlanText, SingleClusterSaysNothingCrosses) {
    const Topology topo = two_sites();
    Plan p = cross_plan();
    for (auto& c : p.cells) c.cluster = 0;
    const std::string text = plan_to_text(p, topo);
    EXPECT_NE(text.find("Nothing crosses"), std::string::npos) << text;
    EXPECT_EQ(plan_orientation(p), "one cluster");
}

TEST(PlanSvg, IsWellFormedAndLabelsLinks) {
    const Topology topo = two_sites();
    for (const Plan& p : {cross_plan(), local_pipelines_plan()}) {
        const std::string svg = plan_to_svg(p, topo);
        EXPECT_EQ(xml_problem(svg), "") << svg;
        EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
        EXPECT_NE(svg.find(">east<"), std::string::npos);
        EXPECT_NE(svg.find(">west<"), std::string::npos);
        EXPECT_NE(svg.find("10.0 Gbps"), std::string::npos);
    }
    EXPECT_NE(plan_to_svg(cross_plan(), topo).find("class=\"pp\""), std::string::npos);
    EXPECT_NE(plan_to_svg(local_pipelines_plan(), topo).find("class=\"dp\""), std::string::npos);
}

// Every <text> of the picture stays inside it (by the same width estimate the writer uses, a
// generous one), and the legend shows every stage, however many.
TEST(PlanSvg, TextStaysInsideThePictureAndEveryStageIsInTheLegend) {
    const Topology topo = two_sites();
    Plan p = cross_plan();
    p.tp = 1;
    p.pp = 32;
    p.dp = 1;
    p.layers_per_stage.assign(32, 1);
    p.cells.clear();
    for (int s = 0; s < 32; ++s) p.cells.push_back(StageCell{s / 16, (s / 8) % 2, s % 8});
    p.policy = "a-policy-with-a-rather-long-name-for-the-title";
    const std::string svg = plan_to_svg(p, topo);
    EXPECT_EQ(xml_problem(svg), "");
    const std::regex size_re("<svg[^>]* width=\"([0-9.]+)\"");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, size_re));
    const double width = std::stod(m[1]);
    const std::regex text_re("<text x=\"([0-9.]+)\"[^>]*?( text-anchor=\"middle\")?[^>]*?( font-size=\"([0-9]+)\")?[^>]*>([^<]*)</text>");
    int texts = 0, stages = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
        const double x = std::stod((*it)[1]);
        const bool middle = (*it)[2].matched;
        const double size = (*it)[4].matched ? std::stod((*it)[4]) : 12;
        const std::string content = (*it)[5];
        const double w = svg_text_width(content, size);
        const double right = middle ? x + w / 2 : x + w;
        const double left = middle ? x - w / 2 : x;
        EXPECT_LE(right, width) << "'" << content << "' runs off the picture (" << right << " > " << width << ")";
        EXPECT_GE(left, 0) << "'" << content << "' starts left of the picture";
        ++texts;
        stages += content.rfind("stage ", 0) == 0;
    }
    EXPECT_GT(texts, 5);
    EXPECT_EQ(stages, 32) << "the legend shows every stage";
}

TEST(PlanSvg, EscapesNames) {
    Topology topo = two_sites();
    topo.clusters[0].name = "a<b&c\"";
    const std::string svg = plan_to_svg(cross_plan(), topo);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find("a&lt;b&amp;c&quot;"), std::string::npos);
}

TEST(XmlCheck, CatchesBrokenDocuments) {
    EXPECT_NE(xml_problem("<svg><g></svg>"), "");
    EXPECT_NE(xml_problem("<svg a=b/>"), "");
    EXPECT_NE(xml_problem("<svg>a & b</svg>"), "");
    EXPECT_EQ(xml_problem("<svg><g a=\"1\"/></svg>"), "");
}

TEST(MegatronSplit, ExpressibleSplitsAndTheMostEvenOne) {
    EXPECT_EQ(megatron_split_problem({4, 5, 5, 5, 5, 5, 3}), "");
    EXPECT_EQ(megatron_split_problem({13, 11}), "");
    EXPECT_EQ(megatron_split_problem({80}), "");
    EXPECT_NE(megatron_split_problem({5, 5, 5, 5, 4, 4, 4}), "");
    EXPECT_NE(megatron_split_problem({3, 0, 3}), "");
    EXPECT_EQ(megatron_even_split(32, 7), (std::vector<int>{4, 5, 5, 5, 5, 5, 3}));
    EXPECT_EQ(megatron_even_split(32, 6), (std::vector<int>{4, 6, 6, 6, 6, 4}));
    EXPECT_EQ(megatron_even_split(80, 16), std::vector<int>(16, 5));
    EXPECT_EQ(megatron_even_split(25, 2), (std::vector<int>{13, 12}));
    std::vector<int> l80(32, 2);
    l80.front() = l80.back() = 10;  // 80 on 32 stages: only 1 or 2 per middle stage add up
    EXPECT_EQ(megatron_even_split(80, 32), l80);
    EXPECT_TRUE(megatron_even_split(3, 4).empty());
}

}  // namespace
}  // namespace spiderflow
