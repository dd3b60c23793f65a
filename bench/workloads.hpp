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

/// Seed of the key hash for the built-in workloads (ANCHORS.md's keys).
inline constexpr std::uint64_t kDefaultKeySeed = 0x6b65'7973'2121ull;  // "keys!!"

inline constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;

/// SplitMix64's output function: a bijective 64-bit mix (the generators'
/// hash; SplitMix64 itself is mix64(state += kGolden)).
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Workload {
  std::string name;                     // e.g. "fixed-1024", "tiles16-4M", "powerlaw", "uniform:0:4096"
  std::vector<std::uint32_t> offsets;   // CSR: segments + 1 entries, offsets[0] = 0
  /// Item i's key is derived from key_ids[i]; empty means from i itself.
  /// For tiles16-* it is the particle index: a particle has one depth key,
  /// shared by every tile it is instanced into, as in a renderer.
  std::vector<std::uint32_t> key_ids;
  std::string note;                     // generator facts worth reporting
  std::uint64_t key_seed = kDefaultKeySeed;  // user workloads derive it from --seed
  /// Integer keys keep only their low key_bits random bits (the rest zero),
  /// while every key bit is still compared: ids from a small range, or
  /// quantised depths the caller did not narrow with end_bit. -1: all bits.
  int key_bits = -1;
  /// This percentage of the items (picked by hash) get key 0 (0.0f for f32
  /// keys): a dominant value, as unset ids or culled depths make. 0: none.
  int zero_key_percent = 0;

  std::uint32_t items() const { return offsets.back(); }
  std::uint32_t segments() const { return static_cast<std::uint32_t>(offsets.size() - 1); }
};

/// Every workload name, in report order.
const std::vector<std::string>& all_workload_names();

/// Builds the named workload; throws std::invalid_argument for unknown names.
Workload make_workload(const std::string& name);

/// Writes the workload's keys as `key` type into `out` (items() elements of
/// key_bytes(key) each). Deterministic: same workload, same keys.
/// end_bit >= 0 (u32 only) keeps the low end_bit bits of each key, so the
/// keys lie in [0, 2^end_bit): the data a sort over bits [0, end_bit) is for.
/// Throws std::invalid_argument for a range on another key type.
/// workload.key_bits narrows u32 and u64 keys the same way (f32 keys keep
/// their depth-like spread).
void generate_keys(const Workload& workload, KeyKind key, void* out, int end_bit = -1);

/// fixed-S with `items` in mind: floor(items / S) segments of exactly S
/// (so S * floor(items / S) items, at least items / 2). Named "fixed-S".
/// Throws std::invalid_argument when S is 0 or larger than items.
Workload make_fixed_workload(std::uint32_t segment_items, std::uint32_t items);

// ---- user workloads: --segments SPEC ------------------------------------------

/// A segment-length distribution given on the command line:
///   fixed:S                every segment has S items
///   uniform:LO:HI          lengths uniform over the integers [LO, HI] (LO may be 0)
///   loguniform:LO:HI       log-uniform over [LO, HI] (powerlaw is loguniform:1:65536)
///   pareto:ALPHA:MAX       Pareto with minimum 1 and shape ALPHA, truncated to [1, MAX]
///   lognormal:MU:SIGMA[:MAX]  round(exp(MU + SIGMA * normal)), clamped to [1, MAX]
///                          (MAX defaults to the item count)
struct SegmentSpec {
  enum class Kind { fixed, uniform, loguniform, pareto, lognormal };
  Kind kind = Kind::fixed;
  std::string text;     // as given; the workload's name
  double p1 = 0.0;      // S, LO, LO, ALPHA, MU
  double p2 = 0.0;      // -, HI, HI, MAX, SIGMA
  std::uint32_t max = 0;  // lognormal's MAX; 0 = the item count
};

/// Parses a --segments value; throws std::invalid_argument saying what is wrong.
SegmentSpec parse_segment_spec(const std::string& text);

/// Draws segment lengths from the spec until `items` items (the last segment
/// trimmed to fit; fixed:S keeps whole segments, see make_fixed_workload).
/// The same spec, items and seed always give the same workload; the seed
/// also picks the keys. Throws std::invalid_argument if the spec cannot
/// fill `items` (e.g. fixed:S with S > items).
Workload make_spec_workload(const SegmentSpec& spec, std::uint32_t items, std::uint64_t seed);

// ---- the sweep (--sweep) -----------------------------------------------------

/// Segment sizes 4 per octave, 1 <= S <= max_size: each 2^k times 1, 5/4, 3/2
/// and 7/4, rounded to the nearest integer (halves up), duplicates dropped,
/// ascending. For max_size = 2^24: 1 2 3 4 5 6 7 8 10 12 14 16 20 ... 2^24 (92 sizes).
std::vector<std::uint32_t> sweep_segment_sizes(std::uint32_t max_size);

/// Smallest power of two >= v (v >= 1, v <= 2^31).
std::uint32_t next_power_of_two(std::uint32_t v);

/// Largest segment length (for reporting).
std::uint32_t max_segment_items(const Workload& workload);

}  // namespace bench
