// Device API tests: block::BlockSort, block::BlockMerge and warp::WarpSort
// inside test kernels, against the CPU reference (reference.hpp).
//
// Every test skips visibly without a CUDA device. Tests named *Sanitizer*
// are the small subset for compute-sanitizer racecheck / synccheck.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "block_test_util.hpp"
#include "gpu_test_util.hpp"
#include "reference.hpp"
#include "tilesort/block/block_merge.cuh"
#include "tilesort/block/block_sort.cuh"
#include "tilesort/warp/warp_merge_sort.cuh"
#include "tilesort/warp/warp_sort.cuh"

namespace {

using tilesort::KeysOnly;
using tstest::DeviceBuffer;
using tstest::Dist;
using tstest::KeyType;
using tstest::Order;
using tstest::Rng;
using tilesort::block::BlockSortStrategy;

using tilesort::key_type_of;  // C++ key type -> KeyType (segmented_sort.hpp)

using tstest::download;
using tstest::HostValue;
using tstest::kWithValues;
using tstest::upload;

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

/// One tile per block: blocked load of the whole tile (positions >= valid hold
/// junk the sort must ignore), sort, store of the valid prefix.
template <class K, class V, int T, int I, bool STRIPED, BlockSortStrategy S>
__global__ void __launch_bounds__(T) block_sort_kernel(const K* in_keys, const HostValue<V>* in_values, K* out_keys,
                                                       HostValue<V>* out_values, const int* valid, Order order) {
  using Sort = tilesort::block::BlockSort<K, V, T, I, S>;
  // Dynamic shared memory: tiles of 8192 keys need more than 48 KB.
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const std::size_t base = std::size_t(blockIdx.x) * Sort::kTileItems + threadIdx.x * I;
  const int n = valid[blockIdx.x];
  K key[I];
  HostValue<V> value[I];
#pragma unroll
  for (int r = 0; r < I; ++r) {
    key[r] = in_keys[base + r];
    if constexpr (kWithValues<V>) value[r] = in_values[base + r];
  }
  if constexpr (STRIPED) {
    if constexpr (kWithValues<V>) Sort(temp).SortBlockedToStriped(key, value, n, order);
    else Sort(temp).SortBlockedToStriped(key, n, order);
  } else {
    if constexpr (kWithValues<V>) Sort(temp).Sort(key, value, n, order);
    else Sort(temp).Sort(key, n, order);
  }
  const std::size_t tile = std::size_t(blockIdx.x) * Sort::kTileItems;
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = STRIPED ? r * T + int(threadIdx.x) : int(threadIdx.x) * I + r;
    if (rank < n) {
      out_keys[tile + rank] = key[r];
      if constexpr (kWithValues<V>) out_values[tile + rank] = value[r];
    }
  }
}

/// SortPositionsNarrow: one tile per block of 16-bit keys; writes the sorted
/// keys and, per rank, the input position. It takes no input values (the
/// second parameter only gives it run_tiles' argument list).
template <int T, int I, bool STRIPED, BlockSortStrategy S>
__global__ void __launch_bounds__(T) narrow_positions_kernel(const std::uint32_t* in_keys, const std::uint32_t*,
                                                             std::uint32_t* out_keys, std::uint32_t* out_positions,
                                                             const int* valid) {
  using Sort = tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I, S>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const std::size_t tile = std::size_t(blockIdx.x) * Sort::kTileItems;
  const int n = valid[blockIdx.x];
  std::uint32_t key[I], position[I];
#pragma unroll
  for (int r = 0; r < I; ++r) key[r] = in_keys[tile + threadIdx.x * I + r];
  Sort(temp).template SortPositionsNarrow<STRIPED>(key, n, position);
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = STRIPED ? r * T + int(threadIdx.x) : int(threadIdx.x) * I + r;
    if (rank < n) {
      out_keys[tile + rank] = key[r];
      out_positions[tile + rank] = position[r];
    }
  }
}

/// SortEncodedKeys: one tile per block of 32-bit keys sorted as themselves.
/// Writes every rank, padding included (the second parameter only gives it
/// run_tiles' argument list).
template <int T, int I, bool STRIPED, BlockSortStrategy S>
__global__ void __launch_bounds__(T) encoded_keys_kernel(const std::uint32_t* in_keys, const std::uint32_t*,
                                                         std::uint32_t* out_keys, std::uint32_t*, const int* valid) {
  using Sort = tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I, S>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const std::size_t tile = std::size_t(blockIdx.x) * Sort::kTileItems;
  const int n = valid[blockIdx.x];
  std::uint32_t key[I];
#pragma unroll
  for (int r = 0; r < I; ++r) key[r] = in_keys[tile + threadIdx.x * I + r];  // slots past n hold garbage
  Sort(temp).template SortEncodedKeys<STRIPED>(key, n);
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = STRIPED ? r * T + int(threadIdx.x) : int(threadIdx.x) * I + r;
    out_keys[tile + rank] = key[r];
  }
}

/// SortWords (64-bit W) or SortNarrowWords (32-bit W): one tile per block of
/// caller-made words, padding (~0) from valid on, as the library's one-block
/// kernels make them. Writes every rank, padding included, so the host
/// checks that it stays padding.
template <class W, int T, int I, bool STRIPED>
__global__ void __launch_bounds__(T) sort_words_kernel(const W* in_words, const std::uint32_t*, W* out_words,
                                                       std::uint32_t*, const int* valid) {
  using Sort = tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const std::size_t tile = std::size_t(blockIdx.x) * Sort::kTileItems;
  const int n = valid[blockIdx.x];
  W word[I];
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int p = int(threadIdx.x) * I + r;
    word[r] = p < n ? in_words[tile + p] : ~W(0);
  }
  if constexpr (sizeof(W) == 8) Sort(temp).template SortWords<STRIPED>(word, n);
  else Sort(temp).template SortNarrowWords<STRIPED>(word, n);
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = STRIPED ? r * T + int(threadIdx.x) : int(threadIdx.x) * I + r;
    out_words[tile + rank] = word[r];
  }
}

/// One tile per block holding two sorted runs [0, a) and [a, a + b).
template <class K, class V, int T, int I>
__global__ void __launch_bounds__(T) block_merge_kernel(const K* in_keys, const HostValue<V>* in_values, K* out_keys,
                                                        HostValue<V>* out_values, const int2* counts, Order order) {
  using Merge = tilesort::block::BlockMerge<K, V, T, I>;
  __shared__ typename Merge::TempStorage temp;
  const std::size_t base = std::size_t(blockIdx.x) * Merge::kTileItems + threadIdx.x * I;
  const int2 c = counts[blockIdx.x];
  K key[I];
  HostValue<V> value[I];
#pragma unroll
  for (int r = 0; r < I; ++r) {
    key[r] = in_keys[base + r];
    if constexpr (kWithValues<V>) value[r] = in_values[base + r];
  }
  if constexpr (kWithValues<V>) Merge(temp).Merge(key, value, c.x, c.y, order);
  else Merge(temp).Merge(key, c.x, c.y, order);
#pragma unroll
  for (int r = 0; r < I; ++r) {
    if (int(threadIdx.x * I + r) < c.x + c.y) {
      out_keys[base + r] = key[r];
      if constexpr (kWithValues<V>) out_values[base + r] = value[r];
    }
  }
}

