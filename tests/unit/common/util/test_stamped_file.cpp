// StampedFile: the content of a file read again only when its path, its stamp or something the
// caller names changed; a read that throws keeps nothing.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "common/util/stamped_file.h"

using namespace spiderflow;

namespace {

class Stamped : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = ::testing::TempDir() + "/sf-stamped.XXXXXX";
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
        path_ = dir_ + "/conf";
        other_ = dir_ + "/other";
    }
    void TearDown() override {
        ::unlink(path_.c_str());
        ::unlink(other_.c_str());
        ::rmdir(dir_.c_str());
    }
    static void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
    // Moves the file's mtime one second on, as an edit within the same second would not.
    static void touch_later(const std::string& path) {
        const FileStamp now = FileStamp::of(path);
        struct timespec times[2] = {now.mtime, now.mtime};
        times[1].tv_sec += 1;
        ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    }
    // A reader that counts its calls and returns the file's size.
    long long read_size(const std::string&, const FileStamp& stamp) {
        ++reads_;
        return stamp.size;
    }
    std::string dir_, path_, other_;
    int reads_ = 0;
};

TEST_F(Stamped, ReadsOnceWhileTheFileStaysTheSame) {
    write(path_, "abc");
    StampedFile<long long> file;
    EXPECT_EQ(file.held(), nullptr);
    auto read = [this](const std::string& p, const FileStamp& s) { return read_size(p, s); };
    EXPECT_EQ(file.get(path_, read), 3);
    EXPECT_EQ(file.get(path_, read), 3);
    EXPECT_EQ(reads_, 1);
    ASSERT_NE(file.held(), nullptr);
    EXPECT_EQ(*file.held(), 3);
}

TEST_F(Stamped, ReadsAgainWhenTheStampThePathOrTheCallerSaysSo) {
    write(path_, "abc");
    write(other_, "abcdef");
    StampedFile<long long> file;
    auto read = [this](const std::string& p, const FileStamp& s) { return read_size(p, s); };
    file.get(path_, read);
    touch_later(path_);
    file.get(path_, read);
    EXPECT_EQ(reads_, 2);
    EXPECT_EQ(file.get(other_, read), 6);
    EXPECT_EQ(reads_, 3);
    file.get(other_, FileStamp::of(other_), read, /*also_changed=*/true);
    EXPECT_EQ(reads_, 4);
    file.forget();
    EXPECT_EQ(file.held(), nullptr);
    file.get(other_, read);
    EXPECT_EQ(reads_, 5);
}

TEST_F(Stamped, AMissingFileIsAStampLikeAnyOther) {
    StampedFile<long long> file;
    auto read = [this](const std::string& p, const FileStamp& s) { return read_size(p, s); };
    EXPECT_EQ(file.get(path_, read), -1);
    EXPECT_EQ(file.get(path_, read), -1);
    EXPECT_EQ(reads_, 1);
    write(path_, "ab");
    EXPECT_EQ(file.get(path_, read), 2);
    EXPECT_EQ(reads_, 2);
}

TEST_F(Stamped, AReadThatThrowsKeepsNothing) {
    write(path_, "abc");
    StampedFile<long long> file;
    auto read = [this](const std::string& p, const FileStamp& s) { return read_size(p, s); };
    file.get(path_, read);
    touch_later(path_);
    auto fail = [](const std::string&, const FileStamp&) -> long long { throw std::runtime_error("broken"); };
    EXPECT_THROW(file.get(path_, fail), std::runtime_error);
    EXPECT_EQ(file.held(), nullptr);
    EXPECT_EQ(file.get(path_, read), 3);
    EXPECT_EQ(reads_, 2);
}

}  // namespace
