// Errors that reach a person: every one names where the bad input is.
#pragma once

#include <stdexcept>
#include <string>

namespace spiderflow {

// Bad input (topology, catalog, job spec, trace, config). The CLI maps it to exit status 2;
// plugins reject a user's bad spec with what() and fail open on anything else.
class InputError : public std::runtime_error {
public:
    // source: file name (or "<string>", "job spec"); line: 1-based, 0 when unknown;
    // field: the offending key or path ("clusters[2].nodes[0].gpus"), empty when none.
    InputError(std::string source, int line, std::string field, const std::string& what);

    const std::string& source() const noexcept { return source_; }
    int line() const noexcept { return line_; }
    const std::string& field() const noexcept { return field_; }
    // The problem alone, without the location prefix.
    const std::string& problem() const noexcept { return problem_; }

private:
    std::string source_;
    int line_;
    std::string field_;
    std::string problem_;
};

// A request that is well formed but cannot be satisfied (more GPUs than exist, model does not
// fit any layout). what() says which constraint failed and what would fit.
class InfeasibleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace spiderflow
