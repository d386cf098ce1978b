// The strict key=value format of spiderflow.conf and brokerd.conf: a typo refuses to load with
// the file and line, instead of silently falling back to a default.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/util/errors.h"
#include "common/util/key_value_conf.h"

using namespace spiderflow;

namespace {

const std::vector<std::string> kKeys = {"topology", "cross_site", "interval"};

// The InputError a call throws, or a failed expectation.
template <typename F>
InputError error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError";
    return InputError("", 0, "", "");
}

ConfLine line(const std::string& key, const std::string& value) { return ConfLine{7, key, value}; }

}  // namespace

TEST(ConfLines, CommentsBlanksAndSurroundingSpaceAreDropped) {
    const auto lines = read_conf_lines("# a site\n\n  topology = /etc/t.json   # ours\n\tcross_site=yes\r\ninterval =\n",
                                       "spiderflow.conf", kKeys);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].line, 3);
    EXPECT_EQ(lines[0].key, "topology");
    EXPECT_EQ(lines[0].value, "/etc/t.json");
    EXPECT_EQ(lines[1].line, 4);
    EXPECT_EQ(lines[1].value, "yes");
    EXPECT_EQ(lines[2].key, "interval");
    EXPECT_EQ(lines[2].value, "");
}

TEST(ConfLines, EverythingAfterTheFirstHashIsAComment) {
    const auto lines = read_conf_lines("topology = a#b=c\n", "x.conf", kKeys);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].value, "a");
}

TEST(ConfLines, AValueMayHoldAnEqualsSign) {
    const auto lines = read_conf_lines("topology = a=b\n", "x.conf", kKeys);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].value, "a=b");
}

TEST(ConfLines, AnUnknownKeyNamesTheFileTheLineAndTheKeyMeantOrEveryValidKey) {
    const InputError e = error_of([] { read_conf_lines("topology = t\ncross-site = yes\n", "spiderflow.conf", kKeys); });
    EXPECT_EQ(e.source(), "spiderflow.conf");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "cross-site");
    EXPECT_EQ(e.problem(), "unknown key; did you mean 'cross_site'?");
    // Nothing close: every valid key is named.
    const InputError far = error_of([] { read_conf_lines("wibble = 1\n", "spiderflow.conf", kKeys); });
    EXPECT_EQ(far.problem(), "unknown key; valid keys: topology, cross_site, interval");
}

TEST(ConfLines, AKeyGivenTwiceIsRefusedAtItsSecondLine) {
    const InputError e = error_of([] { read_conf_lines("interval = 5\n# later\ninterval = 6\n", "a.conf", kKeys); });
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "interval");
    EXPECT_EQ(e.problem(), "key given twice");
}

TEST(ConfLines, ALineWithoutEqualsIsShownAsWritten) {
    const InputError e = error_of([] { read_conf_lines("topology /etc/t.json\n", "a.conf", kKeys); });
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "");
    EXPECT_EQ(e.problem(), "expected key=value, got 'topology /etc/t.json'");
}

TEST(ConfValues, IntegersInsideTheirBounds) {
    EXPECT_EQ(conf_integer(line("port", "8760"), 1, 65535, "b.conf"), 8760);
    EXPECT_EQ(conf_integer(line("port", "1"), 1, 65535, "b.conf"), 1);
    EXPECT_EQ(conf_integer(line("port", "-3"), -5, 5, "b.conf"), -3);
    for (const char* bad : {"0", "65536", "", "12abc", "1.5", "99999999999999999999"}) {
        const InputError e = error_of([&] { conf_integer(line("port", bad), 1, 65535, "b.conf"); });
        EXPECT_EQ(e.line(), 7) << bad;
        EXPECT_EQ(e.field(), "port") << bad;
        EXPECT_EQ(e.problem(), "expected an integer in [1, 65535], got '" + std::string(bad) + "'");
    }
}

TEST(ConfValues, SecondsInsideTheirBounds) {
    EXPECT_DOUBLE_EQ(conf_seconds(line("interval", "2.5"), 0.1, 60, "a.conf"), 2.5);
    EXPECT_DOUBLE_EQ(conf_seconds(line("interval", "60"), 0.1, 60, "a.conf"), 60);
    for (const char* bad : {"0.05", "61", "", "5s", "nan", "inf"}) {
        const InputError e = error_of([&] { conf_seconds(line("interval", bad), 0.1, 60, "a.conf"); });
        EXPECT_EQ(e.field(), "interval") << bad;
        EXPECT_NE(e.problem().find("expected seconds in ["), std::string::npos) << e.what();
        EXPECT_NE(e.problem().find("got '" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
}

TEST(ConfValues, BooleansInTheUsualSpellingsOnly) {
    for (const char* yes : {"yes", "true", "1", "on"}) EXPECT_TRUE(conf_bool(line("cross_site", yes), "s.conf")) << yes;
    for (const char* no : {"no", "false", "0", "off"}) EXPECT_FALSE(conf_bool(line("cross_site", no), "s.conf")) << no;
    for (const char* bad : {"Yes", "y", "", "2"}) {
        const InputError e = error_of([&] { conf_bool(line("cross_site", bad), "s.conf"); });
        EXPECT_EQ(e.problem(), "expected yes or no, got '" + std::string(bad) + "'");
    }
}
