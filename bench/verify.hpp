// Host-side verification of one method's output (run once per workload,
// variant and method, never per timed repetition).
//
// Sorted check: the reference is the input with each segment sorted by
// std::sort, computed once per workload and variant. The generated keys have
// a single correct bit pattern per sorted segment (no NaN or -0.0; see
// generate_keys), so "output keys == reference keys" proves at once that every
// segment is in ascending order and holds exactly its input keys.
//
// Pairs: values are input positions, so "value v at output position i lies in
// i's segment, appears once there, and keys_in[v] == keys_out[i]" proves the
// pairs are a per-segment permutation of the input pairs, in O(n) and
// without sorting pairs. For methods that promise stability, equal keys must
// also keep increasing values (input order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "variants.hpp"

namespace bench {

/// One workload x variant on the host: the input and its reference.
struct HostProblem {
  KeyKind key = KeyKind::u32;
  const std::vector<std::uint32_t>* offsets = nullptr;  // CSR, segments + 1
  std::vector<std::byte> keys;         // input keys, items x key_bytes(key)
  std::vector<Value> values;           // input values (0..n-1), empty when keys-only
  std::vector<std::byte> sorted_keys;  // reference: keys with each checked segment sorted
  /// The segments the host checks, as [first, last) runs of segment indices;
  /// empty means all of them. The sweep checks a sample on the host (and
  /// every item on the device, verify_device.hpp).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> checked;

  std::size_t items() const { return offsets->back(); }
  std::size_t segments() const { return offsets->size() - 1; }
};

/// A sample of whole segments for `checked`: three runs (the first
/// segments, some in the middle, the last) of about budget_items / 3 items
/// each, at least one segment per run; all segments when they fit the budget.
std::vector<std::pair<std::uint32_t, std::uint32_t>> sample_segments(const std::vector<std::uint32_t>& offsets,
                                                                     std::size_t budget_items);

/// Fills `problem.sorted_keys` from `problem.keys`, sorting the checked
/// segments (parallel over segments; a long segment is sorted by all
/// threads, chunks then merges).
void compute_reference(HostProblem& problem);

/// Empty when `out_keys` / `out_values` are a correct ascending segmented
/// sort of the input; otherwise what is wrong (first bad segment, and how
/// many segments are bad). `out_values` is ignored for keys-only problems.
std::string verify_sorted(const HostProblem& problem, const void* out_keys, const Value* out_values,
                          bool require_stable);

/// Empty when the output is a byte-exact copy of the input (of the checked
/// segments' items).
std::string verify_copy(const HostProblem& problem, const void* out_keys, const Value* out_values);

}  // namespace bench