/// One segment of GROUP * ITEMS slots per group of GROUP lanes, in LAYOUT.
template <class K, class V, int ITEMS, int GROUP, tilesort::warp::GroupLayout LAYOUT>
__global__ void warp_sort_kernel(const K* in_keys, const HostValue<V>* in_values, K* out_keys,
                                 HostValue<V>* out_values, const int* valid, Order order) {
  constexpr int kSeg = GROUP * ITEMS;
  const int lane = int(threadIdx.x & 31u);
  const std::size_t segment = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * (32 / GROUP) + lane / GROUP;
  const std::size_t base = segment * kSeg;
  const int n = valid[segment];
  K key[ITEMS];
  HostValue<V> value[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const int i = tilesort::warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane % GROUP);
    key[r] = in_keys[base + i];
    if constexpr (kWithValues<V>) value[r] = in_values[base + i];
  }
  tilesort::warp::WarpSort<K, V, ITEMS, GROUP, LAYOUT> sort;
  if constexpr (kWithValues<V>) sort.Sort(key, value, n, order);
  else sort.Sort(key, n, order);
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const int i = tilesort::warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane % GROUP);
    if (i < n) {
      out_keys[base + i] = key[r];
      if constexpr (kWithValues<V>) out_values[base + i] = value[r];
    }
  }
}

/// subwarp_merge_sort: each group of GROUP lanes sorts its GROUP * ITEMS
/// words, blocked; two warps per block, so that warps use their own scratch.
template <class Word, int GROUP, int ITEMS>
__global__ void __launch_bounds__(64) warp_merge_sort_kernel(const Word* in, Word* out) {
  constexpr int kWarps = 2;
  __shared__ Word scratch[kWarps][tilesort::warp::merge_scratch_words<ITEMS, Word>()];
  const int lane = int(threadIdx.x & 31u);
  const std::size_t base = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * ITEMS;  // blocked
  Word word[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) word[r] = in[base + r];
  tilesort::warp::subwarp_merge_sort<GROUP, ITEMS>(word, scratch[threadIdx.x / 32], lane % GROUP);
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) out[base + r] = word[r];
}

/// subwarp_stable_merge_sort: (key, value) pairs per group of GROUP lanes,
/// compared on the bits of `mask`; VALUES false sorts the keys alone.
template <class Key, class Value, bool VALUES, int GROUP, int ITEMS>
__global__ void __launch_bounds__(64)
    warp_stable_merge_sort_kernel(const Key* in_keys, const Value* in_values, Key mask, Key* out_keys, Value* out_values) {
  constexpr int kWarps = 2;
  __shared__ Key key_scratch[kWarps][tilesort::warp::merge_scratch_words<ITEMS, Key>()];
  __shared__ Value value_scratch[kWarps][tilesort::warp::merge_scratch_words<ITEMS, Value>()];
  const int lane = int(threadIdx.x & 31u);
  const std::size_t base = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * ITEMS;  // blocked
  Key key[ITEMS];
  Value value[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    key[r] = in_keys[base + r];
    value[r] = in_values[base + r];
  }
  if constexpr (VALUES)
    tilesort::warp::subwarp_stable_merge_sort<GROUP, ITEMS>(key, value, mask, key_scratch[threadIdx.x / 32],
                                                            value_scratch[threadIdx.x / 32], lane % GROUP);
  else tilesort::warp::subwarp_stable_merge_sort<GROUP, ITEMS>(key, mask, key_scratch[threadIdx.x / 32], lane % GROUP);
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    out_keys[base + r] = key[r];
    if constexpr (VALUES) out_values[base + r] = value[r];
  }
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

std::string case_name(KeyType kt, bool values, std::size_t vbytes, Order order, Dist dist) {
  std::ostringstream s;
  s << tstest::name_of(kt) << (values ? (vbytes == 8 ? "_b64" : "_b32") : "_keys") << "_"
    << tstest::name_of(order) << "_" << tstest::name_of(dist);
  return s.str();
}

/// Tiles of `tile` slots; tile b's valid prefix is [0, valid[b]). Values are
/// the global slot index (unique), so a stable result is checked exactly.
template <class K, class V>
struct TileData {
  std::vector<K> keys;
  std::vector<HostValue<V>> values;
};

template <class K, class V>
TileData<K, V> make_tiles(std::size_t slots, Dist dist, Rng& rng) {
  TileData<K, V> d;
  d.keys = tstest::generate_keys_typed<K>(dist, slots, rng);
  d.values.resize(slots);
  for (std::size_t i = 0; i < slots; ++i) d.values[i] = HostValue<V>(i * 2654435761u);
  return d;
}

/// Expected result: each [begin, begin + n) range stably sorted by the reference.
template <class K, class V>
void reference_ranges(TileData<K, V>& d, const std::vector<std::pair<std::size_t, std::size_t>>& ranges, Order order) {
  for (const auto& range : ranges) {
    const std::vector<std::uint64_t> offsets = {range.first, range.first + range.second};
    tstest::reference_segmented_sort(key_type_of<K>(), order, 0, int(sizeof(K) * 8),
                                     reinterpret_cast<unsigned char*>(d.keys.data()),
                                     kWithValues<V> ? sizeof(HostValue<V>) : 0,
                                     reinterpret_cast<unsigned char*>(d.values.data()), offsets);
  }
}

/// Bitwise comparison of the ranges; reports the first difference.
template <class K, class V>
void expect_ranges_equal(const TileData<K, V>& want, const TileData<K, V>& got,
                         const std::vector<std::pair<std::size_t, std::size_t>>& ranges, const std::string& what) {
  for (const auto& range : ranges) {
    for (std::size_t i = range.first; i < range.first + range.second; ++i) {
      const bool key_ok = std::memcmp(&want.keys[i], &got.keys[i], sizeof(K)) == 0;
      const bool value_ok = !kWithValues<V> || want.values[i] == got.values[i];
      if (!key_ok || !value_ok) {
        ADD_FAILURE() << what << ": range at " << range.first << " (length " << range.second << "), rank "
                      << i - range.first << ": key " << (key_ok ? "ok" : "differs") << ", value "
                      << (value_ok ? "ok" : "differs") << "; " << tstest::seed_message();
        return;
      }
    }
  }
}


/// Runs `kernel(in_keys, in_values, out_keys, out_values, per_tile, extra...)`
/// on `blocks` blocks of `threads` (with `dynamic_smem` bytes of dynamic
/// shared memory) and returns its outputs in `out`. The outputs start as
/// copies of the input, so slots the kernel must not write compare equal.
template <class K, class V, class PerTile, class... Params, class... Extra>
void run_tiles(void (*kernel)(Params...), unsigned blocks, int threads, int dynamic_smem, const TileData<K, V>& in,
               const std::vector<PerTile>& per_tile, TileData<K, V>& out, Extra... extra) {
  DeviceBuffer d_in_k, d_in_v, d_out_k, d_out_v, d_per_tile;
  ASSERT_NO_FATAL_FAILURE(upload(d_in_k, in.keys));
  ASSERT_NO_FATAL_FAILURE(upload(d_in_v, in.values));
  ASSERT_NO_FATAL_FAILURE(upload(d_out_k, in.keys));
  ASSERT_NO_FATAL_FAILURE(upload(d_out_v, in.values));
  ASSERT_NO_FATAL_FAILURE(upload(d_per_tile, per_tile));
  // Beyond 48 KB a kernel must first be allowed its dynamic shared memory.
  if (dynamic_smem > 0)
    TS_CUDA_ASSERT(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_smem));
  kernel<<<blocks, threads, dynamic_smem>>>(d_in_k.as<K>(), d_in_v.as<HostValue<V>>(), d_out_k.as<K>(),
                                            d_out_v.as<HostValue<V>>(), d_per_tile.as<PerTile>(), extra...);
  TS_CUDA_ASSERT(cudaGetLastError());
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  out = in;
  ASSERT_NO_FATAL_FAILURE(download(out.keys, d_out_k));
  ASSERT_NO_FATAL_FAILURE(download(out.values, d_out_v));
}

