// The smallest complete use of tilesort: random float depths in random-size
// segments, sorted in place with counts that live in device memory, then
// checked against std::stable_sort on the host.
//
//   ./sort_segments [num_segments] [max_segment_length] [seed]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "tilesort/tilesort.hpp"

#include "check.hpp"

int main(int argc, char** argv) {
  const std::uint32_t num_segments = argc > 1 ? std::uint32_t(std::atoi(argv[1])) : 10000;
  const std::uint32_t max_length = argc > 2 ? std::uint32_t(std::atoi(argv[2])) : 3000;
  const unsigned seed = argc > 3 ? unsigned(std::atoi(argv[3])) : 1;

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("sort_segments: no CUDA device, nothing to do\n");
    return 0;
  }

  // Host data: segment lengths log-uniform-ish, keys uniform in [0, 1).
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> offsets(num_segments + 1, 0);
  for (std::uint32_t s = 0; s < num_segments; ++s) {
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    offsets[s + 1] = offsets[s] + std::uint32_t(std::pow(double(max_length + 1), u)) - 1;
  }
  const std::uint32_t num_items = offsets.back();
  std::vector<float> keys(num_items);
  std::vector<std::uint32_t> values(num_items);
  for (std::uint32_t i = 0; i < num_items; ++i) {
    keys[i] = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    values[i] = i;
  }

  // Device buffers, as a renderer would have them.
  float* d_keys = nullptr;
  std::uint32_t *d_values = nullptr, *d_offsets = nullptr, *d_num_segments = nullptr;
  CHECK_CUDA(cudaMalloc(&d_keys, std::max<size_t>(1, num_items) * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_values, std::max<size_t>(1, num_items) * sizeof(std::uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_offsets, offsets.size() * sizeof(std::uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_num_segments, sizeof(std::uint32_t)));
  CHECK_CUDA(cudaMemcpy(d_keys, keys.data(), num_items * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_values, values.data(), num_items * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_num_segments, &num_segments, sizeof(num_segments), cudaMemcpyHostToDevice));

  // Once: plan and workspace.
  tilesort::SortPlan plan;
  plan.key_type = tilesort::KeyType::f32;
  plan.value_type = tilesort::ValueType::b32;
  plan.max_items = num_items;
  plan.max_segments = num_segments;
  std::size_t workspace_bytes = 0;
  CHECK_TILESORT(tilesort::segmented_sort_workspace_size(plan, &workspace_bytes));
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));

  // Every frame: sort in place; the segment count is read on the device.
  tilesort::SortArgs args;
  args.keys = d_keys;
  args.values = d_values;
  args.offsets = d_offsets;
  args.d_num_segments = d_num_segments;
  CHECK_TILESORT(tilesort::segmented_sort(workspace, workspace_bytes, plan, args, nullptr));
  CHECK_TILESORT(tilesort::read_device_status(workspace, nullptr));  // syncs: not for the hot path

  // Check against the host.
  std::vector<float> out_keys(num_items);
  std::vector<std::uint32_t> out_values(num_items);
  CHECK_CUDA(cudaMemcpy(out_keys.data(), d_keys, num_items * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(out_values.data(), d_values, num_items * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> order(num_items);
  std::iota(order.begin(), order.end(), 0u);
  std::size_t wrong = 0;
  for (std::uint32_t s = 0; s < num_segments; ++s) {
    auto first = order.begin() + offsets[s], last = order.begin() + offsets[s + 1];
    std::stable_sort(first, last, [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  }
  for (std::uint32_t i = 0; i < num_items; ++i)
    wrong += out_values[i] != order[i] || out_keys[i] != keys[order[i]];
  std::printf("sort_segments: %u segments, %u items, %zu workspace bytes: %s (%zu wrong)\n", num_segments, num_items,
              workspace_bytes, wrong == 0 ? "sorted" : "WRONG", wrong);

  CHECK_CUDA(cudaFree(workspace));
  CHECK_CUDA(cudaFree(d_keys));
  CHECK_CUDA(cudaFree(d_values));
  CHECK_CUDA(cudaFree(d_offsets));
  CHECK_CUDA(cudaFree(d_num_segments));
  return wrong == 0 ? 0 : 1;
}
