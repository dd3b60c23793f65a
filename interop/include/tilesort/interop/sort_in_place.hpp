// tilesort::interop — the per-frame call: wait for Vulkan, sort shared
// buffers in place, signal Vulkan. Everything is stream-ordered; nothing
// allocates, synchronises with the host or copies to the host.
//
//   // once
//   tilesort::interop::InPlaceSorter sorter;
//   InPlaceSorter::create(plan, cuda_device, &sorter);   // allocates the workspace
//   // per frame, after Vulkan submitted the batch that signals `ready`
//   tilesort::SortArgs args;
//   args.keys = keys.cuda_ptr(); args.values = values.cuda_ptr();
//   args.offsets = offsets.cuda_ptr(); args.d_num_segments = counts;
//   sorter.sort(semaphore, ready, ready + 1, args, stream);
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "tilesort/binning.hpp"
#include "tilesort/interop/timeline_semaphore.hpp"
#include "tilesort/segmented_sort.hpp"
#include "tilesort/status.hpp"

namespace tilesort {
namespace interop {

/// The shape every call below has: on `stream`, a semaphore wait for
/// `wait_value`, then `work(context, stream)` (run with the semaphore's CUDA
/// device current), then a signal of `signal_value`. If the wait is refused
/// nothing is enqueued; once it is enqueued the signal always follows, even
/// when `work` returns an error (which is then returned).
/// With `wait_word` (Handoff::memory_word, handoff.hpp) the wait is on the
/// word instead of the semaphore, under the same ordering rule; the signal
/// is the semaphore's either way.
using StreamWork = Status (*)(void* context, Stream stream);
Status run_between(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                   Stream stream, StreamWork work, void* context, const SharedWord* wait_word = nullptr) noexcept;

/// run_between for any callable `Status work(Stream)`, e.g. a lambda that
/// calls tilesort::bin or several tilesort calls.
template <class Work>
Status run_between(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                   Stream stream, Work&& work, const SharedWord* wait_word = nullptr) noexcept {
  using W = std::remove_reference_t<Work>;
  return run_between(
      semaphore, wait_value, signal_value, stream,
      [](void* context, Stream s) noexcept -> Status { return (*static_cast<W*>(context))(s); },
      const_cast<void*>(static_cast<const void*>(&work)), wait_word);
}

/// Enqueues on `stream`: semaphore wait for `wait_value`, segmented_sort of
/// `args` (in place) with the caller's workspace, semaphore signal of
/// `signal_value`.
///
/// Guarantees: if the wait is refused (ordering_violation) nothing is
/// enqueued. Once the wait is enqueued the signal always is too, even when the
/// sort refuses its arguments, so a Vulkan queue waiting for `signal_value`
/// never hangs; the returned Status then says the sort did not run and the
/// buffers were left untouched.
Status sort_in_place(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                     void* workspace, std::size_t workspace_bytes, const SortPlan& plan, const SortArgs& args,
                     Stream stream) noexcept;

/// bin_and_sort (tilesort/binning.hpp) between a wait and a signal: records
/// emitted by Vulkan into shared buffers become per-tile sorted ranges (also
/// in shared buffers) for Vulkan to consume. Same guarantees as sort_in_place.
Status bin_and_sort_between(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                            void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
                            Stream stream) noexcept;

/// Owns the workspace for one plan on one CUDA device, so the frame loop is
/// one call. The workspace is allocated once, in create().
class InPlaceSorter {
 public:
  InPlaceSorter() noexcept = default;
  ~InPlaceSorter() { reset(); }
  InPlaceSorter(InPlaceSorter&& other) noexcept;
  InPlaceSorter& operator=(InPlaceSorter&& other) noexcept;
  InPlaceSorter(const InPlaceSorter&) = delete;
  InPlaceSorter& operator=(const InPlaceSorter&) = delete;

  static Status create(const SortPlan& plan, int cuda_device, InPlaceSorter* out) noexcept;

  Status sort(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
              const SortArgs& args, Stream stream) noexcept {
    return sort_in_place(semaphore, wait_value, signal_value, workspace_, bytes_, plan_, args, stream);
  }

  const SortPlan& plan() const noexcept { return plan_; }
  void* workspace() const noexcept { return workspace_; }
  std::size_t workspace_bytes() const noexcept { return bytes_; }
  /// Device address of the last sort's DeviceStatus (see segmented_sort.hpp).
  const DeviceStatus* device_status() const noexcept;
  void reset() noexcept;

 private:
  SortPlan plan_{};
  void* workspace_ = nullptr;
  std::size_t bytes_ = 0;
  int cuda_device_ = -1;
};

}  // namespace interop
}  // namespace tilesort
