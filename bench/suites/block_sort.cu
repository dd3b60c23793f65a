// Suite "block": the device API's block::BlockSort next to cub::BlockRadixSort
// and cub::BlockMergeSort, each sorting one tile of u32 key + u32 value
// pairs per block over a large grid (global -> registers -> sorted ->
// global), as x copy of the same bytes. A second part ("medium tiles")
// puts block::BlockRadixSort8 beside them at 4096, 8192 and 16384 items per
// tile, for the compared bit ranges [0, 32) and [0, 16).
//
//   tilesort-bench --suite block [--items N] [--radix-only] [--reps R] [--warmup W] [--quick] [--out PREFIX]
//
// --radix-only runs the medium-tile part alone.
//
// Every method runs every candidate tile shape (threads x items per thread)
// of a tile size; all load with vectorised blocked loads. tilesort runs twice:
// blocked result with vectorised stores, and striped result
// (SortBlockedToStriped) with coalesced scalar stores; the summary takes the
// better. The merge sort stores blocked (vectorised); the radix sort ends
// striped (SortBlockedToStriped), its best arrangement. Each output is
// checked against a stable CPU sort before timing.
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "parallel.hpp"
#include "provenance.hpp"
#include "stats.hpp"
#include "suites.hpp"
#include "timing.hpp"
#include "tilesort/block/block_radix_sort.cuh"
#include "tilesort/block/block_sort.cuh"

namespace bench {
namespace {

using u32 = std::uint32_t;

// Blocked loads and stores with the widest vector that ITEMS allows (the
// same for every method).
template <int I>
__device__ __forceinline__ void load_blocked(const u32* tile, u32 (&v)[I]) {
  const u32* p = tile + threadIdx.x * I;
  if constexpr (I % 4 == 0) {
#pragma unroll
    for (int j = 0; j < I / 4; ++j) {
      const uint4 x = reinterpret_cast<const uint4*>(p)[j];
      v[4 * j] = x.x; v[4 * j + 1] = x.y; v[4 * j + 2] = x.z; v[4 * j + 3] = x.w;
    }
  } else if constexpr (I % 2 == 0) {
#pragma unroll
    for (int j = 0; j < I / 2; ++j) {
      const uint2 x = reinterpret_cast<const uint2*>(p)[j];
      v[2 * j] = x.x; v[2 * j + 1] = x.y;
    }
  } else {
#pragma unroll
    for (int j = 0; j < I; ++j) v[j] = p[j];
  }
}
template <int I>
__device__ __forceinline__ void store_blocked(u32* tile, const u32 (&v)[I]) {
  u32* p = tile + threadIdx.x * I;
  if constexpr (I % 4 == 0) {
#pragma unroll
    for (int j = 0; j < I / 4; ++j) reinterpret_cast<uint4*>(p)[j] = make_uint4(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
  } else if constexpr (I % 2 == 0) {
#pragma unroll
    for (int j = 0; j < I / 2; ++j) reinterpret_cast<uint2*>(p)[j] = make_uint2(v[2 * j], v[2 * j + 1]);
  } else {
#pragma unroll
    for (int j = 0; j < I; ++j) p[j] = v[j];
  }
}

using tilesort::block::BlockSortStrategy;
// The tile size from which BlockSort merges warp runs by default (one
// threshold for every shape wider than a warp).
constexpr int kDefaultMergeFrom = tilesort::block::BlockSortPolicy<64, 4>::kMergeMinTileItems;

// The methods: what each sorts a tile with, and the result's arrangement.
// A striped result is stored with coalesced scalar stores, a blocked one
// with vector stores.
template <BlockSortStrategy S, bool kStriped>
struct TilesortMethod {
  template <int T, int I>
  using Sort = tilesort::block::BlockSort<u32, u32, T, I, S>;
  // Striped: one more shared-memory transpose inside the sort.
  static constexpr bool kStripedResult = kStriped;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I]) {
    if constexpr (kStriped) Sort<T, I>(temp).SortBlockedToStriped(key, value);
    else Sort<T, I>(temp).Sort(key, value);
  }
};

struct CubRadixMethod {
  template <int T, int I>
  using Sort = cub::BlockRadixSort<u32, T, I, u32>;
  static constexpr bool kStripedResult = true;  // its best arrangement
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I]) {
    Sort<T, I>(temp).SortBlockedToStriped(key, value);
  }
};

