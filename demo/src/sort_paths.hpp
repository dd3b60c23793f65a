// tilesort-demo: the CUDA sort paths, one object per sorter (sorters.hpp).
// Each owns its workspace and its per-slot CUDA events, and enqueues the
// sort of one frame's records (shared Vulkan buffers mapped into CUDA) on
// the demo's stream. The renderer runs the set of paths between the
// timeline's emitted() and sorted() values, compared ones first.
#pragma once

#include <cstdint>
#include <memory>

#include "sorters.hpp"
#include "tilesort/segmented_sort.hpp"  // Stream
#include "tilesort/status.hpp"

namespace tilesort {
namespace demo {

/// One frame's records and outputs, device pointers (SoA, as emit.comp writes them).
struct SortFrame {
  const std::uint32_t* tile_ids = nullptr;
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* ids = nullptr;
  const std::uint32_t* d_num_records = nullptr;  // written by demo_finalize.comp
  std::uint32_t num_tiles = 0;
  bool sort_depth = true;  // false: bin by tile only (emission order kept)
  std::uint32_t* out_keys = nullptr;
  std::uint32_t* out_ids = nullptr;
  std::uint32_t* out_offsets = nullptr;  // num_tiles + 1
};

class CudaSortPath {
 public:
  virtual ~CudaSortPath() = default;
  virtual Sorter sorter() const = 0;
  /// Enqueues the sort of `frame` on `stream`, the timed part between the
  /// events of `slot`. May block the host where the sorter needs to (3DGS
  /// reads the record count back, as it does in its renderer).
  virtual Status enqueue(const SortFrame& frame, std::uint32_t slot, Stream stream) = 0;
  /// The slot's last sort time (waits for its end event).
  Status elapsed_ms(std::uint32_t slot, double* ms) const;
  /// Device-side errors of the last sort (tilesort's DeviceStatus); a host sync.
  virtual Status device_status(Stream stream) const = 0;

 protected:
  Status create_events(std::uint32_t slots);
  struct Events;
  std::shared_ptr<Events> events_;
};

/// tilesort::bin_and_sort (tilesort::bin with sort off), count read on the device.
Status make_tilesort_path(std::uint32_t max_records, std::uint32_t max_tiles, std::uint32_t slots,
                          std::unique_ptr<CudaSortPath>* out);
/// baselines::Gs3dPipeline, CSR offsets layout; depth keys written back for verification (not timed).
Status make_gs3d_path(std::uint32_t max_records, std::uint32_t max_tiles, std::uint32_t slots,
                      std::unique_ptr<CudaSortPath>* out);

}  // namespace demo
}  // namespace tilesort
