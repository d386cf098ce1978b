// spiderflow doctor's checks on planted facts: what each finds, its severity and its fix, and
// when it passes or stands aside. No daemons: the facts are what gather_site would have read.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>

#include "tools/spiderflow/doctor/checks.h"

using namespace spiderflow;
using namespace spiderflow::doctor;

namespace {

constexpr uint32_t v(unsigned major, unsigned minor, unsigned micro) { return (major << 16) | (minor << 8) | micro; }

// A site whose slurmctld answered with `s` (version 22.05.8 unless set), in a federation whose
// broker answered: one cluster, alpha, published 3 s ago by a broker clock equal to ours.
SiteFacts site_with(SlurmSettings s) {
    SiteFacts f;
    if (s.version.empty()) s.version = "22.05.8";
    f.slurm.conf_path = "/etc/slurm/slurm.conf";
    f.slurm.controller_asked = true;
    f.slurm.file_view = s;
    f.slurm.controller = s;
    f.slurm.built_against = v(22, 5, 8);
    f.spiderflow.path = "/etc/slurm/spiderflow.conf";
    f.spiderflow.conf.emplace();
    f.spiderflow.conf->cluster = "alpha";
    f.agent.path = "/etc/spiderflow/agent.conf";
    f.agent.conf.emplace();
    f.broker.url = "https://broker:8760";
    f.broker.token_file = "/etc/spiderflow/agent-token";
    f.broker.asked = true;
    f.broker.health = "ok";
    f.broker.clusters.emplace();
    broker_api::ClusterSummary alpha;
    alpha.name = "alpha";
    alpha.updated_at = 1'000'000;
    alpha.age_s = 3;
    f.broker.clusters->clusters.push_back(alpha);
    f.broker.asked_at = 1'000'003.0;
    f.broker.answered_at = 1'000'003.2;
    return f;
}

CheckResult run(void (*check)(const SiteFacts&, CheckResult&), const SiteFacts& f) {
    CheckResult r;
    check(f, r);
    return r;
}

std::set<std::string> names_of_checks() {
    std::set<std::string> n;
    for (const Check& c : doctor_checks()) n.insert(c.name);
    return n;
}

}  // namespace

TEST(DoctorChecks, OneTableOfUniquelyNamedChecks) {
    EXPECT_EQ(names_of_checks().size(), doctor_checks().size());
    EXPECT_EQ(doctor_checks().size(), 12u);
}

TEST(DoctorChecks, JobSubmitNamesSpiderflowAmongOthers) {
    SlurmSettings s;
    s.job_submit_plugins = "lua,job_submit/spiderflow";
    EXPECT_EQ(run(check_job_submit, site_with(s)).status, Status::passed);
    s.job_submit_plugins = "lua";
    const CheckResult r = run(check_job_submit, site_with(s));
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].severity, Severity::error);
    EXPECT_NE(r.findings[0].fix.find("JobSubmitPlugins=lua,spiderflow"), std::string::npos);
    EXPECT_NE(r.findings[0].fix.find("restart slurmctld"), std::string::npos);
}

TEST(DoctorChecks, JobRequeueAgainstOnFailure) {
    SlurmSettings s;
    s.job_requeue = 1;
    SiteFacts f = site_with(s);
    f.spiderflow.conf->requeue_on_failure = true;
    CheckResult r = run(check_job_requeue, f);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].severity, Severity::error);
    EXPECT_NE(r.findings[0].fix.find("JobRequeue=0"), std::string::npos);
    f.spiderflow.conf->requeue_on_failure = false;  // end: users may still ask for requeue
    r = run(check_job_requeue, f);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].severity, Severity::warning);
    s.job_requeue = 0;
    EXPECT_EQ(run(check_job_requeue, site_with(s)).status, Status::passed);
    // No federation: Slurm's requeue of a whole job is SpiderFlow's too.
    s.job_requeue = 1;
    f = site_with(s);
    f.broker.url.clear();
    f.agent.conf.reset();
    EXPECT_EQ(run(check_job_requeue, f).status, Status::passed);
}

TEST(DoctorChecks, ClockAgainstTheBrokersWithinWhatTheReadingTells) {
    SiteFacts f = site_with({});
    EXPECT_EQ(run(check_clock, f).status, Status::passed);
    f.broker.asked_at += 10;  // 10 s ahead
    f.broker.answered_at += 10;
    CheckResult r = run(check_clock, f);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].severity, Severity::warning);
    EXPECT_NE(r.findings[0].message.find("10 s ahead of the broker's"), std::string::npos);
    f.broker.asked_at -= 410;  // 400 s behind: past the start barrier
    f.broker.answered_at -= 410;
    r = run(check_clock, f);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].severity, Severity::error);
    EXPECT_NE(r.findings[0].message.find("400 s behind"), std::string::npos);
    f.broker.clusters->clusters[0].updated_at = 0;  // nobody published: the broker's time is unknown
    EXPECT_EQ(run(check_clock, f).status, Status::skipped);
}

