// Fuzz target: a site's Slurm config. The input is slurm.conf, optionally followed by gres.conf
// and topology.conf, the sections separated by lines holding only "%%". Bad input must end as
// an InputError; anything else (crash, other exception, sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/topology/checks.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/slurm_reader.h"
#include "common/util/errors.h"

namespace {

std::vector<std::string> sections(const std::string& in) {
    std::vector<std::string> out(1);
    size_t start = 0;
    while (start <= in.size()) {
        size_t nl = in.find('\n', start);
        std::string line = in.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if (line == "%%" && out.size() < 3) out.emplace_back();
        else out.back() += line + "\n";
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace spiderflow;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const auto parts = sections(input);
    slurm::SlurmFiles site;
    try {
        site.slurm = slurm::parse_slurm_conf(parts[0], "slurm.conf");
    } catch (const InputError&) {
        return 0;
    }
    try {
        if (parts.size() > 1) site.gres = slurm::parse_gres_conf(parts[1], "gres.conf");
    } catch (const InputError&) {
    }
    try {
        if (parts.size() > 2) site.topology = slurm::parse_topology_conf(parts[2], "topology.conf");
    } catch (const InputError&) {
    }
    (void)check_slurm_files(site);
    try {
        (void)check_topology(topology_from_slurm_files(site));
    } catch (const InputError&) {
    }
    return 0;
}
