// Contention's closed forms (core/calibration/calibration.hpp): B, a G-second compute op and a
// C-second transfer started together, under each model, and the rates fitted from the medians of
// a measurement's rounds.
#include <catch2/catch.hpp>

#include "core/calibration/calibration.hpp"

using namespace dtsim;

TEST_CASE("both at once: no contention, one after the other, compute slowed, both slowed", "[contention]") {
  CHECK(both_none(2, 1) == 2);
  CHECK(both_serial(2, 1) == 3);
  // Compute at 0.8 beside a 1 s transfer: 0.8 s of its work done by then, 1.2 s left at full rate.
  CHECK(both_compute_slowed(2, 1, 0.8) == Approx(2.2));
  CHECK(both_compute_slowed(2, 1, 1) == Approx(both_none(2, 1)));
  // A short op ends beside the transfer (at 0.5 / 0.8 s): the transfer sets the pace.
  CHECK(both_compute_slowed(0.5, 1, 0.8) == Approx(1));
  // Continuous where the op ends exactly with the transfer (G = f C).
  CHECK(both_compute_slowed(0.8, 1, 0.8) == Approx(1));
  // Both slowed: the transfer at 0.5 ends at 2 s, compute has done 1.6 s of 2 and ends at 2.4 s.
  CHECK(both_both_slowed(2, 1, 0.8, 0.5) == Approx(2.4));
  CHECK(both_both_slowed(2, 1, 1, 1) == Approx(both_none(2, 1)));
  // Communication starved while compute runs: one after the other.
  CHECK(both_both_slowed(2, 1, 1, 1e-9) == Approx(both_serial(2, 1)));
  // Compute starved while communication runs: the same sum the other way round.
  CHECK(both_both_slowed(2, 1, 1e-9, 1) == Approx(both_serial(2, 1)));
}

TEST_CASE("the fitted rates are the medians alone over the medians beside the other", "[contention]") {
  ContentionSample s;
  s.gemm_alone = {2.0, 2.2, 1.9};             // median 2.0
  s.gemm_under_comm = {2.5, 9.0, 2.4};        // median 2.5 (an outlier round left out)
  s.collective_alone = {1.0, 1.1};            // median 1.05
  s.collective_under_gemm = {2.0, 2.2, 2.1};  // median 2.1
  s.both = {3.0};
  const ContentionFit f = fit_contention(s);
  CHECK(f.compute_kept == Approx(0.8));
  CHECK(f.comm_kept == Approx(0.5));
  // Faster beside the other than alone (noise) keeps the full rate; nothing measured keeps it too.
  s.gemm_under_comm = {1.5};
  CHECK(fit_contention(s).compute_kept == 1);
  CHECK(fit_contention(ContentionSample{}).compute_kept == 1);
}