TEST(DoctorChecks, AgentPublishesWithinItsHeartbeat) {
    SiteFacts f = site_with({});
    EXPECT_EQ(run(check_agent, f).status, Status::passed);
    f.broker.clusters->clusters[0].age_s = 100;  // heartbeat 60, interval 5: silent past 75 s
    CheckResult r = run(check_agent, f);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_NE(r.findings[0].message.find("last published 100 s ago"), std::string::npos);
    EXPECT_NE(r.findings[0].fix.find("spiderflow-agent --config /etc/spiderflow/agent.conf"), std::string::npos);
    f.broker.clusters->clusters[0].updated_at = 0;
    EXPECT_NE(run(check_agent, f).findings.at(0).message.find("never published"), std::string::npos);
    f.spiderflow.conf->cluster = "gamma";
    EXPECT_NE(run(check_agent, f).findings.at(0).message.find("not in the broker's federation topology (its clusters: alpha)"),
              std::string::npos);
    f.broker.health_error = "Couldn't connect to server";
    EXPECT_EQ(run(check_agent, f).status, Status::skipped);
}

TEST(DoctorChecks, TopologyPluginPerSlurmVersion) {
    SlurmSettings s;
    s.topology_plugin = "topology/spiderflow_tree";
    EXPECT_EQ(run(check_topology_plugin, site_with(s)).status, Status::passed);
    s.topology_plugin = "topology/tree";
    EXPECT_EQ(run(check_topology_plugin, site_with(s)).findings.at(0).severity, Severity::warning);
    s.version = "24.11.5";
    CheckResult r = run(check_topology_plugin, site_with(s));
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_NE(r.findings[0].fix.find("TopologyParam=SwitchAsNodeRank"), std::string::npos);
    s.topology_param = "TopoOptional,SwitchAsNodeRank";
    EXPECT_EQ(run(check_topology_plugin, site_with(s)).status, Status::passed);
    s.version = "26.05.5";
    s.topology_param.clear();
    EXPECT_EQ(run(check_topology_plugin, site_with(s)).status, Status::passed);
    s.topology_plugin = "topology/block";
    EXPECT_EQ(run(check_topology_plugin, site_with(s)).status, Status::findings);
}

TEST(DoctorChecks, SlurmctldRunningOtherSettingsThanTheFile) {
    SlurmSettings s;
    s.job_submit_plugins = "spiderflow";
    SiteFacts f = site_with(s);
    EXPECT_EQ(run(check_slurm_conf, f).status, Status::passed);
    f.slurm.file_view->job_submit_plugins = "";
    f.slurm.file_view->job_requeue = 0;
    const CheckResult r = run(check_slurm_conf, f);
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[0].what, "JobSubmitPlugins");
    EXPECT_NE(r.findings[0].fix.find("restart slurmctld"), std::string::npos);
    EXPECT_EQ(r.findings[1].what, "JobRequeue");
    f.slurm.controller.reset();
    f.slurm.controller_error = "Unable to contact slurm controller (connect failure)";
    EXPECT_EQ(run(check_slurm_conf, f).findings.at(0).what, "slurmctld");
}

TEST(DoctorChecks, TokenFixSaysChmodOnlyForAnExposedFile) {
    char dir[] = "/tmp/sf-doctor-token.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string token = std::string(dir) + "/agent-token";
    std::ofstream(token) << "tok\n";
    ::chmod(token.c_str(), 0644);
    SiteFacts f = site_with({});
    f.broker.token_file = token;
    f.broker.token_error = "token file " + token + " is readable by others; chmod 600 it (the token is not used)";
    EXPECT_NE(run(check_token, f).findings.at(0).fix.find("chmod 600 " + token), std::string::npos);
    f.broker.token_file = std::string(dir) + "/missing";
    f.broker.token_error = "cannot read token file: No such file or directory";
    EXPECT_NE(run(check_token, f).findings.at(0).fix.find("write this cluster's token"), std::string::npos);
    f.broker.token_error.clear();
    EXPECT_EQ(run(check_token, f).status, Status::passed);
    ::unlink(token.c_str());
    ::rmdir(dir);
}

TEST(DoctorChecks, NoFederationSkipsTheBrokersChecks) {
    SiteFacts f = site_with({});
    f.broker = BrokerFacts{};
    f.agent.conf.reset();
    f.agent.missing = true;
    for (auto check : {check_token, check_broker, check_agent, check_clock}) {
        const CheckResult r = run(check, f);
        EXPECT_EQ(r.status, Status::skipped);
    }
    EXPECT_NE(run(check_token, f).detail.find("in no federation"), std::string::npos);
}

TEST(DoctorChecks, SpiderflowConfMissingOrBroken) {
    SiteFacts f = site_with({});
    f.spiderflow.conf.reset();
    f.spiderflow.missing = true;
    EXPECT_EQ(run(check_spiderflow_conf, f).findings.at(0).severity, Severity::error);
    f.spiderflow.missing = false;
    f.spiderflow.error = "/etc/slurm/spiderflow.conf:3: cross_site_los: unknown key";
    EXPECT_NE(run(check_spiderflow_conf, f).findings.at(0).message.find("cross_site_los: unknown key"), std::string::npos);
    EXPECT_EQ(run(check_topology, f).status, Status::skipped);
}
