// The one whole-file reader.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/util/errors.h"
#include "common/util/text_file.h"

namespace spiderflow {
namespace {

TEST(TextFile, ReadsEveryByte) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/sf-text-file.XXXXXX";
    char* path = pattern.data();
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    const std::string bytes("line 1\nline 2\r\n\0tail", 21);
    ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
    std::string text;
    EXPECT_TRUE(read_whole_file(path, text));
    EXPECT_EQ(text, bytes);
    EXPECT_EQ(read_text_file(path, "plan file"), bytes);
    std::remove(path);
}

TEST(TextFile, AFileThatCannotBeOpenedSaysSo) {
    std::string text = "kept";
    errno = 0;
    EXPECT_FALSE(read_whole_file("/nonexistent/sf-no-such-file", text));
    EXPECT_EQ(errno, ENOENT);
    try {
        read_text_file("/nonexistent/sf-no-such-file", "topology file");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/sf-no-such-file: cannot open topology file");
    }
}

}  // namespace
}  // namespace spiderflow