/// Runs one BlockSort shape over tiles with the given valid counts.
template <int T, int I> constexpr BlockSortStrategy kDefaultStrategy = tilesort::block::BlockSortPolicy<T, I>::kStrategy;

template <class K, class V, int T, int I, bool STRIPED = false, BlockSortStrategy S = kDefaultStrategy<T, I>>
void check_block_sort(const std::vector<int>& valid, Order order, Dist dist, Rng& rng) {
  constexpr int kTile = T * I;
  const std::size_t slots = valid.size() * kTile;
  TileData<K, V> in = make_tiles<K, V>(slots, dist, rng);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t b = 0; b < valid.size(); ++b) ranges.push_back({b * kTile, std::size_t(valid[b])});
  TileData<K, V> want = in;
  reference_ranges(want, ranges, order);

  constexpr int kSmem = int(sizeof(typename tilesort::block::BlockSort<K, V, T, I, S>::TempStorage));
  TileData<K, V> got;
  ASSERT_NO_FATAL_FAILURE(
      run_tiles(block_sort_kernel<K, V, T, I, STRIPED, S>, unsigned(valid.size()), T, kSmem, in, valid, got, order));
  std::ostringstream what;
  what << "BlockSort<" << T << "x" << I << (S == BlockSortStrategy::bitonic ? ", bitonic" : ", warp runs + merge")
       << (STRIPED ? ", striped> " : "> ") << case_name(key_type_of<K>(), kWithValues<V>, sizeof(HostValue<V>), order, dist);
  expect_ranges_equal(want, got, ranges, what.str());
}

/// SortPositionsNarrow against std::stable_sort of the valid prefix: keys
/// below 2^key_bits (so duplicates abound for small key_bits, and 16 bits
/// reach the word's top), positions exact.
template <int T, int I, bool STRIPED = false, BlockSortStrategy S = kDefaultStrategy<T, I>>
void check_narrow_positions(const std::vector<int>& valid, int key_bits, Rng& rng) {
  constexpr int kTile = T * I;
  const std::size_t slots = valid.size() * kTile;
  // The values are only the positions' starting contents: no input values.
  TileData<std::uint32_t, std::uint32_t> in;
  in.keys.resize(slots);
  for (auto& k : in.keys) k = std::uint32_t(rng()) & ((1u << key_bits) - 1u);
  in.values = in.keys;
  constexpr int kSmem = int(sizeof(typename tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I, S>::TempStorage));
  TileData<std::uint32_t, std::uint32_t> got;
  ASSERT_NO_FATAL_FAILURE(
      run_tiles(narrow_positions_kernel<T, I, STRIPED, S>, unsigned(valid.size()), T, kSmem, in, valid, got));
  const std::vector<std::uint32_t>& got_positions = got.values;
  for (std::size_t b = 0; b < valid.size(); ++b) {
    std::vector<std::uint32_t> order(static_cast<std::size_t>(valid[b]));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = std::uint32_t(i);
    const std::uint32_t* tile_keys = in.keys.data() + b * kTile;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return tile_keys[x] < tile_keys[y]; });
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
      const std::size_t at = b * kTile + rank;
      if (got_positions[at] != order[rank] || got.keys[at] != tile_keys[order[rank]]) {
        ADD_FAILURE() << "SortPositionsNarrow<" << T << "x" << I << (STRIPED ? ", striped" : "") << "> "
                      << key_bits << "-bit keys, tile " << b << " (valid " << valid[b] << "), rank " << rank
                      << ": position " << got_positions[at] << " want " << order[rank] << ", key " << got.keys[at]
                      << " want " << tile_keys[order[rank]] << "; " << tstest::seed_message();
        return;
      }
    }
  }
}

/// Where tile `tile` of a run_tiles output first differs from what a sort
/// must give: its valid input words in std::sort's order, then padding (~0)
/// up to the tile's end. {rank, the word wanted there}; rank -1 when none.
template <class W>
std::pair<int, W> first_wrong_rank(const std::vector<W>& in, const std::vector<W>& got, std::size_t tile,
                                   int tile_items, int valid) {
  const std::size_t first = tile * std::size_t(tile_items);
  std::vector<W> want(in.begin() + std::ptrdiff_t(first), in.begin() + std::ptrdiff_t(first + std::size_t(valid)));
  std::sort(want.begin(), want.end());
  want.resize(std::size_t(tile_items), ~W(0));
  for (int rank = 0; rank < tile_items; ++rank)
    if (got[first + std::size_t(rank)] != want[std::size_t(rank)]) return {rank, want[std::size_t(rank)]};
  return {-1, W(0)};
}

/// SortEncodedKeys against std::sort of the valid prefix: keys below
/// 2^key_bits, the largest key (equal to the padding) made common, and
/// garbage in the slots past the valid count, which the sort must ignore;
/// every rank from the valid count on must come back as padding (~0).
template <int T, int I, bool STRIPED = false, BlockSortStrategy S = kDefaultStrategy<T, I>>
void check_encoded_keys(const std::vector<int>& valid, int key_bits, Rng& rng) {
  constexpr int kTile = T * I;
  const std::size_t slots = valid.size() * kTile;
  const std::uint32_t mask = key_bits == 32 ? ~0u : (1u << key_bits) - 1u;
  TileData<std::uint32_t, std::uint32_t> in;
  in.keys.resize(slots);
  for (auto& k : in.keys) k = rng() % 4 == 0 ? ~0u : std::uint32_t(rng()) & mask;
  in.values = in.keys;
  constexpr int kSmem = int(sizeof(typename tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I, S>::TempStorage));
  TileData<std::uint32_t, std::uint32_t> got;
  ASSERT_NO_FATAL_FAILURE(run_tiles(encoded_keys_kernel<T, I, STRIPED, S>, unsigned(valid.size()), T, kSmem, in, valid, got));
  for (std::size_t b = 0; b < valid.size(); ++b) {
    const auto [rank, want] = first_wrong_rank(in.keys, got.keys, b, kTile, valid[b]);
    if (rank >= 0) {
      ADD_FAILURE() << "SortEncodedKeys<" << T << "x" << I << (STRIPED ? ", striped" : "") << "> " << key_bits
                    << "-bit keys, tile " << b << " (valid " << valid[b] << "), rank " << rank << ": "
                    << got.keys[b * kTile + std::size_t(rank)] << " want " << want << "; " << tstest::seed_message();
      return;
    }
  }
}

/// Valid counts: every count 0..tile when `all`, else a sample with the edges.
std::vector<int> valid_counts(int tile, bool all, Rng& rng, int samples = 24) {
  std::vector<int> v;
  if (all) {
    for (int n = 0; n <= tile; ++n) v.push_back(n);
    return v;
  }
  for (int n : {0, 1, 2, 31, 32, 33, tile / 2, tile / 2 + 1, tile - 1, tile, tile, tile}) v.push_back(std::min(n, tile));
  for (int s = 0; s < samples; ++s) v.push_back(int(rng() % std::uint64_t(tile + 1)));
  return v;
}

/// Valid counts at and beside every multiple of `run` (a warp's run of the
/// warp-run strategy, where it starts or stops skipping work), plus the
/// middle of each run.
std::vector<int> run_boundary_counts(int tile, int run) {
  std::vector<int> v;
  for (int k = 0; k <= tile / run; ++k)
    for (int n : {k * run - 1, k * run, k * run + 1, k * run + run / 2})
      if (n >= 0 && n <= tile && (v.empty() || v.back() < n)) v.push_back(n);
  return v;
}

