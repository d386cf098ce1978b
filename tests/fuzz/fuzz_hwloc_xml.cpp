// Fuzz target: hwloc XML of one node through our hwloc reader (hwloc's own XML import included).
// Bad input must end as an InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/topology/checks.h"
#include "common/topology/hwloc_reader.h"
#include "common/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace spiderflow;
    const std::string input(reinterpret_cast<const char*>(data), size);
    try {
        (void)check_topology(HwlocReader().parse(input, "fuzz.xml"));
    } catch (const InputError&) {
    }
    return 0;
}
