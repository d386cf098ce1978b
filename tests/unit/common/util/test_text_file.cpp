// The one whole-file reader.
#include <gtest/gtest.h>

#include <sys/stat.h>
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

// slurmctld reads the admin's topology and site files under its locks: a FIFO named there (or a
// hung device) must be refused at once, never waited on; only regular files are read.
TEST(TextFile, OnlyRegularFilesAreReadAndAFifoIsNeverWaitedOn) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/sf-text-fifo.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const std::string fifo = pattern + "/topo.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string text = "kept";
    errno = 0;
    EXPECT_FALSE(read_whole_file(fifo, text));   // returns: a blocking open() would hang here
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(text, "kept");
    try {
        read_text_file(fifo, "topology file");
        FAIL() << "a FIFO was read";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), fifo + ": cannot open topology file (not a regular file)");
    }
    errno = 0;
    EXPECT_FALSE(read_whole_file(pattern, text));
    EXPECT_EQ(errno, EISDIR);
    EXPECT_FALSE(read_whole_file("/dev/zero", text));
    EXPECT_EQ(errno, EINVAL);
    std::remove(fifo.c_str());
    ::rmdir(pattern.c_str());
}

}  // namespace
}  // namespace spiderflow
