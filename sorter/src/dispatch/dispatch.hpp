// Host-side planning shared by the public entry points and the per-type
// launchers. Nothing here synchronises with the device or allocates.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/work.hpp"
#include "tilesort/segmented_sort.hpp"
#include "tilesort/thread/key_codec.cuh"

namespace tilesort {
namespace detail {

/// One sort call, decided on the host once from the public arguments: the
/// kernels receive views of it (CountSource for classification, SortData
/// for the sorts, WorkLists for both), never a repacked copy.
struct SortCall {
  void* keys;
  void* values;
  void* scratch_keys;    // null unless large segments are possible
  void* scratch_values;
  KeyKind key_kind;
  bool descending;
  int begin_bit;
  int end_bit;           // resolved: never -1
  bool offsets_64;
  CountSource counts;    // offsets, counts, capacities, class limits, pack table
  WorkLists lists;
  std::size_t zeroed_bytes;  // the front of the workspace each call zeroes
  int num_msd_rounds;        // 0 when no segment can exceed one block
  std::uint64_t max_range;   // longest range any kernel can receive: skips
                             // the launches of classes nothing can reach
  cudaStream_t stream;
  bool programmatic;  // programmatic dependent launches between our kernels (sm_90+)
  int multiprocessors;
};

/// Whether the warp sorts of a call take narrow words (WarpWords::narrow):
/// 32-bit keys compared on at most kNarrowWordKeyBits bits, where the
/// policy's Warp takes them. launch_sorts picks the warp kernels by it, and
/// the pack table prices the warp classes by it.
template <class Warp>
constexpr bool warp_sorts_narrow_words(int key_bytes, int compared_bits) {
  return key_bytes == 4 && Warp::kNarrowWords && compared_bits <= kNarrowWordKeyBits;
}

/// The launch attribute that groups a grid's blocks into clusters of `ctas`.
inline cudaLaunchAttribute cluster_attribute(int ctas) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = unsigned(ctas);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return attribute;
}

/// Launches `kernel` in thread-block clusters of `cluster_ctas` CTAs (1: no
/// clusters; blocks a multiple of it); with `programmatic`, as a
/// programmatic dependent launch (sm_90+): its blocks may be placed while
/// the previous kernel finishes, and enter_dependent_kernel() makes them
/// wait for its results.
template <class... Params, class... Args>
cudaError_t launch_kernel_in_clusters(void (*kernel)(Params...), int blocks, int threads, std::size_t dynamic_smem,
                                      cudaStream_t stream, bool programmatic, int cluster_ctas, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(blocks));
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = dynamic_smem;
  config.stream = stream;
  cudaLaunchAttribute attributes[2]{};
  unsigned n = 0;
  if (programmatic) {
    attributes[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  if (cluster_ctas > 1) attributes[n++] = cluster_attribute(cluster_ctas);
  config.attrs = n != 0 ? attributes : nullptr;
  config.numAttrs = n;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// launch_kernel_in_clusters without clusters.
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), int blocks, int threads, std::size_t dynamic_smem,
                          cudaStream_t stream, bool programmatic, Args&&... args) {
  return launch_kernel_in_clusters(kernel, blocks, threads, dynamic_smem, stream, programmatic, 1,
                                   std::forward<Args>(args)...);
}

/// What planning needs to know about a GPU.
struct DeviceAttributes {
  int device;
  int multiprocessors;
  int shared_memory_optin;  // largest dynamic shared memory a block can opt into
  int compute_major;
};

/// The current device's attributes, queried once per device and cached
/// (thread-safe), so a sort call costs no attribute queries.
cudaError_t current_device_attributes(DeviceAttributes* attributes);

/// Persistent grid for `kernel`: blocks that fit on the device at once (in
/// clusters of `cluster_ctas`: whole clusters that fit). Cached per
/// (kernel, device); also raises the kernel's dynamic shared memory limit the
/// first time, and sets its preferred shared-memory carveout (percent of
/// the SM's unified L1 and shared memory) unless `shared_carveout` is -1,
/// which leaves it to the driver. Thread-safe.
cudaError_t persistent_grid(const void* kernel, int threads, std::size_t dynamic_smem, int* blocks,
                            int cluster_ctas = 1, int shared_carveout = -1);

/// Launches `kernel` on its persistent grid (persistent_grid): the kernels
/// that loop over work counted on the device.
/// `max_blocks` caps the grid where the plan bounds the work (0: no cap).
template <class... Params, class... Args>
cudaError_t launch_persistent(void (*kernel)(Params...), int threads, std::size_t dynamic_smem, cudaStream_t stream,
                              bool programmatic, std::uint64_t max_blocks, Args&&... args) {
  int blocks = 0;
  const cudaError_t err = persistent_grid(reinterpret_cast<const void*>(kernel), threads, dynamic_smem, &blocks);
  if (err != cudaSuccess) return err;
  if (max_blocks != 0 && std::uint64_t(blocks) > max_blocks) blocks = int(max_blocks);
  return launch_kernel(kernel, blocks, threads, dynamic_smem, stream, programmatic, std::forward<Args>(args)...);
}

/// launch_persistent in clusters of `cluster_ctas` CTAs (no cap).
template <class... Params, class... Args>
cudaError_t launch_persistent_clusters(void (*kernel)(Params...), int threads, std::size_t dynamic_smem,
                                       cudaStream_t stream, bool programmatic, int cluster_ctas, Args&&... args) {
  int blocks = 0;
  const cudaError_t err =
      persistent_grid(reinterpret_cast<const void*>(kernel), threads, dynamic_smem, &blocks, cluster_ctas);
  if (err != cudaSuccess) return err;
  return launch_kernel_in_clusters(kernel, blocks, threads, dynamic_smem, stream, programmatic, cluster_ctas,
                                   std::forward<Args>(args)...);
}

/// The sort's bit range and order checks: [begin_bit, end_bit) must lie in
/// [0, key_bits) and be non-empty (end_bit -1 means key_bits). Both
/// segmented_sort and bin_and_sort call it; bin_and_sort before its binning
/// kernels, so that a bad range launches nothing.
Status check_sort_bits(int begin_bit, int end_bit, int key_bits, Order order);

/// Launches everything after classification for one (policy, key width,
/// value width). Defined in the generated per-type translation units.
template <class Policy, class Bits, class Value>
cudaError_t launch_sorts(const SortCall& call);

}  // namespace detail
}  // namespace tilesort
