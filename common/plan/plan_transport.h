// A plan's text as it travels inside a job: compact, zlib-compressed, base64, so it fits one
// environment variable. It crosses from the user's side (the SPANK plugin read the user's file)
// to slurmctld, and from job_submit to the job's steps: no process on the way opens a path the
// user named. Decoding treats the text as hostile: bounded in and out (no zip bomb, no endless
// input), strict alphabet, and the caller still parses and validates the JSON.
#pragma once

#include <cstddef>
#include <string>

namespace spiderflow {

// Largest plan text a job may carry, decompressed. A 512-GPU plan is about 100 KiB.
constexpr size_t kMaxPlanTextBytes = 4u << 20;
// Largest encoded form accepted (what one environment variable may hold for us).
constexpr size_t kMaxEncodedPlanBytes = 1u << 20;

// Throws InputError(source, 0, field) when text is longer than kMaxPlanTextBytes.
std::string encode_plan_text(const std::string& text, const std::string& source = "plan",
                             const std::string& field = "plan");
// Throws InputError naming source/field when the data is not ours, is corrupt, or decodes to
// more than kMaxPlanTextBytes.
std::string decode_plan_text(const std::string& encoded, const std::string& source = "plan",
                             const std::string& field = "plan");

// Reads a plan file on the user's side: regular files only, opened without blocking (a FIFO or a
// device is refused before any read), at most kMaxPlanTextBytes. Throws InputError naming path.
std::string read_plan_file(const std::string& path);

}  // namespace spiderflow
