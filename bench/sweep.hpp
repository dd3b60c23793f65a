// --sweep: fixed-S at four sizes per octave, plus one large segment, with
// copy, tilesort and every applicable CUB method at each point (see
// sweep.cpp for the method and README.md for use).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report.hpp"
#include "variants.hpp"

namespace bench {

struct SweepOptions {
  std::vector<const Variant*> variants;        // run in this order
  int reps = 9;
  int warmup = 2;
  std::uint32_t items = 1u << 24;              // pairs per point
  std::uint32_t max_size = 1u << 24;           // largest S
  std::uint32_t single_items = 1u << 26;       // the one-segment point; 0 = none
  double budget_s = 0;                         // stop starting points after this long; 0 = no limit
  std::size_t sample_items = std::size_t{1} << 22;  // host reference per point (the device checks all)
  bool bounded_plan = false;                   // tilesort's plan promises the point's segment length
  std::string out;                             // writes OUT.md, OUT.csv, OUT.json, OUT.svg
};

/// Runs the sweep and writes its reports; `info` carries the header fields.
/// Returns the exit status (0, or 1 when a row FAILED or a file could not be written).
int run_sweep(const SweepOptions& options, RunInfo info);

}  // namespace bench