/// Sorts `in`'s tiles of caller-made words with sort_words_kernel (SortWords
/// for 64-bit W, SortNarrowWords for 32-bit W) and checks each against
/// first_wrong_rank; a failure names the tile and rank after `what`.
template <class W, int T, int I, bool STRIPED>
void check_word_tiles(const TileData<W, std::uint32_t>& in, const std::vector<int>& valid, const std::string& what) {
  constexpr int kTile = T * I;
  constexpr int kSmem = int(sizeof(typename tilesort::block::BlockSort<std::uint32_t, KeysOnly, T, I>::TempStorage));
  TileData<W, std::uint32_t> got;
  ASSERT_NO_FATAL_FAILURE(run_tiles(sort_words_kernel<W, T, I, STRIPED>, unsigned(valid.size()), T, kSmem, in, valid, got));
  for (std::size_t b = 0; b < valid.size(); ++b) {
    const auto [rank, want] = first_wrong_rank(in.keys, got.keys, b, kTile, valid[b]);
    if (rank >= 0) {
      ADD_FAILURE() << what << ", tile " << b << " (valid " << valid[b] << "), rank " << rank << ": word 0x" << std::hex
                    << got.keys[b * kTile + std::size_t(rank)] << " want 0x" << want << std::dec << "; "
                    << tstest::seed_message();
      return;
    }
  }
}

/// SortWords against std::sort of each tile's valid words: the valid ones
/// come first in order, and every rank from valid on is padding (~0).
template <int T, int I, bool STRIPED>
void check_sort_words(const std::vector<int>& valid, int key_bits, Rng& rng) {
  constexpr int kTile = T * I;
  const std::size_t slots = valid.size() * kTile;
  TileData<std::uint64_t, std::uint32_t> in;
  in.keys.resize(slots);
  in.values.assign(slots, 0u);
  // (key, position) words: distinct, with duplicate keys for small key_bits.
  for (std::size_t i = 0; i < slots; ++i) {
    const std::uint64_t key = key_bits == 32 ? std::uint32_t(rng()) : std::uint32_t(rng()) & ((1u << key_bits) - 1u);
    in.keys[i] = (key << 32) | std::uint64_t(i % kTile);
  }
  std::ostringstream what;
  what << "SortWords<" << T << "x" << I << (STRIPED ? ", striped" : "") << "> " << key_bits << "-bit keys";
  check_word_tiles<std::uint64_t, T, I, STRIPED>(in, valid, what.str());
}

/// SortNarrowWords against std::sort of each tile's valid words: (segment,
/// key, position) words as the library's windows make them, segment_bits of
/// segment above key_bits of key above the position, so keys tie within a
/// segment; every rank from the valid count on comes back as padding (~0).
template <int T, int I, bool STRIPED>
void check_narrow_words(const std::vector<int>& valid, int segment_bits, int key_bits, Rng& rng) {
  constexpr int kTile = T * I;
  constexpr int kPositionBits = [] {
    int bits = 0;
    while ((1 << bits) < kTile) ++bits;
    return bits;
  }();
  ASSERT_LE(segment_bits + key_bits + kPositionBits, 32);
  const std::size_t slots = valid.size() * kTile;
  TileData<std::uint32_t, std::uint32_t> in;
  in.keys.resize(slots);
  in.values.assign(slots, 0u);
  for (std::size_t b = 0; b < valid.size(); ++b) {
    std::uint32_t segment = 0;
    for (int p = 0; p < kTile; ++p) {
      if (p > 0 && segment_bits > 0 && rng() % 17 == 0 && segment + 1 < (1u << segment_bits)) ++segment;
      const std::uint32_t key = std::uint32_t(rng()) & ((1u << key_bits) - 1u);
      in.keys[b * kTile + std::size_t(p)] = (segment << (key_bits + kPositionBits)) | (key << kPositionBits) | std::uint32_t(p);
    }
  }
  std::ostringstream what;
  what << "SortNarrowWords<" << T << "x" << I << (STRIPED ? ", striped" : "") << "> " << segment_bits
       << "-bit segments, " << key_bits << "-bit keys";
  check_word_tiles<std::uint32_t, T, I, STRIPED>(in, valid, what.str());
}

template <class K, class V, int T, int I, bool STRIPED = false, BlockSortStrategy S = kDefaultStrategy<T, I>>
void check_block_sort_all_orders(bool all_counts, const std::vector<Dist>& dists, Rng& rng) {
  for (Order order : {Order::ascending, Order::descending}) {
    for (Dist dist : dists) {
      ASSERT_NO_FATAL_FAILURE((check_block_sort<K, V, T, I, STRIPED, S>(valid_counts(T * I, all_counts, rng), order, dist, rng)));
    }
  }
}

template <class K, class V, int T, int I>
void check_block_merge(Order order, Dist dist, Rng& rng, int tiles) {
  constexpr int kTile = T * I;
  const std::size_t slots = std::size_t(tiles) * kTile;
  TileData<K, V> in = make_tiles<K, V>(slots, dist, rng);
  std::vector<int2> counts(tiles);
  std::vector<std::pair<std::size_t, std::size_t>> runs, merged;
  for (int b = 0; b < tiles; ++b) {
    int total = b == 0 ? kTile : int(rng() % std::uint64_t(kTile + 1));
    int a = b == 1 ? 0 : (b == 2 ? total : int(rng() % std::uint64_t(total + 1)));
    counts[b] = make_int2(a, total - a);
    runs.push_back({std::size_t(b) * kTile, std::size_t(a)});
    runs.push_back({std::size_t(b) * kTile + a, std::size_t(total - a)});
    merged.push_back({std::size_t(b) * kTile, std::size_t(total)});
  }
  reference_ranges(in, runs, order);  // the input: two sorted runs per tile
  TileData<K, V> want = in;
  reference_ranges(want, merged, order);  // stable: A's items before B's on ties

  TileData<K, V> got;
  ASSERT_NO_FATAL_FAILURE(run_tiles(block_merge_kernel<K, V, T, I>, unsigned(tiles), T, 0, in, counts, got, order));
  std::ostringstream what;
  what << "BlockMerge<" << T << "x" << I << "> " << case_name(key_type_of<K>(), kWithValues<V>, sizeof(HostValue<V>), order, dist);
  expect_ranges_equal(want, got, merged, what.str());
}

template <class K, class V, int ITEMS, int GROUP,
          tilesort::warp::GroupLayout LAYOUT = tilesort::warp::GroupLayout::striped>
void check_warp_sort(Order order, Dist dist, Rng& rng, int warps = 64) {
  constexpr int kSeg = GROUP * ITEMS;
  const int segments = warps * (32 / GROUP);
  std::vector<int> valid(segments);
  for (int s = 0; s < segments; ++s) valid[s] = s < kSeg + 1 ? s : int(rng() % std::uint64_t(kSeg + 1));
  if (segments > kSeg + 1) valid[segments - 1] = kSeg;
  const std::size_t slots = std::size_t(segments) * kSeg;
  TileData<K, V> in = make_tiles<K, V>(slots, dist, rng);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (int s = 0; s < segments; ++s) ranges.push_back({std::size_t(s) * kSeg, std::size_t(std::min(valid[s], kSeg))});
  for (int s = 0; s < segments; ++s) valid[s] = std::min(valid[s], kSeg);
  TileData<K, V> want = in;
  reference_ranges(want, ranges, order);

  TileData<K, V> got;
  ASSERT_NO_FATAL_FAILURE(run_tiles(warp_sort_kernel<K, V, ITEMS, GROUP, LAYOUT>, unsigned(warps), 32, 0, in, valid, got, order));
  std::ostringstream what;
  what << "WarpSort<" << GROUP << "x" << ITEMS
       << (LAYOUT == tilesort::warp::GroupLayout::blocked ? ", blocked> " : "> ") << case_name(key_type_of<K>(), kWithValues<V>, sizeof(HostValue<V>), order, dist);
  expect_ranges_equal(want, got, ranges, what.str());
}

