// Suite "cluster-scatter": how fast a thread-block cluster moves (key,
// value) pairs between its CTAs' shared memory (st.shared::cluster), as the
// passes of a radix sort held in distributed shared memory would. It sizes
// the cluster ideas of the engine issue (a cluster that sorts a bucket too
// large for one SM) before any sort is written for them.
//
// Each CTA (1024 threads, one per SM) holds kPairsPerCta pairs. A pass reads
// the CTA's own pairs and writes each to the slot a bijection of the
// cluster's slots gives it (an odd multiplier modulo the cluster's pairs:
// spread as a pass over random keys is), then the cluster syncs. Three ways
// to write:
//   planes   two 4-byte stores per pair (keys and values in planes, as
//            block::BlockRadixSort8's cluster form stores them)
//   words    one 8-byte (key, value) store per pair
//   runs     8-byte words, each warp's 32 pairs to 32 consecutive slots of
//            one CTA (what a pass that first orders its pairs by digit in
//            its own CTA could write)
// and one cluster size per row, 1 (all stores local) to 16 (non-portable).
// Every row is verified: the first cluster's pairs are copied out after the
// timed passes and compared with the bijection applied on the host. Each
// row's time is also given as x copy: a device-to-device copy of the same
// pairs (8 bytes each) measured in the same run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "provenance.hpp"
#include "suites.hpp"
#include "timing.hpp"
#include "tilesort/block/block_radix_sort.cuh"

