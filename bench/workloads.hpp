// The benchmark's inputs, generated on the host from fixed seeds exactly as
// /work/shared/ANCHORS.md ("Workloads") defines them, so every run and every
// machine sorts the same data.
//
// A workload fixes the segmentation (CSR offsets) and which key each item
// carries; the key *type* comes from the variant (variants.hpp). Values are
// always the item's input position 0..n-1 (u32 indices, as in ANCHORS.md).
// That choice also lets verification prove in O(n) that every segment's
// output is a permutation of its input (see verify.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "variants.hpp"

namespace bench {

struct Workload {
  std::string name;                     // e.g. "fixed-1024", "tiles16-4M", "powerlaw"
  std::vector<std::uint32_t> offsets;   // CSR: segments + 1 entries, offsets[0] = 0
  /// Item i's key is derived from key_ids[i]; empty means from i itself.
  /// For tiles16-* it is the particle index: a particle has one depth key,
  /// shared by every tile it is instanced into, as in a renderer.
  std::vector<std::uint32_t> key_ids;
  std::string note;                     // generator facts worth reporting

  std::uint32_t items() const { return offsets.back(); }
  std::uint32_t segments() const { return static_cast<std::uint32_t>(offsets.size() - 1); }
};

/// Every workload name, in report order.
const std::vector<std::string>& all_workload_names();

/// Builds the named workload; throws std::invalid_argument for unknown names.
Workload make_workload(const std::string& name);

/// Writes the workload's keys as `key` type into `out` (items() elements of
/// key_bytes(key) each). Deterministic: same workload, same keys.
void generate_keys(const Workload& workload, KeyKind key, void* out);

/// Largest segment length (for reporting).
std::uint32_t max_segment_items(const Workload& workload);

}  // namespace bench
