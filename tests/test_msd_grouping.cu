// The MSD histogram's grouping of a bucket's children (group_children in
// kernels/large_sort.cuh) against the greedy it implements, run on the CPU:
// walking the children in digit order, a child joins the group before it
// when the merged range costs no more than the two apart; children longer
// than one block end a group; empty ones are passed over. The kernel finds
// the same groups by doubled links and warp steps, so any difference is a bug (a
// slower sort, never a wrong one: every grouping sorts correctly, which the
// segmented-sort tests check).
//
// Skips visibly without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "kernels/large_sort.cuh"

namespace {

using tilesort::detail::kDigits;
using tilesort::detail::kRangeCostEntries;
using tstest::DeviceBuffer;

constexpr int kThreads = kDigits;

/// One bucket per block: lengths[b][d] -> groups[b][d]. LOOKAHEAD: the
/// policy's (16), one (most groups finished by the warp), four.
template <int LOOKAHEAD>
__global__ void group_children_kernel(const std::uint32_t* lengths, const std::uint64_t* costs,
                                      std::uint32_t one_block_max, std::uint32_t* groups) {
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::uint32_t length[kDigits], start[kDigits], group[kDigits],
      scratch[tilesort::detail::kGroupScratchWords];
  __shared__ std::uint64_t cost_of_log2[kRangeCostEntries];
  const int d = threadIdx.x;
  const std::uint32_t n = lengths[std::size_t(blockIdx.x) * kDigits + d];
  length[d] = n;
  if (d < kRangeCostEntries) cost_of_log2[d] = costs[d];
  std::uint32_t before;
  Scan(scan).ExclusiveSum(n, before);
  start[d] = before;
  group[d] = 0;
  __syncthreads();
  tilesort::detail::group_children<LOOKAHEAD>(length, start, group, scratch, one_block_max, cost_of_log2);
  __syncthreads();
  groups[std::size_t(blockIdx.x) * kDigits + d] = group[d];
}

std::uint64_t cost_of(const std::vector<std::uint64_t>& cost_of_log2, std::uint32_t n) {
  return cost_of_log2[n <= 1 ? 0 : 32 - __builtin_clz(n - 1)];
}

/// The greedy, one child at a time (what one thread of the kernel did).
std::vector<std::uint32_t> reference_groups(const std::uint32_t* length, std::uint32_t one_block_max,
                                            const std::vector<std::uint64_t>& cost) {
  std::vector<std::uint32_t> group(kDigits, 0);
  int head = -1;
  std::uint32_t run = 0;
  for (int d = 0; d < kDigits; ++d) {
    const std::uint32_t n = length[d];
    if (n == 0) continue;
    if (n > one_block_max) {
      if (head >= 0) group[head] = run;
      head = -1;
      continue;
    }
    if (head >= 0 && run + n <= one_block_max && cost_of(cost, run + n) <= cost_of(cost, run) + cost_of(cost, n)) {
      run += n;
      continue;
    }
    if (head >= 0) group[head] = run;
    head = d;
    run = n;
  }
  if (head >= 0) group[head] = run;
  return group;
}

/// Per-key costs by ceil(log2(length)): the one-block classes' measured
/// group costs (Sm90Policy::kGroupCost, 8-key to 16384-key tiles), or
/// random ones, or ones that fall with the tile (every merge pays: groups
/// run past the kernel's lookahead and are finished by its warp steps).
std::vector<std::uint64_t> cost_table(int kind, std::mt19937_64& rng) {
  static constexpr std::uint64_t kMeasured[15] = {190, 190, 190, 190, 209, 250, 300, 362,
                                                  319, 416, 378, 443, 472, 550, 674};
  std::vector<std::uint64_t> cost(kRangeCostEntries);
  for (int l = 0; l < kRangeCostEntries; ++l) {
    std::uint64_t per_key = 0;
    if (kind == 0) per_key = l < 15 ? kMeasured[l] : 800;
    else if (kind == 1) per_key = 100 + rng() % 800;
    else per_key = 1000 - 25 * std::uint64_t(l);
    cost[l] = per_key << l;
  }
  return cost;
}

std::uint32_t child_length(int mode, std::uint32_t one_block_max, std::mt19937_64& rng) {
  const auto uniform = [&](std::uint32_t lo, std::uint32_t hi) { return lo + std::uint32_t(rng() % (hi - lo + 1)); };
  switch (mode) {
    case 0: return uniform(0, 200);                                  // small children, some empty
    case 1: return rng() % 10 < 7 ? 0u : uniform(1, 40000);          // sparse, some over one block
    case 2: {                                                        // the boundaries
      const std::uint32_t pick[] = {0, 1, 2, one_block_max - 1, one_block_max, one_block_max + 1};
      return rng() % 4 == 0 ? uniform(1, 3000) : pick[rng() % 6];
    }
    case 3: return uniform(0, 20);                                   // tiny: long groups
    case 4: return uniform(40, 90);                                  // a bucket just over one block
    case 5: return uniform(3500, 4700);                              // mostly groups of one
    default: return 1;                                               // all ones
  }
}

class MsdGrouping : public tstest::GpuTest {};

TEST_F(MsdGrouping, SameGroupsAsTheGreedy) {
  TS_TRACE_SEED();
  constexpr int kModes = 7, kCostKinds = 3;
  const std::uint32_t kMaxima[] = {16384, 8192, 2048};
  const int buckets_per_case = tstest::small_mode() ? 4 : 64;
  std::mt19937_64 rng(seed_);
  DeviceBuffer d_lengths, d_costs, d_groups;
  for (int kind = 0; kind < kCostKinds; ++kind)
    for (const std::uint32_t one_block_max : kMaxima) {
      const std::vector<std::uint64_t> cost = cost_table(kind, rng);
      std::vector<std::uint32_t> lengths;
      for (int b = 0; b < buckets_per_case * kModes; ++b)
        for (int d = 0; d < kDigits; ++d) lengths.push_back(child_length(b % kModes, one_block_max, rng));
      // Edge buckets: all empty, all over one block, a single child, one child at each end.
      for (int e = 0; e < 4; ++e)
        for (int d = 0; d < kDigits; ++d) {
          std::uint32_t n = 0;
          if (e == 1) n = one_block_max + 1;
          else if (e == 2) n = d == 100 ? 5 : 0;
          else if (e == 3) n = d == 0 || d == kDigits - 1 ? one_block_max : 0;
          lengths.push_back(n);
        }
      const int buckets = int(lengths.size() / kDigits);
      ASSERT_NO_FATAL_FAILURE(tstest::upload_bytes(d_lengths, lengths.data(), lengths.size() * 4));
      ASSERT_NO_FATAL_FAILURE(tstest::upload_bytes(d_costs, cost.data(), cost.size() * 8));
      TS_CUDA_ASSERT(d_groups.alloc(lengths.size() * 4));
      for (const int lookahead : {16, 1, 4}) {
        const auto kernel = lookahead == 16  ? group_children_kernel<16>
                            : lookahead == 1 ? group_children_kernel<1>
                                             : group_children_kernel<4>;
        kernel<<<buckets, kThreads, 0, stream_>>>(d_lengths.as<std::uint32_t>(), d_costs.as<std::uint64_t>(),
                                                  one_block_max, d_groups.as<std::uint32_t>());
        TS_CUDA_ASSERT(cudaGetLastError());
        TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
        std::vector<std::uint32_t> groups(lengths.size());
        TS_CUDA_ASSERT(cudaMemcpy(groups.data(), d_groups.get(), groups.size() * 4, cudaMemcpyDeviceToHost));
        for (int b = 0; b < buckets; ++b) {
          const std::vector<std::uint32_t> want =
              reference_groups(&lengths[std::size_t(b) * kDigits], one_block_max, cost);
          const std::vector<std::uint32_t> got(groups.begin() + std::ptrdiff_t(b) * kDigits,
                                               groups.begin() + std::ptrdiff_t(b + 1) * kDigits);
          ASSERT_EQ(got, want) << "bucket " << b << " (mode " << (b < buckets_per_case * kModes ? b % kModes : -1)
                               << "), cost kind " << kind << ", one_block_max " << one_block_max
                               << ", lookahead " << lookahead;
        }
      }
    }
}

}  // namespace