struct LessU32 {
  __device__ bool operator()(const u32& a, const u32& b) const { return a < b; }
};

struct CubMergeMethod {
  template <int T, int I>
  using Sort = cub::BlockMergeSort<u32, T, I, u32>;
  static constexpr bool kStripedResult = false;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I]) {
    Sort<T, I>(temp).StableSort(key, value, LessU32());
  }
};

/// One tile per block with Method: the same blocked vector loads for every
/// method, then Method's sort and the stores its result arrangement wants.
template <int T, int I, class Method>
__global__ void __launch_bounds__(T) sort_tile_kernel(const u32* in_keys, const u32* in_values, u32* out_keys,
                                                      u32* out_values) {
  __shared__ typename Method::template Sort<T, I>::TempStorage temp;
  const std::size_t base = std::size_t(blockIdx.x) * (T * I);
  u32 key[I], value[I];
  load_blocked(in_keys + base, key);
  load_blocked(in_values + base, value);
  Method::template sort<T, I>(temp, key, value);
  if constexpr (Method::kStripedResult) {
    cub::StoreDirectStriped<T>(int(threadIdx.x), out_keys + base, key);
    cub::StoreDirectStriped<T>(int(threadIdx.x), out_values + base, value);
  } else {
    store_blocked(out_keys + base, key);
    store_blocked(out_values + base, value);
  }
}

using Kernel = void (*)(const u32*, const u32*, u32*, u32*);

// Methods 0..3 are tilesort (strategy x output arrangement), 4 and 5 CUB.
constexpr int kNumMethods = 6;
constexpr int kNumTilesort = 4;
const char* const kMethods[kNumMethods] = {"tilesort bitonic (blocked out, vector stores)",
                                           "tilesort bitonic (striped out)",
                                           "tilesort warp runs + merge (blocked out, vector stores)",
                                           "tilesort warp runs + merge (striped out)",
                                           "cub::BlockRadixSort",
                                           "cub::BlockMergeSort"};
const char* const kTilesortLabel[kNumTilesort] = {"bitonic blocked", "bitonic striped", "merge blocked",
                                                  "merge striped"};

struct Shape {
  int threads, items;
  Kernel kernels[kNumMethods];
};
template <int T, int I>
Shape shape() {
  constexpr auto kBitonic = BlockSortStrategy::bitonic;
  constexpr auto kMerge = BlockSortStrategy::warp_runs_merge;
  // One warp has no runs to merge: the merge strategy needs T > 32.
  Kernel merge_blocked = nullptr, merge_striped = nullptr;
  if constexpr (T > 32) {
    merge_blocked = sort_tile_kernel<T, I, TilesortMethod<kMerge, false>>;
    merge_striped = sort_tile_kernel<T, I, TilesortMethod<kMerge, true>>;
  }
  return Shape{T, I, {sort_tile_kernel<T, I, TilesortMethod<kBitonic, false>>,
                      sort_tile_kernel<T, I, TilesortMethod<kBitonic, true>>, merge_blocked, merge_striped,
                      sort_tile_kernel<T, I, CubRadixMethod>, sort_tile_kernel<T, I, CubMergeMethod>}};
}

struct TileSize {
  int items;
  std::vector<Shape> shapes;
};

std::vector<TileSize> tile_sizes() {
  return {{256, {shape<32, 8>(), shape<64, 4>(), shape<128, 2>()}},
          {1024, {shape<64, 16>(), shape<128, 8>(), shape<256, 4>()}},
          {2048, {shape<128, 16>(), shape<256, 8>(), shape<512, 4>()}},
          {4096, {shape<128, 32>(), shape<256, 16>(), shape<512, 8>()}}};
}

struct Row {
  int tile, threads, items;
  double ms[kNumMethods];
  bool ok[kNumMethods];
};

