// The option table of the `spiderflow` subcommands: values, flags, words, "--", --help from the
// table, and the one wording of an unknown option, a missing value and a bad number.
#include <gtest/gtest.h>

#include <optional>

#include "common/util/cli_options.h"

using namespace spiderflow;
using namespace spiderflow::cli;

namespace {

struct Fixture {
    std::string topology, format = "text";
    int tp = 1;
    std::optional<int> gpus;
    double share = 0.5;
    bool check = false;
    std::string recompute = "unset";
    OptionTable table{"spiderflow demo", "usage: spiderflow demo [options] [FILE]\n\n", "\nExit status: 0.\n", 18};

    Fixture() {
        table.value("--topology", "FILE", "the federation", store(&topology));
        table.value("--format", "FMT", "text (default) or json", one_of(&format, {"text", "json"}));
        table.value("--tp", "T", "", integer(&tp, 1, 64));
        table.value("--gpus", "N", "GPUs wanted,\nat least one", integer(&gpus, 1));
        table.line("--tp T", "tensor parallel degree");
        table.value("--share", "F", "a fraction", number(&share, 0, 1));
        table.flag("--check", "verify as it goes", set(&check));
        table.optional_value("--recompute", "MODE", "none, selective or full",
                             [this](const std::string& v) { recompute = v; });
        table.value("--kept", "X", "");
        table.flag("--kept-flag", "");
        table.words(1);
    }

    Parsed parse(std::vector<std::string> args) const {
        args.insert(args.begin(), "demo");
        return table.parse(args, 1);
    }

    // "field: problem" of the OptionError the arguments raise, or "" when they parse.
    std::string refusal(const std::vector<std::string>& args) const {
        try {
            parse(args);
            return "";
        } catch (const OptionError& e) {
            EXPECT_EQ(e.source(), "spiderflow demo");
            return e.field() + ": " + e.problem();
        }
    }
};

}  // namespace

TEST(CliOptions, HandlersRunInOrderAndTheLastValueWins) {
    Fixture f;
    const Parsed p = f.parse({"--topology", "a.json", "--tp", "4", "--check", "--gpus", "8", "--tp", "8", "file.txt"});
    EXPECT_FALSE(p.help);
    EXPECT_EQ(f.topology, "a.json");
    EXPECT_EQ(f.tp, 8);
    EXPECT_EQ(f.gpus, 8);
    EXPECT_TRUE(f.check);
    EXPECT_EQ(p.words, std::vector<std::string>{"file.txt"});
}

TEST(CliOptions, TakesNameEqualsValue) {
    Fixture f;
    f.parse({"--topology=b.json", "--format=json", "--tp=2"});
    EXPECT_EQ(f.topology, "b.json");
    EXPECT_EQ(f.format, "json");
    EXPECT_EQ(f.tp, 2);
}

TEST(CliOptions, AValueMayStartWithADash) {
    Fixture f;
    f.parse({"--topology", "-"});
    EXPECT_EQ(f.topology, "-");
    EXPECT_EQ(f.refusal({"--share", "-0.5"}), "--share: needs a number between 0 and 1, not '-0.5'");
}

TEST(CliOptions, OptionalValue) {
    Fixture f;
    f.parse({"--recompute"});
    EXPECT_EQ(f.recompute, "");
    f.parse({"--recompute=selective"});
    EXPECT_EQ(f.recompute, "selective");
}

TEST(CliOptions, OptionsWithoutHandlerAreKeptByName) {
    Fixture f;
    const Parsed p = f.parse({"--kept", "v", "--kept-flag"});
    EXPECT_EQ(p.get("--kept"), "v");
    EXPECT_TRUE(p.has("--kept"));
    EXPECT_EQ(p.get("--absent", "def"), "def");
    EXPECT_TRUE(p.flag("--kept-flag"));
    EXPECT_FALSE(p.flag("--check"));
}

TEST(CliOptions, KeptValuesConvertWithTheSameWording) {
    Fixture f;
    const Parsed p = f.parse({"--kept", "x"});
    EXPECT_EQ(p.integer("--absent", 7, 0), 7);
    EXPECT_DOUBLE_EQ(p.number("--absent", 0.5), 0.5);
    try {
        p.integer("--kept", 7, 0);
        FAIL();
    } catch (const OptionError& e) {
        EXPECT_EQ(std::string(e.what()), "spiderflow demo: --kept: needs an integer >= 0, not 'x'");
    }
    EXPECT_THROW(p.number("--kept", 1, 0), OptionError);
    EXPECT_EQ(f.parse({"--kept", "12"}).integer("--kept", 7, 0), 12);
}

