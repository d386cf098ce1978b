// Fuzz target: hwloc XML of one node through our hwloc reader (hwloc's own XML import included).
// Bad input must end as an InputError.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/topology/checks.h"
#include "common/topology/hwloc_reader.h"
#include "common/util/errors.h"

// hwloc dlopens its libxml2 XML plugin for each parse and dlcloses it after, which unloads
// libxml2 too. What libxml2 had allocated for its global error state then has no reachable
// owner left and LeakSanitizer reports it from an "<unknown module>", where no suppression can
// name the library. Keeping libxml2 loaded for the whole run leaves its globals reachable;
// a leak in our own code is still reported.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    (void)dlopen("libxml2.so.2", RTLD_NOW | RTLD_NODELETE);  // absent libxml2: nothing to keep
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace spiderflow;
    const std::string input(reinterpret_cast<const char*>(data), size);
    try {
        (void)check_topology(HwlocReader().parse(input, "fuzz.xml"));
    } catch (const InputError&) {
    }
    return 0;
}
