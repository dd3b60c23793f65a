// The 3D Gaussian Splatting binning pipeline (the reference renderer's
// duplicateWithKeys -> cub::DeviceRadixSort::SortPairs -> identifyTileRanges),
// the baseline tilesort::bin_and_sort is measured against:
//
//   1. one 64-bit key per record: (tile id << depth_bits) | depth key;
//   2. cub::DeviceRadixSort::SortPairs over bits [begin, depth_bits + bits of
//      the tile count): by (tile, depth), stable, values carried along;
//      (Gs3dKeys::packed32: the same with 32-bit keys, half the key bytes, a
//      careful user's packing wherever depth_bits + tile bits <= 32, e.g.
//      16-bit depths and at most 65,536 tiles);
//   3. the tile ranges from the sorted keys, either as 3DGS writes them
//      (uint2 [start, end) per tile, the array cleared first) or as
//      tilesort's CSR offsets (num_tiles + 1 entries, what the demo's
//      compositor reads).
//
// The record count comes from the host, as in 3DGS (it copies its count back
// and synchronises before sorting); callers that hold it on the device must
// read it back themselves, and that read-back is not part of run().
// No CUDA include, so plain C++ (the demo) can hold a pipeline. Library code:
// every call returns a Status, nothing prints or exits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilesort/segmented_sort.hpp"  // Stream
#include "tilesort/status.hpp"

namespace tilesort {
namespace baselines {

/// Capacity, fixed at create().
struct Gs3dPlan {
  std::uint32_t max_records = 0;
  std::uint32_t max_tiles = 0;
};

/// The key word of steps 1-2.
enum class Gs3dKeys {
  u64,       // 3DGS's: std::uint64_t (tile << depth_bits) | depth
  packed32,  // std::uint32_t, where depth_bits + max(bits_for(num_tiles), 1) <= 32
};

/// How step 3 writes the tile ranges.
enum class Gs3dRanges {
  ranges,   // uint2 per tile: [start, end); empty tiles (0, 0). 3DGS's layout.
  offsets,  // num_tiles + 1 offsets: tile t is [offsets[t], offsets[t + 1]).
};

struct Gs3dArgs {
  const std::uint32_t* tile_ids = nullptr;  // device, num_records
  const std::uint32_t* keys = nullptr;      // depth keys, < 2^depth_bits
  const std::uint32_t* values = nullptr;
  std::uint32_t num_records = 0;            // host count (<= plan.max_records)
  std::uint32_t num_tiles = 0;              // 1..plan.max_tiles; tile ids < num_tiles
  int depth_bits = 32;                      // 32, or fewer for quantised depths
  bool sort_depth = true;                   // false: by tile only (radix from depth_bits up)
  Gs3dKeys key_word = Gs3dKeys::u64;
  std::uint32_t* out_values = nullptr;      // num_records
  Gs3dRanges layout = Gs3dRanges::ranges;
  void* out_ranges = nullptr;               // uint2[num_tiles] or std::uint32_t[num_tiles + 1]
};

/// Owns the 64-bit key buffers and CUB's temporary storage, allocated once.
class Gs3dPipeline {
 public:
  Gs3dPipeline() noexcept = default;
  ~Gs3dPipeline() { reset(); }
  Gs3dPipeline(Gs3dPipeline&& other) noexcept;
  Gs3dPipeline& operator=(Gs3dPipeline&& other) noexcept;
  Gs3dPipeline(const Gs3dPipeline&) = delete;
  Gs3dPipeline& operator=(const Gs3dPipeline&) = delete;

  /// Allocates for `plan` on the current CUDA device.
  static Status create(const Gs3dPlan& plan, Gs3dPipeline* out) noexcept;

  /// Enqueues steps 1-3 on `stream`: no allocation, no host synchronisation.
  Status run(const Gs3dArgs& args, Stream stream) noexcept;
  /// After run(): the depth field of the sorted keys (their low depth_bits
  /// bits: the depth keys, in sorted order) into `out_keys` (num_records
  /// entries). Not part of 3DGS,
  /// which drops them; tests and the demo's verification read them.
  Status sorted_depth_keys(std::uint32_t* out_keys, std::uint32_t num_records, Stream stream) const noexcept;

  /// Sorted 64-bit keys of the last run (device, num_records entries);
  /// null when that run used Gs3dKeys::packed32.
  const std::uint64_t* sorted_keys() const noexcept { return key_word_ == Gs3dKeys::u64 ? keys_out_ : nullptr; }
  const Gs3dPlan& plan() const noexcept { return plan_; }
  bool valid() const noexcept { return keys_in_ != nullptr; }
  void reset() noexcept;

 private:
  Gs3dPlan plan_{};
  std::uint64_t* keys_in_ = nullptr;
  std::uint64_t* keys_out_ = nullptr;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  int depth_bits_ = 32;  // of the last run
  Gs3dKeys key_word_ = Gs3dKeys::u64;  // of the last run; packed32 keys live in the same buffers
};

/// Bits needed to hold tile ids below `count` (3DGS's getHigherMsb).
int bits_for(std::uint32_t count) noexcept;

}  // namespace baselines
}  // namespace tilesort
