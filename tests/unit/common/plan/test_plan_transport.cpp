// The plan's carried form: round trip, and hostile input refused without reading or
// allocating without bound.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/plan/plan_transport.h"
#include "common/util/errors.h"

using namespace spiderflow;

TEST(PlanTransport, RoundTripsAnyText) {
    for (const std::string text : {std::string(), std::string("{}"), std::string(100000, 'x'), std::string("a\0b", 3)}) {
        const std::string enc = encode_plan_text(text);
        EXPECT_EQ(enc.rfind("z1:", 0), 0u);
        EXPECT_EQ(enc.find_first_of("\n\r ="), enc.find('='));  // one line, padding only at the end
        EXPECT_EQ(decode_plan_text(enc), text);
    }
}

TEST(PlanTransport, RefusesForeignCorruptAndOversizedData) {
    EXPECT_THROW(decode_plan_text("/etc/passwd"), InputError);
    EXPECT_THROW(decode_plan_text("z1:!!!!"), InputError);
    EXPECT_THROW(decode_plan_text("z1:AAAA"), InputError);
    std::string enc = encode_plan_text(std::string(5000, 'y'));
    EXPECT_THROW(decode_plan_text(enc.substr(0, enc.size() - 8)), InputError) << "truncated";
    EXPECT_THROW(encode_plan_text(std::string(kMaxPlanTextBytes + 1, 'z')), InputError);
    // A zip bomb: 64 MiB of zeros compress to ~64 KiB; decoding stops at the bound.
    const std::string zeros(64u << 20, '\0');
    uLongf size = compressBound(static_cast<uLong>(zeros.size()));
    std::string packed(size, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(zeros.data()),
                        static_cast<uLong>(zeros.size()), 9),
              Z_OK);
    packed.resize(size);
    // Re-encode the bomb with our own tag (encode_plan_text would refuse the input size).
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string b64;
    size_t i = 0;
    for (; i + 2 < packed.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(packed[i]) << 16) | (static_cast<unsigned char>(packed[i + 1]) << 8) |
                           static_cast<unsigned char>(packed[i + 2]);
        for (int s = 18; s >= 0; s -= 6) b64 += alphabet[(v >> s) & 63];
    }
    try {
        decode_plan_text("z1:" + b64);
        FAIL() << "bomb decoded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("more than"), std::string::npos) << e.what();
    }
}

TEST(PlanTransport, ReadsRegularFilesOnlyAndNeverBlocks) {
    char dir[] = "/tmp/sf-transport.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string good = std::string(dir) + "/plan.json";
    std::ofstream(good) << "{\"schema\": \"spiderflow-plan\"}";
    EXPECT_EQ(read_plan_file(good), "{\"schema\": \"spiderflow-plan\"}");
    const auto t0 = std::chrono::steady_clock::now();
    const std::string fifo = std::string(dir) + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THROW(read_plan_file(fifo), InputError) << "a FIFO without a writer must not hang";
    EXPECT_THROW(read_plan_file("/dev/zero"), InputError) << "a device is not read at all";
    EXPECT_THROW(read_plan_file(dir), InputError);
    EXPECT_THROW(read_plan_file(std::string(dir) + "/missing"), InputError);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    const std::string big = std::string(dir) + "/big.json";
    std::ofstream(big) << std::string(kMaxPlanTextBytes + 1, ' ');
    EXPECT_THROW(read_plan_file(big), InputError);
    std::remove(good.c_str());
    std::remove(fifo.c_str());
    std::remove(big.c_str());
    rmdir(dir);
}