const std::vector<Dist> kTypeDists = {Dist::uniform, Dist::specials, Dist::few_unique};
const std::vector<Dist> kSizeDists = {Dist::uniform, Dist::few_unique};

/// Every key type x {no, 32-bit, 64-bit} values, on one shape.
template <int T, int I>
void check_block_all_types(Rng& rng) {
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint32_t, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint32_t, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint32_t, std::uint64_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int32_t, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int32_t, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int32_t, std::uint64_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<float, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<float, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<float, std::uint64_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint64_t, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint64_t, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::uint64_t, std::uint64_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int64_t, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int64_t, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<std::int64_t, std::uint64_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<double, KeysOnly, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<double, std::uint32_t, T, I>(false, kTypeDists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_block_sort_all_orders<double, std::uint64_t, T, I>(false, kTypeDists, rng)));
}

}  // namespace

// Every valid-item count 0..capacity, both orders.
TEST(BlockSort, EveryCount_u32_b32_64x4) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 64, 4>(true, kSizeDists, rng);
}
TEST(BlockSort, EveryCount_u32_b32_128x8) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 128, 8>(true, kSizeDists, rng);
}
TEST(BlockSort, EveryCount_Striped) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 128, 8, true>(true, kSizeDists, rng);
  check_block_sort_all_orders<std::uint64_t, KeysOnly, 32, 8, true>(true, kSizeDists, rng);
  check_block_sort_all_orders<float, std::uint64_t, 256, 16, true>(false, {Dist::specials}, rng);
  check_block_sort_all_orders<std::int32_t, std::uint32_t, 512, 16, true>(false, kSizeDists, rng);
}
TEST(BlockSort, EveryCount_f64_b64_32x8) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort_all_orders<double, std::uint64_t, 32, 8>(true, {Dist::specials}, rng);
}

// Both strategies on the same shapes (the default picks one by tile size):
// the full bitonic network on tiles that default to merging warp runs, and
// warp runs + merge-path levels on tiles that default to bitonic (1, 2, 3
// and 5 merge levels).
TEST(BlockSort, BothStrategies) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kBitonic = BlockSortStrategy::bitonic;
  constexpr auto kMerge = BlockSortStrategy::warp_runs_merge;
  static_assert(kDefaultStrategy<64, 8> == kBitonic && kDefaultStrategy<128, 8> == kMerge, "policy thresholds");
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 8, false, kMerge>(true, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 8, true, kBitonic>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 16, true, kBitonic>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 64, 4, false, kMerge>(true, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 128, 8, true, kBitonic>(true, kSizeDists, rng);
  check_block_sort_all_orders<double, std::uint64_t, 128, 4, false, kMerge>(false, {Dist::specials}, rng);
  check_block_sort_all_orders<std::int64_t, KeysOnly, 1024, 2, true, kMerge>(false, kSizeDists, rng);
  ASSERT_NO_FATAL_FAILURE((check_block_all_types<128, 16>(rng)));  // 2048: the merge strategy by default
}

// Sampled counts on the other shapes, including ones with more warp bits
// than register bits (several transpose chunks per stage).
TEST(BlockSort, SampledCounts_OtherShapes) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 32, 1>(true, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 2>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 4>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 8>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 256, 16>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 512, 16>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 1024, 4>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint32_t, std::uint32_t, 1024, 8>(false, kSizeDists, rng);
  check_block_sort_all_orders<float, std::uint32_t, 128, 32>(false, kSizeDists, rng);
  check_block_sort_all_orders<std::uint64_t, std::uint64_t, 256, 8>(false, kSizeDists, rng);
}

// Every key type and order, keys only and with 32/64-bit values, with NaNs,
// -0.0/+0.0 and many duplicates (stability: values are unique).
TEST(BlockSort, AllTypesOrdersValues_128x8) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_all_types<128, 8>(rng);
}
TEST(BlockSort, AllTypesOrdersValues_256x4) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_all_types<256, 4>(rng);
}

TEST(BlockMerge, AllTypesOrders) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  for (Order order : {Order::ascending, Order::descending}) {
    for (Dist dist : kTypeDists) {
      check_block_merge<std::uint32_t, std::uint32_t, 128, 8>(order, dist, rng, 64);
      check_block_merge<float, KeysOnly, 128, 8>(order, dist, rng, 64);
      check_block_merge<double, std::uint64_t, 64, 4>(order, dist, rng, 64);
      check_block_merge<std::int32_t, std::uint64_t, 96, 3>(order, dist, rng, 64);
      check_block_merge<std::int64_t, std::uint32_t, 256, 8>(order, dist, rng, 16);
    }
  }
}

TEST(WarpSort, GroupsAndTypes) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  for (Order order : {Order::ascending, Order::descending}) {
    for (Dist dist : kTypeDists) {
      check_warp_sort<std::uint32_t, std::uint32_t, 4, 32>(order, dist, rng);
      check_warp_sort<float, KeysOnly, 8, 32>(order, dist, rng);
      check_warp_sort<float, std::uint64_t, 4, 8>(order, dist, rng);
      check_warp_sort<std::int32_t, std::uint32_t, 2, 4>(order, dist, rng);
      check_warp_sort<double, std::uint32_t, 4, 16>(order, dist, rng);
      check_warp_sort<std::uint64_t, KeysOnly, 1, 32>(order, dist, rng);
      check_warp_sort<std::int64_t, std::uint64_t, 2, 2>(order, dist, rng);
    }
  }
}

// The blocked layout (what the library's warp kernels use), every group
// width, with and without positions in the network.
TEST(WarpSort, BlockedLayout) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  using tilesort::warp::GroupLayout;
  for (Order order : {Order::ascending, Order::descending}) {
    for (Dist dist : kTypeDists) {
      check_warp_sort<std::uint32_t, std::uint32_t, 4, 32, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<std::uint32_t, KeysOnly, 8, 16, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<float, std::uint64_t, 4, 8, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<std::int32_t, std::uint32_t, 4, 4, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<double, std::uint32_t, 4, 16, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<std::uint64_t, std::uint32_t, 4, 2, GroupLayout::blocked>(order, dist, rng);
      check_warp_sort<std::int64_t, std::uint64_t, 2, 32, GroupLayout::blocked>(order, dist, rng);
    }
  }
}

/// Random words per group: uniform, few distinct values (ties across runs),
/// all equal, already sorted, reversed, and the largest word (padding).
template <class Word, int GROUP, int ITEMS>
void check_warp_merge_sort(Rng& rng, int mode) {
  constexpr int kGroupItems = GROUP * ITEMS;
  const int blocks = 24;
  const std::size_t n = std::size_t(blocks) * 64 * ITEMS;
  std::vector<Word> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Word r = Word(rng());
    switch (mode) {
      case 0: in[i] = r; break;
      case 1: in[i] = r % 5 == 4 ? ~Word(0) : r % 5; break;
      case 2: in[i] = Word(7); break;
      case 3: in[i] = Word(i % kGroupItems); break;
      default: in[i] = Word(kGroupItems - i % kGroupItems); break;
    }
  }
  DeviceBuffer d_in, d_out;
  ASSERT_NO_FATAL_FAILURE(upload(d_in, in));
  ASSERT_EQ(d_out.alloc(n * sizeof(Word)), cudaSuccess);
  warp_merge_sort_kernel<Word, GROUP, ITEMS><<<blocks, 64>>>(d_in.as<const Word>(), d_out.as<Word>());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<Word> got(n);
  ASSERT_NO_FATAL_FAILURE(download(got, d_out));
  std::vector<Word> want = in;
  for (std::size_t g = 0; g < n; g += kGroupItems) std::sort(want.begin() + g, want.begin() + g + kGroupItems);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], want[i]) << "subwarp_merge_sort<" << GROUP << ", " << ITEMS << "> of " << sizeof(Word) * 8
                               << "-bit words, input mode " << mode << ": item " << i % kGroupItems << " of group "
                               << i / kGroupItems << " (" << tstest::seed_message() << ")";
}

