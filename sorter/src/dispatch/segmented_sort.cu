// Public entry points: argument checks, workspace layout, policy choice and
// the classification launches. Everything below is host planning: it never
// synchronises with the device and never allocates device memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <vector>

#include "dispatch/dispatch.hpp"
#include "core/workspace.hpp"
#include "dispatch/policy.hpp"
#include "kernels/block_sort.cuh"
#include "kernels/classify.cuh"
#include "kernels/large_sort.cuh"
#include "tilesort/segmented_sort.hpp"

namespace tilesort {

std::size_t size_of(KeyType type) noexcept {
  switch (type) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32: return 4;
    case KeyType::u64: case KeyType::i64: case KeyType::f64: return 8;
  }
  return 0;
}

std::size_t size_of(ValueType type) noexcept {
  switch (type) {
    case ValueType::none: return 0;
    case ValueType::b32: return 4;
    case ValueType::b64: return 8;
  }
  return 0;
}

namespace detail {
namespace {

constexpr std::uint64_t kMaxSegmentLength = std::uint64_t(1) << 31;

/// The plan's key width and whether it carries values: what every per-type
/// choice of a call (class limits, pack costs, MSD chunking) depends on.
int plan_key_bytes(const SortPlan& plan) { return int(size_of(plan.key_type)); }
bool plan_has_values(const SortPlan& plan) { return plan.value_type != ValueType::none; }

// The per-architecture choice, in one place: the policies this build
// compiles (the compact one only when an sm_75..sm_8x architecture is
// built, sorter/CMakeLists.txt), and with_policy below, which turns the
// choice made at run time into a policy type.
enum class PolicyKind { sm90, sm75 };
#ifdef TILESORT_WITH_SM75_POLICY
constexpr bool kCompactPolicyCompiled = true;
#else
constexpr bool kCompactPolicyCompiled = false;
#endif

/// f(Policy{}) for the policy of `kind` (the compact one only where it is compiled).
template <class F>
decltype(auto) with_policy(PolicyKind kind, F&& f) {
#ifdef TILESORT_WITH_SM75_POLICY
  if (kind == PolicyKind::sm75) return f(Sm75Policy{});
#endif
  (void)kind;
  return f(Sm90Policy{});
}

// The smallest one-block capacity among compiled policies bounds how many
// buckets the MSD path can create, so one workspace fits every policy.
constexpr std::uint32_t kMinBlockBig =
    kCompactPolicyCompiled
        ? std::min<std::uint32_t>(one_block_max_all_types<Sm90Policy>(), one_block_max_all_types<Sm75Policy>())
        : one_block_max_all_types<Sm90Policy>();
// The shortest MSD chunk of any policy and types sizes the chunk rows.
template <class Policy>
constexpr std::uint32_t shortest_msd_chunk() {
  return std::min({msd_chunk_items<Policy>(4, false), msd_chunk_items<Policy>(4, true),
                   msd_chunk_items<Policy>(8, false), msd_chunk_items<Policy>(8, true)});
}
constexpr std::uint32_t kMsdChunk = std::min(shortest_msd_chunk<Sm90Policy>(), shortest_msd_chunk<Sm75Policy>());
static_assert(Sm90Policy::kMaxMsdRounds <= kMaxMsdRoundsAny, "work lists hold kMaxMsdRoundsAny rounds");

bool valid_enum(const SortPlan& plan) {
  return unsigned(plan.key_type) <= unsigned(KeyType::f64) && unsigned(plan.value_type) <= unsigned(ValueType::b64) &&
         unsigned(plan.offset_type) <= unsigned(OffsetType::u64);
}

std::uint64_t effective_max_segment(const SortPlan& plan) {
  const std::uint64_t hint = plan.max_segment_items ? plan.max_segment_items : plan.max_items;
  return std::min(hint, kMaxSegmentLength);
}

/// The sort's workspace: every array, sized from the plan alone. The same
/// object answers the size query and maps each call's work lists.
struct SortWorkspace {
  // Zeroed together at the start of every sort (they come first).
  WorkspaceSlot<DeviceStatus> status;  // at offset 0: device_status() relies on it
  WorkspaceSlot<Counters> counters;
  WorkspaceSlot<std::uint32_t> chunk_ready[kMaxMsdRoundsAny];
  std::size_t zeroed_bytes;
  WorkspaceSlot<std::uint32_t> class_segments, class_window_segments;
  WorkspaceSlot<Task> child_tasks[kNumChildLists], fallback_tasks;
  WorkspaceSlot<Bucket> buckets[kMaxMsdRoundsAny];
  WorkspaceSlot<std::uint32_t> digit_base[kMaxMsdRoundsAny], chunk_hist[kMaxMsdRoundsAny];
  WorkspaceSlot<std::uint32_t> chunk_aggregate, chunk_inclusive;
  WorkspaceSlot<unsigned char> scratch_keys, scratch_values;  // mirror the user arrays
  std::size_t bytes;
  bool large_possible;

