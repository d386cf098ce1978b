// The one JSON field reader: what every file format refuses, and how the message names the
// file and the field.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow::jsonread {
namespace {

using nlohmann::json;

// The InputError a reader throws; a failed expectation when it throws none.
template <typename Fn>
InputError error_of(Fn&& fn) {
    try {
        fn();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError";
    return InputError("", 0, "", "none");
}

TEST(JsonRead, UnknownKeysAreRefusedWithTheKeysAllowed) {
    const json j = parse(R"({"gpus": 8, "gpu_typo": "V100"})", "site.json");
    const InputError e = error_of([&] { Object(j, "site.json", "clusters[1].nodes[0]", {"gpus", "gpu_type"}); });
    EXPECT_EQ(e.source(), "site.json");
    EXPECT_EQ(e.field(), "clusters[1].nodes[0].gpu_typo");
    EXPECT_EQ(std::string(e.what()), "site.json: clusters[1].nodes[0].gpu_typo: unknown key (allowed: gpus, gpu_type)");
    // The same check on an object whose keys depend on one of its fields.
    const Object o(j, "site.json", "");
    EXPECT_EQ(error_of([&] { o.only({"gpus"}); }).field(), "gpu_typo");
    o.only({"gpus", "gpu_typo"});
}

TEST(JsonRead, AnIntegerFieldTakesNoFloatLiteral) {
    const json j = parse(R"({"a": 3, "b": 3.0, "c": 3.5, "d": 1e3, "e": "3"})", "f.json");
    const Object o(j, "f.json", "x");
    EXPECT_EQ(o.integer("a", 0, 10), 3);
    EXPECT_EQ(o.i64("a", 0, 10), 3);
    for (const char* k : {"b", "c", "d", "e"}) {
        const InputError e = error_of([&] { o.integer(k, 0, 10000); });
        EXPECT_EQ(e.field(), std::string("x.") + k);
        EXPECT_EQ(e.problem(), "expected an integer") << k;
        EXPECT_EQ(error_of([&] { o.i64(k, 0, 10000); }).problem(), "expected an integer") << k;
    }
    // A number field takes both.
    EXPECT_DOUBLE_EQ(o.number("a"), 3);
    EXPECT_DOUBLE_EQ(o.number("b"), 3);
}

TEST(JsonRead, OutOfRangeNamesTheValueAndTheRange) {
    const json j = parse(R"({"gpus": -8, "big": 18446744073709551615, "port": 70000, "w": 2.5, "z": 0})", "site.json");
    const Object o(j, "site.json", "nodes[0]");
    InputError e = error_of([&] { o.integer("gpus", 0, 1024); });
    EXPECT_EQ(std::string(e.what()), "site.json: nodes[0].gpus: value -8 out of range [0, 1024]");
    EXPECT_EQ(error_of([&] { o.i64("big", 0, std::numeric_limits<int64_t>::max()); }).problem(),
              "value 18446744073709551615 out of range [0, 9223372036854775807]");
    EXPECT_EQ(error_of([&] { o.integer("big", 0, 10); }).problem(), "value 18446744073709551615 out of range [0, 10]");
    EXPECT_EQ(error_of([&] { o.integer("port", 0, 65535); }).problem(), "value 70000 out of range [0, 65535]");
    EXPECT_EQ(error_of([&] { o.number("w", 0, 1); }).problem(), "value 2.5 out of range [0, 1]");
    EXPECT_EQ(error_of([&] { o.number("gpus", 0, std::numeric_limits<double>::infinity()); }).problem(), "must be >= 0");
    EXPECT_EQ(error_of([&] { o.positive("z"); }).problem(), "must be > 0");
    EXPECT_EQ(error_of([&] { o.positive("w", 1); }).problem(), "value 2.5 out of range (0, 1]");
    EXPECT_EQ(error_of([&] { o.positive("z", 1000000); }).problem(), "value 0 out of range (0, 1000000]");
    EXPECT_DOUBLE_EQ(o.positive("w", 10), 2.5);
    // The bounds themselves are in range.
    EXPECT_EQ(o.integer("gpus", -8, -8), -8);
    EXPECT_EQ(o.integer("z", 0, 0), 0);
}

TEST(JsonRead, WrongTypesSayWhatWasExpected) {
    const json j = parse(R"({"s": 5, "n": "5", "b": "yes", "a": {}, "o": [], "l": [1]})", "f.json");
    const Object o(j, "f.json", "");
    EXPECT_EQ(error_of([&] { o.string("s"); }).problem(), "expected a string");
    EXPECT_EQ(error_of([&] { o.number("n"); }).problem(), "expected a number");
    EXPECT_EQ(error_of([&] { o.boolean("b"); }).problem(), "expected true or false");
    EXPECT_EQ(error_of([&] { o.array("a"); }).problem(), "expected an array");
    EXPECT_EQ(error_of([&] { o.object("o"); }).problem(), "expected a JSON object");
    const InputError e = error_of([&] { o.strings("l"); });
    EXPECT_EQ(e.field(), "l[0]");
    EXPECT_EQ(e.problem(), "expected a string");
    EXPECT_EQ(error_of([&] { Object(parse("[1]", "f.json"), "f.json", ""); }).problem(), "expected a JSON object");
    EXPECT_EQ(error_of([&] { get_number(json(std::numeric_limits<double>::infinity()), "f", "x"); }).problem(),
              "expected a finite number");
}

TEST(JsonRead, MissingAndEmpty) {
    const json j = parse(R"({"name": ""})", "f.json");
    const Object o(j, "f.json", "clusters[0]");
    const InputError e = error_of([&] { o.string("region"); });
    EXPECT_EQ(std::string(e.what()), "f.json: clusters[0].region: missing");
    EXPECT_EQ(error_of([&] { o.name("name"); }).problem(), "must not be empty");
    EXPECT_EQ(o.string_or("region", "none"), "none");
    EXPECT_EQ(o.integer_or("gpus", 7, 0, 8), 7);
    EXPECT_EQ(o.i64_or("t", -1, 0, 8), -1);
    EXPECT_FALSE(o.boolean_or("on", false));
    EXPECT_DOUBLE_EQ(o.number_or("gbps", 0.5, 0, 1), 0.5);
}

TEST(JsonRead, NestedObjectsAndArraysCarryTheFullPath) {
    const json j = parse(R"({"clusters": [{"name": "or", "nodes": [{"gpus": 8}, {"gpus": "eight"}]}]})", "fed.json");
    const Object root(j, "fed.json", "", {"clusters"});
    const std::vector<Object> clusters = root.objects("clusters", {"name", "nodes"});
    ASSERT_EQ(clusters.size(), 1u);
    EXPECT_EQ(clusters[0].path(), "clusters[0]");
    const std::vector<Object> nodes = clusters[0].objects("nodes");
    EXPECT_EQ(nodes[0].integer("gpus", 0, 8), 8);
    const InputError e = error_of([&] { nodes[1].integer("gpus", 0, 8); });
    EXPECT_EQ(e.field(), "clusters[0].nodes[1].gpus");
    EXPECT_EQ(std::string(e.what()), "fed.json: clusters[0].nodes[1].gpus: expected an integer");
    EXPECT_EQ(error_of([&] { clusters[0].objects("nodes", {"name"}); }).field(), "clusters[0].nodes[0].gpus");
    EXPECT_EQ(error_of([&] { nodes[0].fail("bad node"); }).field(), "clusters[0].nodes[0]");
    EXPECT_EQ(item("gpus", 2), "gpus[2]");
    EXPECT_EQ(join("", "a"), "a");
    EXPECT_EQ(join("gpus[2]", "peak_tflops"), "gpus[2].peak_tflops");
}

TEST(JsonRead, SyntaxErrorsNameTheLine) {
    const InputError e = error_of([] { parse("{\n  \"a\": 1,\n  \"b\": tru\n}", "f.json"); });
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(std::string(e.what()).rfind("f.json:3: invalid JSON: ", 0), 0u) << e.what();
    // A literal beyond double has no position.
    const InputError huge = error_of([] { parse("{\"a\": 1e999}", "f.json"); });
    EXPECT_EQ(huge.line(), 0);
    EXPECT_NE(std::string(huge.what()).find("1e999"), std::string::npos) << huge.what();
}

}  // namespace
}  // namespace spiderflow::jsonread
