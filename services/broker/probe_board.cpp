#include "services/broker/probe_board.h"

#include <stdexcept>

namespace spiderflow::broker {
namespace {

constexpr const char* kStates[] = {"serving", "measuring", "done", "failed"};

bool finished(const Probe& p) { return p.state == Probe::State::Done || p.state == Probe::State::Failed; }

}  // namespace

const char* probe_state_name(Probe::State s) { return kStates[static_cast<int>(s)]; }
ProbeBoard::ProbeBoard(int port, int64_t stage_timeout_s) : port_(port), stage_timeout_s_(stage_timeout_s) {}

const Probe& ProbeBoard::request(const std::string& a, const std::string& b, const std::string& by, int64_t now) {
    if (a.empty() || b.empty() || a == b) throw std::invalid_argument("a probe needs two different clusters, got '" + a + "-" + b + "'");
    for (const auto& [id, p] : probes_) {
        if (p.a == a && p.b == b && !finished(p)) return p;
    }
    Probe p;
    p.id = "p" + std::to_string(next_++);
    p.a = a;
    p.b = b;
    p.requested_by = by;
    p.created_at = p.state_since = now;
    const std::string id = p.id;
    return probes_.emplace(id, std::move(p)).first->second;
}

std::vector<ProbeOrder> ProbeBoard::orders_for(const std::string& cluster) const {
    std::vector<ProbeOrder> out;
    for (const auto& [id, p] : probes_) {
        ProbeOrder o;
        o.probe = id;
        o.link = p.a + "-" + p.b;
        o.port = port_;
        if (cluster == p.b && p.state == Probe::State::Serving) {
            o.kind = ProbeOrder::Kind::Serve;
        } else if (cluster == p.a && p.state == Probe::State::Measuring) {
            o.kind = ProbeOrder::Kind::Measure;
            o.host = p.host;
        } else if (cluster == p.b && finished(p) && !p.serve_ended) {
            o.kind = ProbeOrder::Kind::End;  // one measurement ends it; a failed probe may have left it
        } else {
            continue;
        }
        out.push_back(o);
    }
    return out;
}

bool ProbeBoard::report(const std::string& cluster, const ProbeReport& r, int64_t now) {
    auto it = probes_.find(r.probe);
    if (it == probes_.end()) return false;
    Probe& p = it->second;
    auto move = [&](Probe::State s) {
        p.state = s;
        p.state_since = now;
    };
    switch (r.kind) {
    case ProbeReport::Kind::Serving:
        if (cluster != p.b || p.state != Probe::State::Serving || r.host.empty()) return false;
        p.host = r.host;
        move(Probe::State::Measuring);
        return true;
    case ProbeReport::Kind::Measured:
        if (cluster != p.a || p.state != Probe::State::Measuring || !(r.gbps > 0)) return false;
        p.gbps = r.gbps;
        p.rtt_ms = r.rtt_ms;
        move(Probe::State::Done);
        return true;
    case ProbeReport::Kind::Ended:
        if (cluster != p.b || p.serve_ended) return false;
        p.serve_ended = true;
        // Once serving it ends by itself after the one measurement it answers, maybe before A
        // has reported: only a serve job that never served fails the probe.
        if (p.state == Probe::State::Serving) {
            p.reason = p.b + "'s serve job ended before it served";
            move(Probe::State::Failed);
        }
        return true;
    case ProbeReport::Kind::Failed:
        if ((cluster != p.a && cluster != p.b) || finished(p)) return false;
        p.reason = cluster + ": " + (r.reason.empty() ? "no reason given" : r.reason);
        move(Probe::State::Failed);
        return true;
    }
    return false;
}

void ProbeBoard::step(int64_t now) {
    for (auto it = probes_.begin(); it != probes_.end();) {
        Probe& p = it->second;
        if (!finished(p) && now - p.state_since > stage_timeout_s_) {
            p.reason = p.state == Probe::State::Serving
                           ? p.b + "'s serve job did not start within " + std::to_string(stage_timeout_s_) + " s"
                           : p.a + "'s measure job did not finish within " + std::to_string(stage_timeout_s_) + " s";
            p.state = Probe::State::Failed;
            p.state_since = now;
        }
        if (finished(p) && p.serve_ended && now - p.state_since > 86400) {
            it = probes_.erase(it);
        } else {
            ++it;
        }
    }
}

const Probe* ProbeBoard::find(const std::string& id) const {
    auto it = probes_.find(id);
    return it == probes_.end() ? nullptr : &it->second;
}

std::vector<const Probe*> ProbeBoard::all() const {
    std::vector<const Probe*> out;
    for (const auto& [id, p] : probes_) out.push_back(&p);
    return out;
}

}  // namespace spiderflow::broker