/// Stable merge: keys from a few distinct values (so ties are frequent), a
/// mask that hides some bits (keys equal on it but not in full must keep
/// their order), values = input index; against std::stable_sort per group.
template <class Key, class Value, bool VALUES, int GROUP, int ITEMS>
void check_warp_stable_merge_sort(Rng& rng, int mode) {
  constexpr int kGroupItems = GROUP * ITEMS;
  const int blocks = 24;
  const std::size_t n = std::size_t(blocks) * 64 * ITEMS;
  const Key mask = mode == 0 ? ~Key(0) : Key(0x3Cu);  // bits [2, 6) when masked
  std::vector<Key> keys(n);
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Key r = Key(rng());
    switch (mode) {
      case 0: keys[i] = r % 7 == 6 ? ~Key(0) : r % 7; break;  // ties, and all-ones keys
      case 1: keys[i] = r; break;                               // masked: ties on 4 bits
      default: keys[i] = Key(kGroupItems - i % kGroupItems) << 2; break;  // reversed under the mask
    }
    values[i] = Value(i);
  }
  DeviceBuffer d_keys, d_values, d_out_keys, d_out_values;
  ASSERT_NO_FATAL_FAILURE(upload(d_keys, keys));
  ASSERT_NO_FATAL_FAILURE(upload(d_values, values));
  ASSERT_EQ(d_out_keys.alloc(n * sizeof(Key)), cudaSuccess);
  ASSERT_EQ(d_out_values.alloc(n * sizeof(Value)), cudaSuccess);
  warp_stable_merge_sort_kernel<Key, Value, VALUES, GROUP, ITEMS><<<blocks, 64>>>(
      d_keys.as<const Key>(), d_values.as<const Value>(), mask, d_out_keys.as<Key>(), d_out_values.as<Value>());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<Key> got_keys(n);
  std::vector<Value> got_values(n);
  ASSERT_NO_FATAL_FAILURE(download(got_keys, d_out_keys));
  ASSERT_NO_FATAL_FAILURE(download(got_values, d_out_values));
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t g = 0; g < n; g += kGroupItems)
    std::stable_sort(order.begin() + g, order.begin() + g + kGroupItems,
                     [&](std::size_t a, std::size_t b) { return (keys[a] & mask) < (keys[b] & mask); });
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_keys[i], keys[order[i]])
        << "subwarp_stable_merge_sort<" << GROUP << ", " << ITEMS << "> of " << sizeof(Key) * 8 << "-bit keys"
        << (VALUES ? "" : " alone") << ", input mode " << mode << ": item " << i % kGroupItems << " of group "
        << i / kGroupItems << " (" << tstest::seed_message() << ")";
    if (VALUES) ASSERT_EQ(got_values[i], values[order[i]]) << "value of item " << i % kGroupItems << ", mode " << mode;
  }
}

/// A warp's merge scratch on the host: every access is checked against the
/// size that merge_scratch_words gives the device, and unwritten words hold
/// a poison value, so a merge that took one would sort wrongly. (Host and
/// device, as the merge code that indexes it is.)
template <class T>
struct CheckedScratch {
  std::vector<T> words;
  T dummy{};
  int out_of_range = 0;
  CheckedScratch(std::size_t size, T poison) : words(size, poison) {}
  struct Span {
    T* data;
    int size;
    T* dummy;
    int* out_of_range;
    __host__ __device__ T& operator[](int i) const {
      if (i >= 0 && i < size) return data[i];
      ++*out_of_range;
      return *dummy;
    }
  };
  Span span() { return Span{words.data(), int(words.size()), &dummy, &out_of_range}; }
};

/// The merge levels of subwarp_(stable_)merge_sort run on the host, one
/// lane after another between the warp's synchronisations, with the very
/// per-lane code the device runs (store_merge_run, merge_run_pair).
template <int GROUP, int ITEMS, int WIDTH, bool VALUES, class Key, class Value, class Less>
void host_merge_levels(Key (&key)[32][ITEMS], Value (&value)[32][ITEMS], typename CheckedScratch<Key>::Span key_scratch,
                       typename CheckedScratch<Value>::Span value_scratch, Less less) {
  namespace wd = tilesort::warp::detail;
  if constexpr (WIDTH < GROUP * ITEMS) {
    for (int lane = 0; lane < 32; ++lane)
      wd::store_merge_run<ITEMS, VALUES>(key[lane], value[lane], key_scratch, value_scratch, lane * ITEMS);
    for (int lane = 0; lane < 32; ++lane)
      wd::merge_run_pair<ITEMS, WIDTH, VALUES>(key[lane], value[lane], key_scratch, value_scratch,
                                               (lane / GROUP) * (GROUP * ITEMS), lane % GROUP, less);
    host_merge_levels<GROUP, ITEMS, 2 * WIDTH, VALUES>(key, value, key_scratch, value_scratch, less);
  }
}

/// One warp of GROUP * ITEMS-item groups through the host merge: keys from
/// `make_key`, values their input index, compared under `mask`; the lanes'
/// runs are sorted first as the device sorts them (the stable form's
/// transposition, or Batcher's network for the unstable one where ITEMS is
/// a power of two). Checked against std::stable_sort per group.
template <class Key, class Value, int GROUP, int ITEMS, bool STABLE, class MakeKey>
void check_host_merge(Key mask, MakeKey make_key, const char* what) {
  namespace wd = tilesort::warp::detail;
  constexpr int kGroupItems = GROUP * ITEMS;
  Key key[32][ITEMS];
  Value value[32][ITEMS];
  std::vector<Key> in(32 * ITEMS);
  for (int i = 0; i < 32 * ITEMS; ++i) in[std::size_t(i)] = make_key(i);
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < ITEMS; ++r) {
      key[lane][r] = in[std::size_t(lane * ITEMS + r)];
      value[lane][r] = Value(lane * ITEMS + r);
    }
  const auto less = [mask](Key x, Key y) { return (x & mask) < (y & mask); };
  for (int lane = 0; lane < 32; ++lane) {
    if constexpr (!STABLE && (ITEMS & (ITEMS - 1)) == 0) wd::odd_even_merge_sort<ITEMS>(key[lane]);
    else wd::transposition_sort<ITEMS, true>(key[lane], value[lane], less);
  }
  CheckedScratch<Key> key_scratch(std::size_t(tilesort::warp::merge_scratch_words<ITEMS, Key>()), Key(0x5A5A5A5Au));
  CheckedScratch<Value> value_scratch(std::size_t(tilesort::warp::merge_scratch_words<ITEMS, Value>()),
                                      Value(0xA5A5A5A5u));
  host_merge_levels<GROUP, ITEMS, ITEMS, STABLE>(key, value, key_scratch.span(), value_scratch.span(), less);
  ASSERT_EQ(key_scratch.out_of_range, 0) << what << ": key scratch read or written outside its "
                                         << key_scratch.words.size() << " words";
  ASSERT_EQ(value_scratch.out_of_range, 0) << what << ": value scratch accessed outside its size";
  std::vector<int> order(32 * ITEMS);
  for (int i = 0; i < 32 * ITEMS; ++i) order[std::size_t(i)] = i;
  for (int g = 0; g < 32 * ITEMS; g += kGroupItems)
    std::stable_sort(order.begin() + g, order.begin() + g + kGroupItems,
                     [&](int a, int b) { return less(in[std::size_t(a)], in[std::size_t(b)]); });
  for (int i = 0; i < 32 * ITEMS; ++i) {
    const Key got = key[i / ITEMS][i % ITEMS];
    const Key want = in[std::size_t(order[std::size_t(i)])];
    // The unstable form compares whole words: equal words are identical.
    ASSERT_EQ(got, want) << what << ", " << GROUP << " lanes x " << ITEMS << ", " << sizeof(Key) * 8
                         << "-bit keys: item " << i % kGroupItems << " of group " << i / kGroupItems;
    if (STABLE)
      ASSERT_EQ(value[i / ITEMS][i % ITEMS], Value(order[std::size_t(i)]))
          << what << ", " << GROUP << " lanes x " << ITEMS << ": value of item " << i % kGroupItems << " of group "
          << i / kGroupItems;
  }
}

