// contrib/grafana/spiderflow.json asks only for names the broker or the agent exports: every
// PromQL expression's spiderflow_* names, checked against both exporters' text.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/util/text_file.h"
#include "tests/unit/services/monitoring/exported_names.h"
#include "tests/unit/services/monitoring/monitoring_fixture.h"

using namespace spiderflow;
using namespace spiderflow::test;

namespace {

// Every PromQL text in the dashboard: panel targets' expr, template variables' query.
void queries(const nlohmann::json& j, std::vector<std::string>* out) {
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if ((key == "expr" || key == "query" || key == "definition") && value.is_string()) out->push_back(value);
            else queries(value, out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j) queries(v, out);
    }
}

}  // namespace

TEST(GrafanaDashboard, EveryQueriedNameIsExported) {
    const nlohmann::json dash = nlohmann::json::parse(read_text_file(srcdir() + "/contrib/grafana/spiderflow.json"));
    std::set<std::string> exported = exported_names(broker_text());
    for (const std::string& n : exported_names(agent_text())) exported.insert(n);
    std::vector<std::string> texts;
    queries(dash, &texts);
    const std::regex name(R"(spiderflow_[A-Za-z0-9_:]*)");
    size_t names = 0;
    for (const std::string& q : texts) {
        if (q == "prometheus") continue;  // the data source variable's type
        bool any = false;
        for (auto it = std::sregex_iterator(q.begin(), q.end(), name); it != std::sregex_iterator(); ++it) {
            EXPECT_EQ(exported.count(it->str()), 1u) << it->str() << " in '" << q << "' is exported by neither";
            any = true;
            ++names;
        }
        EXPECT_TRUE(any) << "'" << q << "' asks for no SpiderFlow metric";
    }
    EXPECT_GT(names, 20u);
}

TEST(GrafanaDashboard, HasRowsForClustersLinksAndCrossSiteJobs) {
    const nlohmann::json dash = nlohmann::json::parse(read_text_file(srcdir() + "/contrib/grafana/spiderflow.json"));
    std::set<std::string> rows;
    std::set<int> ids;
    for (const auto& p : dash.at("panels")) {
        if (p.at("type") == "row") rows.insert(p.at("title").get<std::string>());
        EXPECT_TRUE(ids.insert(p.at("id").get<int>()).second) << "panel id twice";
    }
    for (const char* r : {"Clusters", "Links", "Cross-site jobs"}) EXPECT_EQ(rows.count(r), 1u) << r;
}
