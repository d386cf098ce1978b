#include "services/fedsim/helios_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "services/fedsim/measurement_window.h"

namespace spiderflow::fedsim {
namespace {

constexpr double kDay = 86400;

// Our own transforms over mt19937_64 (std:: distributions differ between standard libraries).
struct Rng {
    std::mt19937_64 g;
    explicit Rng(uint64_t seed) : g(seed) {}
    double uniform() { return static_cast<double>(g() >> 11) * 0x1.0p-53; }   // [0, 1)
    double exponential(double mean) { return -mean * std::log(1 - uniform()); }
    double normal() {
        const double u1 = 1 - uniform(), u2 = uniform();
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    }
};

int round_pow2(double g) {
    int p = 1;
    while (p * 2 <= g * 1.4142) p *= 2;   // nearest power of two on a log scale
    return p;
}

const HomeCluster& pick_home(const std::vector<HomeCluster>& homes, double u) {
    const double total = std::accumulate(homes.begin(), homes.end(), 0.0,
                                         [](double s, const HomeCluster& h) { return s + h.gpus; });
    double acc = 0;
    for (const auto& h : homes) {
        acc += h.gpus;
        if (u * total < acc) return h;
    }
    return homes.back();
}

TraceJob make_job(int n, double submit_s, int gpus, double duration_s, const std::string& home) {
    TraceJob j;
    j.id = "j" + std::to_string(n);
    j.submit_s = std::round(submit_s);
    j.model = model_for_gpus(gpus);
    j.gpus_min = j.gpus_max = gpus;
    j.home = home;
    j.work_unit = WorkUnit::duration_s;
    j.work = std::round(duration_s);
    return j;
}

// "2020-04-01 00:00:07" -> seconds since 1970-01-01 (days from civil, proleptic Gregorian).
bool parse_time(const std::string& s, double& out) {
    int y, mo, d, h, mi, se;
    char tail;
    if (std::sscanf(s.c_str(), "%d-%d-%d %d:%d:%d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6) return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    y -= mo <= 2;
    const long era = (y >= 0 ? y : y - 399) / 400;
    const long yoe = y - era * 400;
    const long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    out = static_cast<double>(era * 146097 + doe - 719468) * kDay + h * 3600 + mi * 60 + se;
    return true;
}

}  // namespace

std::string model_for_gpus(int gpus) {
    if (gpus <= 16) return "llama3-8b";
    if (gpus <= 64) return "llama2-13b";
    return "llama3-70b";
}

JobTrace read_helios_log(const std::string& path, const HeliosReadOptions& options) {
    if (options.homes.empty()) throw InputError(path, 0, "", "no clusters to map the trace's jobs onto");
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "", "cannot open Helios cluster log");
    JobTrace trace;
    trace.source = path;
    std::string text;
    int line = 0;
    std::map<std::string, size_t> col;
    std::map<std::string, size_t> vc_home;
    double first = -1;
    while (std::getline(in, text)) {
        ++line;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (text.empty()) continue;
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream s(text);
        while (std::getline(s, cell, ',')) cells.push_back(cell);
        if (col.empty()) {
            for (size_t i = 0; i < cells.size(); ++i) col[cells[i]] = i;
            for (const char* need : {"vc", "gpu_num", "state", "submit_time", "duration"})
                if (!col.count(need)) throw InputError(path, line, need, "missing column (not a Helios cluster_log.csv?)");
            continue;
        }
        auto get = [&](const char* name) { const size_t i = col[name]; return i < cells.size() ? cells[i] : std::string(); };
        if (get("state") != "COMPLETED") continue;
        double submit = 0;
        const auto gpus_read = to_int<int>(get("gpu_num"));
        const auto duration_read = to_number(get("duration"));
        if (!gpus_read || !duration_read) throw InputError(path, line, "gpu_num", "expected numbers in gpu_num and duration");
        const int gpus = *gpus_read;
        const double duration = *duration_read;
        if (!parse_time(get("submit_time"), submit))
            throw InputError(path, line, "submit_time", "expected YYYY-MM-DD HH:MM:SS, got '" + get("submit_time") + "'");
        if (gpus < options.min_gpus || duration <= 0) continue;
        if (first < 0) first = submit;
        int scaled = round_pow2(gpus * options.gpu_scale);
        if (options.max_gpus > 0) scaled = std::min(scaled, options.max_gpus);
        const auto vc = vc_home.emplace(get("vc"), vc_home.size() % options.homes.size()).first->second;
        trace.jobs.push_back(make_job(static_cast<int>(trace.jobs.size() + 1), std::max(0.0, submit - first), scaled,
                                      duration, options.homes[vc].name));
        if (options.max_jobs && trace.jobs.size() >= options.max_jobs) break;
    }
    if (col.empty()) throw InputError(path, line, "", "empty file: no header line");
    return trace;
}

JobTrace generate_helios_like(const HeliosGenOptions& o) {
    if (o.homes.empty()) throw InputError("trace generator", 0, "clusters", "no clusters to submit jobs to");
    if (o.jobs < 1) throw InputError("trace generator", 0, "--jobs", "must be >= 1");
    if (!(o.load > 0)) throw InputError("trace generator", 0, "--load", "must be > 0");
    int total = 0;
    for (const auto& h : o.homes) total += h.gpus;
    const int cap = o.max_gpus > 0 ? o.max_gpus : std::max(8, total / 2);
    // Multi-GPU jobs only (min 8): the share of each power of two, falling with size, and the
    // log-normal run time (median 1.5 h, sigma 1.3, kept within 10 min .. 3 days).
    const std::vector<std::pair<int, double>> sizes = {{8, 0.45}, {16, 0.22}, {32, 0.15}, {64, 0.10}, {128, 0.05}, {256, 0.03}};
    const double median_s = 5400, sigma = 1.3, min_s = 600, max_s = 3 * kDay;
    Rng rng(o.seed);
    struct Draw { int gpus; double duration_s; double u_home; };
    std::vector<Draw> draws;
    double gpu_seconds = 0;
    for (int i = 0; i < o.jobs; ++i) {
        double u = rng.uniform(), acc = 0;
        int g = sizes.back().first;
        for (const auto& [n, p] : sizes) {
            acc += p;
            if (u < acc) { g = n; break; }
        }
        g = std::min(cap, round_pow2(g * o.gpu_scale));
        const double d = std::clamp(median_s * std::exp(sigma * rng.normal()), min_s, max_s) * o.duration_scale;
        draws.push_back({std::max(1, g), d, rng.uniform()});
        gpu_seconds += g * d;
    }
    // Poisson arrivals at mean gap `gap`, with a day/night cycle (rate x (1 + 0.5 sin)) by
    // thinning; every try draws from the same stream, so the gap alone tells tries apart.
    const Rng arrivals_rng = rng;
    const auto arrivals = [&](double gap) {
        Rng r = arrivals_rng;
        std::vector<double> at(static_cast<size_t>(o.jobs), 0);
        double t = 0;
        for (int i = 0; i < o.jobs; ++i) {
            do t += r.exponential(gap / 1.5);
            while (r.uniform() * 1.5 > 1 + 0.5 * std::sin(2 * M_PI * t / kDay));
            at[static_cast<size_t>(i)] = i == 0 ? 0 : t;
        }
        return at;
    };
    // The load the jobs offer inside the measurement window: each asks its GPUs from its
    // submission for its drawn run time.
    const auto window_load = [&](const std::vector<double>& at) {
        const MeasurementWindow w = measurement_window(at);
        double asked = 0;
        for (size_t i = 0; i < at.size(); ++i) asked += draws[i].gpus * overlap_s(at[i], at[i] + draws[i].duration_s, w.start_s, w.end_s);
        return asked / (static_cast<double>(total) * w.span_s());
    };
    // The gap that offers `load` on average over an endless stream; then, with a window to
    // measure in, the gap that offers it there (run times of hours to days against a stream of
    // a few hundred jobs: the endless stream's gap leaves the window far below `load`). The
    // load falls as the gap grows: bisection over the gap's logarithm.
    double gap = gpu_seconds / o.jobs / (o.load * total);
    if (o.jobs >= 10) {
        double lo = gap / 1000, hi = gap * 10;
        for (int k = 0; k < 60; ++k) {
            const double mid = std::sqrt(lo * hi);
            (window_load(arrivals(mid)) > o.load ? lo : hi) = mid;
        }
        gap = std::sqrt(lo * hi);
    }
    const std::vector<double> at = arrivals(gap);
    JobTrace trace;
    trace.source = "helios-like seed " + std::to_string(o.seed);
    for (int i = 0; i < o.jobs; ++i)
        trace.jobs.push_back(make_job(i + 1, at[static_cast<size_t>(i)], draws[i].gpus, draws[i].duration_s,
                                      pick_home(o.homes, draws[i].u_home).name));
    return trace;
}

}  // namespace spiderflow::fedsim