  /// The work lists in `workspace`: the arrays and their capacities.
  WorkLists lists(void* workspace) const {
    WorkLists l{};
    l.status = status.in(workspace);
    l.counters = counters.in(workspace);
    l.class_segments = class_segments.in(workspace);
    l.class_window_segments = class_window_segments.in(workspace);
    if (large_possible) {
      for (int k = 0; k < kNumChildLists; ++k) l.child_tasks[k] = child_tasks[k].in(workspace);
      l.fallback_tasks = fallback_tasks.in(workspace);
      for (int r = 0; r < kMaxMsdRoundsAny; ++r) {
        l.buckets[r] = buckets[r].in(workspace);
        l.chunk_ready[r] = chunk_ready[r].in(workspace);
        l.digit_base[r] = digit_base[r].in(workspace);
        l.chunk_hist[r] = chunk_hist[r].in(workspace);
      }
      l.chunk_aggregate = chunk_aggregate.in(workspace);
      l.chunk_inclusive = chunk_inclusive.in(workspace);
    }
    for (int k = 0; k < kNumChildLists; ++k) l.max_children[k] = std::uint32_t(child_tasks[k].count);
    l.max_fallback = std::uint32_t(fallback_tasks.count);
    l.max_buckets = std::uint32_t(buckets[0].count);
    l.max_chunks = std::uint32_t(chunk_ready[0].count);
    return l;
  }
};

SortWorkspace sort_workspace(const SortPlan& plan) {
  SortWorkspace w{};
  std::uint32_t max_children[kNumChildLists] = {};
  std::uint32_t max_buckets = 0, max_chunks = 0;
  const std::uint64_t max_segment = effective_max_segment(plan);
  w.large_possible = max_segment > kMinBlockBig;
  if (w.large_possible) {
    // Buckets are disjoint ranges longer than one block.
    max_buckets = std::uint32_t(plan.max_items / (kMinBlockBig + 1) + 1);
    max_chunks = std::uint32_t(plan.max_items / kMsdChunk + max_buckets);
    // Each round splits a bucket into at most 256 children, and a list can
    // hold no more children than items / its shortest length.
    const std::uint64_t per_round = std::min<std::uint64_t>(plan.max_items, std::uint64_t(max_buckets) * 256);
    // The shortest range of a list: 1 for the warp list (a single key still
    // has to come home from scratch), else one past the previous class (for
    // the types with the most classes; the others leave some lists empty).
    constexpr BlockClassLimits limits = block_class_limits<Sm90Policy>(4, true);
    for (int k = 0; k < kNumChildLists; ++k) {
      const std::uint64_t shortest = k == 0 ? 1 : block_class_min(limits.max_length, k - 1);
      max_children[k] = std::uint32_t(kMaxMsdRoundsAny * std::min(per_round, plan.max_items / shortest + 1));
    }
  }
  // Fallback tasks: buckets still too large after the rounds.
  const std::uint32_t max_fallback = max_buckets;
  WorkspaceLayout layout;
  w.status = layout.take<DeviceStatus>(1);
  w.counters = layout.take<Counters>(1);
  for (int r = 0; r < kMaxMsdRoundsAny; ++r) w.chunk_ready[r] = layout.take<std::uint32_t>(max_chunks);
  w.zeroed_bytes = layout.bytes();
  w.class_segments = layout.take<std::uint32_t>(plan.max_segments);
  w.class_window_segments = layout.take<std::uint32_t>(plan.max_segments);
  for (int k = 0; k < kNumChildLists; ++k) w.child_tasks[k] = layout.take<Task>(max_children[k]);
  w.fallback_tasks = layout.take<Task>(max_fallback);
  for (int r = 0; r < kMaxMsdRoundsAny; ++r) {
    w.buckets[r] = layout.take<Bucket>(max_buckets);
    w.digit_base[r] = layout.take<std::uint32_t>(std::uint64_t(max_buckets) * 256);
    w.chunk_hist[r] = layout.take<std::uint32_t>(std::uint64_t(max_chunks) * 256);
  }
  w.chunk_aggregate = layout.take<std::uint32_t>(std::uint64_t(max_chunks) * 256);
  w.chunk_inclusive = layout.take<std::uint32_t>(std::uint64_t(max_chunks) * 256);
  const std::uint64_t scratch_items = w.large_possible ? plan.max_items : 0;
  w.scratch_keys = layout.take<unsigned char>(scratch_items * size_of(plan.key_type));
  w.scratch_values = layout.take<unsigned char>(scratch_items * size_of(plan.value_type));
  w.bytes = layout.bytes();
  return w;
}

Status check_plan(const SortPlan& plan) {
  if (!valid_enum(plan)) return Status(StatusCode::unsupported_type, "key, value or offset type out of range");
  if (plan.offset_type == OffsetType::u32 && plan.max_items > UINT32_MAX)
    return Status(StatusCode::invalid_argument, "max_items exceeds what 32-bit offsets can address; use OffsetType::u64");
  if (plan.max_segments >= UINT32_MAX)
    return Status(StatusCode::invalid_argument, "max_segments must be below 2^32 - 1");
  if (plan.max_items / (kMinBlockBig + 1) + 1 >= UINT32_MAX / 256)
    return Status(StatusCode::invalid_argument, "max_items is too large for the large-segment work lists");
  return Status();
}

int key_bits_of(KeyType type) { return int(size_of(type) * 8); }

KeyKind key_kind_of(KeyType type) {
  switch (type) {
    case KeyType::i32: case KeyType::i64: return KeyKind::signed_int;
    case KeyType::f32: case KeyType::f64: return KeyKind::floating;
    default: return KeyKind::unsigned_int;
  }
}

template <class Policy>
cudaError_t launch_for_policy(const SortPlan& plan, const SortCall& call) {
  const bool wide_keys = plan_key_bytes(plan) == 8;
  switch (plan.value_type) {
    case ValueType::none:
      return wide_keys ? launch_sorts<Policy, std::uint64_t, NoValue>(call) : launch_sorts<Policy, std::uint32_t, NoValue>(call);
    case ValueType::b32:
      return wide_keys ? launch_sorts<Policy, std::uint64_t, std::uint32_t>(call)
                       : launch_sorts<Policy, std::uint32_t, std::uint32_t>(call);
    case ValueType::b64:
      return wide_keys ? launch_sorts<Policy, std::uint64_t, std::uint64_t>(call)
                       : launch_sorts<Policy, std::uint32_t, std::uint64_t>(call);
  }
  return cudaErrorInvalidValue;
}

/// The call's class limits: the policy's for these types.
template <class Policy>
BlockClassLimits call_block_limits(const SortPlan& plan) {
  return block_class_limits<Policy>(plan_key_bytes(plan), plan_has_values(plan));
}

template <class T>
struct TypeTag {
  using type = T;
};

/// The block classes whose shape satisfies `pred(TypeTag<Shape>{}, b)`, as a
/// class mask (bit kClassBlock0 + b for shape b).
template <class Policy, class Pred, std::size_t... B>
std::uint32_t block_class_mask(Pred pred, std::index_sequence<B...>) {
  std::uint32_t mask = 0;
  ((mask |= pred(TypeTag<BlockShapeOf<Policy, int(B)>>{}, int(B)) ? 1u << (kClassBlock0 + int(B)) : 0u), ...);
  return mask;
}
template <class Policy, class Pred>
std::uint32_t block_class_mask(Pred pred) {
  return block_class_mask<Policy>(pred, std::make_index_sequence<kNumBlockClasses>());
}

/// The call's pack table (kernels/pack.cuh): class tiles from the call's
/// limits, costs from the policy for the call's types and bit range.
template <class Policy>
PackTable call_pack_table(const SortPlan& plan, const BlockClassLimits& limits, std::uint64_t max_range,
                          int begin_bit, int end_bit) {
  const int key_bytes = plan_key_bytes(plan);
  const bool has_values = plan_has_values(plan);
  const bool keys_alone = key_bytes == 4 && !has_values;
  // Block classes that sort these types with BlockSort: windows, narrow
  // words and keys alone are theirs.
  const std::uint32_t block_sort = block_class_mask<Policy>([&](auto shape, int) {
    return key_bytes == 4 && block_algorithm_for<typename decltype(shape)::type>(key_bytes, has_values) ==
                                 BlockAlgorithm::bitonic;
  });
  // Sorting at most 16 bits cheaper than 32: BlockSort's narrow network
  // (narrow words), or the two passes of radix8 where it is the class's
  // algorithm for these types (one-block shapes; a cluster's ranges come
  // alone). (Where single ranges with values take radix8 in a BlockSort
  // class, kRadix8Ranges, its two passes stand in for the narrow network;
  // they cost 61% of the 32-bit sort at fixed-1000 and fixed-2048 on the
  // H200, below kNarrowCostPercent's 73 and 71.)
  const std::uint32_t narrow =
      end_bit - begin_bit > NarrowSortWord::kKeyBits || key_bytes != 4
          ? 0u
          : block_class_mask<Policy>([&](auto shape, int b) {
              using Shape = typename decltype(shape)::type;
              const bool bitonic = (block_sort >> (kClassBlock0 + b)) & 1u;
              const bool narrow_words = bitonic && Shape::kNarrowWords != NarrowWords::off &&
                                        Shape::kTileItems <= NarrowSortWord::kMaxItems;
              const bool radix8 =
                  block_algorithm_for<Shape>(key_bytes, has_values) == BlockAlgorithm::radix8 && Shape::kClusterCtas == 1;
              return narrow_words || radix8;
            });
  // Sorting keys alone, every bit compared, as the keys themselves.
  const std::uint32_t key_words = !keys_alone || begin_bit != 0 || end_bit != 32
                                      ? 0u
                                      : block_sort & block_class_mask<Policy>([](auto shape, int) {
                                          using Shape = typename decltype(shape)::type;
                                          return Shape::kKeyWords;
                                        });
  // Windows: classes that the call's limits leave non-empty and that it
  // launches (their shortest range is at most `max_range`).
  PackTable table{};
  table.window_classes = block_sort & block_class_mask<Policy>([&](auto shape, int b) {
    using Shape = typename decltype(shape)::type;
    const std::uint32_t shortest = block_class_min(limits.max_length, b);
    return Shape::kWindows && shortest <= limits.max_length[b] && shortest <= max_range;
  });
  for (int c = 0; c < kNumWarpClasses; ++c) table.tile[c] = warp_class_tile(c);
  for (int b = 0; b < kNumBlockClasses; ++b) table.tile[kClassBlock0 + b] = limits.max_length[b];
  table.min_window_cost = UINT64_MAX;
  for (int c = 0; c < kNumClasses - 1; ++c) {
    const bool sorted_by_block_sort = (block_sort >> c) & 1u;
    // (key, position) words: windows, and BlockSort's ranges that neither
    // narrow words nor the keys themselves serve.
    const std::uint32_t words = !keys_alone ? Policy::kClassCost[c]
                                : sorted_by_block_sort
                                    ? Policy::kKeysOnlyClassCost[c] * Policy::kKeysOnlyPositionsPercent / 100u
                                    : Policy::kKeysOnlyClassCost[c];
    // Where the class sorts this call's bits with narrow words, alone or as
    // MSD children (grouped or not).
    const auto narrowed = [&](std::uint32_t cost) {
      return (narrow >> c) & 1u ? cost * Policy::kNarrowCostPercent[c - kClassBlock0] / 100u : cost;
    };
    table.alone_cost[c] = (key_words >> c) & 1u ? Policy::kKeysOnlyClassCost[c] : narrowed(words);
    // Only block classes sort windows.
    table.window_cost[c] = c < kClassBlock0 ? words : words * Policy::kWindowCostPercent[c - kClassBlock0] / 100u;
    table.group_cost[c] = narrowed(Policy::kGroupCost[c]);
    if ((table.window_classes >> c) & 1u)
      table.min_window_cost = std::min<std::uint64_t>(table.min_window_cost, table.window_cost[c]);
  }
  static_assert(Policy::kWalkMaxNarrow <= kWalkLongest && Policy::kWalkMaxWide <= kWalkLongest,
                "the walk kernel sorts segments of up to kWalkLongest keys");
  table.walk_max = Policy::walk_max(key_bytes, int(size_of(plan.value_type)));
  // Pairs of 32-bit keys and 32-bit values that the warp sorts do not take
  // as narrow words (launch.cuh, warp_words) take positions, and with them
  // the classes' stable merge for short ranges.
  const bool warp_merges_pairs = key_bytes == 4 && size_of(plan.value_type) == 4 &&
                                 Policy::Warp::template kMergePairs<4, 4> &&
                                 !warp_sorts_narrow_words<typename Policy::Warp>(key_bytes, end_bit - begin_bit);
  const std::uint32_t window_min = keys_alone          ? Policy::kKeysOnlyWindowMin
                                   : warp_merges_pairs ? Policy::kMergedPairsWindowMin
                                                       : 0u;
  table.window_min_length = std::max(window_min, table.walk_max + 1);
  return table;
}

/// Shared memory of block shape B for these types (0 where it has no algorithm).
template <class Shape, class Bits, class Value>
constexpr std::size_t block_storage() {
  if constexpr (block_algorithm_for<Shape, Bits, Value>() == BlockAlgorithm::none) return 0;
  else if constexpr (Shape::kClusterCtas > 1) return sizeof(typename ClusterSorter<Shape, Bits, Value>::TempStorage);
  else return sizeof(typename BlockSorter<Shape, Bits, Value>::TempStorage);
}

/// Shared memory the policy's largest block needs, over every shape and type.
template <class Policy, class Bits, class Value, std::size_t... B>
constexpr std::size_t largest_block_storage_of(std::index_sequence<B...>) {
  std::size_t largest = 0;
  ((largest = std::max(largest, block_storage<BlockShapeOf<Policy, int(B)>, Bits, Value>())), ...);
  return largest;
}
template <class Policy>
constexpr std::size_t largest_block_storage() {
  constexpr auto classes = std::make_index_sequence<kNumBlockClasses>();
  using U32 = std::uint32_t;
  using U64 = std::uint64_t;
  return std::max({largest_block_storage_of<Policy, U32, NoValue>(classes),
                   largest_block_storage_of<Policy, U32, U32>(classes),
                   largest_block_storage_of<Policy, U32, U64>(classes),
                   largest_block_storage_of<Policy, U64, NoValue>(classes),
                   largest_block_storage_of<Policy, U64, U32>(classes),
                   largest_block_storage_of<Policy, U64, U64>(classes)});
}

}  // namespace

cudaError_t current_device_attributes(DeviceAttributes* attributes) {
  static std::mutex mutex;
  static std::vector<DeviceAttributes> cache;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex);
  for (const DeviceAttributes& a : cache) {
    if (a.device == device) {
      *attributes = a;
      return cudaSuccess;
    }
  }
  DeviceAttributes a{device, 0, 0, 0};
  if ((err = cudaDeviceGetAttribute(&a.multiprocessors, cudaDevAttrMultiProcessorCount, device))) return err;
  if ((err = cudaDeviceGetAttribute(&a.shared_memory_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device))) return err;
  if ((err = cudaDeviceGetAttribute(&a.compute_major, cudaDevAttrComputeCapabilityMajor, device))) return err;
  cache.push_back(a);
  *attributes = a;
  return cudaSuccess;
}