template <class Key, class Value, int GROUP, int ITEMS, bool STABLE>
void check_host_merge_inputs(Rng& rng) {
  constexpr int kGroupItems = GROUP * ITEMS;
  const Key all = ~Key(0);
  SCOPED_TRACE(::testing::Message() << tstest::seed_message());
  ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
      all, [&](int) { return Key(rng()) << (sizeof(Key) * 8 - 32) ^ Key(rng()); }, "uniform")));
  ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
      all, [&](int) { return Key(rng() % 5 == 4 ? all : Key(rng() % 5)); }, "few distinct, all-ones")));
  ASSERT_NO_FATAL_FAILURE(
      (check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(all, [](int) { return Key(7); }, "all equal")));
  ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
      all, [](int i) { return Key(i % kGroupItems); }, "presorted")));
  ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
      all, [](int i) { return Key(kGroupItems - i % kGroupItems); }, "reversed")));
  // Runs that exhaust at once: every key of a lane's first half below every
  // key of its second half, in each pair of runs at every level.
  ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
      all, [](int i) { return Key((i % kGroupItems) % 2 == 0 ? i % kGroupItems : kGroupItems + i % kGroupItems); },
      "interleaved")));
  if constexpr (STABLE) {
    ASSERT_NO_FATAL_FAILURE((check_host_merge<Key, Value, GROUP, ITEMS, STABLE>(
        Key(0x3Cu), [&](int) { return Key(rng()); }, "masked to bits [2, 6)")));
  }
}

// The merge levels on the host, with the device's per-lane code: every shape
// the library and the tests above use, both forms, 32- and 64-bit keys, and
// scratch accesses checked against merge_scratch_words (a run's head is read
// without clamping, into the scratch's spare word at the end).
TEST(WarpMergeSort, LevelsOnTheHostMatchAStableSort) {
  Rng rng(tstest::test_seed());
  for (int rep = 0; rep < 8; ++rep) {
    // Unstable form (words), the library's shapes first.
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 8, 8, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 16, 8, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 16, 7, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint64_t, std::uint32_t, 16, 8, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint64_t, std::uint32_t, 32, 4, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint64_t, std::uint32_t, 2, 16, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 32, 8, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 16, 5, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint64_t, std::uint32_t, 16, 6, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 4, 3, false>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 32, 1, false>(rng)));
    // Stable form: keys with 32- or 64-bit values.
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 16, 7, true>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 16, 8, true>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint64_t, 8, 5, true>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint64_t, 8, 8, true>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint64_t, std::uint32_t, 32, 3, true>(rng)));
    ASSERT_NO_FATAL_FAILURE((check_host_merge_inputs<std::uint32_t, std::uint32_t, 1, 9, true>(rng)));
  }
}

// Batcher's network in registers, by the 0-1 principle: a comparator network
// sorts every input if it sorts every input of zeros and ones.
TEST(WarpMergeSort, RegisterNetworkSortsEveryBinaryInput) {
  const auto check = [](auto n_tag) {
    constexpr int N = decltype(n_tag)::value;
    for (std::uint32_t bits = 0; bits < (1u << N); ++bits) {
      std::uint32_t w[N];
      for (int i = 0; i < N; ++i) w[i] = (bits >> i) & 1u;
      tilesort::warp::detail::odd_even_merge_sort<N>(w);
      for (int i = 1; i < N; ++i) ASSERT_LE(w[i - 1], w[i]) << "N = " << N << ", input bits " << bits;
    }
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
  check(std::integral_constant<int, 16>{});
}

// Every group width the library could use, 4- and 8-byte words.
TEST(WarpMergeSort, GroupsItemsAndWords) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  for (int mode = 0; mode < 5; ++mode) {
    check_warp_merge_sort<std::uint64_t, 16, 8>(rng, mode);
    check_warp_merge_sort<std::uint32_t, 16, 8>(rng, mode);
    check_warp_merge_sort<std::uint64_t, 32, 4>(rng, mode);
    check_warp_merge_sort<std::uint64_t, 8, 8>(rng, mode);
    check_warp_merge_sort<std::uint32_t, 32, 8>(rng, mode);
    check_warp_merge_sort<std::uint64_t, 2, 16>(rng, mode);
    check_warp_merge_sort<std::uint32_t, 4, 1>(rng, mode);
    check_warp_merge_sort<std::uint64_t, 1, 8>(rng, mode);
    // Items fitted to a segment: not powers of two.
    check_warp_merge_sort<std::uint32_t, 16, 5>(rng, mode);
    check_warp_merge_sort<std::uint32_t, 8, 7>(rng, mode);
    check_warp_merge_sort<std::uint64_t, 16, 6>(rng, mode);
    check_warp_merge_sort<std::uint32_t, 4, 3>(rng, mode);
  }
}

// The stable form: ties, a partial mask, values of both widths, keys alone,
// item counts fitted to 33..128-key segments (8 or 16 lanes x 5..8) and a
// few others.
TEST(WarpMergeSort, StableKeysAndValues) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(::testing::Message() << "mode " << mode);
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 16, 5>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 16, 6>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 16, 7>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 16, 8>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint64_t, true, 8, 5>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint64_t, true, 8, 8>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, false, 8, 6>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, false, 16, 7>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint64_t, std::uint32_t, true, 32, 3>(rng, mode)));
    ASSERT_NO_FATAL_FAILURE((check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 1, 9>(rng, mode)));
  }
}

TEST(BlockSanitizer, WarpMergeSort) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_warp_merge_sort<std::uint64_t, 16, 8>(rng, 1);
  check_warp_merge_sort<std::uint32_t, 16, 8>(rng, 0);
  check_warp_stable_merge_sort<std::uint32_t, std::uint32_t, true, 16, 7>(rng, 1);
}

