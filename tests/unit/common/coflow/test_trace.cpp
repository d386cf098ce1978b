// The coflow-benchmark trace format: parsing, flow sizes, malformed lines named by number.
#include <gtest/gtest.h>

#include <sstream>

#include "common/coflow/trace.h"
#include "common/util/errors.h"

using namespace spiderflow::coflow;

namespace {
Trace parse(const std::string& text) {
    std::istringstream in(text);
    return parse_trace(in, "t.txt");
}

void expect_error_at(const std::string& text, int line, const std::string& field) {
    try {
        parse(text);
        FAIL() << "expected InputError for:\n" << text;
    } catch (const spiderflow::InputError& e) {
        EXPECT_EQ(e.source(), "t.txt");
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_EQ(e.field(), field) << e.what();
    }
}
}  // namespace

TEST(Trace, ParsesFlowsSplitOverMappers) {
    const Trace t = parse("4 2\n1 0 2 0 1 1 3:10\n2 250 1 2 2 0:1 1:3\n");
    EXPECT_EQ(t.ports, 4);
    ASSERT_EQ(t.coflows.size(), 2u);
    EXPECT_EQ(t.coflows[0].id, 1);
    ASSERT_EQ(t.coflows[0].flows.size(), 2u);   // 2 mappers x 1 reducer
    EXPECT_EQ(t.coflows[0].flows[0].src, 0);
    EXPECT_EQ(t.coflows[0].flows[1].src, 1);
    EXPECT_EQ(t.coflows[0].flows[0].dst, 3);
    EXPECT_DOUBLE_EQ(t.coflows[0].flows[0].bytes, 5 * kTraceMB);
    EXPECT_DOUBLE_EQ(t.coflows[1].arrival_s, 0.25);
    ASSERT_EQ(t.coflows[1].flows.size(), 2u);
    EXPECT_DOUBLE_EQ(t.coflows[1].flows[1].bytes, 3 * kTraceMB);
}

TEST(Trace, MalformedLinesAreNamed) {
    expect_error_at("4 2\n1 0 2 0 1 1 3:10\n2 0 1 9 1 0:1\n", 3, "mapper[0]");   // port out of range
    expect_error_at("4 1\n1 0 2 0 1 1 3-10\n", 2, "reducer[0]");                  // missing colon
    expect_error_at("4 1\n1 x 1 0 1 1:1\n", 2, "arrival_ms");
    expect_error_at("4 1\n1 0 2 0\n", 2, "mapper[1]");                            // line ends early
    expect_error_at("4 1\n1 0 1 0 1 1:1 extra\n", 2, "");
    expect_error_at("4\n", 1, "coflows");
    expect_error_at("4 3\n1 0 1 0 1 1:1\n", 1, "coflows");                         // count mismatch
    expect_error_at("", 0, "header");
}

TEST(Trace, GeneratorIsDeterministicAndReadable) {
    TraceGenOptions o;
    o.ports = 10;
    o.coflows = 30;
    o.seed = 3;
    const std::string a = generate_trace(o);
    EXPECT_EQ(a, generate_trace(o));
    o.seed = 4;
    EXPECT_NE(a, generate_trace(o));
    const Trace t = parse(a);
    EXPECT_EQ(t.ports, 10);
    EXPECT_EQ(t.coflows.size(), 30u);
    for (size_t i = 1; i < t.coflows.size(); ++i) EXPECT_GE(t.coflows[i].arrival_s, t.coflows[i - 1].arrival_s);
}