cudaError_t persistent_grid(const void* kernel, int threads, std::size_t dynamic_smem, int* blocks, int cluster_ctas,
                            int shared_carveout) {
  struct Entry {
    const void* kernel;
    int device;
    std::size_t smem;
    int cluster_ctas;
    int blocks;
  };
  static std::mutex mutex;
  static std::vector<Entry> cache;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex);
  // A kernel's shared-memory limit is one attribute for all its launches:
  // it must stay at the largest size any cached entry launches with, or a
  // cached larger launch fails after a smaller one lowered it.
  std::size_t largest = 0;
  for (const Entry& e : cache) {
    if (e.kernel != kernel || e.device != device) continue;
    if (e.smem == dynamic_smem && e.cluster_ctas == cluster_ctas) {
      *blocks = e.blocks;
      return cudaSuccess;
    }
    largest = std::max(largest, e.smem);
  }
  // Without opting in, a block's static and dynamic shared memory together
  // stay within 48 KB: past that the occupancy is 0 and the launch fails,
  // even when the dynamic part alone is below 48 KB.
  cudaFuncAttributes kernel_attributes{};
  if ((err = cudaFuncGetAttributes(&kernel_attributes, kernel))) return err;
  if (kernel_attributes.sharedSizeBytes + dynamic_smem > 48 * 1024 && dynamic_smem > largest) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic_smem));
    if (err != cudaSuccess) return err;
  }
  if (shared_carveout >= 0) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, shared_carveout);
    if (err != cudaSuccess) return err;
  }
  if (cluster_ctas > 1) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(cluster_ctas));
    config.blockDim = dim3(unsigned(threads));
    config.dynamicSmemBytes = dynamic_smem;
    cudaLaunchAttribute cluster = cluster_attribute(cluster_ctas);
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    if ((err = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config))) return err;
    if (clusters <= 0) return cudaErrorInvalidConfiguration;
    *blocks = clusters * cluster_ctas;
  } else {
    int per_sm = 0;
    DeviceAttributes attributes{};
    if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem))) return err;
    if ((err = current_device_attributes(&attributes))) return err;
    if (per_sm <= 0) return cudaErrorInvalidConfiguration;
    *blocks = per_sm * attributes.multiprocessors;
  }
  cache.push_back(Entry{kernel, device, dynamic_smem, cluster_ctas, *blocks});
  return cudaSuccess;
}

