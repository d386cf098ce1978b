#include "services/fedsim/job_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow::fedsim {
namespace {

const std::vector<std::string> kColumns = {"id",       "submit_s", "model",        "gpus",    "home",    "iterations",
                                           "tokens",   "duration_s", "global_batch", "seq_len", "priority"};

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream s(line);
    while (std::getline(s, cell, ',')) {
        while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
        while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
}

double number(const std::string& text, const std::string& source, int line, const std::string& column) {
    if (const auto v = to_number(text)) return *v;
    throw InputError(source, line, column, "expected a number, got '" + text + "'");
}

int whole(const std::string& text, const std::string& source, int line, const std::string& column, int min) {
    const double v = number(text, source, line, column);
    if (v != std::floor(v) || v < min || v > 1e9)
        throw InputError(source, line, column, "expected a whole number >= " + std::to_string(min) + ", got '" + text + "'");
    return static_cast<int>(v);
}

void parse_gpus(const std::string& text, TraceJob& job, const std::string& source, int line) {
    const size_t dash = text.find('-');
    if (dash == std::string::npos) {
        job.gpus_min = job.gpus_max = whole(text, source, line, "gpus", 1);
        return;
    }
    job.gpus_min = whole(text.substr(0, dash), source, line, "gpus", 1);
    job.gpus_max = whole(text.substr(dash + 1), source, line, "gpus", 1);
    if (job.gpus_max < job.gpus_min)
        throw InputError(source, line, "gpus", "range '" + text + "' ends below its start");
}

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(12);
    s << v;
    return s.str();
}

}  // namespace

const char* to_string(WorkUnit u) {
    switch (u) {
    case WorkUnit::iterations: return "iterations";
    case WorkUnit::tokens: return "tokens";
    case WorkUnit::duration_s: return "duration_s";
    }
    return "?";
}

JobTrace parse_job_trace(std::istream& in, const std::string& source, const Catalog& catalog) {
    JobTrace trace;
    trace.source = source;
    std::string text;
    int line = 0;
    std::map<std::string, size_t> col;
    while (std::getline(in, text)) {
        ++line;
        if (text.empty() || text[0] == '#' || text.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::vector<std::string> cells = split_csv(text);
        if (col.empty()) {
            for (size_t i = 0; i < cells.size(); ++i) {
                if (std::find(kColumns.begin(), kColumns.end(), cells[i]) == kColumns.end())
                    throw InputError(source, line, cells[i], "unknown column (known: id, submit_s, model, gpus, home, "
                                                             "iterations, tokens, duration_s, global_batch, seq_len, priority)");
                if (!col.emplace(cells[i], i).second) throw InputError(source, line, cells[i], "column given twice");
            }
            for (const char* need : {"submit_s", "model", "gpus", "home"})
                if (!col.count(need)) throw InputError(source, line, need, "missing column");
            if (!col.count("iterations") && !col.count("tokens") && !col.count("duration_s"))
                throw InputError(source, line, "iterations", "no work column: give iterations, tokens or duration_s");
            continue;
        }
        if (cells.size() > col.size())
            throw InputError(source, line, "", std::to_string(cells.size()) + " fields, the header has " +
                                                   std::to_string(col.size()));
        auto cell = [&](const std::string& name) -> std::string {
            auto it = col.find(name);
            return it == col.end() || it->second >= cells.size() ? std::string() : cells[it->second];
        };
        TraceJob job;
        job.line = line;
        job.id = cell("id").empty() ? "job" + std::to_string(trace.jobs.size() + 1) : cell("id");
        job.submit_s = number(cell("submit_s"), source, line, "submit_s");
        if (job.submit_s < 0) throw InputError(source, line, "submit_s", "must be >= 0");
        job.model = cell("model");
        if (!catalog.model(job.model))
            throw InputError(source, line, "model", "unknown model '" + job.model + "' (see `spiderflow catalog`)");
        parse_gpus(cell("gpus"), job, source, line);
        job.home = cell("home");
        if (job.home.empty()) throw InputError(source, line, "home", "empty: name the cluster the job is submitted on");
        int works = 0;
        for (WorkUnit u : {WorkUnit::iterations, WorkUnit::tokens, WorkUnit::duration_s}) {
            const std::string v = cell(to_string(u));
            if (v.empty()) continue;
            ++works;
            job.work_unit = u;
            job.work = number(v, source, line, to_string(u));
            if (job.work <= 0) throw InputError(source, line, to_string(u), "must be > 0");
        }
        if (works != 1) throw InputError(source, line, "iterations", "give exactly one of iterations, tokens, duration_s");
        if (!cell("global_batch").empty()) job.global_batch = whole(cell("global_batch"), source, line, "global_batch", 1);
        if (!cell("seq_len").empty()) job.seq_len = whole(cell("seq_len"), source, line, "seq_len", 1);
        if (!cell("priority").empty()) job.priority = static_cast<int>(number(cell("priority"), source, line, "priority"));
        trace.jobs.push_back(std::move(job));
    }
    if (col.empty()) throw InputError(source, line, "", "empty trace: no header line");
    return trace;
}

JobTrace read_job_trace(const std::string& path, const Catalog& catalog) {
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "", "cannot open job trace");
    return parse_job_trace(in, path, catalog);
}

std::string job_trace_csv(const JobTrace& trace) {
    std::ostringstream out;
    out << "id,submit_s,model,gpus,home,iterations,tokens,duration_s,global_batch,seq_len,priority\n";
    for (const auto& j : trace.jobs) {
        out << j.id << ',' << number_text(j.submit_s) << ',' << j.model << ',' << j.gpus_min;
        if (j.gpus_max != j.gpus_min) out << '-' << j.gpus_max;
        out << ',' << j.home;
        for (WorkUnit u : {WorkUnit::iterations, WorkUnit::tokens, WorkUnit::duration_s})
            out << ',' << (j.work_unit == u ? number_text(j.work) : "");
        out << ',' << j.global_batch << ',' << j.seq_len << ',' << j.priority << '\n';
    }
    return out.str();
}

}  // namespace spiderflow::fedsim
