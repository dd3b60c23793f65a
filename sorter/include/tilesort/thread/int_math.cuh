// Compile-time integer helpers that every layer's shapes use (tile and
// register index bits, ballot code widths).
#pragma once

namespace tilesort {
namespace thread {

/// floor(log2(v)); 0 for v <= 1.
constexpr int log2_floor(int v) { return v <= 1 ? 0 : 1 + log2_floor(v >> 1); }

constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace thread
}  // namespace tilesort
