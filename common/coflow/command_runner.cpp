#include "common/coflow/command_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace spiderflow::coflow {

CommandResult ProcessRunner::run(const Argv& argv, bool quiet, bool capture) {
    CommandResult r;
    if (argv.empty()) return {127, {}};
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    // Slurm's prolog/epilog run with a bare environment (no PATH: execvp then searches only
    // /bin:/usr/bin), and tc lives in /usr/sbin: try the sbin directories too. Built before
    // fork, since the child may only make async-signal-safe calls.
    std::vector<std::string> fallbacks;
    if (argv[0].find('/') == std::string::npos) fallbacks = {"/usr/sbin/" + argv[0], "/sbin/" + argv[0]};
    int pipe_fd[2] = {-1, -1};
    if (capture && ::pipe2(pipe_fd, O_CLOEXEC) != 0) return {127, {}};
    const pid_t pid = ::fork();
    if (pid < 0) {
        if (capture) ::close(pipe_fd[0]), ::close(pipe_fd[1]);
        return {127, {}};
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec.
        if (quiet) {
            const int devnull = ::open("/dev/null", O_WRONLY);
            if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
        }
        if (capture) ::dup2(pipe_fd[1], STDOUT_FILENO);
        ::execvp(cargv[0], cargv.data());
        for (const auto& f : fallbacks) ::execv(f.c_str(), cargv.data());
        ::_exit(127);
    }
    if (capture) {
        ::close(pipe_fd[1]);
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(pipe_fd[0], buf, sizeof buf);
            if (n > 0) r.output.append(buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR) break;
        }
        ::close(pipe_fd[0]);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return {127, r.output};
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    return r;
}

}  // namespace spiderflow::coflow
