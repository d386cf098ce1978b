// Runs a fuzz target's LLVMFuzzerTestOneInput over files, without libFuzzer: `make check` links
// every tests/fuzz/fuzz_<name>.cpp with this into tests/fuzz/replay_<name> and runs it over its
// seed corpus, so every input that once found a bug stays a regression test.
//
//   replay_<name> [FILE|DIR...]   no arguments: $SF_SRCDIR/tests/fuzz/corpus/<name>/
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional, as in libFuzzer: a target that defines it gets it called once before any input.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace fs = std::filesystem;

namespace {

// "replay_slurm_conf" (or libtool's "lt-replay_slurm_conf") -> "slurm_conf".
std::string target_name(const char* argv0) {
    std::string base = fs::path(argv0).filename().string();
    if (base.rfind("lt-", 0) == 0) base.erase(0, 3);
    const std::string prefix = "replay_";
    if (base.rfind(prefix, 0) == 0) base.erase(0, prefix.size());
    return base;
}

void collect(const fs::path& p, std::vector<fs::path>& out) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        for (const auto& e : fs::recursive_directory_iterator(p, ec))
            if (e.is_regular_file()) out.push_back(e.path());
    } else if (fs::is_regular_file(p, ec)) {
        out.push_back(p);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    std::vector<fs::path> roots;
    for (int i = 1; i < argc; ++i) roots.emplace_back(argv[i]);
    if (roots.empty()) {
        const char* src = std::getenv("SF_SRCDIR");
        roots.push_back(fs::path(src && *src ? src : ".") / "tests" / "fuzz" / "corpus" / target_name(argv[0]));
    }
    std::vector<fs::path> files;
    for (const auto& r : roots) {
        size_t before = files.size();
        collect(r, files);
        if (files.size() == before) {
            std::fprintf(stderr, "spiderflow: replay: no inputs under %s\n", r.string().c_str());
            return 1;
        }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        // Named first, so a crash log shows which input did it.
        std::printf("spiderflow: replay: %s (%zu bytes)\n", f.string().c_str(), bytes.size());
        std::fflush(stdout);
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("spiderflow: replay: %zu inputs ran without a crash\n", files.size());
    return 0;
}
