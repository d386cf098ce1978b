#include "common/util/errors.h"

namespace spiderflow {
namespace {

std::string format_location(const std::string& source, int line, const std::string& field,
                            const std::string& what) {
    std::string out = source.empty() ? std::string("<input>") : source;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
    if (!field.empty()) out += field + ": ";
    return out + what;
}

}  // namespace

InputError::InputError(std::string source, int line, std::string field, const std::string& what)
    : std::runtime_error(format_location(source, line, field, what)),
      source_(std::move(source)),
      line_(line),
      field_(std::move(field)),
      problem_(what) {}

}  // namespace spiderflow
