// tilesort-demo: which sorter orders each frame's records, and the A/B
// comparison between them. CPU-only logic (unit-tested in tests/demo).
//
//   tilesort  tilesort::bin_and_sort (CUDA), the product;
//   3dgs      the 3D Gaussian Splatting pipeline (baselines/gs3d_pipeline.hpp):
//             64-bit (tile, depth) keys, cub::DeviceRadixSort, tile ranges;
//   cpu       the host's counting sort + per-tile sort (no CUDA needed).
//
// The primary sorter writes the lists the frame is composited from; with
// the A/B on, the other CUDA sorter sorts the same records first, every
// frame, so both are timed on the same frames.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tilesort {
namespace demo {

enum class Sorter : int { tilesort = 0, gs3d = 1, cpu = 2 };
inline constexpr int kSorterCount = 3;

/// "tilesort", "3dgs", "cpu" (the --sorter spellings).
const char* sorter_name(Sorter s);
/// Parses a --sorter value; false for anything else.
bool parse_sorter(const std::string& text, Sorter* out);
/// Whether `s` runs on CUDA (and so needs the GPU path).
inline bool is_cuda_sorter(Sorter s) { return s != Sorter::cpu; }

/// The sorters of a run, in the order they run each frame: compared ones
/// first, the primary last (its output is what the frame shows).
struct SorterSet {
  Sorter primary = Sorter::cpu;
  std::vector<Sorter> compared;
  std::string note;  // why the A/B is off, when it is
  std::vector<Sorter> run_order() const;
  bool has(Sorter s) const;
};

/// What the user asked for (--sorter, --compare / --no-compare) and whether
/// the CUDA path is up -> the run's sorters. `requested` empty: tilesort on
/// the CUDA path, else the CPU. `compare` -1: on wherever there is a second
/// CUDA sorter. false with `error` when a CUDA sorter is asked for without
/// the CUDA path.
bool choose_sorters(const std::string& requested, int compare, bool cuda_path, SorterSet* out, std::string* error);

/// Per-frame sort times, one slot per Sorter (negative: did not run).
using SorterTimes = std::array<double, kSorterCount>;

/// The A/B over a run's frames: each sorter's median over the frames where
/// every sorter of the set ran, and the speedup of tilesort over the other.
struct AbSummary {
  std::uint64_t frames = 0;  // frames measured by every sorter of the set
  SorterTimes median_ms{{-1.0, -1.0, -1.0}};
  double speedup = 0.0;  // median 3dgs / median tilesort; 0 when not both ran
  /// "A/B over N frames: tilesort 0.547 ms, 3dgs 1.800 ms, tilesort 3.29x faster".
  std::string line() const;
};
AbSummary summarize_ab(const SorterSet& set, const std::vector<SorterTimes>& frames);

}  // namespace demo
}  // namespace tilesort