Status check_sort_bits(int begin_bit, int end_bit, int key_bits, Order order) {
  const int resolved_end_bit = end_bit < 0 ? key_bits : end_bit;
  if (end_bit < -1 || begin_bit < 0 || resolved_end_bit > key_bits || begin_bit >= resolved_end_bit) {
    char message[96];
    std::snprintf(message, sizeof(message), "bit range [%d, %d) is not inside [0, %d) or is empty", begin_bit,
                  end_bit, key_bits);
    return Status(StatusCode::invalid_argument, message);
  }
  if (unsigned(order) > unsigned(Order::descending)) return Status(StatusCode::invalid_argument, "unknown order");
  return Status();
}

namespace {

/// The host-detectable errors of a call's arguments (the workspace aside).
Status check_args(const SortPlan& plan, const SortArgs& args) {
  if (!args.keys) return Status(StatusCode::invalid_argument, "keys is null");
  if (!args.offsets) return Status(StatusCode::invalid_argument, "offsets is null");
  const bool has_values = plan_has_values(plan);
  if (has_values && !args.values)
    return Status(StatusCode::invalid_argument, "values is null but the plan has a value type");
  if (!has_values && args.values)
    return Status(StatusCode::invalid_argument, "values given but the plan's value_type is none");
  if (misaligned(args.keys, size_of(plan.key_type)) || misaligned(args.values, size_of(plan.value_type)) ||
      misaligned(args.offsets, plan.offset_type == OffsetType::u32 ? 4 : 8))
    return Status(StatusCode::invalid_argument, "keys, values or offsets are not aligned to their element size");
  const Status bits_status = check_sort_bits(args.begin_bit, args.end_bit, key_bits_of(plan.key_type), args.order);
  if (!bits_status.ok()) return bits_status;
  if (!args.d_num_segments && args.num_segments > plan.max_segments)
    return Status(StatusCode::count_over_capacity, "num_segments exceeds plan.max_segments");
  if (!args.d_num_items && args.num_items != UINT64_MAX && args.num_items > plan.max_items)
    return Status(StatusCode::count_over_capacity, "num_items exceeds plan.max_items");
  return Status();
}

/// Policy: the Hopper one wherever its largest block fits in shared memory.
Status choose_policy(const DeviceAttributes& attributes, PolicyKind* policy) {
  *policy = std::size_t(attributes.shared_memory_optin) >= largest_block_storage<Sm90Policy>() ? PolicyKind::sm90
                                                                                               : PolicyKind::sm75;
  if (*policy == PolicyKind::sm75 && !kCompactPolicyCompiled)
    return Status(StatusCode::unsupported_type, "this GPU has too little shared memory per block for the compiled policy; "
                                                "build with an sm_75 architecture to include the compact policy");
  return Status();
}

/// The call, from checked arguments: everything the launches need.
template <class Policy>
SortCall make_call(void* workspace, const SortWorkspace& layout, const SortPlan& plan, const SortArgs& args,
                   const DeviceAttributes& attributes, Stream stream) {
  const int key_bits = key_bits_of(plan.key_type);
  const int end_bit = args.end_bit < 0 ? key_bits : args.end_bit;
  const std::uint64_t max_segment = effective_max_segment(plan);
  SortCall call{};
  call.keys = args.keys;
  call.values = args.values;
  if (layout.large_possible) {
    call.scratch_keys = layout.scratch_keys.in(workspace);
    call.scratch_values = plan_has_values(plan) ? layout.scratch_values.in(workspace) : nullptr;
  }
  call.key_kind = key_kind_of(plan.key_type);
  call.descending = args.order == Order::descending;
  call.begin_bit = args.begin_bit;
  call.end_bit = end_bit;
  call.offsets_64 = plan.offset_type == OffsetType::u64;

  CountSource& counts = call.counts;
  counts.offsets = args.offsets;
  counts.d_num_segments = args.d_num_segments;
  counts.d_num_items = args.d_num_items;
  counts.num_segments = args.num_segments;
  counts.num_items = args.num_items;
  counts.max_items = plan.max_items;
  counts.max_segments = plan.max_segments;
  counts.max_segment_items = max_segment;
  counts.block_limits = call_block_limits<Policy>(plan);
  // Cluster classes need sm_90, and pay only for narrow calls (Policy::kClusterMaxBits).
  if (attributes.compute_major < 9 || end_bit - args.begin_bit > Policy::kClusterMaxBits)
    counts.block_limits = without_cluster_classes<Policy>(counts.block_limits);

  call.lists = layout.lists(workspace);
  call.zeroed_bytes = layout.zeroed_bytes;
  const std::uint32_t one_block_max = counts.block_limits.max_length[kNumBlockClasses - 1];
  const int digits = (end_bit - args.begin_bit + kDigitBits - 1) / kDigitBits;
  call.num_msd_rounds = max_segment > one_block_max ? std::min(Policy::kMaxMsdRounds, digits) : 0;
  // MSD children can be as long as one block holds.
  call.max_range = call.num_msd_rounds > 0 ? std::max<std::uint64_t>(max_segment, one_block_max) : max_segment;
  counts.pack = call_pack_table<Policy>(plan, counts.block_limits, call.max_range, args.begin_bit, end_bit);
  call.stream = stream;
  call.programmatic = attributes.compute_major >= 9;
  call.multiprocessors = attributes.multiprocessors;
  return call;
}

/// Classification: zero the counters, count per class, scatter to regions.
/// Round 0's buckets are cut into the MSD chunks of the plan's types, the
/// chunks launch_sorts' kernels for those types count and scatter.
template <class Policy, class Offset>
cudaError_t launch_classification(const SortPlan& plan, const SortCall& call) {
  using Shape = typename Policy::Classify;
  const int key_bytes = plan_key_bytes(plan);
  const bool has_values = plan_has_values(plan);
  cudaError_t err = cudaMemsetAsync(call.lists.status, 0, call.zeroed_bytes, call.stream);
  if (err != cudaSuccess) return err;
  const std::uint64_t wanted = (call.counts.max_segments + Shape::kThreads - 1) / Shape::kThreads;
  const int blocks = int(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(wanted, std::uint64_t(call.multiprocessors) * Shape::kMinBlocks)));
  // The first kernel follows the memset, so it is launched plainly.
  err = launch_kernel(classify_count_kernel<Shape, Offset>, blocks, Shape::kThreads, 0, call.stream, false,
                      call.counts, call.lists);
  if (err != cudaSuccess) return err;
  return launch_kernel(classify_scatter_kernel<Shape, Offset>, blocks, Shape::kThreads, 0, call.stream,
                       call.programmatic, call.counts, call.lists, Policy::Warp::kShortRanges, call.end_bit,
                       msd_chunk_items<Policy>(key_bytes, has_values),
                       msd_span_chunks_max<Policy>(key_bytes, has_values));
}

