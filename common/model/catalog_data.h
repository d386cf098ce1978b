// The builtin catalog files, compiled in by build-aux/embed-text.sh (see common/model/local.mk).
#pragma once

namespace spiderflow::embedded {

struct EmbeddedFile {
    const char* name;      // basename of the data file, used as the source in error messages
    const char* text;
};

extern const EmbeddedFile kFiles[];
extern const int kFileCount;

}  // namespace spiderflow::embedded
