// Thread-level pieces of the device sorting API.
//
//  * KeyTraits<Key>: the encoded bit type and KeyKind of every key type the
//    host API supports (u32/i32/f32/u64/i64/f64), and the codec for an order.
//  * SortWord<Bits>: an encoded key plus its input position, compared as one
//    total order. Sorting words with any network (stable or not) therefore
//    gives the stable order of the keys, and the position says where each
//    key's value is. For 32-bit keys the word is one 64-bit integer
//    (key << 32 | position), so a compare is one 64-bit compare.
//  * thread::sort_network: a bitonic network over ITEMS words in registers.
//
// Every function here is a pure register operation: no shared memory, no
// synchronisation.
#pragma once

#include <cstdint>
#include <cstring>

#include "tilesort/thread/key_codec.cuh"

namespace tilesort {

/// Value type for keys-only sorts: block::BlockSort<float, KeysOnly, 256, 8>.
struct KeysOnly {};

/// Key type -> encoded bits and kind. Specialised for the host API's key types.
template <class Key> struct KeyTraits;
template <> struct KeyTraits<std::uint32_t> { using Bits = std::uint32_t; static constexpr KeyKind kKind = KeyKind::unsigned_int; };
template <> struct KeyTraits<std::int32_t> { using Bits = std::uint32_t; static constexpr KeyKind kKind = KeyKind::signed_int; };
template <> struct KeyTraits<float> { using Bits = std::uint32_t; static constexpr KeyKind kKind = KeyKind::floating; };
template <> struct KeyTraits<std::uint64_t> { using Bits = std::uint64_t; static constexpr KeyKind kKind = KeyKind::unsigned_int; };
template <> struct KeyTraits<std::int64_t> { using Bits = std::uint64_t; static constexpr KeyKind kKind = KeyKind::signed_int; };
template <> struct KeyTraits<double> { using Bits = std::uint64_t; static constexpr KeyKind kKind = KeyKind::floating; };

/// The codec that maps keys of type Key to encoded bits whose unsigned order
/// is the requested order (NaNs last in both orders, -0.0 before +0.0).
template <class Key>
TILESORT_HD KeyCodec<typename KeyTraits<Key>::Bits> codec_for(bool descending) {
  KeyCodec<typename KeyTraits<Key>::Bits> codec;
  codec.kind = KeyTraits<Key>::kKind;
  codec.descending = descending;
  return codec;
}

/// Reinterprets the bits of `from` (same size) without changing them.
template <class To, class From>
TILESORT_HD To bit_cast_to(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast_to: sizes differ");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

/// A 4- or 8-byte value in 32-bit shared-memory planes `stride` words apart:
/// its low word at plane[a], its high word (8 bytes) at plane[stride + a],
/// so a warp's accesses to one plane stay one word per bank.
template <class V>
TILESORT_HD void store_in_planes(std::uint32_t* plane, int stride, int a, const V& value) {
  static_assert(sizeof(V) == 4 || sizeof(V) == 8, "4- or 8-byte values");
  if constexpr (sizeof(V) == 4) {
    plane[a] = bit_cast_to<std::uint32_t>(value);
  } else {
    const std::uint64_t b = bit_cast_to<std::uint64_t>(value);
    plane[a] = std::uint32_t(b);
    plane[stride + a] = std::uint32_t(b >> 32);
  }
}
template <class V>
TILESORT_HD V load_from_planes(const std::uint32_t* plane, int stride, int a) {
  static_assert(sizeof(V) == 4 || sizeof(V) == 8, "4- or 8-byte values");
  if constexpr (sizeof(V) == 4) return bit_cast_to<V>(plane[a]);
  else return bit_cast_to<V>((std::uint64_t(plane[stride + a]) << 32) | plane[a]);
}

/// Encoded key + input position, ordered by (key, position).
template <class Bits> struct SortWord;

template <> struct SortWord<std::uint32_t> {
  std::uint64_t bits;
  /// 32-bit planes a word is moved through shared memory as.
  static constexpr int kPlanes = 2;

  static TILESORT_HD SortWord make(std::uint32_t key, std::uint32_t position) {
    return SortWord{(std::uint64_t(key) << 32) | position};
  }
  /// Larger than every word made from a real item: padding.
  static TILESORT_HD SortWord padding() { return SortWord{~std::uint64_t(0)}; }
  TILESORT_HD std::uint32_t key() const { return std::uint32_t(bits >> 32); }
  TILESORT_HD std::uint32_t position() const { return std::uint32_t(bits); }
  TILESORT_HD std::uint32_t plane(int p) const { return p == 0 ? std::uint32_t(bits) : std::uint32_t(bits >> 32); }
  static TILESORT_HD SortWord from_planes(const std::uint32_t (&planes)[kPlanes]) {
    return SortWord{(std::uint64_t(planes[1]) << 32) | planes[0]};
  }
  friend TILESORT_HD bool operator<(const SortWord& a, const SortWord& b) { return a.bits < b.bits; }
};

template <> struct SortWord<std::uint64_t> {
  std::uint64_t key_bits;
  std::uint32_t pos;
  static constexpr int kPlanes = 3;

  static TILESORT_HD SortWord make(std::uint64_t key, std::uint32_t position) { return SortWord{key, position}; }
  static TILESORT_HD SortWord padding() { return SortWord{~std::uint64_t(0), ~std::uint32_t(0)}; }
  TILESORT_HD std::uint64_t key() const { return key_bits; }
  TILESORT_HD std::uint32_t position() const { return pos; }
  TILESORT_HD std::uint32_t plane(int p) const {
    return p == 0 ? pos : (p == 1 ? std::uint32_t(key_bits) : std::uint32_t(key_bits >> 32));
  }
  static TILESORT_HD SortWord from_planes(const std::uint32_t (&planes)[kPlanes]) {
    return SortWord{(std::uint64_t(planes[2]) << 32) | planes[1], planes[0]};
  }
  friend TILESORT_HD bool operator<(const SortWord& a, const SortWord& b) {
    return a.key_bits < b.key_bits || (a.key_bits == b.key_bits && a.pos < b.pos);
  }
};

/// A key of at most 16 bits and a position below 65536 packed into one
/// 32-bit word (key << 16 | position): half the registers, shuffles and
/// shared-memory traffic of SortWord<std::uint32_t>. For sorts whose compared
/// bit range is that narrow (e.g. quantised depths) in tiles of at most
/// 65536 items.
struct NarrowSortWord {
  std::uint32_t bits;
  static constexpr int kPlanes = 1;
  static constexpr int kKeyBits = 16;  // a range of at most this many compared bits fits
  static constexpr int kMaxItems = 1 << 16;
  static TILESORT_HD NarrowSortWord make(std::uint32_t key16, std::uint32_t position) {
    return NarrowSortWord{(key16 << 16) | position};
  }
  /// Not smaller than any real word; equal only to (0xFFFF, 65535), which can
  /// be a real item only in a full tile, where there is no padding.
  static TILESORT_HD NarrowSortWord padding() { return NarrowSortWord{~std::uint32_t(0)}; }
  TILESORT_HD std::uint32_t key() const { return bits >> 16; }
  TILESORT_HD std::uint32_t position() const { return bits & 0xFFFFu; }
  TILESORT_HD std::uint32_t plane(int) const { return bits; }
  static TILESORT_HD NarrowSortWord from_planes(const std::uint32_t (&planes)[kPlanes]) {
    return NarrowSortWord{planes[0]};
  }
  friend TILESORT_HD bool operator<(const NarrowSortWord& a, const NarrowSortWord& b) { return a.bits < b.bits; }
};

/// An encoded 32-bit key alone, for sorts in which equal keys are
/// interchangeable (keys without values, every bit compared): no position,
/// so half the data of SortWord<std::uint32_t>, and the order among equal
/// keys is not kept. Padding equals the largest key, which is harmless for
/// the same reason.
struct KeyWord {
  std::uint32_t bits;
  static constexpr int kPlanes = 1;
  static TILESORT_HD KeyWord make(std::uint32_t key, std::uint32_t) { return KeyWord{key}; }
  static TILESORT_HD KeyWord padding() { return KeyWord{~std::uint32_t(0)}; }
  TILESORT_HD std::uint32_t key() const { return bits; }
  TILESORT_HD std::uint32_t plane(int) const { return bits; }
  static TILESORT_HD KeyWord from_planes(const std::uint32_t (&planes)[kPlanes]) { return KeyWord{planes[0]}; }
  friend TILESORT_HD bool operator<(const KeyWord& a, const KeyWord& b) { return a.bits < b.bits; }
};

namespace thread {

/// Orders a pair: afterwards `lo` precedes `hi` when `ascending`, else the
/// reverse. Host and device (warp_merge_sort.cuh's network is tested on the CPU).
template <class Word>
TILESORT_HD void compare_exchange(Word& lo, Word& hi, bool ascending) {
  const bool swap = (hi < lo) == ascending;
  const Word a = swap ? hi : lo;
  const Word b = swap ? lo : hi;
  lo = a;
  hi = b;
}

/// Sorts ITEMS words held in one thread's registers, ascending (descending
/// when `descending`), with a bitonic network: ITEMS * log2(ITEMS)^2 / 4
/// compare-exchanges, all with compile-time register indices.
/// Precondition: ITEMS is a power of two. No synchronisation.
template <int ITEMS, class Word>
__device__ __forceinline__ void sort_network(Word (&word)[ITEMS], bool descending = false) {
  static_assert(ITEMS >= 1 && (ITEMS & (ITEMS - 1)) == 0, "ITEMS: power of two");
#pragma unroll
  for (int size = 2; size <= ITEMS; size <<= 1) {
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        if (r & stride) continue;
        const bool ascending = ((r & size) == 0 || size == ITEMS) != descending;
        compare_exchange(word[r], word[r | stride], ascending);
      }
    }
  }
}

}  // namespace thread
}  // namespace tilesort
