// A whole file in memory, for the small files SpiderFlow reads (configs, topologies, plans,
// catalogs, snapshots): the one place that opens and slurps a file.
#pragma once

#include <string>

namespace spiderflow {

// The file's bytes into `out`; false, with errno saying why, when it cannot be opened or read.
// Only a regular file is read (errno EINVAL otherwise, EISDIR for a directory), and opening
// never waits (a FIFO without a writer is refused at once, not waited on). For callers whose
// message is their own ("cannot read job spec: " + strerror(errno)).
bool read_whole_file(const std::string& path, std::string& out);

// Throws InputError(path, 0, "", "cannot open " + what), saying "(not a regular file)" or "(a
// directory)" after it when that is why.
std::string read_text_file(const std::string& path, const std::string& what = "file");

}  // namespace spiderflow
