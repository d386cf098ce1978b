#include "common/broker_client/broker_client.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace spiderflow {
namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
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
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw BrokerError(0, "cannot read token file " + path);
    if ((st.st_mode & 077) != 0) {
        throw BrokerError(0, "token file " + path + " is readable by others; chmod 600 it (the token is not used)");
    }
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    std::string t = text.str();
    const auto b = t.find_first_not_of(" \t\r\n");
    const auto e = t.find_last_not_of(" \t\r\n");
    if (!in || b == std::string::npos) throw BrokerError(0, "token file " + path + " is empty");
    return t.substr(b, e - b + 1);
}

BrokerClient::BrokerClient(BrokerEndpoint endpoint) : endpoint_(std::move(endpoint)) {
    while (!endpoint_.url.empty() && endpoint_.url.back() == '/') endpoint_.url.pop_back();
    if (endpoint_.url.rfind("http://", 0) != 0 && endpoint_.url.rfind("https://", 0) != 0) {
        throw BrokerError(0, "broker URL '" + endpoint_.url + "' must start with https:// (or http:// on loopback)");
    }
    if (endpoint_.attempts < 1) endpoint_.attempts = 1;
}

std::string BrokerClient::get(const std::string& path) const { return call("GET", path, nullptr); }
std::string BrokerClient::put(const std::string& path, const std::string& body) const { return call("PUT", path, &body); }
std::string BrokerClient::post(const std::string& path, const std::string& body) const {
    return call("POST", path, &body);
}

std::string BrokerClient::call(const char* method, const std::string& path, const std::string* body) const {
    global_init();
    const std::string url = endpoint_.url + path;
    thread_local std::mt19937 rng{std::random_device{}()};
    std::string last_error;
    int last_status = 0;
    for (int attempt = 0; attempt < endpoint_.attempts; ++attempt) {
        if (attempt > 0) {
            // 0.2 s, 0.4 s, 0.8 s ... each +-50%, so agents that lost the broker together do
            // not come back together.
            const double base = 0.2 * (1 << (attempt - 1));
            std::uniform_real_distribution<double> jitter(0.5 * base, 1.5 * base);
            std::this_thread::sleep_for(std::chrono::duration<double>(jitter(rng)));
        }
        CURL* curl = curl_easy_init();
        if (curl == nullptr) throw BrokerError(0, "libcurl could not start a call to " + url);
        std::string answer;
        curl_slist* headers = nullptr;
        if (!endpoint_.token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + endpoint_.token).c_str());
        headers = curl_slist_append(headers, "Content-Type: application/json");
        curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(endpoint_.connect_timeout_s * 1000));
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(endpoint_.total_timeout_s * 1000));
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
        if (!endpoint_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, endpoint_.ca_file.c_str());
        if (body != nullptr) {
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
            curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
        }
        const CURLcode rc = curl_easy_perform(curl);
        long status = 0;
        if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);
        if (rc == CURLE_OK && status >= 200 && status < 300) return answer;
        last_status = static_cast<int>(status);
        last_error = rc != CURLE_OK ? std::string(curl_easy_strerror(rc))
                                    : "HTTP " + std::to_string(status) + ": " + error_text(answer);
        if (!worth_retrying(last_status)) break;
    }
    throw BrokerError(last_status, std::string(method) + " " + url + ": " + last_error);
}

}  // namespace spiderflow