namespace bench {
namespace {

constexpr int kThreads = 1024;
constexpr unsigned kPairsPerCta = 8192;  // a power of two: the bijection works modulo the cluster's pairs
constexpr unsigned kMultiplier = 2654435761u;
constexpr int kPasses = 4;               // per launch, between the load and the copy out

enum class Store { planes, words, runs };
const char* store_name(Store s) { return s == Store::planes ? "planes" : s == Store::words ? "words" : "runs"; }

/// Destination of cluster slot `x` (of n) for one pass.
__host__ __device__ inline unsigned destination(Store store, unsigned x, unsigned n) {
  if (store == Store::runs) return ((((x >> 5) * kMultiplier) & ((n >> 5) - 1u)) << 5) | (x & 31u);
  return (x * kMultiplier) & (n - 1u);
}

using Cluster = tilesort::block::detail::Cluster;

/// Shared memory: two buffers of kPairsPerCta pairs, as two 4-byte planes
/// (keys, then values) or as 8-byte words; pair p of this CTA is cluster
/// slot rank * kPairsPerCta + p, and holds key = its first slot, value = ~key.
template <int C>
__global__ void __launch_bounds__(kThreads, 1) scatter_kernel(Store store, int passes, uint2* out) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  const std::uint32_t rank = Cluster::rank();
  const unsigned n = kPairsPerCta * C;
  std::uint32_t* buffer[2] = {smem, smem + 2 * kPairsPerCta};
  for (unsigned p = threadIdx.x; p < kPairsPerCta; p += kThreads) {
    const std::uint32_t key = rank * kPairsPerCta + p;
    if (store == Store::planes) {
      buffer[0][p] = key;
      buffer[0][kPairsPerCta + p] = ~key;
    } else {
      reinterpret_cast<uint2*>(buffer[0])[p] = make_uint2(key, ~key);
    }
  }
  Cluster::sync();
  for (int pass = 0; pass < passes; ++pass) {
    const std::uint32_t* from = buffer[pass & 1];
    std::uint32_t* to = buffer[(pass + 1) & 1];
    for (unsigned p = threadIdx.x; p < kPairsPerCta; p += kThreads) {
      const unsigned slot = destination(store, rank * kPairsPerCta + p, n);
      const std::uint32_t cta = slot / kPairsPerCta, at = slot % kPairsPerCta;
      if (store == Store::planes) {
        Cluster::store(Cluster::map(to + at, cta), from[p]);
        Cluster::store(Cluster::map(to + kPairsPerCta + at, cta), from[kPairsPerCta + p]);
      } else {
        const uint2 pair = reinterpret_cast<const uint2*>(from)[p];
        Cluster::store(Cluster::map(reinterpret_cast<uint2*>(to) + at, cta), pair);
      }
    }
    Cluster::sync();  // the pass has landed everywhere before any CTA reads it or writes the other buffer
  }
  if (blockIdx.x < unsigned(C)) {  // the first cluster's pairs, for the host's check
    const std::uint32_t* last = buffer[passes & 1];
    for (unsigned p = threadIdx.x; p < kPairsPerCta; p += kThreads) {
      const uint2 v = store == Store::planes ? make_uint2(last[p], last[kPairsPerCta + p])
                                             : reinterpret_cast<const uint2*>(last)[p];
      out[rank * kPairsPerCta + p] = v;
    }
  }
}

struct Row {
  int cluster_ctas = 0;
  Store store = Store::planes;
  int clusters = 0;  // resident at once (the grid)
  double pass_us = 0;
  double pairs_per_s = 0;
  double x_copy = 0;
  bool ok = false;
  std::string note;
};

/// The host's check: after `passes` passes, slot dest^passes(x) holds the pair that started at x.
bool check(const std::vector<uint2>& got, Store store, int cluster_ctas, int passes) {
  const unsigned n = kPairsPerCta * unsigned(cluster_ctas);
  for (unsigned x = 0; x < n; ++x) {
    unsigned at = x;
    for (int p = 0; p < passes; ++p) at = destination(store, at, n);
    if (got[at].x != x || got[at].y != ~x) return false;
  }
  return true;
}

template <int C>
Row measure(Store store, const SuiteOptions& o, double copy_ms_per_pair, uint2* d_out) {
  Row row;
  row.cluster_ctas = C;
  row.store = store;
  const auto kernel = scatter_kernel<C>;
  const std::size_t smem = std::size_t(kPairsPerCta) * 4 * sizeof(std::uint32_t);
  BENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  if (C > 8) BENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = unsigned(C);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(C));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.attrs = &attribute;
  config.numAttrs = 1;
  const cudaError_t fits = cudaOccupancyMaxActiveClusters(&row.clusters, kernel, &config);
  if (fits != cudaSuccess || row.clusters == 0) {
    cudaGetLastError();
    row.note = std::string("no cluster of this size fits: ") + cudaGetErrorString(fits);
    return row;
  }
  config.gridDim = dim3(unsigned(C * row.clusters));
  // Timed: the difference between a launch of 1 + kPasses passes and one of
  // 1 pass, so the load and the copy out cancel.
  const auto time_launch = [&](int passes) {
    return median_ms(o.warmup, o.reps, nullptr,
                     [&] { BENCH_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, store, passes, d_out)); });
  };
  const double many = time_launch(1 + kPasses);
  std::vector<uint2> got(std::size_t(kPairsPerCta) * C);
  BENCH_CUDA_CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(uint2), cudaMemcpyDeviceToHost));
  row.ok = check(got, store, C, 1 + kPasses);
  const double one = time_launch(1);
  const double pass_ms = std::max(many - one, 1e-6) / kPasses;
  const double pairs = double(kPairsPerCta) * C * row.clusters;
  row.pass_us = pass_ms * 1e3;
  row.pairs_per_s = pairs / (pass_ms * 1e-3);
  row.x_copy = pass_ms / (copy_ms_per_pair * pairs);
  return row;
}

