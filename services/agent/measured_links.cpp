#include "services/agent/measured_links.h"

#include <cerrno>
#include <cstring>

#include "common/site/site_delta.h"
#include "common/util/text_file.h"
#include "services/agent/agent.h"

namespace spiderflow::agent {

std::string measured_links_path(const std::string& cache_path) {
    return cache_path.empty() ? std::string() : cache_path + ".measured-links";
}

MeasuredLinkFile::MeasuredLinkFile(std::string path, double max_age_s, Log log)
    : path_(std::move(path)), max_age_s_(max_age_s), log_(std::move(log)) {}

std::vector<LinkMeasurement> MeasuredLinkFile::restore(SiteTime now) const {
    if (path_.empty()) return {};
    std::string text;
    if (!read_whole_file(path_, text)) {
        if (errno != ENOENT) log_("measured links not restored from " + path_ + ": " + std::strerror(errno));
        return {};
    }
    std::vector<LinkMeasurement> kept;
    try {
        kept = parse_links_file(text, path_);
    } catch (const std::exception& e) {
        log_(std::string("measured links not restored (the probes measure again): ") + e.what());
        return {};
    }
    std::vector<LinkMeasurement> out;
    for (const LinkMeasurement& m : kept) {
        if (max_age_s_ <= 0 || static_cast<double>(now - m.timestamp) <= max_age_s_) out.push_back(m);
    }
    if (!kept.empty()) {
        log_("restored " + std::to_string(out.size()) + " measured link figure(s) from " + path_ +
             (out.size() < kept.size() ? " (" + std::to_string(kept.size() - out.size()) +
                                             " older than measured_link_max_age left out)"
                                       : ""));
    }
    return out;
}

void MeasuredLinkFile::save(const std::vector<LinkMeasurement>& links) const {
    if (path_.empty()) return;
    std::string text = "# this agent's link probes, published again after a restart (written by spiderflow-agent)\n";
    for (const LinkMeasurement& m : links) text += delta_to_json(LinkMeasured{m}) + "\n";
    if (!write_whole_file(path_, text)) {
        log_("cannot keep the measured links in " + path_ + " (a restart forgets them): " + std::strerror(errno));
    }
}

}  // namespace spiderflow::agent
