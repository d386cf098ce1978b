// The broker's client against a broker in this process: what it sends (bearer token, JSON
// content type, method and body), what it makes of each answer (the body on 2xx; BrokerError
// with the status and the broker's own words otherwise; retries only where retrying can help),
// failover between brokers sharing one database, and its deadline.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "services/broker_client/broker_client.h"
#include "tests/unit/services/broker_client/loopback_broker.h"

using namespace spiderflow;
using spiderflow::test::LoopbackBroker;

namespace {

// Short backoff and deadlines: every test here ends in well under a second.
BrokerEndpoint endpoint(const std::string& url, const std::string& token = "tok-alpha", int attempts = 3) {
    BrokerEndpoint e;
    e.url = url;
    e.token = token;
    e.connect_timeout_s = 1;
    e.total_timeout_s = 2;
    e.attempts = attempts;
    return e;
}

// The BrokerError a call throws (status -1 and an empty text when it does not throw).
template <typename F>
std::pair<int, std::string> failure_of(F&& call) {
    try {
        call();
    } catch (const BrokerError& e) {
        return {e.status(), e.what()};
    }
    return {-1, ""};
}

}  // namespace

TEST(BrokerClient, SendsTheTokenAsABearerAndJson) {
    LoopbackBroker b;
    b.answer(200, R"({"epoch": 3})");
    const BrokerClient c(endpoint(b.url()));
    EXPECT_EQ(c.get("/v1/federation"), R"({"epoch": 3})");
    EXPECT_EQ(b.last().method, "GET");
    EXPECT_EQ(b.last().path, "/v1/federation");
    EXPECT_EQ(b.last().authorization, "Bearer tok-alpha");
    EXPECT_EQ(b.last().content_type, "application/json");
}

TEST(BrokerClient, NoTokenNoAuthorizationHeader) {
    LoopbackBroker b;
    BrokerClient(endpoint(b.url(), "")).get("/healthz");
    EXPECT_EQ(b.hits(), 1);
    EXPECT_FALSE(b.had_authorization());
}

TEST(BrokerClient, PutAndPostCarryTheirBody) {
    LoopbackBroker b;
    const BrokerClient c(endpoint(b.url()));
    c.put("/v1/clusters/alpha/inventory", R"({"nodes": []})");
    EXPECT_EQ(b.last().method, "PUT");
    EXPECT_EQ(b.last().body, R"({"nodes": []})");
    const std::string big(100000, 'x');
    c.post("/v1/clusters/alpha/deltas", big);
    EXPECT_EQ(b.last().method, "POST");
    EXPECT_TRUE(b.last().body == big) << b.last().body.size() << " bytes arrived of " << big.size();
}

TEST(BrokerClient, AClientErrorIsNotRetriedAndCarriesTheBrokersWords) {
    LoopbackBroker b;
    b.answer(403, R"({"error": "cluster beta may not write alpha"})");
    const BrokerClient c(endpoint(b.url()));
    const auto [status, what] = failure_of([&] { c.put("/v1/clusters/alpha/inventory", "{}"); });
    EXPECT_EQ(status, 403);
    EXPECT_EQ(what, "PUT " + b.url() + "/v1/clusters/alpha/inventory: HTTP 403: cluster beta may not write alpha");
    EXPECT_EQ(b.hits(), 1) << "a 4xx is the same on every try";
    b.answer(404, "no such job");
    EXPECT_EQ(failure_of([&] { c.get("/v1/xjobs/x"); }).second, "GET " + b.url() + "/v1/xjobs/x: HTTP 404: no such job");
}

TEST(BrokerClient, AServerErrorIsRetriedThenReported) {
    LoopbackBroker b;
    b.answer(500, R"({"error": "store: disk I/O error"})");
    const auto [status, what] = failure_of([&] { BrokerClient(endpoint(b.url(), "t", 3)).get("/v1/clusters"); });
    EXPECT_EQ(status, 500);
    EXPECT_EQ(what, "GET " + b.url() + "/v1/clusters: HTTP 500: store: disk I/O error");
    EXPECT_EQ(b.hits(), 3);
}

TEST(BrokerClient, TooManyRequestsIsRetriedAndMaySucceed) {
    LoopbackBroker b;
    b.answer(429, R"({"error": "rate limit"})");
    EXPECT_EQ(failure_of([&] { BrokerClient(endpoint(b.url(), "t", 2)).get("/v1/clusters"); }).first, 429);
    EXPECT_EQ(b.hits(), 2);
    b.answer(200, "ok");
    EXPECT_EQ(BrokerClient(endpoint(b.url(), "t", 1)).get("/v1/clusters"), "ok");
}