// ---------------------------------------------------------------------------
// Medium tiles (4096..16384 items): BlockRadixSort8 against BlockSort and the
// cub block sorts, with a runtime compared range [0, end_bit). Every method
// keeps its TempStorage in dynamic shared memory (tiles of 8192+ need more
// than 48 KB) and ends striped (coalesced scalar stores) except the merge
// sort (blocked, vector stores). Methods that cannot compare a partial
// range run only the 32-bit rows.
// ---------------------------------------------------------------------------
namespace medium {

using tilesort::block::Arrangement;
using tilesort::block::RadixMatch;

// Blocks per SM the radix kernels are compiled for: 1024 resident threads
// (64 registers) where the tile's shared memory allows it.
constexpr int radix_min_blocks(int t, int i) { return i <= 16 && t <= 512 ? 1024 / t : 1; }

template <int T, int I>
__device__ __forceinline__ void load_warp_striped(const u32* tile, u32 (&v)[I]) {
  const u32* p = tile + (threadIdx.x / 32) * (32 * I) + threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < I; ++r) v[r] = p[r * 32];  // one coalesced 128-byte row per register
}

template <int T, int I>
__device__ __forceinline__ void store_striped(u32* tile, const u32 (&v)[I]) {
  cub::StoreDirectStriped<T>(int(threadIdx.x), tile, v);
}

// Each method sorts a loaded tile of keys and values (sort), and says how
// the kernel loads it (kWarpStripedIn: warp-striped scalar loads, else
// blocked vector loads) and stores it (kStripedResult), as the small-tile
// methods above do. BlockSortNarrow gathers its result from global memory
// instead (kGathers: it has run, not sort).

/// BlockRadixSort8; WARP_STRIPED_IN: warp-striped scalar loads (no in-warp
/// transpose), else blocked vector loads.
template <RadixMatch M, bool WARP_STRIPED_IN>
struct Radix8 {
  template <int T, int I>
  using Sort = tilesort::block::BlockRadixSort8<u32, u32, T, I, M>;
  static constexpr bool kPartialRanges = true, kFullRange = true;
  static constexpr bool kRadixBounds = true;
  static constexpr bool kWarpStripedIn = WARP_STRIPED_IN, kStripedResult = true, kGathers = false;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I], int end_bit) {
    constexpr auto kIn = WARP_STRIPED_IN ? Arrangement::warp_striped : Arrangement::blocked;
    Sort<T, I>(temp).template SortArranged<kIn, Arrangement::striped>(key, value, T * I, tilesort::Order::ascending, 0,
                                                                      end_bit);
  }
};

/// BlockSort's default strategy on the whole 32-bit key (it has no bit range).
struct BlockSortFull {
  template <int T, int I>
  using Sort = tilesort::block::BlockSort<u32, u32, T, I>;
  static constexpr bool kPartialRanges = false, kFullRange = true;
  static constexpr bool kRadixBounds = false;
  static constexpr bool kWarpStripedIn = false, kStripedResult = true, kGathers = false;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I], int) {
    Sort<T, I>(temp).SortBlockedToStriped(key, value);
  }
};

/// BlockSort on at most 16 compared bits, as the library's one-block kernels
/// do it: SortPositionsNarrow on the masked key, then keys and values
/// gathered from global memory by position.
struct BlockSortNarrow {
  template <int T, int I>
  using Sort = tilesort::block::BlockSort<u32, tilesort::KeysOnly, T, I>;
  static constexpr bool kPartialRanges = true, kFullRange = false;
  static constexpr bool kRadixBounds = false;
  static constexpr bool kWarpStripedIn = false, kStripedResult = true, kGathers = true;
  template <int T, int I>
  __device__ static void run(typename Sort<T, I>::TempStorage& temp, const u32* in_k, const u32* in_v, u32* out_k,
                             u32* out_v, int end_bit) {
    u32 key[I], position[I];
    load_blocked(in_k, key);
    const u32 mask = (1u << end_bit) - 1u;  // end_bit <= 16
#pragma unroll
    for (int r = 0; r < I; ++r) key[r] &= mask;
    Sort<T, I>(temp).template SortPositionsNarrow<true>(key, T * I, position);
#pragma unroll
    for (int r = 0; r < I; ++r) {
      const int rank = r * T + int(threadIdx.x);
      out_k[rank] = in_k[position[r]];
      out_v[rank] = in_v[position[r]];
    }
  }
};

