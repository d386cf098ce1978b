#include "common/topology/dtfm_regions.h"

#include <stdexcept>

namespace spiderflow {
namespace {

struct Row {
    const char* a;
    const char* b;
    DtfmLink figure;
};

constexpr Row kTable[] = {
    {"oregon", "virginia", {67, 0.79}},
    {"oregon", "ohio", {49, 1.1}},
    {"oregon", "tokyo", {96, 0.523}},
    {"oregon", "seoul", {124, 0.46}},
    {"oregon", "singapore", {163, 0.341}},
    {"oregon", "sydney", {139, 0.36}},
    {"oregon", "london", {136, 0.42}},
    {"oregon", "frankfurt", {143, 0.404}},
    {"oregon", "ireland", {124, 0.482}},
    {"virginia", "ohio", {11, 1.12}},
    {"virginia", "tokyo", {143, 0.524}},
    {"virginia", "seoul", {172, 0.5}},
    {"virginia", "singapore", {230, 0.364}},
    {"virginia", "sydney", {197, 0.383}},
    {"virginia", "london", {76, 1.16}},
    {"virginia", "frankfurt", {90, 1.02}},
    {"virginia", "ireland", {67, 1.05}},
    {"ohio", "tokyo", {130, 0.694}},
    {"ohio", "seoul", {159, 0.529}},
    {"ohio", "singapore", {197, 0.452}},
    {"ohio", "sydney", {185, 0.484}},
    {"ohio", "london", {86, 1.05}},
    {"ohio", "frankfurt", {99, 0.799}},
    {"ohio", "ireland", {77, 1.14}},
    {"tokyo", "seoul", {34, 1.1}},
    {"tokyo", "singapore", {73, 1.01}},
    {"tokyo", "sydney", {100, 0.761}},
    {"tokyo", "london", {210, 0.366}},
    {"tokyo", "frankfurt", {223, 0.36}},
    {"tokyo", "ireland", {199, 0.465}},
    {"seoul", "singapore", {74, 1.14}},
    {"seoul", "sydney", {148, 0.58}},
    {"seoul", "london", {238, 0.342}},
    {"seoul", "frankfurt", {235, 0.358}},
    {"seoul", "ireland", {228, 0.335}},
    {"singapore", "sydney", {92, 0.816}},
    {"singapore", "london", {169, 0.5}},
    {"singapore", "frankfurt", {155, 0.535}},
    {"singapore", "ireland", {179, 0.492}},
    {"sydney", "london", {262, 0.326}},
    {"sydney", "frankfurt", {265, 0.328}},
    {"sydney", "ireland", {254, 0.344}},
    {"london", "frankfurt", {14, 1.14}},
    {"london", "ireland", {12, 1.09}},
    {"frankfurt", "ireland", {24, 1.08}},
};

constexpr DtfmLink kInRegion{5, 2};  // the study's figure between instances of one region

}  // namespace

std::vector<std::string> dtfm_regions() {
    std::vector<std::string> out;
    for (const Row& r : kTable) {
        for (const char* name : {r.a, r.b}) {
            bool known = false;
            for (const std::string& o : out) known = known || o == name;
            if (!known) out.emplace_back(name);
        }
    }
    return out;
}

DtfmLink dtfm_link(const std::string& a, const std::string& b) {
    for (const Row& r : kTable) {
        if ((a == r.a && b == r.b) || (a == r.b && b == r.a)) return r.figure;
    }
    for (const std::string& name : dtfm_regions()) {
        if (a == name && b == name) return kInRegion;
    }
    throw std::out_of_range("no DTFM figure between regions '" + a + "' and '" + b + "'");
}

}  // namespace spiderflow
