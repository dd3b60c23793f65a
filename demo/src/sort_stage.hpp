// tilesort-demo: the frame's sort stage. On the CUDA path it owns the stream
// and one CudaSortPath per CUDA sorter, and enqueues a set of them between
// two timeline values; on the CPU path it owns the host scratch the CPU sort
// runs in. The buffers it sorts are FrameResources', the timeline it sorts
// between is FrameSync's.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime.h>

#include "demo_core.hpp"
#include "sort_paths.hpp"
#include "sorters.hpp"
#include "tilesort/interop/interop.hpp"

namespace tilesort {
namespace demo {

class SortStage {
 public:
  SortStage() = default;
  ~SortStage();
  SortStage(const SortStage&) = delete;
  SortStage& operator=(const SortStage&) = delete;

  /// The CUDA path: the stream on `cuda_device`, tilesort's path, and 3DGS's when `with_gs3d`,
  /// each sized for `capacity` records over at most `max_tiles` tiles with `slots` frames in flight.
  void create_cuda(int cuda_device, std::uint32_t capacity, std::uint32_t max_tiles, std::uint32_t slots,
                   bool with_gs3d);
  /// The CPU path: cached host memory for `capacity` records and `max_tiles` tiles.
  void create_cpu(std::uint32_t capacity, std::uint32_t max_tiles);

  /// Enqueues the sorters of `order` (in that order) on the stream between the
  /// timeline values `wait` and `signal`; CUDA waits through `word` when given.
  void enqueue_between(interop::SharedTimelineSemaphore& timeline, std::uint64_t wait, std::uint64_t signal,
                       const interop::SharedWord* word, const SortFrame& frame, std::uint32_t slot,
                       const std::vector<Sorter>& order, const char* what);
  /// The CPU sort of `in` into `out_*` (mapped buffers): it sorts in cached
  /// host memory, then copies each output once (uncached reads are slow).
  void sort_on_host(const RecordView& in, std::uint32_t num_tiles, bool sort_depth, std::uint32_t* out_keys,
                    std::uint32_t* out_ids, std::uint32_t* out_offsets);

  /// `sorter`'s last sort time in `slot` (waits for its end event).
  double elapsed_ms(Sorter sorter, std::uint32_t slot) const;
  /// Throws when `sorter`'s last sort reported a device-side error; a host sync.
  void check_device_status(Sorter sorter, const char* what) const;
  /// Waits for everything enqueued (teardown).
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
  // One path per CUDA sorter, created once; the renderer says which run (the
  // overlay may change it between frames).
  std::array<std::unique_ptr<CudaSortPath>, kSorterCount> paths_;
  CpuSortScratch cpu_scratch_;
  std::vector<std::uint32_t> cpu_keys_, cpu_ids_, cpu_offsets_;
  unsigned cpu_threads_ = 1;
};

}  // namespace demo
}  // namespace tilesort
