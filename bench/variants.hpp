// The key/value type combinations the benchmark measures.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench {

enum class KeyKind : std::uint8_t { u32, f32, u64 };

/// Values, when present, are always 32-bit: a particle or item index.
using Value = std::uint32_t;

struct Variant {
  const char* name;  // as given to --variants and written to the reports
  KeyKind key;
  bool has_values;
};

/// The headline variant comes first; the summary table is drawn for it.
inline constexpr Variant kVariants[] = {
    {"u32-u32", KeyKind::u32, true},
    {"f32-u32", KeyKind::f32, true},
    {"u32-none", KeyKind::u32, false},
    {"u64-u32", KeyKind::u64, true},
};
inline constexpr const char* kHeadlineVariant = "u32-u32";

inline const char* key_name(KeyKind key) {
  switch (key) {
    case KeyKind::u32: return "u32";
    case KeyKind::f32: return "f32";
    case KeyKind::u64: return "u64";
  }
  return "?";
}

inline std::size_t key_bytes(KeyKind key) { return key == KeyKind::u64 ? 8 : 4; }

}  // namespace bench