/// cub::BlockRadixSort with 5-bit digits (the library's choice for
/// 4097..8192 u32 pairs), on [0, end_bit).
struct CubRadix5 {
  template <int T, int I>
  using Sort = cub::BlockRadixSort<u32, T, I, u32, 5>;
  static constexpr bool kPartialRanges = true, kFullRange = true;
  static constexpr bool kRadixBounds = false;
  static constexpr bool kWarpStripedIn = false, kStripedResult = true, kGathers = false;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I], int end_bit) {
    Sort<T, I>(temp).SortBlockedToStriped(key, value, 0, end_bit);
  }
};

struct CubMerge {
  template <int T, int I>
  using Sort = cub::BlockMergeSort<u32, T, I, u32>;
  static constexpr bool kPartialRanges = false, kFullRange = true;
  static constexpr bool kRadixBounds = false;
  static constexpr bool kWarpStripedIn = false, kStripedResult = false, kGathers = false;
  template <int T, int I>
  __device__ static void sort(typename Sort<T, I>::TempStorage& temp, u32 (&key)[I], u32 (&value)[I], int) {
    Sort<T, I>(temp).StableSort(key, value, LessU32());
  }
};

/// One tile per block with Method, its TempStorage in dynamic shared memory:
/// the loads and stores Method's arrangements want around Method's sort.
template <int T, int I, class Method>
__global__ void __launch_bounds__(T, Method::kRadixBounds ? radix_min_blocks(T, I) : 1)
    medium_tile_kernel(const u32* in_keys, const u32* in_values, u32* out_keys, u32* out_values, int end_bit) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto& temp = *reinterpret_cast<typename Method::template Sort<T, I>::TempStorage*>(smem);
  const std::size_t base = std::size_t(blockIdx.x) * (T * I);
  if constexpr (Method::kGathers) {
    Method::template run<T, I>(temp, in_keys + base, in_values + base, out_keys + base, out_values + base, end_bit);
  } else {
    u32 key[I], value[I];
    if constexpr (Method::kWarpStripedIn) {
      load_warp_striped<T, I>(in_keys + base, key);
      load_warp_striped<T, I>(in_values + base, value);
    } else {
      load_blocked(in_keys + base, key);
      load_blocked(in_values + base, value);
    }
    Method::template sort<T, I>(temp, key, value, end_bit);
    if constexpr (Method::kStripedResult) {
      store_striped<T, I>(out_keys + base, key);
      store_striped<T, I>(out_values + base, value);
    } else {
      store_blocked(out_keys + base, key);
      store_blocked(out_values + base, value);
    }
  }
}

using MediumKernel = void (*)(const u32*, const u32*, u32*, u32*, int);

constexpr int kNumMethods = 7;
const char* const kMethods[kNumMethods] = {
    "BlockRadixSort8 ballot, warp-striped in", "BlockRadixSort8 match_any, warp-striped in",
    "BlockRadixSort8 ballot, blocked in",      "BlockSort (32-bit key)",
    "BlockSort narrow + gather (<= 16 bits)",  "cub::BlockRadixSort (5-bit digits)",
    "cub::BlockMergeSort (32-bit key)"};
const char* const kShort[kNumMethods] = {"radix8 ballot ws", "radix8 match ws", "radix8 ballot blocked", "BlockSort",
                                         "BlockSort narrow", "cub radix5", "cub merge"};
constexpr int kNumRadix8 = 3;  // methods 0..2

struct MethodEntry {
  MediumKernel kernel;
  int smem;
  bool full_range, partial_ranges;
};
template <int T, int I, class Method>
MethodEntry entry() {
  return MethodEntry{medium_tile_kernel<T, I, Method>, int(sizeof(typename Method::template Sort<T, I>::TempStorage)),
                     Method::kFullRange, Method::kPartialRanges};
}

struct Shape {
  int threads, items;
  MethodEntry methods[kNumMethods];
};
template <int T, int I>
Shape shape() {
  return Shape{T,
               I,
               {entry<T, I, Radix8<RadixMatch::ballot, true>>(), entry<T, I, Radix8<RadixMatch::match_any, true>>(),
                entry<T, I, Radix8<RadixMatch::ballot, false>>(), entry<T, I, BlockSortFull>(),
                entry<T, I, BlockSortNarrow>(), entry<T, I, CubRadix5>(), entry<T, I, CubMerge>()}};
}

