// tilesort binning: from (tile id, key, value) records emitted in any order
// by other kernels to tile-contiguous, per-tile sorted segments and their
// CSR offsets. Device-side emission helpers are in tilesort/emit.cuh; the
// per-frame walk-through and the costs are in docs/binning.md.
//
//   tilesort::BinPlan plan;                  // capacities, once
//   plan.max_records = 1 << 24; plan.max_tiles = 8160;
//   size_t bytes = 0;
//   tilesort::bin_and_sort_workspace_size(plan, &bytes);
//   cudaMalloc(&workspace, bytes);
//
//   // per frame: zero *d_count, run the emitting kernel, then
//   tilesort::BinArgs args;
//   args.tile_ids = d_tiles; args.keys = d_depths; args.values = d_ids;
//   args.d_num_records = d_count; args.num_tiles = 8160;
//   args.out_keys = d_sorted_depths; args.out_values = d_sorted_ids;
//   args.out_offsets = d_tile_ranges;       // num_tiles + 1 entries
//   tilesort::bin_and_sort(workspace, bytes, plan, args, stream);
//
// Every call is stream-ordered, allocates nothing, never synchronises with
// the host and can be captured in a CUDA graph. Binning is stable: records
// of one tile keep their emission (index) order, and the sort is stable, so
// the result is deterministic for a given record array.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilesort/segmented_sort.hpp"
#include "tilesort/status.hpp"

namespace tilesort {

/// Capacities a binning workspace is sized for. Fixed for its lifetime.
struct BinPlan {
  /// Most records any call bins (the emission buffers' capacity).
  std::uint64_t max_records = 0;
  /// Most tiles any call uses.
  std::uint32_t max_tiles = 0;
  /// Values moved with the keys: none, b32 or b64.
  ValueType value_type = ValueType::b32;
  /// bin_and_sort only, optional: the most records one tile can hold
  /// (0 = max_records). Forwarded as SortPlan::max_segment_items, so a
  /// bound within the sort's largest one-block size (16384 records in an
  /// sm_90 build, 4096 with sm_75; docs/design.md, "Workspace") drops the
  /// large-tile machinery from the sort.
  std::uint64_t max_tile_records = 0;
};

/// Per-call arguments of bin and bin_and_sort. All pointers are device
/// memory. Inputs are never modified.
struct BinArgs {
  const std::uint32_t* tile_ids = nullptr;  // record r belongs to tile tile_ids[r]
  const std::uint32_t* keys = nullptr;      // u32 keys (e.g. depth_key codes)
  const void* values = nullptr;             // plan.value_type; null iff none

  /// The record count: from device memory (e.g. RecordSink::count) when
  /// set, else num_records. Above plan.max_records -> count_over_capacity
  /// (for a device count: reported on the device, outputs untouched).
  const std::uint32_t* d_num_records = nullptr;
  std::uint64_t num_records = 0;
  /// Records the input arrays hold (e.g. RecordSink::capacity), when less
  /// than plan.max_records; 0 = plan.max_records. A count above it is
  /// count_over_capacity: an emitting kernel that overflowed its sink is
  /// never binned, whatever the plan. tilesort::bin_args_for(sink) in
  /// tilesort/emit.cuh fills this, d_num_records and the input arrays.
  std::uint64_t record_capacity = 0;
  std::uint32_t num_tiles = 0;  // 1..plan.max_tiles; tile ids must be < num_tiles

  std::uint32_t* out_keys = nullptr;  // max_records entries (num_records used)
  void* out_values = nullptr;         // likewise; null iff value_type none
  std::uint32_t* out_offsets = nullptr;  // num_tiles + 1: tile t is [out_offsets[t], out_offsets[t+1])

  /// bin_and_sort only: the sort order within a tile and the key bits that
  /// take part (e.g. end_bit = 16 for keys quantised to 16 bits).
  Order order = Order::ascending;
  int begin_bit = 0;
  int end_bit = -1;
};

/// bin_index: the permutation only. out_permutation[i] is the index of the
/// record that lands at position i; pair with gather() for large records.
struct BinIndexArgs {
  const std::uint32_t* tile_ids = nullptr;
  const std::uint32_t* d_num_records = nullptr;
  std::uint64_t num_records = 0;
  std::uint64_t record_capacity = 0;  // as BinArgs::record_capacity
  std::uint32_t num_tiles = 0;
  std::uint32_t* out_permutation = nullptr;  // max_records entries
  std::uint32_t* out_offsets = nullptr;      // num_tiles + 1
};

/// gather: out_records[i] = records[permutation[i]] for i < the record
/// count, for records of record_bytes each (a multiple of 4; multiples of 16
/// with 16-byte aligned arrays move as 16-byte vectors, several threads per
/// record). Uses the workspace of the bin_index call that made the
/// permutation: it does nothing when that call reported an error. An entry
/// that is not below the record count is reported (permutation_out_of_range,
/// the first one seen) and skipped: its slot keeps what it held, and every
/// other record still moves.
struct GatherArgs {
  const void* records = nullptr;
  void* out_records = nullptr;
  std::size_t record_bytes = 0;
  const std::uint32_t* permutation = nullptr;
  const std::uint32_t* d_num_records = nullptr;
  std::uint64_t num_records = 0;
  std::uint64_t record_capacity = 0;  // as BinArgs::record_capacity
};

/// Phase 1: workspace bytes for bin, bin_index and gather under `plan`.
Status bin_workspace_size(const BinPlan& plan, std::size_t* bytes) noexcept;
/// Phase 1 for bin_and_sort (bin's workspace plus the segmented sort's).
Status bin_and_sort_workspace_size(const BinPlan& plan, std::size_t* bytes) noexcept;

/// Stable multi-way split by tile: out_keys / out_values hold tile 0's
/// records, then tile 1's, ... in input order; out_offsets the CSR ranges.
/// Device-detected errors (count over capacity, a tile id >= num_tiles) are
/// found before anything is written: the outputs stay untouched and the
/// error is in the workspace's DeviceStatus (read_bin_status).
Status bin(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
           Stream stream) noexcept;

/// Like bin, but writes only the permutation and the offsets.
Status bin_index(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinIndexArgs& args,
                 Stream stream) noexcept;

/// Cooperative gather of large records through a permutation (see GatherArgs).
Status gather(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const GatherArgs& args,
              Stream stream) noexcept;

/// bin, then every tile sorted by key (stable, args.order, bits
/// [begin_bit, end_bit)), with no host round trip. On a binning error the
/// sort sees zero tiles and nothing is written.
Status bin_and_sort(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
                    Stream stream) noexcept;

/// Device address of the binning DeviceStatus (the first error of the last
/// bin / bin_index / gather / bin_and_sort on this workspace): code
/// count_over_capacity, tile_id_out_of_range or permutation_out_of_range.
const DeviceStatus* bin_device_status(const void* workspace) noexcept;

/// Converts a binning DeviceStatus (copied to the host) to a Status whose
/// message names the record and tile id of a bad tile id (same as to_status).
Status to_bin_status(const DeviceStatus& device_status) noexcept;

/// Convenience, NOT for the hot path: waits for `stream` and reads the
/// status of the last bin / bin_index / gather on this workspace.
Status read_bin_status(const void* workspace, Stream stream) noexcept;

/// Convenience, NOT for the hot path: the binning status, then (when that
/// is ok) the status of bin_and_sort's segmented sort.
Status read_bin_and_sort_status(const void* workspace, const BinPlan& plan, Stream stream) noexcept;

}  // namespace tilesort