// (16-bit key, 16-bit position) words: both strategies, both arrangements,
// duplicate-heavy and full-width keys, up to the 16384-item library shape.
TEST(BlockSort, NarrowWords) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kBitonic = BlockSortStrategy::bitonic;
  constexpr auto kMerge = BlockSortStrategy::warp_runs_merge;
  for (int key_bits : {1, 4, 16}) {
    SCOPED_TRACE(::testing::Message() << key_bits << "-bit keys");
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<64, 4, true>(valid_counts(256, true, rng), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<128, 8, false, kBitonic>(valid_counts(1024, false, rng), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<256, 16, true>(valid_counts(4096, false, rng), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<1024, 16, true, kMerge>(valid_counts(16384, false, rng, 6), key_bits, rng)));
  }
  // Caller-made words: the library's windows of calls of at most 16 bits,
  // in the shapes that take them (the bitonic network in the small tiles,
  // warp runs + merge from 1024 keys).
  for (auto [segment_bits, key_bits] : {std::pair{4, 16}, std::pair{0, 1}, std::pair{6, 8}}) {
    SCOPED_TRACE(::testing::Message() << segment_bits << "-bit segments, " << key_bits << "-bit keys");
    ASSERT_NO_FATAL_FAILURE((check_narrow_words<64, 4, true>(valid_counts(256, true, rng), segment_bits, key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_words<64, 8, true>(valid_counts(512, false, rng), segment_bits, key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_words<128, 8, false>(valid_counts(1024, false, rng), segment_bits, key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_words<256, 8, true>(run_boundary_counts(2048, 256), segment_bits, 5, rng)));
  }
}

// Keys sorted as themselves (no positions): both strategies, both
// arrangements, every count of a small tile, partial tiles at every warp-run
// boundary of the library's 16384-item shape, keys equal to the padding.
TEST(BlockSort, EncodedKeysAlone) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kBitonic = BlockSortStrategy::bitonic;
  constexpr auto kMerge = BlockSortStrategy::warp_runs_merge;
  for (int key_bits : {1, 12, 32}) {
    SCOPED_TRACE(::testing::Message() << key_bits << "-bit keys");
    ASSERT_NO_FATAL_FAILURE((check_encoded_keys<64, 4, true>(valid_counts(256, true, rng), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_encoded_keys<128, 8, false, kBitonic>(valid_counts(1024, false, rng), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_encoded_keys<128, 8, true, kMerge>(run_boundary_counts(1024, 256), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_encoded_keys<256, 16, true>(run_boundary_counts(4096, 512), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_encoded_keys<1024, 16, true, kMerge>(run_boundary_counts(16384, 512), key_bits, rng)));
  }
}

// Warp runs + merges skip the work of warps and pairs that hold only
// padding: counts at and beside every warp-run boundary, on shapes with 4 to
// 32 warps (1 to 5 merge levels), every word width, both arrangements, and
// SortWords (the library kernels' form) whose padding must come back as
// padding.
TEST(BlockSort, PartialTilesAtRunBoundaries) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kMerge = BlockSortStrategy::warp_runs_merge;
  for (Dist dist : kSizeDists) {
    SCOPED_TRACE(::testing::Message() << "dist " << tstest::name_of(dist));
    ASSERT_NO_FATAL_FAILURE((check_block_sort<std::uint32_t, std::uint32_t, 256, 16, true>(
        run_boundary_counts(4096, 512), Order::ascending, dist, rng)));
    ASSERT_NO_FATAL_FAILURE((check_block_sort<std::uint32_t, std::uint32_t, 512, 16, false>(
        run_boundary_counts(8192, 512), Order::descending, dist, rng)));
    ASSERT_NO_FATAL_FAILURE((check_block_sort<std::uint32_t, KeysOnly, 1024, 16, true>(
        run_boundary_counts(16384, 512), Order::ascending, dist, rng)));
    ASSERT_NO_FATAL_FAILURE((check_block_sort<std::uint64_t, std::uint32_t, 128, 16, false>(
        run_boundary_counts(2048, 512), Order::ascending, dist, rng)));
    ASSERT_NO_FATAL_FAILURE((check_block_sort<float, std::uint64_t, 128, 8, true, kMerge>(
        run_boundary_counts(1024, 256), Order::descending, dist, rng)));
  }
  for (int key_bits : {2, 16}) {
    SCOPED_TRACE(::testing::Message() << key_bits << "-bit keys");
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<256, 16, true>(run_boundary_counts(4096, 512), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_narrow_positions<1024, 16, true, kMerge>(run_boundary_counts(16384, 512), key_bits, rng)));
  }
  for (int key_bits : {3, 32}) {
    SCOPED_TRACE(::testing::Message() << key_bits << "-bit keys");
    ASSERT_NO_FATAL_FAILURE((check_sort_words<128, 8, true>(run_boundary_counts(1024, 256), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_sort_words<256, 16, true>(run_boundary_counts(4096, 512), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_sort_words<512, 16, false>(run_boundary_counts(8192, 512), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_sort_words<1024, 16, true>(run_boundary_counts(16384, 512), key_bits, rng)));
    ASSERT_NO_FATAL_FAILURE((check_sort_words<64, 4, true>(valid_counts(256, true, rng), key_bits, rng)));  // bitonic
  }
}

// Small subset for compute-sanitizer racecheck / synccheck / memcheck.
TEST(BlockSanitizer, BlockSortPartialTiles) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_sort<std::uint32_t, std::uint32_t, 256, 8>({0, 1, 700, 2048}, Order::ascending, Dist::few_unique, rng);
  check_block_sort<double, std::uint64_t, 256, 4>({5, 1024}, Order::descending, Dist::specials, rng);
  check_block_sort<float, std::uint32_t, 256, 2>({300, 512}, Order::ascending, Dist::specials, rng);
  check_block_sort<std::uint32_t, std::uint32_t, 128, 8, true>({0, 77, 1024}, Order::ascending, Dist::few_unique, rng);
  // Warp runs + merge (the default from 2048 items on), blocked and striped.
  check_block_sort<std::uint32_t, std::uint32_t, 256, 16, true>({0, 3, 2500, 4096}, Order::ascending, Dist::few_unique, rng);
  check_block_sort<std::uint64_t, std::uint32_t, 256, 8>({1, 1500, 2048}, Order::descending, Dist::uniform, rng);
  // Partial tiles whose padding warps and pairs skip the merge work.
  check_sort_words<256, 16, true>({0, 511, 512, 1537, 2560, 4095}, 3, rng);
}
TEST(BlockSanitizer, EncodedKeysAlone) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  ASSERT_NO_FATAL_FAILURE((check_encoded_keys<256, 16, true>({0, 1, 511, 2500, 4096}, 32, rng)));
  ASSERT_NO_FATAL_FAILURE((check_encoded_keys<128, 8, false>({0, 100, 1024}, 3, rng)));
}
TEST(BlockSanitizer, NarrowWords) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  ASSERT_NO_FATAL_FAILURE((check_narrow_positions<256, 16, true>({0, 1, 3000, 4096}, 16, rng)));
  ASSERT_NO_FATAL_FAILURE((check_narrow_positions<128, 4, false>({0, 100, 512}, 3, rng)));
  ASSERT_NO_FATAL_FAILURE((check_narrow_words<64, 4, true>({0, 1, 130, 256}, 4, 16, rng)));
  ASSERT_NO_FATAL_FAILURE((check_narrow_words<256, 8, true>({0, 700, 2048}, 5, 5, rng)));
}
TEST(BlockSanitizer, BlockMerge) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_block_merge<std::uint32_t, std::uint32_t, 128, 8>(Order::ascending, Dist::few_unique, rng, 4);
}
TEST(BlockSanitizer, WarpSort) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  check_warp_sort<float, std::uint32_t, 4, 8>(Order::ascending, Dist::specials, rng, 2);
  check_warp_sort<float, std::uint32_t, 4, 8, tilesort::warp::GroupLayout::blocked>(Order::ascending, Dist::specials,
                                                                                   rng, 2);
}
