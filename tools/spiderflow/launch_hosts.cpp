#include "tools/spiderflow/launch_hosts.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "common/util/errors.h"
#include "services/slurmjob/rank_order.h"

namespace spiderflow::cli {
namespace {

volatile sig_atomic_t g_child = 0;

void forward(int sig) {
    if (g_child > 0) ::kill(static_cast<pid_t>(g_child), sig);
}

}  // namespace

std::vector<std::string> launch_hosts(const Plan& plan, const Topology* topology, const std::vector<std::string>& job_nodes,
                                      const std::string& launcher) {
    std::vector<slurmjob::RankSlot> slots;
    if (topology != nullptr) {
        slots = slurmjob::plan_rank_slots(plan, *topology, job_nodes);
    } else {
        // The SPANK plugin without a topology numbers ranks the same way: Slurm's node order.
        const int nodes = static_cast<int>(job_nodes.size());
        if (nodes == 0 || plan.world_size() % nodes != 0) {
            throw InputError("spiderflow launch", 0, "SLURM_JOB_NODELIST",
                             std::to_string(plan.world_size()) + " ranks do not spread evenly over the job's " +
                                 std::to_string(nodes) + " nodes");
        }
        slots = slurmjob::ordered_rank_slots(job_nodes, std::vector<int>(job_nodes.size(), plan.world_size() / nodes), nullptr, {});
    }
    std::vector<std::string> hosts;
    for (const auto& s : slots) {
        if (launcher == "torchrun" && s.local != 0) continue;  // one torchrun per node
        hosts.push_back(s.node);
    }
    return hosts;
}

HostFile write_hostfile(const std::vector<std::string>& hosts) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/spiderflow-hosts.XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd < 0) throw InputError("spiderflow launch", 0, "SLURM_HOSTFILE", "cannot create a host file in " + path);
    std::string text;
    for (const auto& h : hosts) text += h + "\n";
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!ok) {
        ::unlink(path.c_str());
        throw InputError("spiderflow launch", 0, "SLURM_HOSTFILE", "cannot write the host file " + path);
    }
    return {path};
}

int run_and_wait(const std::vector<std::string>& step, const HostFile& hostfile) {
    std::vector<char*> argv;
    for (const auto& w : step) argv.push_back(const_cast<char*>(w.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execvp(argv[0], argv.data());
        std::cerr << "spiderflow: cannot run " << argv[0] << "\n";
        ::_exit(127);
    }
    if (pid < 0) {
        if (!hostfile.path.empty()) ::unlink(hostfile.path.c_str());
        throw InputError("spiderflow launch", 0, "", "cannot start srun");
    }
    g_child = pid;
    ::signal(SIGINT, forward);
    ::signal(SIGTERM, forward);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!hostfile.path.empty()) ::unlink(hostfile.path.c_str());
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace spiderflow::cli
