// Whole small files: configs and links files (read_text_file, read_conf_file), secrets
// (read_secret_file), which refuse a file others could read rather than use a leaked secret, and
// the stamps reload-on-change caches compare (FileStamp).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/util/errors.h"
#include "common/util/file_stamp.h"
#include "common/util/key_value_conf.h"
#include "common/util/secret_file.h"
#include "common/util/text_file.h"

using namespace spiderflow;

namespace {

// A fresh directory per test, removed with what the test wrote in it.
class Files : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = ::testing::TempDir() + "/sf-util-files.XXXXXX";
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override {
        for (const auto& p : written_) ::unlink(p.c_str());
        ::rmdir(dir_.c_str());
    }
    // Writes TEXT to NAME with MODE; returns its path.
    std::string file(const std::string& name, const std::string& text, mode_t mode = 0600) {
        const std::string path = dir_ + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        ::chmod(path.c_str(), mode);
        written_.push_back(path);
        return path;
    }
    std::string dir_;
    std::vector<std::string> written_;
};

std::string runtime_error_of(const std::string& path) {
    try {
        read_secret_file(path, "token");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_F(Files, TextFileWholeAndByteForByte) {
    using namespace std::string_literals;
    const std::string text = "line 1\n\0binary\r\nlast"s;
    EXPECT_EQ(read_text_file(file("a.txt", text)), text);
    EXPECT_EQ(read_text_file(file("empty.txt", "")), "");
}

TEST_F(Files, AMissingTextFileNamesThePathAndWhatItWasFor) {
    const std::string path = dir_ + "/nope.json";
    try {
        read_text_file(path, "links file");
        FAIL() << "read a missing file";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), path);
        EXPECT_EQ(e.line(), 0);
        EXPECT_EQ(e.problem(), "cannot open links file");
    }
    try {
        read_text_file(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problem(), "cannot open file");
    }
}

TEST_F(Files, AConfigFileIsReadAsOne) {
    EXPECT_EQ(read_conf_file(file("s.conf", "cross_site = yes\n")), "cross_site = yes\n");
    try {
        read_conf_file(dir_ + "/missing.conf");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problem(), "cannot open config file");
    }
}

TEST_F(Files, ASecretWithoutSurroundingWhitespace) {
    EXPECT_EQ(read_secret_file(file("t", "  tok-alpha\n\n"), "token"), "tok-alpha");
    EXPECT_EQ(read_secret_file(file("t2", "a b\tc\r\n", 0400), "token"), "a b\tc");
}

TEST_F(Files, ASecretOthersCanReadIsRefusedAndNotReturned) {
    for (const mode_t mode : {0640, 0604, 0644, 0620, 0610}) {
        const std::string path = file("open-" + std::to_string(mode), "tok-leaked\n", mode);
        const std::string what = runtime_error_of(path);
        EXPECT_EQ(what, "token file " + path + " is readable by others; chmod 600 it (the token is not used)")
            << std::oct << mode;
    }
}

TEST_F(Files, ASiteSharesAReaderTokenWithOneGroup) {
    // root:GROUP 640 (a group other than root's): that group's users read it.
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
    const std::string path = file("group", "tok-group\n", 0640);
    ASSERT_EQ(::chown(path.c_str(), 0, 100), 0);
    EXPECT_EQ(read_secret_file(path, "token"), "tok-group");
    ASSERT_EQ(::chmod(path.c_str(), 0660), 0);  // the group may not write it
    EXPECT_EQ(runtime_error_of(path), "token file " + path + " is readable by others; chmod 600 it (the token is not used)");
    ASSERT_EQ(::chmod(path.c_str(), 0644), 0);  // nor may everyone read it
    EXPECT_EQ(runtime_error_of(path), "token file " + path + " is readable by others; chmod 600 it (the token is not used)");
}

TEST_F(Files, AMissingOrEmptySecretSaysSo) {
    const std::string missing = dir_ + "/none";
    EXPECT_EQ(runtime_error_of(missing), "cannot read token file " + missing + ": No such file or directory");
    EXPECT_EQ(runtime_error_of(dir_), "token file " + dir_ + " is not a regular file");
    const std::string blank = file("blank", " \n\t\n");
    EXPECT_EQ(runtime_error_of(blank), "token file " + blank + " is empty");
    try {
        read_secret_file(blank, "database password");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "database password file " + blank + " is empty");
    }
}

// A cache re-reads a file whose stamp differs: rewritten with the same size at another time, or
// grown within the same second; a missing file has no stamp.
TEST_F(Files, AStampChangesWithTheFilesTimeOrSize) {
    EXPECT_FALSE(FileStamp::of(dir_ + "/none").exists);
    EXPECT_FALSE(FileStamp::of("").exists);
    const std::string path = file("conf", "a = 1\n");
    const FileStamp first = FileStamp::of(path);
    EXPECT_TRUE(first.exists);
    EXPECT_EQ(first.size, 6);
    EXPECT_TRUE(first == FileStamp::of(path));
    struct timespec later[2] = {first.mtime, first.mtime};
    later[1].tv_sec += 1;
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
    EXPECT_FALSE(first == FileStamp::of(path));
    later[1] = first.mtime;
    std::ofstream(path, std::ios::app) << "b = 2\n";
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
    struct stat st {};
    const FileStamp grown = FileStamp::of(path, &st);
    EXPECT_FALSE(first == grown);
    EXPECT_TRUE(S_ISREG(st.st_mode));
}