struct TileSize {
  int items;
  std::vector<Shape> shapes;
};
std::vector<TileSize> tile_sizes() {
  return {{4096, {shape<256, 16>(), shape<512, 8>()}},
          {8192, {shape<512, 16>(), shape<1024, 8>()}},
          {16384, {shape<1024, 16>(), shape<512, 32>()}}};
}
constexpr int kEndBits[2] = {32, 16};

struct Row {
  int tile, end_bit, threads, items;
  double ms[kNumMethods];  // 0: not applicable, -1: wrong output
  bool ok[kNumMethods];
};

}  // namespace medium

}  // namespace

namespace {

/// The medium-tile part of the report: per tile size and range, the best
/// shape of BlockRadixSort8 against the best of every other method; then
/// every row. Appends the JSON rows to `js` (inside an open array).
void write_medium_report(const std::vector<medium::Row>& rows, double copy_ms, std::ostringstream& md,
                         std::ostringstream& js) {
  using medium::kNumMethods;
  md << "\n## Medium tiles: BlockRadixSort8 (8-bit LSD radix) vs BlockSort and CUB\n\n"
     << "u32 key + u32 value, compared bits [0, 32) and [0, 16); x copy, lower is better. radix8 = the best of "
        "BlockRadixSort8's variants (ballot or match_any ranking, warp-striped or blocked input; all striped out). "
        "BlockSort has no bit range: its 16-bit row is SortPositionsNarrow on the masked key plus a gather from "
        "global memory, as the library's one-block kernels do; cub::BlockMergeSort runs 32-bit rows only.\n\n"
     << "| tile | bits | radix8 (best) | x copy | best other | x copy | radix8 speedup | radix8 16-bit / 32-bit |\n"
     << "|---:|---:|---|---:|---|---:|---:|---:|\n";
  for (int tile : {4096, 8192, 16384}) {
    double radix_best[2] = {0, 0};
    for (int bi = 0; bi < 2; ++bi) {
      const int end_bit = medium::kEndBits[bi];
      const medium::Row* br = nullptr;
      const medium::Row* bo = nullptr;
      int bm = 0, om = 0;
      double bms = 0, oms = 0;
      for (const medium::Row& r : rows) {
        if (r.tile != tile || r.end_bit != end_bit) continue;
        for (int m = 0; m < kNumMethods; ++m) {
          if (!r.ok[m]) continue;
          if (m < medium::kNumRadix8) {
            if (!br || r.ms[m] < bms) { br = &r; bm = m; bms = r.ms[m]; }
          } else if (!bo || r.ms[m] < oms) {
            bo = &r; om = m; oms = r.ms[m];
          }
        }
      }
      radix_best[bi] = br ? bms : 0;
      md << "| " << tile << " | " << end_bit << " | ";
      if (br) md << medium::kShort[bm] << " " << br->threads << "x" << br->items << " | " << bms / copy_ms;
      else md << "- | FAILED";
      md << " | ";
      if (bo) md << medium::kShort[om] << " " << bo->threads << "x" << bo->items << " | " << oms / copy_ms;
      else md << "- | FAILED";
      md << " | " << (br && bo ? oms / bms : 0) << "x | ";
      if (bi == 1 && radix_best[0] > 0 && radix_best[1] > 0) md << radix_best[1] / radix_best[0];
      else md << "-";
      md << " |\n";
    }
  }
  md << "\n### Every shape (x copy; - = not applicable)\n\n| tile | bits | shape";
  for (int m = 0; m < kNumMethods; ++m) md << " | " << medium::kShort[m];
  md << " |\n|---:|---:|---";
  for (int m = 0; m < kNumMethods; ++m) md << "|---:";
  md << "|\n";
  bool first = true;
  for (const medium::Row& r : rows) {
    md << "| " << r.tile << " | " << r.end_bit << " | " << r.threads << "x" << r.items;
    for (int m = 0; m < kNumMethods; ++m) {
      if (r.ok[m]) md << " | " << r.ms[m] / copy_ms;
      else md << (r.ms[m] == 0 ? " | -" : " | WRONG");
    }
    md << " |\n";
    js << (first ? "" : ",") << "\n    {\"tile\": " << r.tile << ", \"end_bit\": " << r.end_bit
       << ", \"threads\": " << r.threads << ", \"items\": " << r.items << ", \"ms\": {";
    for (int m = 0; m < kNumMethods; ++m)
      js << (m ? ", " : "") << "\"" << medium::kShort[m] << "\": " << (r.ok[m] ? r.ms[m] : (r.ms[m] == 0 ? 0.0 : -1.0));
    js << "}}";
    first = false;
  }
}

}  // namespace

