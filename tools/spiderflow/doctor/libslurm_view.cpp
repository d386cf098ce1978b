#include "tools/spiderflow/doctor/libslurm_view.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "services/slurm_api/slurm_api.h"

// libslurm's own settings after slurm_init(): exported by libslurm.so, declared only in Slurm's
// internal headers (the plugins declare it the same way, plugins/slurm_conf_file.h).
extern "C" slurm_conf_t slurm_conf;

namespace spiderflow::doctor {
namespace {

std::string text(const char* s) {
    std::string out = s == nullptr ? "" : s;
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';  // one line per value in the report
    return out;
}

void report(FILE* out, const char* prefix, const slurm_conf_t& c) {
    std::fprintf(out, "%s.cluster_name=%s\n", prefix, text(c.cluster_name).c_str());
    std::fprintf(out, "%s.plugindir=%s\n", prefix, text(c.plugindir).c_str());
    std::fprintf(out, "%s.plugstack=%s\n", prefix, text(c.plugstack).c_str());
    std::fprintf(out, "%s.job_submit_plugins=%s\n", prefix, text(c.job_submit_plugins).c_str());
    std::fprintf(out, "%s.topology_plugin=%s\n", prefix, text(c.topology_plugin).c_str());
    std::fprintf(out, "%s.topology_param=%s\n", prefix, text(c.topology_param).c_str());
    std::fprintf(out, "%s.select_type=%s\n", prefix, text(c.select_type).c_str());
    std::fprintf(out, "%s.sched_type=%s\n", prefix, text(c.schedtype).c_str());
    std::fprintf(out, "%s.job_requeue=%u\n", prefix, static_cast<unsigned>(c.job_requeue));
    std::fprintf(out, "%s.version=%s\n", prefix, text(c.version).c_str());
}

[[noreturn]] void child(const std::string& path, bool ask_controller, int out_fd, int err_fd) {
    ::dup2(err_fd, STDERR_FILENO);
    FILE* out = ::fdopen(out_fd, "w");
    if (out == nullptr) ::_exit(2);
    if (path.empty()) slurm_init(nullptr);
    else slurm_init(path.c_str());  // a slurm.conf it cannot parse ends this process with Slurm's fatal()
    std::fprintf(out, "path=%s\n", text(slurm_conf.slurm_conf).c_str());
    report(out, "file", slurm_conf);
    std::fflush(out);
    if (ask_controller) {
        slurm_conf_t* ctl = nullptr;
        if (slurm_load_ctl_conf(static_cast<time_t>(0), &ctl) == SLURM_SUCCESS && ctl != nullptr) {
            report(out, "ctl", *ctl);
            slurm_api::free_ctl_conf(ctl);
        } else {
            std::fprintf(out, "ctl_error=%s\n", text(slurm_api::last_error().c_str()).c_str());
        }
    }
    std::fflush(out);
    ::_exit(0);
}

// The last line Slurm wrote that says what went wrong ("fatal: ..." or "error: ...").
std::string slurm_said(const std::string& err) {
    std::istringstream in(err);
    std::string last, said;
    for (std::string l; std::getline(in, l);) {
        if (l.empty()) continue;
        last = l;
        if (l.find("fatal") != std::string::npos || l.find("error") != std::string::npos) said = l;
    }
    return said.empty() ? last : said;
}

}  // namespace

LibslurmView parse_libslurm_report(const std::string& report) {
    LibslurmView v;
    std::istringstream in(report);
    for (std::string l; std::getline(in, l);) {
        const auto eq = l.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
        if (key == "path") {
            v.conf_path = value;
            continue;
        }
        if (key == "ctl_error") {
            v.controller_error = value;
            continue;
        }
        const auto dot = key.find('.');
        if (dot == std::string::npos) continue;
        std::optional<SlurmSettings>& into = key.compare(0, dot, "ctl") == 0 ? v.controller : v.file;
        if (!into) into.emplace().source = key.compare(0, dot, "ctl") == 0 ? "slurmctld" : "libslurm";
        SlurmSettings& s = *into;
        const std::string f = key.substr(dot + 1);
        if (f == "cluster_name") s.cluster_name = value;
        else if (f == "plugindir") s.plugindir = value;
        else if (f == "plugstack") s.plugstack = value;
        else if (f == "job_submit_plugins") s.job_submit_plugins = value;
        else if (f == "topology_plugin") s.topology_plugin = value;
        else if (f == "topology_param") s.topology_param = value;
        else if (f == "select_type") s.select_type = value;
        else if (f == "sched_type") s.sched_type = value;
        else if (f == "job_requeue") s.job_requeue = std::atoi(value.c_str());
        else if (f == "version") s.version = value;
    }
    return v;
}

LibslurmView read_with_libslurm(const std::string& slurm_conf_path, bool ask_controller, double timeout_s) {
    LibslurmView failed;
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        failed.file_error = "cannot start a child for libslurm";
        return failed;
    }
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        failed.file_error = "cannot start a child for libslurm";
        return failed;
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        child(slurm_conf_path, ask_controller, out_pipe[1], err_pipe[1]);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (pid < 0) {
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        failed.file_error = "cannot start a child for libslurm";
        return failed;
    }
    std::string out, err;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    bool timed_out = false;
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        if (::poll(fds, 2, static_cast<int>(left)) < 0) break;
        for (pollfd& f : fds) {
            if (f.fd < 0 || (f.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            char buf[4096];
            const ssize_t n = ::read(f.fd, buf, sizeof buf);
            if (n > 0) {
                (&f == &fds[0] ? out : err).append(buf, static_cast<size_t>(n));
            } else {
                ::close(f.fd);
                f.fd = -1;
                --open_fds;
            }
        }
    }
    for (pollfd& f : fds)
        if (f.fd >= 0) ::close(f.fd);
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    LibslurmView v = parse_libslurm_report(out);
    const bool clean = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!v.file) {
        v.file_error = timed_out ? "libslurm did not finish reading it within " + std::to_string(static_cast<int>(timeout_s)) + " s"
                                 : slurm_said(err);
        if (v.file_error.empty()) v.file_error = "libslurm ended without a word (status " + std::to_string(status) + ")";
    } else if (ask_controller && !v.controller && v.controller_error.empty()) {
        v.controller_error = timed_out ? "no answer within " + std::to_string(static_cast<int>(timeout_s)) + " s"
                                       : (clean ? "no answer" : slurm_said(err));
    }
    return v;
}

}  // namespace spiderflow::doctor
