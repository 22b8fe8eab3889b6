// Physical quantities in scenario files: sizes, rates, times, FLOP counts and FLOP rates.
// Everything is stored in SI base units as double: bytes, bytes/s, seconds, FLOPs, FLOP/s.
#pragma once

#include <string>
#include <string_view>

namespace dtsim {

enum class Quantity {
  Number,    // a plain real number: 0.5, 1e-3
  Count,     // a non-negative integer: 8
  Bytes,     // B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024)
  Rate,      // bytes per second: bps, Kbps, Mbps, Gbps, Tbps (bits), B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s
  Time,      // ns, us, ms, s, min, h
  Flops,     // a FLOP count: FLOP, KFLOP, MFLOP, GFLOP, TFLOP, PFLOP, EFLOP (or a plain number)
  FlopRate,  // FLOP/s: FLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (also written TFLOP/s)
};

// The name of a quantity as used in error messages: "a size in bytes", "a rate", ...
std::string_view quantity_name(Quantity q);
// What a valid value looks like, for error messages: "use e.g. 100Gbps or 12.5GB/s".
std::string_view quantity_hint(Quantity q);

// Parses "25MB", "100 Gbps", "5us", "1e9". Throws InputError (no location) on anything else,
// with a message that names the quantity and shows what would be valid.
double parse_quantity(std::string_view text, Quantity q);

// Human-readable forms for summaries: "25.6 MB", "12.5 GB/s", "3.21 ms", "312 TFLOPS".
std::string format_bytes(double bytes);
std::string format_rate(double bytes_per_s);
std::string format_time(double seconds);
std::string format_flop_rate(double flops_per_s);

}  // namespace dtsim
