// Binning entry points: argument checks, workspace layout and the launch
// sequence. Host planning only: no synchronisation, no allocation.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#include "binning/bin_kernels.cuh"
#include "core/workspace.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/policy.hpp"
#include "tilesort/binning.hpp"

namespace tilesort {
namespace detail {
namespace {

using Policy = BinPolicy;
using WidePolicy = BinWidePassPolicy;

/// How the tile id bits are split into passes: as few passes of at most
/// kRadixBits as possible (kWideRadixBits where that saves a pass of ids of
/// at most kWidePassMaxTileBits), bits spread evenly (fewer digits per pass
/// means longer runs in the scatter). The first pass takes bits_per_pass
/// bits, and so does every later one but the last, which takes what is left.
struct PassPlan {
  int passes;
  int bits_per_pass;
  int total_bits;
  /// Tile id bits the first pass leaves for the later ones: the widest ids
  /// the passes write between them.
  constexpr int bits_after_first_pass() const { return total_bits - bits_per_pass; }
  /// Look-back words per (pass, chunk): the widest pass's digits.
  constexpr std::uint32_t lookback_digits() const {
    return 1u << (bits_per_pass > Policy::kRadixBits ? WidePolicy::kRadixBits : Policy::kRadixBits);
  }
  /// Look-back words per chunk, over every pass.
  constexpr std::uint64_t lookback_words_per_chunk() const { return std::uint64_t(passes) * lookback_digits(); }
};

constexpr PassPlan pass_plan_for_bits(int bits) {
  int passes = (bits + Policy::kRadixBits - 1) / Policy::kRadixBits;
  const int wide_passes = (bits + WidePolicy::kRadixBits - 1) / WidePolicy::kRadixBits;
  if (bits <= Policy::kWidePassMaxTileBits && wide_passes < passes) passes = wide_passes;
  return PassPlan{passes, (bits + passes - 1) / passes, bits};
}

PassPlan pass_plan(std::uint32_t num_tiles) {
  int bits = 1;
  while (bits < 32 && (std::uint64_t(1) << bits) < num_tiles) ++bits;
  return pass_plan_for_bits(bits);
}

/// Whether `field` of the pass plan never falls as the tile id bits grow.
/// The workspace sizes what the passes use for the plan's tile count, so no
/// call with fewer tiles may need more.
template <class Field>
constexpr bool never_falls(Field field) {
  for (int bits = 2; bits <= 32; ++bits)
    if (field(pass_plan_for_bits(bits)) < field(pass_plan_for_bits(bits - 1))) return false;
  return true;
}
static_assert(never_falls([](const PassPlan& p) { return p.bits_after_first_pass(); }),
              "the plan's tiles bound every call's ids between passes");
static_assert(never_falls([](const PassPlan& p) { return p.passes; }),
              "the plan's tiles bound every call's ping-pong buffers");
static_assert(never_falls([](const PassPlan& p) { return p.lookback_words_per_chunk(); }),
              "the plan's tiles bound every call's look-back words (a 9-bit call's 512 included)");

/// Bytes of a tile id between passes that still holds `bits` bits
/// (bin_scatter_kernel's InId and OutId).
int tile_id_bytes(int bits) { return bits <= 8 ? 1 : bits <= 16 ? 2 : 4; }

/// Tile ranges of the offsets kernel's chained scan: one block each.
std::uint32_t offsets_ranges(std::uint32_t num_tiles) {
  constexpr std::uint32_t kRange = Policy::kOffsetsThreads * Policy::kOffsetsItems;
  return (num_tiles + kRange - 1) / kRange;
}

/// How the upsweep counts records per tile: in shared memory, in as few
/// parts of the tile range as fit one block's counters (at most
/// kMaxTileParts), or with global atomics (0 parts).
struct TileCounting {
  std::uint32_t parts;
  std::uint32_t tiles_per_part;
  std::size_t smem;
  bool packed;  // two counters per word (bin_upsweep_kernel's PACKED)
};

TileCounting tile_counting(std::uint32_t num_tiles, int smem_optin) {
  const std::size_t budget = std::min(Policy::kSharedTileHistBytes, std::size_t(smem_optin));
  const std::uint64_t words = budget / sizeof(std::uint32_t);
  const auto parts_of = [&](std::uint64_t per_block) { return (num_tiles + per_block - 1) / per_block; };
  // Packed counters only where they save a part: they cost a check per add
  // and a barrier per step.
  const bool packed = parts_of(2 * words) < parts_of(words);
  const std::uint64_t parts = parts_of(packed ? 2 * words : words);
  if (parts == 0 || parts > Policy::kMaxTileParts) return TileCounting{0, 0, 0, false};
  const std::uint32_t per_part = std::uint32_t((num_tiles + parts - 1) / parts);
  const std::size_t part_words = packed ? (per_part + 1) / 2 : per_part;
  const std::size_t granule = Policy::kTileHistGranule;
  const std::size_t smem = std::min(budget, (part_words * sizeof(std::uint32_t) + granule - 1) / granule * granule);
  return TileCounting{std::uint32_t(parts), per_part, smem, packed};
}

/// The binning workspace: every array, sized from the plan alone. The same
/// object answers the size queries and maps each call's arrays.
struct BinWorkspace {
  // Everything up to and including the tile counts is zeroed together at
  // the start of every call (they come first, in this order).
  WorkspaceSlot<DeviceStatus> status;  // at offset 0: bin_device_status relies on it
  WorkspaceSlot<std::uint32_t> sort_counts;    // {tiles, records} for bin_and_sort's sort
  WorkspaceSlot<std::uint32_t> chunk_tickets;  // [pass]
  WorkspaceSlot<std::uint32_t> offsets_tickets;  // {range ticket, ranges done}
  WorkspaceSlot<std::uint32_t> digit_totals;     // [pass][digit]
  WorkspaceSlot<std::uint64_t> offsets_lookback;  // [tile range]
  WorkspaceSlot<std::uint32_t> tile_counts;
  WorkspaceSlot<std::uint64_t> lookback;
  WorkspaceSlot<std::uint32_t> digit_base;
  // Ping-pong buffers between passes; values are sized for 8 bytes so one
  // workspace serves bin (b32 / b64) and bin_index.
  WorkspaceSlot<unsigned char> temp_tiles[2];  // tile ids of tile_id_bytes
  WorkspaceSlot<std::uint32_t> temp_keys[2];
  WorkspaceSlot<std::uint64_t> temp_values[2];
  WorkspaceSlot<unsigned char> sort_workspace;  // bin_and_sort's: a segmented_sort workspace
  std::size_t bytes;
  std::uint32_t chunk_stride;  // scatter chunks of a pass (at least 1)
};

BinWorkspace bin_workspace(const BinPlan& plan, bool with_sort, std::size_t sort_bytes) {
  BinWorkspace w{};
  WorkspaceLayout layout;
  w.chunk_stride = std::uint32_t(std::max<std::uint64_t>(1, (plan.max_records + Policy::kChunk - 1) / Policy::kChunk));
  w.status = layout.take<DeviceStatus>(1);
  w.sort_counts = layout.take<std::uint32_t>(2);
  w.chunk_tickets = layout.take<std::uint32_t>(kMaxBinPasses);
  w.offsets_tickets = layout.take<std::uint32_t>(2);
  w.digit_totals = layout.take<std::uint32_t>(std::uint64_t(kMaxBinPasses) * Policy::kMaxDigits);
  w.offsets_lookback = layout.take<std::uint64_t>(offsets_ranges(plan.max_tiles));
  w.tile_counts = layout.take<std::uint32_t>(plan.max_tiles);
  const PassPlan plan_passes = pass_plan(plan.max_tiles);
  const int passes = plan_passes.passes;
  w.lookback = layout.take<std::uint64_t>(w.chunk_stride * plan_passes.lookback_words_per_chunk());
  w.digit_base = layout.take<std::uint32_t>(std::uint64_t(kMaxBinPasses) * Policy::kMaxDigits);
  const int temps = std::min(2, passes - 1);
  // The widest ids between passes are a call's first pass's output, and the
  // plan's tile count bounds them (never_falls).
  const std::uint64_t id_bytes = tile_id_bytes(plan_passes.bits_after_first_pass());
  for (int t = 0; t < temps; ++t) {
    w.temp_tiles[t] = layout.take<unsigned char>(plan.max_records * id_bytes);
    w.temp_keys[t] = layout.take<std::uint32_t>(plan.max_records);
    w.temp_values[t] = layout.take<std::uint64_t>(plan.max_records);
  }
  if (with_sort) w.sort_workspace = layout.take<unsigned char>(sort_bytes);
  w.bytes = layout.bytes();
  return w;
}

SortPlan sort_plan_for(const BinPlan& plan) {
  SortPlan sp;
  sp.key_type = KeyType::u32;
  sp.value_type = plan.value_type;
  sp.offset_type = OffsetType::u32;
  sp.max_items = plan.max_records;
  sp.max_segments = plan.max_tiles;
  sp.max_segment_items = plan.max_tile_records;
  return sp;
}

Status check_bin_plan(const BinPlan& plan) {
  if (plan.max_records == 0 || plan.max_tiles == 0)
    return Status(StatusCode::invalid_argument, "plan.max_records and plan.max_tiles must be positive");
  if (plan.max_records > UINT32_MAX - Policy::kChunk) {
    char message[112];
    std::snprintf(message, sizeof(message),
                  "plan.max_records must be below 2^32 - %d, one scatter chunk (u32 record indices)", Policy::kChunk);
    return Status(StatusCode::invalid_argument, message);
  }
  if (unsigned(plan.value_type) > unsigned(ValueType::b64))
    return Status(StatusCode::unsupported_type, "plan.value_type out of range");
  if (plan.max_tile_records > plan.max_records)
    return Status(StatusCode::invalid_argument, "plan.max_tile_records exceeds plan.max_records");
  return Status();
}

/// The records a call may bin: the plan's capacity, or the input arrays'
/// (record_capacity) when that is smaller.
std::uint64_t record_capacity_of(const BinPlan& plan, std::uint64_t record_capacity) {
  return record_capacity ? std::min(record_capacity, plan.max_records) : plan.max_records;
}

/// A host-given record count must fit the capacity; a device count is
/// checked by the kernels.
Status check_record_count(const BinPlan& plan, const std::uint32_t* d_num_records, std::uint64_t num_records,
                          std::uint64_t record_capacity) {
  if (!d_num_records && num_records > plan.max_records)
    return Status(StatusCode::count_over_capacity, "num_records exceeds plan.max_records");
  if (!d_num_records && num_records > record_capacity_of(plan, record_capacity))
    return Status(StatusCode::count_over_capacity, "num_records exceeds record_capacity");
  return Status();
}

Status check_common(void* workspace, std::size_t workspace_bytes, const BinWorkspace& layout, const BinPlan& plan,
                    const std::uint32_t* tile_ids, const std::uint32_t* d_num_records, std::uint64_t num_records,
                    std::uint64_t record_capacity, std::uint32_t num_tiles, const std::uint32_t* out_offsets) {
  const Status workspace_status = check_workspace(workspace, workspace_bytes, layout.bytes);
  if (!workspace_status.ok()) return workspace_status;
  if (!tile_ids) return Status(StatusCode::invalid_argument, "tile_ids is null");
  if (!out_offsets) return Status(StatusCode::invalid_argument, "out_offsets is null");
  if (num_tiles == 0) return Status(StatusCode::invalid_argument, "num_tiles is 0");
  if (num_tiles > plan.max_tiles) return Status(StatusCode::count_over_capacity, "num_tiles exceeds plan.max_tiles");
  return check_record_count(plan, d_num_records, num_records, record_capacity);
}

/// Everything one binning call launches: the zeroing, the upsweep, the
/// offsets, then one scatter per pass.
struct BinLaunch {
  void* workspace;
  BinWorkspace layout;
  BinCount count;
  std::uint32_t num_tiles;
  const std::uint32_t* tile_ids;
  const std::uint32_t* keys;  // null: no keys
  const void* values;         // null with iota: indices
  std::uint32_t* out_keys;
  void* out_values;
  std::uint32_t* out_offsets;
  bool sort_counts;  // write {tiles, records} for a following sort
  cudaStream_t stream;
};

/// One scatter pass, reading tile ids of in_bytes and writing them for the
/// next pass in out_bytes (0: the last pass writes none; tile_id_bytes), by
/// the kernel of the pass's digit width (Pass: BinPolicy for 8-bit digits,
/// BinWidePassPolicy for 9). Only the first pass can make the values up
/// (bin_index's record indices); later passes move the values the first one
/// wrote.
template <class Pass, bool kHasKeys, class Value, bool kIota>
cudaError_t launch_scatter(const BinLaunch& b, const ScatterParams<Value>& sp, bool first, int in_bytes,
                           int out_bytes, bool programmatic) {
  constexpr std::size_t smem = ScatterSmem<Pass, kHasKeys, Value>::kBytes;
  const auto launch = [&](auto kernel) {
    // Persistent (the kernel loops over chunks): never more blocks than
    // chunks (chunk_stride >= 1).
    return launch_persistent(kernel, Pass::kThreads, smem, b.stream, programmatic, b.layout.chunk_stride, sp);
  };
  using u8 = std::uint8_t;
  using u16 = std::uint16_t;
  using u32 = std::uint32_t;
  if constexpr (Pass::kRadixBits > Policy::kRadixBits) {
    // A 9-bit pass is a call's only one (pass_plan): it reads the user's
    // ids and writes none.
    static_assert(Policy::kWidePassMaxTileBits <= Pass::kRadixBits, "9-bit passes are only ever one pass");
    if (first && out_bytes == 0) return launch(bin_scatter_kernel<Pass, kHasKeys, Value, kIota, u32, NoTileIds>);
    return cudaErrorInvalidValue;  // no pass plan makes another pair
  } else {
    // 8-bit passes leave these pairs (pass_plan): the first pass reads the
    // user's 4 bytes and writes whatever is left; a pass that reads 2 bytes
    // leaves at most 8 bits and one that reads 1 byte is the last. Of 4-byte
    // ids a later pass (the second of four) leaves at most 16 bits.
    if (first) {
      switch (out_bytes) {
        case 0: return launch(bin_scatter_kernel<Pass, kHasKeys, Value, kIota, u32, NoTileIds>);
        case 1: return launch(bin_scatter_kernel<Pass, kHasKeys, Value, kIota, u32, u8>);
        case 2: return launch(bin_scatter_kernel<Pass, kHasKeys, Value, kIota, u32, u16>);
        default: return launch(bin_scatter_kernel<Pass, kHasKeys, Value, kIota, u32, u32>);
      }
    }
    if (in_bytes == 4 && out_bytes == 2) return launch(bin_scatter_kernel<Pass, kHasKeys, Value, false, u32, u16>);
    if (in_bytes == 2 && out_bytes == 1) return launch(bin_scatter_kernel<Pass, kHasKeys, Value, false, u16, u8>);
    if (in_bytes == 1 && out_bytes == 0) return launch(bin_scatter_kernel<Pass, kHasKeys, Value, false, u8, NoTileIds>);
    return cudaErrorInvalidValue;  // no pass plan makes another pair
  }
}

template <bool kHasKeys, class Value, bool kIota>
cudaError_t launch_bin(const BinLaunch& b) {
  const BinWorkspace& l = b.layout;
  void* ws = b.workspace;
  DeviceStatus* status = l.status.in(ws);
  // Status, sort counts, tickets, digit totals, the offsets' look-back words
  // and the tiles' counters start at zero every call (one range: they are
  // laid out in that order).
  cudaError_t err = cudaMemsetAsync(ws, 0, l.tile_counts.offset + std::size_t(b.num_tiles) * sizeof(std::uint32_t), b.stream);
  if (err != cudaSuccess) return err;

  const PassPlan pp = pass_plan(b.num_tiles);
  BinPasses passes{};
  passes.count = pp.passes;
  for (int pass = 0; pass < pp.passes; ++pass) {
    passes.shift[pass] = pass * pp.bits_per_pass;
    passes.bits[pass] = std::min(pp.bits_per_pass, pp.total_bits - passes.shift[pass]);
  }
  DeviceAttributes attributes{};
  if ((err = current_device_attributes(&attributes))) return err;
  const int smem_optin = attributes.shared_memory_optin, cc_major = attributes.compute_major;
  // Chain the kernels with programmatic dependent launches (sm_90+): each
  // one's launch overlaps the previous one's tail; every kernel starts with
  // enter_dependent_kernel().
  const bool programmatic = cc_major >= 9;
  const TileCounting counting = tile_counting(b.num_tiles, smem_optin);

  UpsweepParams up{};
  up.tiles = b.tile_ids;
  up.count = b.count;
  up.num_tiles = b.num_tiles;
  up.tile_counts = l.tile_counts.in(ws);
  up.tile_parts = counting.parts;
  up.tiles_per_part = counting.tiles_per_part;
  up.lookback = l.lookback.in(ws);
  up.chunk_stride = l.chunk_stride;
  up.lookback_digits = pp.lookback_digits();
  up.passes = pp.passes;
  up.status = status;
  // Persistent, never more blocks than (step, part) pairs. The first kernel
  // follows the memset: launched plainly.
  const std::uint64_t steps = (l.chunk_stride + Policy::kUpsweepChunksPerStep - 1) / Policy::kUpsweepChunksPerStep;
  const auto upsweep = counting.packed ? bin_upsweep_kernel<Policy, true> : bin_upsweep_kernel<Policy, false>;
  if ((err = launch_persistent(upsweep, Policy::kUpsweepThreads, counting.smem, b.stream, false,
                               steps * std::max(counting.parts, 1u), up)))
    return err;

  OffsetsParams op{};
  op.tile_counts = l.tile_counts.in(ws);
  op.num_tiles = b.num_tiles;
  op.passes = passes;
  op.out_offsets = b.out_offsets;
  op.digit_totals = l.digit_totals.in(ws);
  op.digit_base = l.digit_base.in(ws);
  op.lookback = l.offsets_lookback.in(ws);
  op.tickets = l.offsets_tickets.in(ws);
  op.sort_counts = b.sort_counts ? l.sort_counts.in(ws) : nullptr;
  op.status = status;
  if ((err = launch_kernel(bin_offsets_kernel<Policy>, int(offsets_ranges(b.num_tiles)), Policy::kOffsetsThreads, 0,
                           b.stream, programmatic, op)))
    return err;

  int in_bytes = 4;  // the user's tile ids; each later pass reads what the one before wrote
  for (int pass = 0; pass < pp.passes; ++pass) {
    const bool first = pass == 0, last = pass == pp.passes - 1;
    ScatterParams<Value> sp{};
    sp.in_tiles = first ? static_cast<const void*>(b.tile_ids) : l.temp_tiles[(pass - 1) % 2].in(ws);
    const int out_bytes = last ? 0 : tile_id_bytes(pp.total_bits - passes.shift[pass + 1]);
    sp.in_keys = first ? b.keys : l.temp_keys[(pass - 1) % 2].in(ws);
    if constexpr (!std::is_same<Value, NoValue>::value) {
      sp.in_values = first ? static_cast<const Value*>(b.values) : l.temp_values[(pass - 1) % 2].as<Value>(ws);
      sp.out_values = last ? static_cast<Value*>(b.out_values) : l.temp_values[pass % 2].as<Value>(ws);
    }
    sp.out_tiles = last ? nullptr : l.temp_tiles[pass % 2].in(ws);
    sp.out_keys = last ? b.out_keys : l.temp_keys[pass % 2].in(ws);
    sp.digit_base = l.digit_base.in(ws) + pass * Policy::kMaxDigits;
    sp.lookback = l.lookback.in(ws) + std::size_t(pass) * l.chunk_stride * pp.lookback_digits();
    sp.lookback_digits = pp.lookback_digits();
    sp.chunk_ticket = l.chunk_tickets.in(ws) + pass;
    sp.bits = passes.bits[pass];
    sp.count = b.count;
    sp.status = status;
    err = passes.bits[pass] > Policy::kRadixBits
              ? launch_scatter<WidePolicy, kHasKeys, Value, kIota>(b, sp, first, in_bytes, out_bytes, programmatic)
              : launch_scatter<Policy, kHasKeys, Value, kIota>(b, sp, first, in_bytes, out_bytes, programmatic);
    if (err != cudaSuccess) return err;
    in_bytes = out_bytes;
  }
  return cudaSuccess;
}

BinCount make_count(const BinPlan& plan, const std::uint32_t* d_num_records, std::uint64_t num_records,
                    std::uint64_t record_capacity) {
  return BinCount{d_num_records, std::uint32_t(d_num_records ? 0 : num_records),
                  std::uint32_t(record_capacity_of(plan, record_capacity))};
}

/// The launch fields bin and bin_index fill alike (Args: BinArgs or
/// BinIndexArgs); the caller adds its keys, values and outputs.
template <class Args>
BinLaunch bin_launch_for(void* workspace, const BinWorkspace& layout, const BinPlan& plan, const Args& args,
                         cudaStream_t stream) {
  BinLaunch b{};
  b.workspace = workspace;
  b.layout = layout;
  b.count = make_count(plan, args.d_num_records, args.num_records, args.record_capacity);
  b.num_tiles = args.num_tiles;
  b.tile_ids = args.tile_ids;
  b.out_offsets = args.out_offsets;
  b.stream = stream;
  return b;
}

Status check_bin_args(void* workspace, std::size_t workspace_bytes, const BinWorkspace& layout, const BinPlan& plan,
                      const BinArgs& args) {
  const Status common = check_common(workspace, workspace_bytes, layout, plan, args.tile_ids, args.d_num_records,
                                     args.num_records, args.record_capacity, args.num_tiles, args.out_offsets);
  if (!common.ok()) return common;
  if (!args.keys) return Status(StatusCode::invalid_argument, "keys is null");
  if (!args.out_keys) return Status(StatusCode::invalid_argument, "out_keys is null");
  const bool has_values = plan.value_type != ValueType::none;
  if (has_values && (!args.values || !args.out_values))
    return Status(StatusCode::invalid_argument, "values or out_values is null but the plan has a value type");
  if (!has_values && (args.values || args.out_values))
    return Status(StatusCode::invalid_argument, "values given but the plan's value_type is none");
  const std::size_t vb = size_of(plan.value_type);
  if (misaligned(args.tile_ids, 4) || misaligned(args.keys, 4) || misaligned(args.out_keys, 4) ||
      misaligned(args.out_offsets, 4) || (has_values && (misaligned(args.values, vb) || misaligned(args.out_values, vb))))
    return Status(StatusCode::invalid_argument, "an array is not aligned to its element size");
  if (static_cast<const void*>(args.keys) == args.out_keys || (has_values && args.values == args.out_values) ||
      static_cast<const void*>(args.tile_ids) == args.out_keys)
    return Status(StatusCode::invalid_argument, "bin is out of place: inputs and outputs must not alias");
  return Status();
}

cudaError_t run_bin(void* workspace, const BinWorkspace& layout, const BinPlan& plan, const BinArgs& args, bool sort_counts,
                    cudaStream_t stream) {
  BinLaunch b = bin_launch_for(workspace, layout, plan, args, stream);
  b.keys = args.keys;
  b.values = args.values;
  b.out_keys = args.out_keys;
  b.out_values = args.out_values;
  b.sort_counts = sort_counts;
  switch (plan.value_type) {
    case ValueType::none: return launch_bin<true, NoValue, false>(b);
    case ValueType::b32: return launch_bin<true, std::uint32_t, false>(b);
    case ValueType::b64: return launch_bin<true, std::uint64_t, false>(b);
  }
  return cudaErrorInvalidValue;
}

Status sort_bytes_for(const BinPlan& plan, std::size_t* bytes) {
  return segmented_sort_workspace_size(sort_plan_for(plan), bytes);
}

/// One gather launch moving Word-sized pieces of each record: 16-byte words
/// where the records' size and both arrays' alignment allow, else 4-byte.
template <class Word>
cudaError_t launch_gather(const GatherArgs& args, std::uint32_t words_per_record, const BinCount& count,
                          DeviceStatus* status, cudaStream_t stream) {
  const GatherParams<Word> gp{static_cast<const Word*>(args.records), static_cast<Word*>(args.out_records),
                              args.permutation, words_per_record, count, status};
  return launch_persistent(bin_gather_kernel<Policy, Word>, Policy::kGatherThreads, 0, stream, false, 0, gp);
}

}  // namespace
}  // namespace detail

Status bin_workspace_size(const BinPlan& plan, std::size_t* bytes) noexcept {
  if (!bytes) return Status(StatusCode::invalid_argument, "bytes is null");
  const Status s = detail::check_bin_plan(plan);
  if (!s.ok()) return s;
  *bytes = detail::bin_workspace(plan, false, 0).bytes;
  return Status();
}

Status bin_and_sort_workspace_size(const BinPlan& plan, std::size_t* bytes) noexcept {
  if (!bytes) return Status(StatusCode::invalid_argument, "bytes is null");
  Status s = detail::check_bin_plan(plan);
  if (!s.ok()) return s;
  std::size_t sort_bytes = 0;
  if (!(s = detail::sort_bytes_for(plan, &sort_bytes)).ok()) return s;
  *bytes = detail::bin_workspace(plan, true, sort_bytes).bytes;
  return Status();
}

Status bin(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
           Stream stream) noexcept {
  using namespace detail;
  Status s = check_bin_plan(plan);
  if (!s.ok()) return s;
  const BinWorkspace layout = bin_workspace(plan, false, 0);
  if (!(s = check_bin_args(workspace, workspace_bytes, layout, plan, args)).ok()) return s;
  const cudaError_t err = run_bin(workspace, layout, plan, args, false, stream);
  if (err != cudaSuccess) return Status::from_cuda(err, "launching the binning kernels");
  return Status();
}

Status bin_index(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinIndexArgs& args,
                 Stream stream) noexcept {
  using namespace detail;
  Status s = check_bin_plan(plan);
  if (!s.ok()) return s;
  const BinWorkspace layout = bin_workspace(plan, false, 0);
  if (!(s = check_common(workspace, workspace_bytes, layout, plan, args.tile_ids, args.d_num_records, args.num_records,
                         args.record_capacity, args.num_tiles, args.out_offsets))
           .ok())
    return s;
  if (!args.out_permutation) return Status(StatusCode::invalid_argument, "out_permutation is null");
  if (misaligned(args.tile_ids, 4) || misaligned(args.out_permutation, 4) || misaligned(args.out_offsets, 4))
    return Status(StatusCode::invalid_argument, "an array is not aligned to its element size");
  BinLaunch b = bin_launch_for(workspace, layout, plan, args, stream);
  b.out_values = args.out_permutation;
  const cudaError_t err = launch_bin<false, std::uint32_t, true>(b);
  if (err != cudaSuccess) return Status::from_cuda(err, "launching the binning kernels");
  return Status();
}

Status gather(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const GatherArgs& args,
              Stream stream) noexcept {
  using namespace detail;
  Status s = check_bin_plan(plan);
  if (!s.ok()) return s;
  const BinWorkspace layout = bin_workspace(plan, false, 0);
  if (!(s = check_workspace(workspace, workspace_bytes, layout.bytes)).ok()) return s;
  if (!args.records || !args.out_records || !args.permutation)
    return Status(StatusCode::invalid_argument, "records, out_records or permutation is null");
  if (args.record_bytes == 0 || args.record_bytes % 4 != 0)
    return Status(StatusCode::invalid_argument, "record_bytes must be a positive multiple of 4");
  if (args.records == args.out_records) return Status(StatusCode::invalid_argument, "gather is out of place");
  if (!(s = check_record_count(plan, args.d_num_records, args.num_records, args.record_capacity)).ok()) return s;
  if (misaligned(args.records, 4) || misaligned(args.out_records, 4) || misaligned(args.permutation, 4))
    return Status(StatusCode::invalid_argument, "records, out_records or permutation is not 4-byte aligned");
  const bool vector16 = args.record_bytes % 16 == 0 && !misaligned(args.records, 16) && !misaligned(args.out_records, 16);
  const std::size_t word = vector16 ? 16 : 4;
  const std::uint64_t words_per_record = args.record_bytes / word;
  if (words_per_record * plan.max_records >= UINT32_MAX)
    return Status(StatusCode::invalid_argument, "max_records * record_bytes / word size must be below 2^32");

  DeviceStatus* status = layout.status.in(workspace);
  const BinCount count = make_count(plan, args.d_num_records, args.num_records, args.record_capacity);
  const cudaError_t err =
      vector16 ? launch_gather<uint4>(args, std::uint32_t(words_per_record), count, status, stream)
               : launch_gather<std::uint32_t>(args, std::uint32_t(words_per_record), count, status, stream);
  if (err != cudaSuccess) return Status::from_cuda(err, "launching the gather kernel");
  return Status();
}

Status bin_and_sort(void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
                    Stream stream) noexcept {
  using namespace detail;
  Status s = check_bin_plan(plan);
  if (!s.ok()) return s;
  std::size_t sort_bytes = 0;
  if (!(s = sort_bytes_for(plan, &sort_bytes)).ok()) return s;
  const BinWorkspace layout = bin_workspace(plan, true, sort_bytes);
  if (!(s = check_bin_args(workspace, workspace_bytes, layout, plan, args)).ok()) return s;
  // The sort's own bit range and order checks, made before anything is
  // launched (the keys are u32).
  if (!(s = check_sort_bits(args.begin_bit, args.end_bit, 32, args.order)).ok()) return s;

  cudaError_t err = run_bin(workspace, layout, plan, args, true, stream);
  if (err != cudaSuccess) return Status::from_cuda(err, "launching the binning kernels");
  // Counts come from the binning pass: zero tiles after a binning error.
  const std::uint32_t* sort_counts = layout.sort_counts.in(workspace);
  SortArgs sa;
  sa.keys = args.out_keys;
  sa.values = args.out_values;
  sa.offsets = args.out_offsets;
  sa.d_num_segments = sort_counts;
  sa.d_num_items = sort_counts + 1;
  sa.order = args.order;
  sa.begin_bit = args.begin_bit;
  sa.end_bit = args.end_bit;
  return segmented_sort(layout.sort_workspace.in(workspace), std::size_t(layout.sort_workspace.count), sort_plan_for(plan),
                        sa, stream);
}

const DeviceStatus* bin_device_status(const void* workspace) noexcept {
  return static_cast<const DeviceStatus*>(workspace);
}

Status to_bin_status(const DeviceStatus& s) noexcept { return to_status(s); }

Status read_bin_status(const void* workspace, Stream stream) noexcept {
  // The binning status sits where a sort's does: at the workspace's front.
  return read_device_status(workspace, stream);
}

Status read_bin_and_sort_status(const void* workspace, const BinPlan& plan, Stream stream) noexcept {
  Status s = read_bin_status(workspace, stream);
  if (!s.ok()) return s;
  if (!(s = detail::check_bin_plan(plan)).ok()) return s;
  std::size_t sort_bytes = 0;
  if (!(s = detail::sort_bytes_for(plan, &sort_bytes)).ok()) return s;
  const detail::BinWorkspace layout = detail::bin_workspace(plan, true, sort_bytes);
  return read_device_status(layout.sort_workspace.in(workspace), stream);
}

}  // namespace tilesort
