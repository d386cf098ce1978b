#include "services/broker_client/broker_client.h"

#include <curl/curl.h>
#include <strings.h>

#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/util/secret_file.h"

namespace spiderflow {
namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

// The ETag header of an answer, as sent (quotes kept: If-None-Match sends it back whole).
size_t keep_etag(char* data, size_t size, size_t n, void* out) {
    const std::string line(data, size * n);
    constexpr const char* kName = "etag:";
    if (line.size() > 5 && strncasecmp(line.c_str(), kName, 5) == 0) {
        const size_t from = line.find_first_not_of(" \t", 5);
        const size_t to = line.find_last_not_of(" \t\r\n");
        *static_cast<std::string*>(out) = from == std::string::npos || to < from ? "" : line.substr(from, to - from + 1);
    }
    return size * n;
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The broker answers {"error": "..."}; anything else is shown as it came, shortened.
std::string error_text(const std::string& body) {
    try {
        const auto j = nlohmann::json::parse(body);
        if (j.is_object() && j.contains("error") && j.at("error").is_string()) return j.at("error").get<std::string>();
    } catch (const std::exception&) {
    }
    return body.substr(0, 200);
}

bool worth_retrying(int status) { return status == 0 || status == 429 || status >= 500; }

}  // namespace

std::string read_token_file(const std::string& path) {
    try {
        return read_secret_file(path, "token");
    } catch (const std::runtime_error& e) {
        throw BrokerError(0, e.what());
    }
}

BrokerClient::BrokerClient(BrokerEndpoint endpoint) : endpoint_(std::move(endpoint)) {
    std::string list = endpoint_.url;
    for (size_t from = 0; from <= list.size();) {
        size_t comma = list.find(',', from);
        if (comma == std::string::npos) comma = list.size();
        std::string url = list.substr(from, comma - from);
        const auto b = url.find_first_not_of(" \t");
        url = b == std::string::npos ? std::string() : url.substr(b, url.find_last_not_of(" \t") - b + 1);
        while (!url.empty() && url.back() == '/') url.pop_back();
        if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
            throw BrokerError(0, "broker URL '" + url + "' must start with https:// (or http:// on loopback)");
        }
        urls_.push_back(url);
        from = comma + 1;
    }
    endpoint_.url = urls_.front();
    if (endpoint_.attempts < 1) endpoint_.attempts = 1;
}

std::string BrokerClient::get(const std::string& path) const { return call("GET", path, nullptr); }

std::optional<std::string> BrokerClient::get_if_changed(const std::string& path, std::string* etag) const {
    const std::string sent = *etag;
    std::string body = call("GET", path, nullptr, etag);
    if (!sent.empty() && *etag == sent && body.empty()) return std::nullopt;
    return body;
}
std::string BrokerClient::put(const std::string& path, const std::string& body) const { return call("PUT", path, &body); }
std::string BrokerClient::post(const std::string& path, const std::string& body) const {
    return call("POST", path, &body);
}

int BrokerClient::once(const std::string& url, const char* method, const std::string* body, std::string* answer,
                       std::string* transport_error, std::string* etag) const {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) throw BrokerError(0, "libcurl could not start a call to " + url);
    curl_slist* headers = nullptr;
    if (!endpoint_.token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + endpoint_.token).c_str());
    headers = curl_slist_append(headers, "Content-Type: application/json");
    std::string answered_etag;
    if (etag != nullptr) {
        if (!etag->empty()) headers = curl_slist_append(headers, ("If-None-Match: " + *etag).c_str());
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, keep_etag);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, &answered_etag);
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(endpoint_.connect_timeout_s * 1000));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(endpoint_.total_timeout_s * 1000));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, answer);
    if (!endpoint_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, endpoint_.ca_file.c_str());
    if (body != nullptr) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
    }
    const CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    else *transport_error = curl_easy_strerror(rc);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (etag != nullptr && status == 200) *etag = answered_etag;
    return static_cast<int>(status);
}

std::string BrokerClient::call(const char* method, const std::string& path, const std::string* body,
                               std::string* etag) const {
    global_init();
    thread_local std::mt19937 rng{std::random_device{}()};
    std::string last_error, last_url;
    int last_status = 0;
    for (int attempt = 0; attempt < endpoint_.attempts; ++attempt) {
        if (attempt > 0) {
            // 0.2 s, 0.4 s, 0.8 s ... each +-50%, so agents that lost the broker together do
            // not come back together.
            const double base = 0.2 * (1 << (attempt - 1));
            std::uniform_real_distribution<double> jitter(0.5 * base, 1.5 * base);
            std::this_thread::sleep_for(std::chrono::duration<double>(jitter(rng)));
        }
        // Every broker once per attempt, starting with the one that answered last.
        const size_t first = preferred_->load();
        for (size_t k = 0; k < urls_.size(); ++k) {
            const size_t i = (first + k) % urls_.size();
            last_url = urls_[i] + path;
            std::string answer, transport_error;
            last_status = once(last_url, method, body, &answer, &transport_error, etag);
            if ((last_status >= 200 && last_status < 300) || (last_status == 304 && etag != nullptr)) {
                preferred_->store(i);
                return answer;
            }
            last_error = last_status == 0 ? transport_error
                                          : "HTTP " + std::to_string(last_status) + ": " + error_text(answer);
            if (!worth_retrying(last_status)) {
                throw BrokerError(last_status, std::string(method) + " " + last_url + ": " + last_error);
            }
            // Unreachable or a standby: another broker may answer. A 429 or 500 is that
            // broker's own answer, retried after the backoff rather than elsewhere.
            if (last_status != 0 && last_status != 503) break;
        }
    }
    throw BrokerError(last_status, std::string(method) + " " + last_url + ": " + last_error);
}

}  // namespace spiderflow