TEST(BrokerClient, AnErrorBodyThatIsNotOursIsShownShortened) {
    LoopbackBroker b;
    b.answer(502, std::string(300, '<'));
    const std::string what = failure_of([&] { BrokerClient(endpoint(b.url(), "t", 1)).get("/v1/x"); }).second;
    EXPECT_EQ(what, "GET " + b.url() + "/v1/x: HTTP 502: " + std::string(200, '<'));
}

TEST(BrokerClient, FailsOverPastAnUnreachableBrokerAndStaysWithTheOneThatAnswered) {
    LoopbackBroker b;
    const std::string down = "http://127.0.0.1:" + std::to_string(test::closed_port());
    const BrokerClient c(endpoint(down + ", " + b.url() + "/", "t", 1));
    EXPECT_EQ(c.endpoint().url, down) << "the first URL, trimmed";
    EXPECT_EQ(c.get("/v1/clusters"), "{}");
    EXPECT_EQ(b.hits(), 1);
    // A copy shares what was learnt.
    const BrokerClient copy = c;
    EXPECT_EQ(copy.get("/v1/clusters"), "{}");
    EXPECT_EQ(b.hits(), 2);
}

TEST(BrokerClient, AStandbyIsPassedOverThePreferredBrokerIsAskedFirst) {
    LoopbackBroker standby, active;
    standby.answer(503, R"({"error": "standby: the lease is held by b:8760"})");
    const BrokerClient c(endpoint(standby.url() + "," + active.url(), "t", 1));
    EXPECT_EQ(c.get("/v1/federation"), "{}");
    EXPECT_EQ(standby.hits(), 1);
    EXPECT_EQ(active.hits(), 1);
    c.get("/v1/federation");
    EXPECT_EQ(standby.hits(), 1) << "the broker that answered last is asked first";
    EXPECT_EQ(active.hits(), 2);
}

TEST(BrokerClient, AServerErrorIsThatBrokersAnswerNotAReasonToFailOver) {
    LoopbackBroker first, second;
    first.answer(500, "{}");
    EXPECT_EQ(failure_of([&] { BrokerClient(endpoint(first.url() + "," + second.url(), "t", 2)).get("/v1/x"); }).first, 500);
    EXPECT_EQ(first.hits(), 2);
    EXPECT_EQ(second.hits(), 0);
}

TEST(BrokerClient, EveryBrokerDownIsStatusZeroWithTheTransportError) {
    const std::string a = "http://127.0.0.1:" + std::to_string(test::closed_port());
    const auto [status, what] = failure_of([&] { BrokerClient(endpoint(a, "t", 2)).get("/v1/clusters"); });
    EXPECT_EQ(status, 0);
    EXPECT_EQ(what.rfind("GET " + a + "/v1/clusters: ", 0), 0u) << what;
    EXPECT_GT(what.size(), ("GET " + a + "/v1/clusters: ").size()) << "libcurl's reason follows";
}

TEST(BrokerClient, ABrokerThatDoesNotAnswerInTimeIsATransportError) {
    LoopbackBroker b;
    b.stall();
    BrokerEndpoint e = endpoint(b.url(), "t", 1);
    e.total_timeout_s = 0.3;
    const auto t0 = std::chrono::steady_clock::now();
    const auto [status, what] = failure_of([&] { BrokerClient(e).get("/v1/federation"); });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    b.release();
    EXPECT_EQ(status, 0) << what;
    EXPECT_NE(what.find("GET " + b.url() + "/v1/federation: "), std::string::npos) << what;
    EXPECT_GE(took, 0.25);
    EXPECT_LT(took, 2.0) << "the deadline bounds the call";
}

TEST(BrokerClient, OnlyHttpAndHttpsUrls) {
    const auto [status, what] = failure_of([] { BrokerClient(endpoint("http://a:1,ftp://b:2")); });
    EXPECT_EQ(status, 0);
    EXPECT_EQ(what, "broker URL 'ftp://b:2' must start with https:// (or http:// on loopback)");
    EXPECT_EQ(failure_of([] { BrokerClient(endpoint("")); }).first, 0);
    EXPECT_EQ(failure_of([] { BrokerClient(endpoint("https://a:1,")); }).second,
              "broker URL '' must start with https:// (or http:// on loopback)");
}

TEST(TokenFile, ASecretFileProblemIsABrokerErrorWithoutAStatus) {
    std::string dir = ::testing::TempDir() + "/sf-token.XXXXXX";
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    const std::string path = dir + "/agent.token";
    std::ofstream(path) << "tok-alpha\n";
    ::chmod(path.c_str(), 0600);
    EXPECT_EQ(read_token_file(path), "tok-alpha");
    ::chmod(path.c_str(), 0644);
    const auto [status, what] = failure_of([&] { read_token_file(path); });
    EXPECT_EQ(status, 0);
    EXPECT_EQ(what, "token file " + path + " is readable by others; chmod 600 it (the token is not used)");
    std::remove(path.c_str());
    ::rmdir(dir.c_str());
}