TEST(CliOptions, OneWordingForEachRefusal) {
    Fixture f;
    EXPECT_EQ(f.refusal({"--bogus"}), "--bogus: unknown option (see 'spiderflow demo --help')");
    EXPECT_EQ(f.refusal({"--bogus=1"}), "--bogus: unknown option (see 'spiderflow demo --help')");
    EXPECT_EQ(f.refusal({"-x"}), "-x: unknown option (see 'spiderflow demo --help')");
    EXPECT_EQ(f.refusal({"--topology"}), "--topology: needs a value");
    EXPECT_EQ(f.refusal({"--tp", "x"}), "--tp: needs an integer between 1 and 64, not 'x'");
    EXPECT_EQ(f.refusal({"--tp", "65"}), "--tp: needs an integer between 1 and 64, not '65'");
    EXPECT_EQ(f.refusal({"--gpus", "0"}), "--gpus: needs an integer >= 1, not '0'");
    EXPECT_EQ(f.refusal({"--share", "lots"}), "--share: needs a number between 0 and 1, not 'lots'");
    EXPECT_EQ(f.refusal({"--format", "xml"}), "--format: must be text or json, not 'xml'");
    EXPECT_EQ(f.refusal({"--check=yes"}), "--check: takes no value");
    EXPECT_EQ(f.refusal({"a", "b"}), "b: unexpected argument (see 'spiderflow demo --help')");
    EXPECT_EQ(f.refusal({"--"}), "--: unknown option (see 'spiderflow demo --help')");
}

TEST(CliOptions, UnknownHintFollowsTheHelpPointer) {
    OptionTable t("spiderflow launch", "", "");
    t.unknown_hint("the program goes after '--'");
    try {
        t.parse({"launch", "train.py"}, 1);
        FAIL();
    } catch (const OptionError& e) {
        EXPECT_EQ(e.problem(), "unexpected argument (see 'spiderflow launch --help'; the program goes after '--')");
    }
}

TEST(CliOptions, HelpWinsOverEverythingElse) {
    Fixture f;
    EXPECT_TRUE(f.parse({"--bogus", "--tp", "x", "-h"}).help);
    EXPECT_TRUE(f.parse({"--help"}).help);
    EXPECT_EQ(f.tp, 1);   // no handler ran
}

TEST(CliOptions, RestAfterDoubleDash) {
    bool dry = false;
    OptionTable t("spiderflow launch", "", "");
    t.flag("--dry-run", "print", set(&dry)).rest();
    const Parsed p = t.parse({"launch", "--dry-run", "--", "train.py", "--help", "-x"}, 1);
    EXPECT_FALSE(p.help);   // --help after "--" is the program's
    EXPECT_TRUE(dry);
    EXPECT_EQ(p.rest, (std::vector<std::string>{"train.py", "--help", "-x"}));
    EXPECT_TRUE(t.parse({"launch"}, 1).rest.empty());
}

TEST(CliOptions, HelpComesFromTheTable) {
    Fixture f;
    EXPECT_EQ(f.table.help(),
              "usage: spiderflow demo [options] [FILE]\n\n"
              "  --topology FILE the federation\n"
              "  --format FMT    text (default) or json\n"
              "  --gpus N        GPUs wanted,\n"
              "                  at least one\n"
              "  --tp T          tensor parallel degree\n"
              "  --share F       a fraction\n"
              "  --check         verify as it goes\n"
              "  --recompute[=MODE]  none, selective or full\n"
              "\nExit status: 0.\n");
}

TEST(CliOptions, SectionsChangeTheColumn) {
    OptionTable t("spiderflow x", "usage: x\n\n", "", 10);
    t.flag("--a", "first");
    t.section("\nMore:\n\n", 14);
    t.flag("--b", "second");
    EXPECT_EQ(t.help(), "usage: x\n\n  --a     first\n\nMore:\n\n  --b         second\n");
}
