// Text as XML and HTML write it inside an element or a quoted attribute: the plan's SVG and the
// broker's status page, one escaper for both (names and reasons in them come from outside).
#pragma once

#include <string>
#include <string_view>

namespace spiderflow {

// & < > " ' escaped; control characters other than tab and newline dropped (XML 1.0 allows none,
// HTML calls them parse errors).
std::string markup_text(std::string_view text);

}  // namespace spiderflow
