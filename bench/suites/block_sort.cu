// Suite "block": the device API's block::BlockSort next to cub::BlockRadixSort
// and cub::BlockMergeSort, each sorting one tile of u32 key + u32 value
// pairs per block over a large grid (global -> registers -> sorted ->
// global), as x copy of the same bytes.
//
//   tilesort-bench --suite block [--items N] [--reps R] [--warmup W] [--quick] [--out PREFIX]
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
#include "stats.hpp"
#include "suites.hpp"
#include "timing.hpp"
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

}  // namespace

int run_block_suite(const SuiteOptions& o) {
  std::size_t total = std::size_t(1) << 24;
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--items" && i + 1 < o.args.size()) {
      total = std::strtoull(o.args[++i].c_str(), nullptr, 0);
    } else {
      std::fprintf(stderr, "tilesort-bench --suite block: unknown option %s\n", o.args[i].c_str());
      return 64;
    }
  }
  total = std::max<std::size_t>(4096, total / 4096 * 4096);  // whole tiles of every size

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
  EventTimer timer;

  const auto time_ms = [&](const std::function<void()>& launch) {
    for (int w = 0; w < o.warmup; ++w) launch();
    std::vector<float> samples;
    for (int r = 0; r < o.reps; ++r) {
      timer.start(stream);
      launch();
      timer.stop(stream);
      samples.push_back(timer.elapsed_ms());
    }
    return summarize(samples).median;
  };
  // The copy floor: the same bytes (keys and values), device to device.
  const double copy_ms = time_ms([&] {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(d_out_k, d_in_k, bytes, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(d_out_v, d_in_v, bytes, cudaMemcpyDeviceToDevice, stream));
  });

  std::vector<Row> rows;
  std::vector<u32> want_k(total), want_v(total), got_k(total), got_v(total);
  bool all_ok = true;
  for (const TileSize& size : tile_sizes()) {
    // Expected: each tile stably sorted (values are increasing input indices).
    parallel_for(total / size.items, 64, [&](std::size_t b0, std::size_t b1) {
      std::vector<std::pair<u32, u32>> tile(size.items);
      for (std::size_t b = b0; b < b1; ++b) {
        const std::size_t base = b * size.items;
        for (int i = 0; i < size.items; ++i) tile[i] = {keys[base + i], values[base + i]};
        std::stable_sort(tile.begin(), tile.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
        for (int i = 0; i < size.items; ++i) {
          want_k[base + i] = tile[i].first;
          want_v[base + i] = tile[i].second;
        }
      }
    });
    const unsigned grid = unsigned(total / size.items);
    for (const Shape& s : size.shapes) {
      Row row{size.items, s.threads, s.items, {}, {}};
      for (int m = 0; m < kNumMethods; ++m) {
        if (!s.kernels[m]) continue;  // not applicable to this shape (reported as "-")
        const auto launch = [&] {
          s.kernels[m]<<<grid, s.threads, 0, stream>>>(d_in_k, d_in_v, d_out_k, d_out_v);
          BENCH_CUDA_CHECK(cudaGetLastError());
        };
        BENCH_CUDA_CHECK(cudaMemsetAsync(d_out_k, 0, bytes, stream));
        BENCH_CUDA_CHECK(cudaMemsetAsync(d_out_v, 0, bytes, stream));
        launch();
        BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        BENCH_CUDA_CHECK(cudaMemcpy(got_k.data(), d_out_k, bytes, cudaMemcpyDeviceToHost));
        BENCH_CUDA_CHECK(cudaMemcpy(got_v.data(), d_out_v, bytes, cudaMemcpyDeviceToHost));
        row.ok[m] = got_k == want_k && got_v == want_v;
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
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
  cudaFree(d_in_k);
  cudaFree(d_in_v);
  cudaFree(d_out_k);
  cudaFree(d_out_v);

  // Report: every shape, then the best shape of each method per tile size.
  std::ostringstream md, js;
  md << "# tilesort-bench --suite block\n\n"
     << "commit: " << o.commit << "\\\n"
     << "date: " << o.date << "\\\n"
     << "device: " << o.device << "\\\n"
     << "command: " << o.command_line << "\\\n"
     << "pairs: " << total << " u32 key + u32 value, uniform random keys; one tile per block, global -> sort -> global\\\n"
     << "timing: median of " << o.reps << " CUDA-event timings after " << o.warmup
     << " warm-ups; copy = cudaMemcpyAsync D2D of the same keys + values bytes: " << copy_ms << " ms\n\n"
     << "## Best shape per method and tile size (x copy, lower is better)\n\n"
     << "tilesort = the best of its strategies (bitonic network / warp runs + merge) x output arrangement "
        "(blocked with vector stores / striped); the default strategy (BlockSortPolicy) is bitonic below "
     << kDefaultMergeFrom << " items, runs + merge from " << kDefaultMergeFrom << ".\n\n"
     << "| tile | tilesort shape | tilesort x copy | radix shape | radix x copy | merge shape | merge x copy | "
        "speedup vs best CUB |\n|---:|---|---:|---|---:|---|---:|---:|\n";
  js << "{\n  \"suite\": \"block\",\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date
     << "\",\n  \"device\": \"" << o.device << "\",\n  \"pairs\": " << total << ",\n  \"copy_ms\": " << copy_ms
     << ",\n  \"rows\": [";
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
  js << "\n  ]\n}\n";
  std::printf("%s", md.str().c_str());
  if (!o.out.empty() && !write_suite_reports(o.out, md.str(), js.str())) return 1;
  return all_ok ? 0 : 1;
}

TILESORT_BENCH_SUITE("block", "device API BlockSort vs cub::BlockRadixSort / BlockMergeSort, u32 pairs per tile",
                     run_block_suite);

}  // namespace bench