int run_cluster_scatter_suite(const SuiteOptions& o) {
  for (const std::string& a : o.args) {
    std::fprintf(stderr, "tilesort-bench: --suite cluster-scatter takes no option %s\n", a.c_str());
    return 64;
  }
  int major = 0, device = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 9) {
    std::fprintf(stderr, "tilesort-bench: --suite cluster-scatter needs thread-block clusters (sm_90)\n");
    return 1;
  }
  // The copy floor: a device-to-device copy of 2^24 pairs, per pair.
  const std::size_t copy_pairs = std::size_t(1) << 24;
  DeviceBuffer from(copy_pairs * sizeof(uint2)), to(copy_pairs * sizeof(uint2));
  DeviceBuffer out(std::size_t(kPairsPerCta) * 16 * sizeof(uint2));
  BENCH_CUDA_CHECK(cudaMemset(from.as<void>(), 1, from.bytes()));
  const double copy_ms_median = median_ms(o.warmup, o.reps, nullptr, [&] {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(to.as<void>(), from.as<void>(), from.bytes(), cudaMemcpyDeviceToDevice));
  });
  const double copy_ms_per_pair = copy_ms_median / double(copy_pairs);
  uint2* const d_out = out.as<uint2>();

  std::vector<Row> rows;
  for (const Store store : {Store::planes, Store::words, Store::runs}) {
    rows.push_back(measure<1>(store, o, copy_ms_per_pair, d_out));
    rows.push_back(measure<2>(store, o, copy_ms_per_pair, d_out));
    rows.push_back(measure<4>(store, o, copy_ms_per_pair, d_out));
    rows.push_back(measure<8>(store, o, copy_ms_per_pair, d_out));
    rows.push_back(measure<16>(store, o, copy_ms_per_pair, d_out));
  }

  std::ostringstream md, js;
  md << provenance_lines(o.commit, o.date, o.device) << "command: `"
     << o.command_line << "`\n\n# Pairs between the CTAs of a cluster (st.shared::cluster)\n\n"
     << "One CTA of 1024 threads per SM, " << kPairsPerCta
     << " (key, value) pairs each; a pass writes every pair to the slot a bijection of the cluster's slots gives it, "
        "then the cluster syncs. planes: two 4-byte stores per pair; words: one 8-byte store; runs: 8-byte "
        "stores, each warp's 32 pairs to 32 consecutive slots of one CTA. Time per pass over every resident "
        "cluster (median of "
     << o.reps << ", the difference of " << 1 + kPasses << " passes and 1); x copy: against a device-to-device copy "
     << "of as many 8-byte pairs (copy of 2^24 pairs: " << copy_ms_median << " ms).\n\n"
     << "| stores | CTAs per cluster | clusters at once | us per pass | G pairs/s | x copy | verified |\n"
     << "|---|---:|---:|---:|---:|---:|---|\n";
  js << "{\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date << "\",\n  \"copy_ms_2to24_pairs\": "
     << copy_ms_median << ",\n  \"rows\": [";
  bool all_ok = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    char line[256];
    if (r.clusters == 0) {
      std::snprintf(line, sizeof(line), "| %s | %d | 0 | - | - | - | %s |\n", store_name(r.store), r.cluster_ctas,
                    r.note.c_str());
    } else {
      std::snprintf(line, sizeof(line), "| %s | %d | %d | %.2f | %.1f | %.2f | %s |\n", store_name(r.store),
                    r.cluster_ctas, r.clusters, r.pass_us, r.pairs_per_s / 1e9, r.x_copy, r.ok ? "yes" : "NO");
      all_ok &= r.ok;
    }
    md << line;
    js << (i ? "," : "") << "\n    {\"stores\": \"" << store_name(r.store) << "\", \"cluster_ctas\": " << r.cluster_ctas
       << ", \"clusters\": " << r.clusters << ", \"pass_us\": " << r.pass_us << ", \"pairs_per_s\": " << r.pairs_per_s
       << ", \"x_copy\": " << r.x_copy << ", \"verified\": " << (r.ok ? "true" : "false") << "}";
  }
  js << "\n  ]\n}\n";
  std::printf("%s", md.str().c_str());
  if (!o.out.empty() && !write_suite_reports(o.out, md.str(), js.str())) return 1;
  return all_ok ? 0 : 1;
}

TILESORT_BENCH_SUITE("cluster-scatter",
                     "pairs moved between the CTAs of a thread-block cluster per pass, 1 to 16 CTAs (sm_90)",
                     run_cluster_scatter_suite, nullptr);

}  // namespace
}  // namespace bench
