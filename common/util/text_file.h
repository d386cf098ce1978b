// A whole file in memory, for the small files SpiderFlow reads (configs, topologies, plans,
// catalogs, snapshots): the one place that opens and slurps a file, and the one that writes one
// whole (the agent's site-state cache and its measured links).
#pragma once

#include <string>

namespace spiderflow {

// How reading a file went, for callers whose messages name the step that failed.
struct FileRead {
    enum class Status { ok, cannot_open, not_regular, too_large, cannot_read };
    Status status = Status::ok;
    int error = 0;                 // errno of cannot_open and cannot_read; EINVAL or EISDIR of not_regular
    unsigned long long size = 0;   // too_large: the file's size, or 0 when it grew past the bound while read
};
// The file's bytes into `out` (left as it was unless ok), at most `max_bytes`. Only a regular
// file is read, and opening never waits (a FIFO without a writer is refused at once).
FileRead read_regular_file(const std::string& path, std::string& out, unsigned long long max_bytes);

// The file's bytes into `out`; false, with errno saying why, when it cannot be opened or read.
// Only a regular file is read (errno EINVAL otherwise, EISDIR for a directory), and opening
// never waits (a FIFO without a writer is refused at once, not waited on). For callers whose
// message is their own ("cannot read job spec: " + strerror(errno)).
bool read_whole_file(const std::string& path, std::string& out);

// Throws InputError(path, 0, "", "cannot open " + what), saying "(not a regular file)" or "(a
// directory)" after it when that is why.
std::string read_text_file(const std::string& path, const std::string& what = "file");

// Replaces `path` with `text`: written beside it, synced and renamed over it, so that a reader
// never sees half a file and a crash leaves the old one or the new one. False, with errno saying
// why, when it cannot.
bool write_whole_file(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace spiderflow
