// Which lanes of a warp hold the same small value (a radix digit): the first
// step of every stable in-warp ranking (block radix sorts, multi-way splits).
#pragma once

#include <cstdint>

namespace tilesort {
namespace warp {

/// How the lanes holding the same value find each other (tuning; both give
/// the same result).
enum class Match {
  ballot,     ///< one __ballot_sync per compared bit (what CUB's match-based ranking does)
  match_any,  ///< one __match_any_sync
};

/// The lanes of this warp whose `value` equals this lane's in bits
/// [0, BITS) (higher bits are ignored). All 32 lanes call it together.
///
/// Ballots: per bit, a predicate (one LOP3), the ballot, a select and a
/// three-input AND: four instructions. Written as PTX because nvcc turned
/// the plain C++ (`((v >> b) & 1) ? ones : ~ones`) into seven (a shift, a
/// mask and a compare for the ballot's predicate, a second test for the
/// select): on the H200 that ranking was three quarters of a radix pass's
/// ALU instructions, and the ALU pipe bound the pass.
template <int BITS, Match M = Match::ballot>
__device__ __forceinline__ std::uint32_t lanes_with_equal_bits(std::uint32_t value) {
  static_assert(BITS >= 1 && BITS <= 32, "BITS: 1..32");
  if constexpr (M == Match::match_any) {
    return __match_any_sync(0xffffffffu, BITS == 32 ? value : value & ((1u << (BITS % 32)) - 1u));
  } else {
    std::uint32_t peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < BITS; ++b) {
      // peers &= (bit b of value set) ? ballot : ~ballot, as peers & (ballot ^ flip).
      asm("{\n\t"
          ".reg .pred set;\n\t"
          ".reg .b32 bit, ones, flip;\n\t"
          "and.b32 bit, %1, %2;\n\t"
          "setp.ne.u32 set, bit, 0;\n\t"
          "vote.sync.ballot.b32 ones, set, 0xffffffff;\n\t"
          "selp.b32 flip, 0, -1, set;\n\t"
          "lop3.b32 %0, %0, ones, flip, 0x60;\n\t"
          "}"
          : "+r"(peers)
          : "r"(value), "r"(1u << b));
    }
    return peers;
  }
}

}  // namespace warp
}  // namespace tilesort
