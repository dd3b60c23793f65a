// tilesort: device helpers for kernels that emit (tile, key, value) records
// for tilesort::bin / tilesort::bin_and_sort (see tilesort/binning.hpp and
// docs/binning.md).
//
//   __global__ void splat(tilesort::RecordSink sink, ...) {
//     ...
//     const std::uint32_t depth = tilesort::depth_key(view_z);      // or quantised
//     std::uint32_t slot = tilesort::reserve_records(sink, tiles_touched);
//     for (each tile t this particle touches)
//       tilesort::write_record(sink, slot++, t, depth, particle_index);
//   }
//
// The record count lives in device memory (`*sink.count`, zeroed by the
// caller before the emitting kernel) and is handed unchanged to bin /
// bin_and_sort as BinArgs::d_num_records: no host round trip.
//
// Overflow: slots at or beyond `capacity` are counted but never written.
// The count therefore keeps growing past the capacity, and bin /
// bin_and_sort, given the sink's capacity (BinArgs::record_capacity, as
// bin_args_for(sink) sets it), report StatusCode::count_over_capacity (with
// the emitted count) instead of binning a truncated frame. Counts above
// 2^32 - 1 wrap; keep the capacity well below that.
#pragma once

#include <cstdint>

#include "tilesort/binning.hpp"
#include "tilesort/thread/key_codec.cuh"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#endif

namespace tilesort {

/// Where an emitting kernel appends records: three parallel arrays of
/// `capacity` entries (structure of arrays, so bin reads them coalesced) and
/// a record counter in device memory.
struct RecordSink {
  std::uint32_t* tile_ids = nullptr;
  std::uint32_t* keys = nullptr;    // may be null when only tile ids and values are emitted
  std::uint32_t* values = nullptr;  // may be null when only tile ids and keys are emitted
  std::uint32_t* count = nullptr;   // zero it before the emitting kernel
  std::uint32_t capacity = 0;
};

/// BinArgs whose inputs are the sink's records: its arrays, its device
/// count and its capacity (so an overflowed sink is always
/// count_over_capacity, even under a plan with more records). The caller
/// adds num_tiles, the outputs and, for bin_and_sort, the order and bits.
inline BinArgs bin_args_for(const RecordSink& sink) {
  BinArgs args;
  args.tile_ids = sink.tile_ids;
  args.keys = sink.keys;
  args.values = sink.values;
  args.d_num_records = sink.count;
  args.record_capacity = sink.capacity;
  return args;
}

/// Order-preserving u32 code of a float depth: a < b as floats implies
/// code(a) < code(b), with a total order: -inf < ... < -0.0 < +0.0 < ... <
/// +inf < NaN (NaNs last). The same encoding the sorter uses for f32 keys.
TILESORT_HD std::uint32_t depth_key(float depth) {
  KeyCodec<std::uint32_t> codec;
  codec.kind = KeyKind::floating;
#if defined(__CUDA_ARCH__)
  return codec.encode(__float_as_uint(depth));
#else
  std::uint32_t raw;
  __builtin_memcpy(&raw, &depth, sizeof(raw));
  return codec.encode(raw);
#endif
}

/// Inverse of depth_key for full 32-bit codes (restores the exact float).
TILESORT_HD float depth_from_key(std::uint32_t code) {
  KeyCodec<std::uint32_t> codec;
  codec.kind = KeyKind::floating;
  const std::uint32_t raw = codec.decode(code);
#if defined(__CUDA_ARCH__)
  return __uint_as_float(raw);
#else
  float depth;
  __builtin_memcpy(&depth, &raw, sizeof(depth));
  return depth;
#endif
}

/// Keeps the top `bits` (1..32) bits of a depth code: still order-preserving
/// (a <= b implies q(a) <= q(b)), coarser, and it fits in [0, 2^bits). Sort
/// it with BinArgs / SortArgs end_bit = bits: fewer radix passes.
/// Codes of non-negative floats all lie in [depth_key(+0.0), depth_key(+inf)]
/// = [0x7F800001, 0xFF000001], so for such depths the quantised code uses
/// only about half of its range; to spend every bit on the depth range,
/// quantise a linear depth yourself
/// (e.g. u32((z - near) / (far - near) * ((1 << bits) - 1))).
TILESORT_HD std::uint32_t quantize_key(std::uint32_t code, int bits) {
  return bits >= 32 ? code : (bits <= 0 ? 0u : code >> (32 - bits));
}

#if defined(__CUDACC__)

/// Reserves `n` consecutive record slots for the calling thread and returns
/// the first. Warp-aggregated: the lanes that arrive together (a coalesced
/// group, so divergent callers are fine) scan their counts and issue one
/// atomic. Slots >= sink.capacity must not be written; write_record checks.
__device__ __forceinline__ std::uint32_t reserve_records(const RecordSink& sink, std::uint32_t n) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  const std::uint32_t before = cg::exclusive_scan(group, n);
  const unsigned last = group.size() - 1;
  std::uint32_t base = 0;
  if (group.thread_rank() == last) base = atomicAdd(sink.count, before + n);
  return group.shfl(base, last) + before;
}

/// Writes record `slot` unless it is beyond the capacity (then the record
/// is dropped; the count already says it was emitted). Returns whether it
/// was written.
__device__ __forceinline__ bool write_record(const RecordSink& sink, std::uint32_t slot, std::uint32_t tile_id,
                                             std::uint32_t key, std::uint32_t value) {
  if (slot >= sink.capacity) return false;
  sink.tile_ids[slot] = tile_id;
  if (sink.keys) sink.keys[slot] = key;
  if (sink.values) sink.values[slot] = value;
  return true;
}

/// Appends one record (warp-aggregated); returns whether it was stored.
__device__ __forceinline__ bool emit_record(const RecordSink& sink, std::uint32_t tile_id, std::uint32_t key,
                                            std::uint32_t value) {
  return write_record(sink, reserve_records(sink, 1u), tile_id, key, value);
}

#endif  // __CUDACC__

}  // namespace tilesort
