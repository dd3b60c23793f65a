// Order-preserving key encoding: every supported key type maps bijectively to
// an unsigned integer whose natural order is the sort order we promise.
//
//  * unsigned: identity.
//  * signed:   flip the sign bit.
//  * float:    the usual IEEE twiddle (negative: flip all bits, positive: flip
//              the sign bit), then subtract the number of negative-NaN codes
//              so that negative NaNs wrap around to the very top. Result:
//              -inf .. -0.0 < +0.0 .. +inf < +NaN (by payload) < -NaN (by
//              reversed payload). NaNs are last, and no bits are lost, so the
//              original key is restored exactly when it is written back.
//  * descending: integers invert every bit; floats mirror the non-NaN range
//              and leave NaNs on top, so NaNs stay last in both orders.
//
// Because the encoding is a bijection, kernels carry encoded keys and decode
// only on store; user data is never canonicalised.
#pragma once

#include <cstdint>

#ifndef TILESORT_HD
#if defined(__CUDACC__)
#define TILESORT_HD __host__ __device__ __forceinline__
#else
#define TILESORT_HD inline
#endif
#endif

namespace tilesort {

enum class KeyKind : std::uint8_t { unsigned_int, signed_int, floating };

template <class Bits>
struct KeyCodec {
  static constexpr int kBits = int(sizeof(Bits) * 8);
  static constexpr Bits kSign = Bits(1) << (kBits - 1);
  static constexpr Bits kAllOnes = Bits(~Bits(0));
  // Encoded -inf: every code below it is a negative NaN before the shift.
  static constexpr Bits kNegNanCodes = (kBits == 32) ? Bits(0x007FFFFFu)
                                                    : Bits(0x000FFFFFFFFFFFFFull);
  // After the shift, codes above this are NaNs; this one is +inf.
  static constexpr Bits kPosInf = (kBits == 32) ? Bits(0xFF800000u - 0x007FFFFFu)
                                               : Bits(0xFFF0000000000000ull - 0x000FFFFFFFFFFFFFull);

  KeyKind kind = KeyKind::unsigned_int;
  bool descending = false;

  /// Whether encode and decode return their argument (unsigned keys,
  /// ascending): kernels can then skip the code altogether.
  TILESORT_HD bool is_identity() const { return kind == KeyKind::unsigned_int && !descending; }

  TILESORT_HD Bits encode(Bits raw) const {
    Bits ordered;
    if (kind == KeyKind::unsigned_int) {
      ordered = raw;
    } else if (kind == KeyKind::signed_int) {
      ordered = raw ^ kSign;
    } else {
      const Bits twiddled = (raw & kSign) ? Bits(~raw) : Bits(raw ^ kSign);
      ordered = Bits(twiddled - kNegNanCodes);
    }
    if (descending) ordered = mirror(ordered);
    return ordered;
  }

  TILESORT_HD Bits decode(Bits ordered) const {
    if (descending) ordered = mirror(ordered);  // mirror is an involution
    if (kind == KeyKind::unsigned_int) return ordered;
    if (kind == KeyKind::signed_int) return ordered ^ kSign;
    const Bits twiddled = Bits(ordered + kNegNanCodes);
    return (twiddled & kSign) ? Bits(twiddled ^ kSign) : Bits(~twiddled);
  }

 private:
  TILESORT_HD Bits mirror(Bits ordered) const {
    if (kind != KeyKind::floating) return Bits(~ordered);
    return ordered > kPosInf ? ordered : Bits(kPosInf - ordered);
  }
};

}  // namespace tilesort