/// Everything one call launches, for the policy chosen.
template <class Policy>
cudaError_t launch_call(const SortPlan& plan, const SortCall& call) {
  const cudaError_t err = call.offsets_64 ? launch_classification<Policy, std::uint64_t>(plan, call)
                                          : launch_classification<Policy, std::uint32_t>(plan, call);
  if (err != cudaSuccess) return err;
  return launch_for_policy<Policy>(plan, call);
}

}  // namespace

}  // namespace detail

Status segmented_sort_workspace_size(const SortPlan& plan, std::size_t* bytes) noexcept {
  if (!bytes) return Status(StatusCode::invalid_argument, "bytes is null");
  const Status plan_status = detail::check_plan(plan);
  if (!plan_status.ok()) return plan_status;
  *bytes = detail::sort_workspace(plan).bytes;
  return Status();
}

const DeviceStatus* device_status(const void* workspace) noexcept {
  return static_cast<const DeviceStatus*>(workspace);
}

Status read_device_status(const void* workspace, Stream stream) noexcept {
  if (!workspace) return Status(StatusCode::invalid_argument, "workspace is null");
  DeviceStatus status{};
  cudaError_t err = cudaMemcpyAsync(&status, workspace, sizeof(status), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) return Status::from_cuda(err, "reading the device status");
  return to_status(status);
}

Status segmented_sort(void* workspace, std::size_t workspace_bytes, const SortPlan& plan, const SortArgs& args,
                      Stream stream) noexcept {
  using namespace detail;
  Status s = check_plan(plan);
  if (!s.ok()) return s;
  const SortWorkspace layout = sort_workspace(plan);
  if (!(s = check_workspace(workspace, workspace_bytes, layout.bytes)).ok()) return s;
  if (!(s = check_args(plan, args)).ok()) return s;

  DeviceAttributes attributes{};
  cudaError_t err = current_device_attributes(&attributes);
  if (err != cudaSuccess) return Status::from_cuda(err, "querying the device");
  PolicyKind policy{};
  if (!(s = choose_policy(attributes, &policy)).ok()) return s;
  err = with_policy(policy, [&](auto p) {
    using Policy = decltype(p);
    return launch_call<Policy>(plan, make_call<Policy>(workspace, layout, plan, args, attributes, stream));
  });
  if (err != cudaSuccess) return Status::from_cuda(err, "launching the sort kernels");
  return Status();
}

}  // namespace tilesort
