// One set of internal units so no module converts twice: bytes, seconds, bytes/second, FLOP/s.
// Files and CLIs speak Gbps, ms, GiB and TFLOPS; convert at the edges with these helpers.
#pragma once

namespace spiderflow::units {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;
constexpr double kMB = 1e6;

constexpr double gbps_to_Bps(double gbps) { return gbps * 1e9 / 8.0; }
constexpr double Bps_to_gbps(double bytes_per_s) { return bytes_per_s * 8.0 / 1e9; }
constexpr double GBps_to_Bps(double gigabytes_per_s) { return gigabytes_per_s * 1e9; }
constexpr double ms_to_s(double ms) { return ms / 1e3; }
constexpr double us_to_s(double us) { return us / 1e6; }
constexpr double s_to_ms(double s) { return s * 1e3; }
constexpr double tflops_to_flops(double tflops) { return tflops * 1e12; }

}  // namespace spiderflow::units