int run_block_suite(const SuiteOptions& o) {
  std::size_t total = std::size_t(1) << 24;
  bool radix_only = false;
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--items" && i + 1 < o.args.size()) {
      total = std::strtoull(o.args[++i].c_str(), nullptr, 0);
    } else if (o.args[i] == "--radix-only") {
      radix_only = true;
    } else {
      std::fprintf(stderr, "tilesort-bench --suite block: unknown option %s\n", o.args[i].c_str());
      return 64;
    }
  }
  total = std::max<std::size_t>(16384, total / 16384 * 16384);  // whole tiles of every size

  // Uniform random u32 keys; values = input index, so stability is checked exactly.
  std::vector<u32> keys(total), values(total);
  std::mt19937_64 rng(0x5EEDB10Cull);
  for (std::size_t i = 0; i < total; ++i) {
    keys[i] = u32(rng());
    values[i] = u32(i);
  }
  u32 *d_in_k, *d_in_v, *d_out_k, *d_out_v;
  const std::size_t bytes = total * sizeof(u32);
  BENCH_CUDA_CHECK(cudaMalloc(&d_in_k, bytes));
  BENCH_CUDA_CHECK(cudaMalloc(&d_in_v, bytes));
  BENCH_CUDA_CHECK(cudaMalloc(&d_out_k, bytes));
  BENCH_CUDA_CHECK(cudaMalloc(&d_out_v, bytes));
  BENCH_CUDA_CHECK(cudaMemcpy(d_in_k, keys.data(), bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(d_in_v, values.data(), bytes, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  BENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  const auto time_ms = [&](const std::function<void()>& launch) { return median_ms(o.warmup, o.reps, stream, launch); };
  // The copy floor: the same bytes (keys and values), device to device.
  const double copy_ms = time_ms([&] {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(d_out_k, d_in_k, bytes, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(d_out_v, d_in_v, bytes, cudaMemcpyDeviceToDevice, stream));
  });

  std::vector<Row> rows;
  std::vector<u32> want_k(total), want_v(total), got_k(total), got_v(total);
  bool all_ok = true;
  // Expected: each tile of `items` stably sorted by the key bits in `mask`
  // (values are increasing input indices).
  const auto expect_sorted_tiles = [&](int items, u32 mask) {
    parallel_for(total / items, 64, [&](std::size_t b0, std::size_t b1) {
      std::vector<std::pair<u32, u32>> tile(items);
      for (std::size_t b = b0; b < b1; ++b) {
        const std::size_t base = b * items;
        for (int i = 0; i < items; ++i) tile[i] = {keys[base + i], values[base + i]};
        std::stable_sort(tile.begin(), tile.end(),
                         [mask](const auto& a, const auto& c) { return (a.first & mask) < (c.first & mask); });
        for (int i = 0; i < items; ++i) {
          want_k[base + i] = tile[i].first;
          want_v[base + i] = tile[i].second;
        }
      }
    });
  };
  // One launch into cleared outputs, compared with the expected tiles.
  const auto output_is_right = [&](const std::function<void()>& launch) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(d_out_k, 0, bytes, stream));
    BENCH_CUDA_CHECK(cudaMemsetAsync(d_out_v, 0, bytes, stream));
    launch();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    BENCH_CUDA_CHECK(cudaMemcpy(got_k.data(), d_out_k, bytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA_CHECK(cudaMemcpy(got_v.data(), d_out_v, bytes, cudaMemcpyDeviceToHost));
    return got_k == want_k && got_v == want_v;
  };
  for (const TileSize& size : radix_only ? std::vector<TileSize>() : tile_sizes()) {
    expect_sorted_tiles(size.items, ~0u);
    const unsigned grid = unsigned(total / size.items);
    for (const Shape& s : size.shapes) {
      Row row{size.items, s.threads, s.items, {}, {}};
      for (int m = 0; m < kNumMethods; ++m) {
        if (!s.kernels[m]) continue;  // not applicable to this shape (reported as "-")
        const auto launch = [&] {
          s.kernels[m]<<<grid, s.threads, 0, stream>>>(d_in_k, d_in_v, d_out_k, d_out_v);
          BENCH_CUDA_CHECK(cudaGetLastError());
        };
        row.ok[m] = output_is_right(launch);
        if (!row.ok[m]) {
          all_ok = false;
          row.ms[m] = -1;  // WRONG in the report ("-" = not applicable)
          std::fprintf(stderr, "tilesort-bench --suite block: %s %dx%d: WRONG OUTPUT\n", kMethods[m], s.threads,
                       s.items);
          continue;
        }
        row.ms[m] = time_ms(launch);
      }
      std::fprintf(stderr,
                   "block %5d %4dx%-2d  bitonic %.3f / striped %.3f  runs+merge %.3f / striped %.3f ms  radix %.3f ms  "
                   "merge %.3f ms  (copy %.3f ms)\n",
                   size.items, s.threads, s.items, row.ms[0], row.ms[1], row.ms[2], row.ms[3], row.ms[4], row.ms[5],
                   copy_ms);
      rows.push_back(row);
    }
  }
  // Medium tiles: every method on every shape, for each compared range;
  // expected = each tile stably sorted by the key's low end_bit bits.
  std::vector<medium::Row> medium_rows;
  for (const medium::TileSize& size : medium::tile_sizes()) {
    for (const int end_bit : medium::kEndBits) {
      expect_sorted_tiles(size.items, end_bit >= 32 ? ~0u : (1u << end_bit) - 1u);
      const unsigned grid = unsigned(total / size.items);
      for (const medium::Shape& s : size.shapes) {
        medium::Row row{size.items, end_bit, s.threads, s.items, {}, {}};
        for (int m = 0; m < medium::kNumMethods; ++m) {
          const medium::MethodEntry& e = s.methods[m];
          if (!(end_bit == 32 ? e.full_range : e.partial_ranges)) continue;  // "-" in the report
          BENCH_CUDA_CHECK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem));
          const auto launch = [&] {
            e.kernel<<<grid, s.threads, e.smem, stream>>>(d_in_k, d_in_v, d_out_k, d_out_v, end_bit);
            BENCH_CUDA_CHECK(cudaGetLastError());
          };
          row.ok[m] = output_is_right(launch);
          if (!row.ok[m]) {
            all_ok = false;
            row.ms[m] = -1;
            std::fprintf(stderr, "tilesort-bench --suite block: %s %dx%d bits [0, %d): WRONG OUTPUT\n",
                         medium::kMethods[m], s.threads, s.items, end_bit);
            continue;
          }
          row.ms[m] = time_ms(launch);
        }
        std::fprintf(stderr, "medium %5d bits [0,%2d) %4dx%-2d ", size.items, end_bit, s.threads, s.items);
        for (int m = 0; m < medium::kNumMethods; ++m) std::fprintf(stderr, " %s %.3f", medium::kShort[m], row.ms[m]);
        std::fprintf(stderr, " ms (copy %.3f ms)\n", copy_ms);
        medium_rows.push_back(row);
      }
    }
  }

  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
  cudaFree(d_in_k);
  cudaFree(d_in_v);
  cudaFree(d_out_k);
  cudaFree(d_out_v);

  // Report: every shape, then the best shape of each method per tile size.
  std::ostringstream md, js;
  md << "# tilesort-bench --suite block\n\n"
     << provenance_lines(o.commit, o.date, o.device) << "command: " << o.command_line << "\\\n"
     << "pairs: " << total << " u32 key + u32 value, uniform random keys; one tile per block, global -> sort -> global\\\n"
     << "timing: median of " << o.reps << " CUDA-event timings after " << o.warmup
     << " warm-ups; copy = cudaMemcpyAsync D2D of the same keys + values bytes: " << copy_ms << " ms\n\n";
  js << "{\n  \"suite\": \"block\",\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date
     << "\",\n  \"device\": \"" << o.device << "\",\n  \"pairs\": " << total << ",\n  \"copy_ms\": " << copy_ms
     << ",\n  \"rows\": [";
  if (!radix_only) {
  md << "## Best shape per method and tile size (x copy, lower is better)\n\n"
     << "tilesort = the best of its strategies (bitonic network / warp runs + merge) x output arrangement "
        "(blocked with vector stores / striped); the default strategy (BlockSortPolicy) is bitonic below "
     << kDefaultMergeFrom << " items, runs + merge from " << kDefaultMergeFrom << ".\n\n"
     << "| tile | tilesort shape | tilesort x copy | radix shape | radix x copy | merge shape | merge x copy | "
        "speedup vs best CUB |\n|---:|---|---:|---|---:|---|---:|---:|\n";
  for (const TileSize& size : tile_sizes()) {
    // best[0]: tilesort (either output arrangement), best[1]: radix, best[2]: merge.
    const Row* best[3] = {nullptr, nullptr, nullptr};
    int best_tilesort_method = 0;
    double best_ms[3] = {0, 0, 0};
    for (const Row& r : rows) {
      if (r.tile != size.items) continue;
      for (int m = 0; m < kNumMethods; ++m) {
        const int slot = m < kNumTilesort ? 0 : m - kNumTilesort + 1;
        if (r.ok[m] && (!best[slot] || r.ms[m] < best_ms[slot])) {
          best[slot] = &r;
          best_ms[slot] = r.ms[m];
          if (slot == 0) best_tilesort_method = m;
        }
      }
    }
    md << "| " << size.items;
    for (int m = 0; m < 3; ++m) {
      if (best[m]) {
        md << " | " << best[m]->threads << "x" << best[m]->items;
        if (m == 0) md << " " << kTilesortLabel[best_tilesort_method];
        md << " | " << best_ms[m] / copy_ms;
      } else {
        md << " | - | FAILED";
      }
    }
    if (best[0] && best[1] && best[2])
      md << " | " << std::min(best_ms[1], best_ms[2]) / best_ms[0] << "x |\n";
    else
      md << " | - |\n";
  }
  md << "\n## Every shape (x copy; same threads x items per thread for all)\n\n"
     << "| tile | shape | bitonic blocked | bitonic striped | runs+merge blocked | runs+merge striped | cub radix | "
        "cub merge | bitonic ms | bitonic striped ms | runs+merge ms | runs+merge striped ms | radix ms | merge ms |\n"
     << "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  bool first = true;
  for (const Row& r : rows) {
    md << "| " << r.tile << " | " << r.threads << "x" << r.items;
    for (int m = 0; m < kNumMethods; ++m) {
      if (r.ok[m]) md << " | " << r.ms[m] / copy_ms;
      else md << (r.ms[m] == 0 ? " | -" : " | WRONG");
    }
    for (int m = 0; m < kNumMethods; ++m) md << " | " << r.ms[m];
    md << " |\n";
    js << (first ? "" : ",") << "\n    {\"tile\": " << r.tile << ", \"threads\": " << r.threads
       << ", \"items\": " << r.items << ", \"tilesort_ms\": " << r.ms[0] << ", \"tilesort_striped_ms\": " << r.ms[1]
       << ", \"tilesort_runs_merge_ms\": " << r.ms[2] << ", \"tilesort_runs_merge_striped_ms\": " << r.ms[3]
       << ", \"cub_radix_ms\": " << r.ms[4] << ", \"cub_merge_ms\": " << r.ms[5] << ", \"verified\": [";
    for (int m = 0; m < kNumMethods; ++m) js << (m ? ", " : "") << (r.ok[m] ? "true" : "false");
    js << "]}";
    first = false;
  }
  }  // !radix_only
  js << "\n  ],\n  \"medium_rows\": [";
  write_medium_report(medium_rows, copy_ms, md, js);
  js << "\n  ]\n}\n";
  std::printf("%s", md.str().c_str());
  if (!o.out.empty() && !write_suite_reports(o.out, md.str(), js.str())) return 1;
  return all_ok ? 0 : 1;
}

TILESORT_BENCH_SUITE("block",
                     "device API BlockSort / BlockRadixSort8 vs cub::BlockRadixSort / BlockMergeSort, u32 pairs per tile",
                     run_block_suite, "--items N      pairs (default 2^24, rounded to whole 16384-item tiles)\n--radix-only   only the medium-tile part (BlockRadixSort8 vs BlockSort and CUB)");

}  // namespace bench
