// The common interface every measured method implements, and the device-side
// description of one workload x variant that they all sort.
//
// Life of a method for one workload x variant (driven by main.cu):
//   construct            allocations and temp-storage queries: never timed
//   repeat:
//     (main restores the unsorted input into Problem::keys / values)
//     prepare_run()      untimed: e.g. poison out-of-place outputs
//     run()              THE TIMED REGION, between two CUDA events
//     check_after_run()  untimed: e.g. read the sorter's device status
//   output()             where the result lies, for verification
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "variants.hpp"

namespace bench {

/// Device buffers of one workload x variant. keys and values lie in one
/// allocation, values right after the keys (aligned), so that the input can
/// be restored, and the copy floor measured, with a single memcpy.
struct Problem {
  KeyKind key = KeyKind::u32;
  bool has_values = true;
  std::uint32_t num_items = 0;
  std::uint32_t num_segments = 0;

  void* keys = nullptr;      // working keys: restored to the input before every run
  Value* values = nullptr;   // working values, nullptr for keys-only
  const std::uint32_t* offsets = nullptr;  // CSR, num_segments + 1, device

  /// Key bits [begin_bit, end_bit) take part in the comparison; end_bit -1
  /// means all of them. Partial ranges come with keys that have no bits
  /// outside the range (variants.hpp).
  int begin_bit = 0;
  int end_bit = -1;

  /// The counts in device memory, as a renderer's earlier kernels would
  /// leave them (tilesort reads them from here).
  const std::uint32_t* d_num_segments = nullptr;
  const std::uint32_t* d_num_items = nullptr;

  /// The longest segment a method may be told to expect (--bounded-plan,
  /// as a renderer that knows its tile capacity would), 0 for no promise.
  std::uint32_t promised_max_segment = 0;

  /// [keys | alignment padding | values]: the bytes a one-pass in-place sort
  /// must read and write (the padding is under 256 bytes).
  const void* packed = nullptr;
  std::size_t packed_bytes = 0;
  std::size_t values_offset = 0;  // byte offset of values within `packed`
};

/// Byte written over out-of-place outputs before every run, so that a
/// method that wrote nothing cannot pass verification on a stale result.
inline constexpr int kPoisonByte = 0xFF;

/// Where a method left its result (device pointers).
struct Output {
  const void* keys = nullptr;
  const Value* values = nullptr;  // nullptr for keys-only
};

class Method {
 public:
  virtual ~Method() = default;
  /// Untimed; runs after the input was restored, before run().
  virtual void prepare_run(cudaStream_t /*stream*/) {}
  /// The timed region: enqueue the whole operation on `stream`. Returns an
  /// empty string, or why the method refused to run (reported as FAILED).
  /// CUDA runtime errors are not returned: they end the benchmark.
  virtual std::string run(cudaStream_t stream) = 0;
  /// Untimed; after run(). Empty, or an error the device reported.
  virtual std::string check_after_run(cudaStream_t /*stream*/) { return {}; }
  virtual Output output() const = 0;
};

/// Thrown by a method's constructor when it cannot handle the problem (for
/// example an unsupported type); the row is reported as FAILED with the reason.
class MethodUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MethodId : std::uint8_t {
  copy,
  tilesort,
  cub_segmented_sort,
  cub_segmented_radix_sort,
  cub_radix_sort_composite,
  cub_radix_sort,
};

struct MethodInfo {
  MethodId id;
  const char* name;       // as given to --methods and written to the reports
  bool is_cub;            // competes for "best CUB"
  bool is_copy;           // the floor: verified as a copy, not as a sort
  bool stable;            // promises stability: verification checks it
  const char* timed;      // what the timed region contains, for the report
  bool single_segment_only = false;  // runs (and is listed) only for one-segment workloads
};

/// Whether `info` applies to a workload of `segments` segments.
inline bool applies(const MethodInfo& info, std::uint64_t segments) {
  return !info.single_segment_only || segments == 1;
}

/// Every method, in the order each workload x variant runs them (the copy
/// first, so later progress lines can show x copy).
const std::vector<MethodInfo>& all_methods();

/// Creates the method for `problem`; may throw MethodUnavailable.
std::unique_ptr<Method> make_method(MethodId id, const Problem& problem);

// One factory per adapter (methods/*.cpp, methods/*.cu).
std::unique_ptr<Method> make_copy(const Problem& problem);
std::unique_ptr<Method> make_tilesort(const Problem& problem);
std::unique_ptr<Method> make_cub_segmented_sort(const Problem& problem);
std::unique_ptr<Method> make_cub_segmented_radix_sort(const Problem& problem);
std::unique_ptr<Method> make_cub_radix_sort_composite(const Problem& problem);
std::unique_ptr<Method> make_cub_radix_sort(const Problem& problem);

}  // namespace bench
