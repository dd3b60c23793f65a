#include "sort_stage.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "vk.hpp"  // DemoError, ts_check

namespace tilesort {
namespace demo {
namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw DemoError(std::string(what) + " failed: " + cudaGetErrorString(e));
}

}  // namespace

SortStage::~SortStage() {
  paths_ = {};  // their events and workspaces go before the stream
  if (stream_) cudaStreamDestroy(stream_);
}

void SortStage::create_cuda(int cuda_device, std::uint32_t capacity, std::uint32_t max_tiles, std::uint32_t slots,
                            bool with_gs3d) {
  cuda_check(cudaSetDevice(cuda_device), "cudaSetDevice");
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  ts_check(make_tilesort_path(capacity, max_tiles, slots, &paths_[int(Sorter::tilesort)]), "tilesort sort path");
  if (with_gs3d) ts_check(make_gs3d_path(capacity, max_tiles, slots, &paths_[int(Sorter::gs3d)]), "3DGS sort path");
}

void SortStage::create_cpu(std::uint32_t capacity, std::uint32_t max_tiles) {
  cpu_keys_.resize(capacity);
  cpu_ids_.resize(capacity);
  cpu_offsets_.resize(std::size_t(max_tiles) + 1);
  cpu_threads_ = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
}

void SortStage::enqueue_between(interop::SharedTimelineSemaphore& timeline, std::uint64_t wait, std::uint64_t signal,
                                const interop::SharedWord* word, const SortFrame& frame, std::uint32_t slot,
                                const std::vector<Sorter>& order, const char* what) {
  auto work = [&](Stream s) -> Status {
    for (Sorter sorter : order) {
      const Status st = paths_[int(sorter)]->enqueue(frame, slot, s);
      if (!st) return st;
    }
    return Status();
  };
  ts_check(interop::run_between(timeline, wait, signal, stream_, work, word), what);
}

void SortStage::sort_on_host(const RecordView& in, std::uint32_t num_tiles, bool sort_depth, std::uint32_t* out_keys,
                             std::uint32_t* out_ids, std::uint32_t* out_offsets) {
  cpu_bin_and_sort(in, num_tiles, sort_depth, cpu_keys_.data(), cpu_ids_.data(), cpu_offsets_.data(), &cpu_scratch_,
                   cpu_threads_);
  std::memcpy(out_keys, cpu_keys_.data(), in.count * 4);
  std::memcpy(out_ids, cpu_ids_.data(), in.count * 4);
  std::memcpy(out_offsets, cpu_offsets_.data(), (std::size_t(num_tiles) + 1) * 4);
}

double SortStage::elapsed_ms(Sorter sorter, std::uint32_t slot) const {
  double ms = -1.0;
  ts_check(paths_[int(sorter)]->elapsed_ms(slot, &ms), "sort timing");
  return ms;
}

void SortStage::check_device_status(Sorter sorter, const char* what) const {
  ts_check(paths_[int(sorter)]->device_status(stream_), what);
}

void SortStage::synchronize() const {
  if (stream_) cudaStreamSynchronize(stream_);
}

}  // namespace demo
}  // namespace tilesort
