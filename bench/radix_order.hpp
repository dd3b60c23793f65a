// The radix mapping of IEEE float bits that the bench's device code shares
// (CUB's composite keys, the device verifier): flip every bit of a negative
// value and only the sign bit of the others, so that the unsigned order of
// the result is the float order. Bits: std::uint32_t for float, std::uint64_t
// for double. tilesort's KeyCodec computes the same mapping; the bench keeps
// its own so that the baselines and the verifier share no code with the
// library they check.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif

namespace bench {

template <class Bits>
inline constexpr Bits kFloatSignBit = Bits(1) << (sizeof(Bits) * 8 - 1);

template <class Bits>
BENCH_HD constexpr Bits float_bits_to_ordered(Bits b) {
  return b ^ ((b & kFloatSignBit<Bits>) ? Bits(~Bits(0)) : kFloatSignBit<Bits>);
}

template <class Bits>
BENCH_HD constexpr Bits ordered_to_float_bits(Bits o) {
  return o ^ ((o & kFloatSignBit<Bits>) ? kFloatSignBit<Bits> : Bits(~Bits(0)));
}

}  // namespace bench
