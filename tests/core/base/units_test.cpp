// Units: every unit the scenario language accepts, and the errors for what it refuses.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/base/units.hpp"

using dtsim::parse_quantity;
using dtsim::Quantity;

TEST_CASE("sizes in decimal and binary units") {
  CHECK(parse_quantity("1B", Quantity::Bytes) == 1.0);
  CHECK(parse_quantity("25MB", Quantity::Bytes) == 25e6);
  CHECK(parse_quantity("25 MB", Quantity::Bytes) == 25e6);
  CHECK(parse_quantity("2KB", Quantity::Bytes) == 2000.0);
  CHECK(parse_quantity("1.5GB", Quantity::Bytes) == 1.5e9);
  CHECK(parse_quantity("64KiB", Quantity::Bytes) == 65536.0);
  CHECK(parse_quantity("1MiB", Quantity::Bytes) == 1048576.0);
  CHECK(parse_quantity("40GiB", Quantity::Bytes) == 40.0 * 1024 * 1024 * 1024);
}

TEST_CASE("rates in bits and bytes per second") {
  CHECK(parse_quantity("100Gbps", Quantity::Rate) == Approx(12.5e9));
  CHECK(parse_quantity("12.5GB/s", Quantity::Rate) == Approx(12.5e9));
  CHECK(parse_quantity("1 GiB/s", Quantity::Rate) == 1073741824.0);
  CHECK(parse_quantity("800Mbps", Quantity::Rate) == Approx(100e6));
}

TEST_CASE("times from nanoseconds to hours") {
  CHECK(parse_quantity("5us", Quantity::Time) == Approx(5e-6));
  CHECK(parse_quantity("100ns", Quantity::Time) == Approx(1e-7));
  CHECK(parse_quantity("1.5ms", Quantity::Time) == Approx(1.5e-3));
  CHECK(parse_quantity("2s", Quantity::Time) == 2.0);
  CHECK(parse_quantity("3min", Quantity::Time) == 180.0);
  CHECK(parse_quantity("24h", Quantity::Time) == 86400.0);
}

TEST_CASE("FLOP rates / FLOP counts / numbers and counts") {
  CHECK(parse_quantity("312TFLOPS", Quantity::FlopRate) == Approx(312e12));
  CHECK(parse_quantity("19.5 TFLOP/s", Quantity::FlopRate) == Approx(19.5e12));
  CHECK(parse_quantity("900GFLOPS", Quantity::FlopRate) == Approx(9e11));
  CHECK(parse_quantity("4.1GFLOP", Quantity::Flops) == Approx(4.1e9));
  CHECK(parse_quantity("8e9", Quantity::Flops) == 8e9);
  CHECK(parse_quantity("0.5", Quantity::Number) == 0.5);
  CHECK(parse_quantity("1e-3", Quantity::Number) == 1e-3);
  CHECK(parse_quantity("8", Quantity::Count) == 8.0);
}

TEST_CASE("anything else is an error that says what would be valid") {
  auto message = [](const char* text, Quantity q) {
    try {
      parse_quantity(text, q);
    } catch (const dtsim::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("100 Gbit", Quantity::Rate) ==
        "error: '100 Gbit' is not a rate (use e.g. 100Gbps or 12.5GB/s; units bps, Kbps, Mbps, Gbps, Tbps, B/s, "
        "KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s)");
  CHECK(message("25", Quantity::Bytes).find("is not a size in bytes (use e.g. 25MB") != std::string::npos);
  CHECK(message("5 parsecs", Quantity::Time).find("'5 parsecs' is not a time") != std::string::npos);
  CHECK(message("fast", Quantity::FlopRate).find("is not a FLOP rate") != std::string::npos);
  CHECK(message("-3", Quantity::Count).find("'-3' is not a count") != std::string::npos);
  CHECK(message("2.5", Quantity::Count).find("is not a count") != std::string::npos);
  CHECK(message("", Quantity::Number).find("is not a number") != std::string::npos);
  CHECK(message("5mb", Quantity::Bytes).find("is not a size") != std::string::npos);
}

TEST_CASE("formatting for summaries") {
  CHECK(dtsim::format_bytes(25.6e6) == "25.6 MB");
  CHECK(dtsim::format_rate(12.5e9) == "12.5 GB/s");
  CHECK(dtsim::format_time(3.21e-3) == "3.21 ms");
  CHECK(dtsim::format_flop_rate(312e12) == "312 TFLOPS");
}
