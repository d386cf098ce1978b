#include "common/planner/deadline_planning.h"

#include <chrono>
#include <cstdio>
#include <future>

#include "common/util/errors.h"

namespace spiderflow {

DeadlineOutcome DeadlinePlanner::plan(std::function<PlanResult()> work, double budget_s) {
    auto promise = std::make_shared<std::promise<DeadlineOutcome>>();
    auto future = promise->get_future();
    auto done = std::make_shared<std::atomic<bool>>(false);
    {
        std::lock_guard<std::mutex> lock(mu_);
        reap_finished();
        workers_.push_back({std::thread([promise, done, work = std::move(work)] {
                                DeadlineOutcome out;
                                try {
                                    out.result = work();
                                    out.kind = DeadlineOutcome::Kind::planned;
                                } catch (const InfeasibleError& e) {
                                    out.kind = DeadlineOutcome::Kind::infeasible;
                                    out.message = e.what();
                                } catch (const InputError& e) {
                                    out.kind = DeadlineOutcome::Kind::bad_input;
                                    out.message = e.what();
                                } catch (const std::exception& e) {
                                    out.message = std::string("planner failed: ") + e.what();
                                } catch (...) {
                                    out.message = "planner failed";
                                }
                                promise->set_value(std::move(out));
                                done->store(true);
                            }),
                            done});
    }
    if (future.wait_for(std::chrono::duration<double>(budget_s)) != std::future_status::ready) {
        char budget[32];
        std::snprintf(budget, sizeof budget, "%.3g", budget_s);
        DeadlineOutcome late;
        late.kind = DeadlineOutcome::Kind::late;
        late.message = std::string("planning exceeded the time budget of ") + budget + " s";
        return late;
    }
    return future.get();
}

void DeadlinePlanner::reap_finished() {
    for (auto it = workers_.begin(); it != workers_.end();) {
        if (it->done->load()) {
            it->thread.join();
            it = workers_.erase(it);
        } else {
            ++it;
        }
    }
}

int DeadlinePlanner::running() const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& w : workers_) n += w.done->load() ? 0 : 1;
    return n;
}

void DeadlinePlanner::join_all() {
    std::vector<Worker> all;
    {
        std::lock_guard<std::mutex> lock(mu_);
        all.swap(workers_);
    }
    for (auto& w : all) {
        if (w.thread.joinable()) w.thread.join();
    }
}

}  // namespace spiderflow
