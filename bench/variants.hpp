// The key/value type combinations the benchmark measures.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench {

enum class KeyKind : std::uint8_t { u32, f32, u64, f64 };

/// Values, when present, are always 32-bit: a particle or item index.
using Value = std::uint32_t;

struct Variant {
  const char* name;  // as given to --variants and written to the reports
  KeyKind key;
  bool has_values;
  /// -1: every key bit is compared and keys are random over the whole type.
  /// Otherwise the sort compares bits [0, end_bit) only (tilesort's and
  /// CUB's begin_bit / end_bit), and the keys are generated in
  /// [0, 2^end_bit), as a renderer's quantised depth would be: every method,
  /// bit range or not, then has one correct result, and the reference
  /// (a std::sort of the whole keys) is that result.
  int end_bit;
};

/// The headline variant comes first; the summary table is drawn for it.
inline constexpr Variant kVariants[] = {
    {"u32-u32", KeyKind::u32, true, -1},
    {"f32-u32", KeyKind::f32, true, -1},
    {"u32-none", KeyKind::u32, false, -1},
    {"u64-u32", KeyKind::u64, true, -1},
    {"u32-u32-16bit", KeyKind::u32, true, 16},
    {"u32-none-16bit", KeyKind::u32, false, 16},
};
inline constexpr const char* kHeadlineVariant = "u32-u32";

/// Variants that --variants accepts by name but 'all' and the default leave
/// out (the five above are what every full run measures): double
/// keys, which the sort encodes (sign and exponent) before ranking, like f32
/// but 8 bytes wide.
inline constexpr Variant kOptionalVariants[] = {
    {"f64-u32", KeyKind::f64, true, -1},
    {"f64-none", KeyKind::f64, false, -1},
};

inline const char* key_name(KeyKind key) {
  switch (key) {
    case KeyKind::u32: return "u32";
    case KeyKind::f32: return "f32";
    case KeyKind::u64: return "u64";
    case KeyKind::f64: return "f64";
  }
  return "?";
}

inline std::size_t key_bytes(KeyKind key) { return key == KeyKind::u64 || key == KeyKind::f64 ? 8 : 4; }

}  // namespace bench
