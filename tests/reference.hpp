// tilesort tests: an independent CPU reference for the segmented sort
// contract, plus generators for keys, values and segment layouts.
//
// The reference deliberately does NOT use the radix "order-preserving bits"
// trick for full-range comparisons: floats are ordered by explicit case
// analysis (NaN classes, signed zeros) and integers by their C++ value. Only
// partial bit ranges use the contract's definition (x XOR sign bit for signed
// keys), because that is how the contract defines them.
//
// Everything here is plain C++ (no CUDA) so the CPU self-tests run on CI.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tilesort/segmented_sort.hpp"

namespace tstest {

using tilesort::KeyType;
using tilesort::OffsetType;
using tilesort::Order;
using tilesort::ValueType;

using Rng = std::mt19937_64;

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------
inline const char* name_of(KeyType t) {
  switch (t) {
    case KeyType::u32: return "u32";
    case KeyType::i32: return "i32";
    case KeyType::f32: return "f32";
    case KeyType::u64: return "u64";
    case KeyType::i64: return "i64";
    case KeyType::f64: return "f64";
  }
  return "?";
}
inline const char* name_of(ValueType t) {
  switch (t) {
    case ValueType::none: return "none";
    case ValueType::b32: return "b32";
    case ValueType::b64: return "b64";
  }
  return "?";
}
inline const char* name_of(OffsetType t) { return t == OffsetType::u32 ? "off32" : "off64"; }
inline const char* name_of(Order o) { return o == Order::ascending ? "asc" : "desc"; }

inline std::size_t key_bytes(KeyType t) {
  switch (t) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32: return 4;
    default: return 8;
  }
}
inline int key_bits(KeyType t) { return int(key_bytes(t) * 8); }
inline std::size_t value_bytes(ValueType t) {
  return t == ValueType::none ? 0 : (t == ValueType::b32 ? 4 : 8);
}
inline std::size_t offset_bytes(OffsetType t) { return t == OffsetType::u32 ? 4 : 8; }
inline bool is_float(KeyType t) { return t == KeyType::f32 || t == KeyType::f64; }

// ---------------------------------------------------------------------------
// Raw bits of a key type
// ---------------------------------------------------------------------------
template <class K> struct KeyInfo;
template <> struct KeyInfo<std::uint32_t> { using Bits = std::uint32_t; };
template <> struct KeyInfo<std::int32_t> { using Bits = std::uint32_t; };
template <> struct KeyInfo<float> { using Bits = std::uint32_t; };
template <> struct KeyInfo<std::uint64_t> { using Bits = std::uint64_t; };
template <> struct KeyInfo<std::int64_t> { using Bits = std::uint64_t; };
template <> struct KeyInfo<double> { using Bits = std::uint64_t; };

template <class K> using BitsOf = typename KeyInfo<K>::Bits;

template <class K> BitsOf<K> to_bits(K k) {
  BitsOf<K> b;
  std::memcpy(&b, &k, sizeof b);
  return b;
}
template <class K> K from_bits(BitsOf<K> b) {
  K k;
  std::memcpy(&k, &b, sizeof k);
  return k;
}

/// IEEE layout constants of F (float or double).
template <class F> struct FloatLayout {
  using B = BitsOf<F>;
  static constexpr int kMantBits = std::numeric_limits<F>::digits - 1;  // 23 / 52
  static constexpr B kSign = B(1) << (sizeof(F) * 8 - 1);
  static constexpr B kMant = (B(1) << kMantBits) - 1;
  static constexpr B kExp = ~kSign & ~kMant;
  static constexpr B kQuiet = B(1) << (kMantBits - 1);
};

template <class F> bool bits_is_nan(F f) {
  using L = FloatLayout<F>;
  auto b = to_bits(f);
  return (b & L::kExp) == L::kExp && (b & L::kMant) != 0;
}
template <class F> bool bits_sign(F f) { return (to_bits(f) & FloatLayout<F>::kSign) != 0; }

// ---------------------------------------------------------------------------
// The contract's order, written out
// ---------------------------------------------------------------------------

/// Ascending order of two non-NaN floats: by value, and -0.0 before +0.0.
template <class F> bool non_nan_less(F a, F b) {
  if (a < b) return true;
  if (b < a) return false;
  // Equal values: only the zeros can still differ.
  return bits_sign(a) && !bits_sign(b);
}

/// Order of two NaNs (the same in both directions): sign bit 0 first, by
/// increasing raw bits; then sign bit 1, by decreasing raw bits.
template <class F> bool nan_less(F a, F b) {
  const bool sa = bits_sign(a), sb = bits_sign(b);
  if (sa != sb) return !sa;
  const auto ba = to_bits(a), bb = to_bits(b);
  return sa ? (ba > bb) : (ba < bb);
}

/// True when `a` must come strictly before `b` (full key, floats).
template <class F> bool float_before(F a, F b, Order order) {
  const bool na = bits_is_nan(a), nb = bits_is_nan(b);
  if (na != nb) return nb;  // NaNs are last in both orders
  if (na) return nan_less(a, b);
  return order == Order::ascending ? non_nan_less(a, b) : non_nan_less(b, a);
}

/// The contract's order-preserving key of an integer: the raw bits for
/// unsigned types, (x XOR sign bit) for signed types.
template <class I> std::uint64_t order_preserving_bits(I k) {
  static_assert(std::is_integral<I>::value, "integers only");
  using U = typename std::make_unsigned<I>::type;
  U u = static_cast<U>(k);
  if (std::is_signed<I>::value) u = static_cast<U>(u ^ (U(1) << (sizeof(I) * 8 - 1)));
  return std::uint64_t(u);
}

/// Bits [begin, end) of the order-preserving key (end = -1: all bits).
template <class I> std::uint64_t bit_field(I k, int begin_bit, int end_bit) {
  const int kb = int(sizeof(I) * 8);
  const int end = end_bit < 0 ? kb : end_bit;
  const int width = end - begin_bit;
  std::uint64_t v = order_preserving_bits(k) >> begin_bit;
  if (width < 64) v &= (std::uint64_t(1) << width) - 1;
  return v;
}

inline bool is_full_range(KeyType t, int begin_bit, int end_bit) {
  return begin_bit == 0 && (end_bit == -1 || end_bit == key_bits(t));
}

/// Strict weak order "a goes before b" for one key type, order and bit range.
template <class K> struct KeyBefore {
  Order order = Order::ascending;
  int begin_bit = 0;
  int end_bit = -1;
  bool full = true;

  KeyBefore(Order o, int b, int e) : order(o), begin_bit(b), end_bit(e) {
    const int kb = int(sizeof(K) * 8);
    full = (b == 0 && (e == -1 || e == kb));
    if (std::is_floating_point<K>::value && !full)
      throw std::invalid_argument("reference: partial bit ranges of float keys are implementation-defined");
  }

  bool operator()(K a, K b) const {
    if constexpr (std::is_floating_point<K>::value) {
      return float_before(a, b, order);
    } else {
      if (full) return order == Order::ascending ? (a < b) : (b < a);
      const std::uint64_t fa = bit_field(a, begin_bit, end_bit);
      const std::uint64_t fb = bit_field(b, begin_bit, end_bit);
      return order == Order::ascending ? (fa < fb) : (fb < fa);
    }
  }
};

// ---------------------------------------------------------------------------
// A test case: raw host bytes, ready to upload
// ---------------------------------------------------------------------------
struct HostCase {
  KeyType key_type = KeyType::u32;
  ValueType value_type = ValueType::none;
  OffsetType offset_type = OffsetType::u32;
  std::uint64_t n = 0;                  // items in the buffers (>= offsets.back())
  std::vector<unsigned char> keys;      // n * key_bytes
  std::vector<unsigned char> values;    // n * value_bytes (empty for none)
  std::vector<std::uint64_t> offsets;   // num_segments + 1 entries
  std::string description;              // for failure messages

  std::uint64_t num_segments() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::uint64_t last_offset() const { return offsets.empty() ? 0 : offsets.back(); }
  std::uint64_t longest_segment() const {
    std::uint64_t m = 0;
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) m = std::max(m, offsets[i + 1] - offsets[i]);
    return m;
  }
};

namespace detail {

template <class K>
void reference_sort_typed(Order order, int begin_bit, int end_bit, unsigned char* keys,
                          std::size_t vbytes, unsigned char* values,
                          const std::vector<std::uint64_t>& offsets) {
  const KeyBefore<K> before(order, begin_bit, end_bit);
  struct Item {
    K key;
    std::uint32_t idx;
  };
  std::vector<Item> items;
  std::vector<unsigned char> vtmp;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const std::uint64_t begin = offsets[s], end = offsets[s + 1];
    if (end <= begin + 1) continue;
    const std::uint64_t len = end - begin;
    items.resize(len);
    for (std::uint64_t j = 0; j < len; ++j) {
      std::memcpy(&items[j].key, keys + (begin + j) * sizeof(K), sizeof(K));
      items[j].idx = std::uint32_t(j);
    }
    std::stable_sort(items.begin(), items.end(),
                     [&](const Item& a, const Item& b) { return before(a.key, b.key); });
    for (std::uint64_t j = 0; j < len; ++j)
      std::memcpy(keys + (begin + j) * sizeof(K), &items[j].key, sizeof(K));
    if (vbytes) {
      vtmp.assign(values + begin * vbytes, values + end * vbytes);
      for (std::uint64_t j = 0; j < len; ++j)
        std::memcpy(values + (begin + j) * vbytes, vtmp.data() + std::size_t(items[j].idx) * vbytes, vbytes);
    }
  }
}

}  // namespace detail

/// Sorts keys (and values) of every segment in place, stably. Items outside
/// [offsets.front(), offsets.back()) are not touched.
inline void reference_segmented_sort(KeyType kt, Order order, int begin_bit, int end_bit,
                                     unsigned char* keys, std::size_t vbytes, unsigned char* values,
                                     const std::vector<std::uint64_t>& offsets) {
  switch (kt) {
    case KeyType::u32: return detail::reference_sort_typed<std::uint32_t>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
    case KeyType::i32: return detail::reference_sort_typed<std::int32_t>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
    case KeyType::f32: return detail::reference_sort_typed<float>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
    case KeyType::u64: return detail::reference_sort_typed<std::uint64_t>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
    case KeyType::i64: return detail::reference_sort_typed<std::int64_t>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
    case KeyType::f64: return detail::reference_sort_typed<double>(order, begin_bit, end_bit, keys, vbytes, values, offsets);
  }
  throw std::invalid_argument("reference: unknown key type");
}

/// The expected result of sorting `c` (a copy; `c` is left as the input).
inline HostCase reference_result(const HostCase& c, Order order, int begin_bit = 0, int end_bit = -1) {
  HostCase r = c;
  reference_segmented_sort(c.key_type, order, begin_bit, end_bit, r.keys.data(),
                           value_bytes(c.value_type), r.values.empty() ? nullptr : r.values.data(),
                           c.offsets);
  return r;
}

// ---------------------------------------------------------------------------
// Key generators
// ---------------------------------------------------------------------------
enum class Dist { uniform, specials, all_equal, presorted, reversed, few_unique, low16, dominant, mixed_runs };

inline const char* name_of(Dist d) {
  switch (d) {
    case Dist::uniform: return "uniform";
    case Dist::specials: return "specials";
    case Dist::all_equal: return "all_equal";
    case Dist::presorted: return "presorted";
    case Dist::reversed: return "reversed";
    case Dist::few_unique: return "few_unique";
    case Dist::low16: return "low16";
    case Dist::dominant: return "dominant";
    case Dist::mixed_runs: return "mixed_runs";
  }
  return "?";
}
inline const std::vector<Dist>& all_dists() {
  static const std::vector<Dist> d = {Dist::uniform, Dist::specials, Dist::all_equal, Dist::presorted,
                                      Dist::reversed, Dist::few_unique, Dist::low16, Dist::dominant,
                                      Dist::mixed_runs};
  return d;
}

/// Every special float class: zeros, infinities, NaNs of both signs with
/// quiet / signalling / all-ones / minimal payloads, denormals, extremes.
template <class F> std::vector<F> special_floats() {
  using L = FloatLayout<F>;
  using B = BitsOf<F>;
  const B min_normal = B(1) << L::kMantBits;
  const B max_finite = L::kExp - 1;
  const std::vector<B> bits = {
      B(0), L::kSign,                                       // +0, -0
      L::kExp, L::kSign | L::kExp,                          // +inf, -inf
      L::kExp | L::kQuiet, L::kSign | L::kExp | L::kQuiet,  // canonical qNaN +-
      L::kExp | 1, L::kSign | L::kExp | 1,                  // smallest sNaN +-
      L::kExp | L::kMant, L::kSign | L::kExp | L::kMant,    // all-ones payload +-
      L::kExp | L::kQuiet | 1, L::kSign | L::kExp | L::kQuiet | 5,
      B(1), L::kSign | 1,                                   // smallest denormal +-
      L::kMant, L::kSign | L::kMant,                        // largest denormal +-
      min_normal, L::kSign | min_normal,                    // smallest normal +-
      max_finite, L::kSign | max_finite,                    // largest finite +-
      to_bits(F(1)), to_bits(F(-1)), to_bits(F(0.5)), to_bits(F(-2.5)),
  };
  std::vector<F> out;
  for (B b : bits) out.push_back(from_bits<F>(b));
  return out;
}

template <class F> F random_nan(Rng& rng) {
  using L = FloatLayout<F>;
  using B = BitsOf<F>;
  B mant = B(rng()) & L::kMant;
  if (mant == 0) mant = 1;
  B sign = (rng() & 1) ? L::kSign : B(0);
  return from_bits<F>(sign | L::kExp | mant);
}

template <class K> K random_key_uniform(Rng& rng) {
  if constexpr (std::is_floating_point<K>::value) {
    const unsigned pick = unsigned(rng() % 100);
    if (pick < 60) {
      // Finite values over a wide range of magnitudes, both signs.
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      const int e = int(rng() % 81) - 40;
      return K(std::ldexp(u(rng), e));
    }
    if (pick < 75) return from_bits<K>(BitsOf<K>(rng()));  // any class, any payload
    if (pick < 85) return random_nan<K>(rng);
    static const std::vector<K> specials = special_floats<K>();
    return specials[rng() % specials.size()];
  } else {
    return static_cast<K>(BitsOf<K>(rng()));
  }
}

template <class K> K random_key_special(Rng& rng) {
  if constexpr (std::is_floating_point<K>::value) {
    static const std::vector<K> specials = special_floats<K>();
    if (rng() % 8 == 0) return random_nan<K>(rng);
    return specials[rng() % specials.size()];
  } else {
    using L = std::numeric_limits<K>;
    const K v[] = {L::min(), K(L::min() + 1), L::max(), K(L::max() - 1), K(0), K(1), K(-1)};
    return v[rng() % (sizeof v / sizeof v[0])];
  }
}

template <class K> void sort_whole(std::vector<K>& v, Order order) {
  std::stable_sort(v.begin(), v.end(), KeyBefore<K>(order, 0, -1));
}

template <class K> std::vector<K> generate_keys_typed(Dist dist, std::uint64_t n, Rng& rng) {
  std::vector<K> v(n);
  switch (dist) {
    case Dist::uniform:
    case Dist::presorted:
    case Dist::reversed:
      for (auto& k : v) k = random_key_uniform<K>(rng);
      if (dist == Dist::presorted) sort_whole(v, Order::ascending);
      if (dist == Dist::reversed) sort_whole(v, Order::descending);
      break;
    case Dist::specials:
      for (auto& k : v) k = random_key_special<K>(rng);
      break;
    case Dist::all_equal: {
      const K k0 = random_key_uniform<K>(rng);
      std::fill(v.begin(), v.end(), k0);
      break;
    }
    case Dist::few_unique: {
      std::vector<K> pool(1 + rng() % 8);
      for (auto& k : pool) k = random_key_uniform<K>(rng);
      for (auto& k : v) k = pool[rng() % pool.size()];
      break;
    }
    case Dist::low16:
      for (auto& k : v) k = from_bits<K>(BitsOf<K>(rng() & 0xFFFFu));
      break;
    case Dist::dominant: {
      // One key holds 40-80% of the items, the rest are random: a large
      // segment's MSD rounds keep splitting off the dominant key's bucket
      // with a few others in it, which the fallback finishes.
      const K k0 = random_key_uniform<K>(rng);
      const std::uint64_t percent = 40 + rng() % 41;
      for (auto& k : v) k = rng() % 100 < percent ? k0 : random_key_uniform<K>(rng);
      break;
    }
    case Dist::mixed_runs: {
      // Runs of 1-512 keys, each drawn from two keys or at random: in one
      // MSD scatter chunk some warps' keys hold two digits and others many,
      // so warps that choose match.any and warps that choose ballots
      // (rank_in_warp's per-warp choice) rank side by side.
      const K pool[2] = {random_key_uniform<K>(rng), random_key_uniform<K>(rng)};
      for (std::uint64_t i = 0; i < n;) {
        const std::uint64_t end = std::min<std::uint64_t>(n, i + 1 + rng() % 512);
        const bool repeated = rng() % 2 == 0;
        for (; i < end; ++i) v[i] = repeated ? pool[rng() % 2] : random_key_uniform<K>(rng);
      }
      break;
    }
  }
  return v;
}

inline std::vector<unsigned char> generate_keys(KeyType kt, Dist dist, std::uint64_t n, Rng& rng) {
  std::vector<unsigned char> out(n * key_bytes(kt));
  auto copy = [&](const auto& v) {
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  };
  switch (kt) {
    case KeyType::u32: copy(generate_keys_typed<std::uint32_t>(dist, n, rng)); break;
    case KeyType::i32: copy(generate_keys_typed<std::int32_t>(dist, n, rng)); break;
    case KeyType::f32: copy(generate_keys_typed<float>(dist, n, rng)); break;
    case KeyType::u64: copy(generate_keys_typed<std::uint64_t>(dist, n, rng)); break;
    case KeyType::i64: copy(generate_keys_typed<std::int64_t>(dist, n, rng)); break;
    case KeyType::f64: copy(generate_keys_typed<double>(dist, n, rng)); break;
  }
  return out;
}

/// Values are the item index (so the permutation, and with it stability, is
/// checked exactly); 64-bit values also carry a tag in the high half so a
/// lost upper word shows.
inline std::vector<unsigned char> index_values(ValueType vt, std::uint64_t n) {
  std::vector<unsigned char> out(n * value_bytes(vt));
  if (vt == ValueType::b32) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t v = std::uint32_t(i);
      std::memcpy(out.data() + i * 4, &v, 4);
    }
  } else if (vt == ValueType::b64) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t v = (std::uint64_t(0xC0DEu) << 48) | i;
      std::memcpy(out.data() + i * 8, &v, 8);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Segment layouts
// ---------------------------------------------------------------------------
enum class Layout {
  fixed,            // every segment the same size
  random_sizes,     // uniform random sizes
  with_empty,       // random sizes, many empty (first and last too)
  all_empty,        // every segment empty
  one_element,      // every segment one item
  power_law,        // Pareto-distributed sizes
  huge_among_tiny,  // one big segment among many of 0..3 items
  boundaries,       // sizes straddling every size-class boundary, shuffled
  boundaries_3m,    // the above plus one segment of ~3M items
};

inline const char* name_of(Layout l) {
  switch (l) {
    case Layout::fixed: return "fixed";
    case Layout::random_sizes: return "random_sizes";
    case Layout::with_empty: return "with_empty";
    case Layout::all_empty: return "all_empty";
    case Layout::one_element: return "one_element";
    case Layout::power_law: return "power_law";
    case Layout::huge_among_tiny: return "huge_among_tiny";
    case Layout::boundaries: return "boundaries";
    case Layout::boundaries_3m: return "boundaries_3m";
  }
  return "?";
}

inline void PrintTo(Layout l, std::ostream* os) { *os << name_of(l); }
inline void PrintTo(Dist d, std::ostream* os) { *os << name_of(d); }

/// Sizes around every size-class boundary, up to `max_size`.
inline std::vector<std::uint64_t> boundary_sizes(std::uint64_t max_size = UINT64_MAX) {
  const std::uint64_t centres[] = {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536};
  std::vector<std::uint64_t> s = {0, 1, 2, 3, 4, 5};
  for (std::uint64_t c : centres)
    for (std::uint64_t d : {c - 1, c, c + 1})
      if (d <= max_size) s.push_back(d);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// Segment sizes for a layout. `budget` bounds the total of the random
/// layouts (the boundary layouts have fixed sizes).
inline std::vector<std::uint64_t> make_segment_sizes(Layout layout, Rng& rng, std::uint64_t budget) {
  std::vector<std::uint64_t> s;
  budget = std::max<std::uint64_t>(budget, 16);
  auto rnd = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  switch (layout) {
    case Layout::fixed: {
      const std::uint64_t choices[] = {1, 2, 3, 5, 8, 16, 31, 64, 100, 256, 257, 1000, 1024, 1025, 4096, 8193, 20000};
      std::uint64_t size = choices[rng() % (sizeof choices / sizeof choices[0])];
      size = std::min(size, budget);
      s.assign(std::max<std::uint64_t>(1, budget / size), size);
      break;
    }
    case Layout::random_sizes:
    case Layout::with_empty: {
      const std::uint64_t maxes[] = {8, 40, 300, 3000, 20000};
      const std::uint64_t mx = std::min(budget, maxes[rng() % 5]);
      std::uint64_t total = 0;
      if (layout == Layout::with_empty) s.push_back(0);
      while (true) {
        std::uint64_t sz = (layout == Layout::with_empty && rng() % 5 < 2) ? 0 : rnd(0, mx);
        if (total + sz > budget) break;
        total += sz;
        s.push_back(sz);
      }
      if (layout == Layout::with_empty) s.push_back(0);
      break;
    }
    case Layout::all_empty:
      s.assign(rnd(1, 3000), 0);
      break;
    case Layout::one_element:
      s.assign(rnd(1, std::min<std::uint64_t>(budget, 100000)), 1);
      break;
    case Layout::power_law: {
      std::uniform_real_distribution<double> u(1e-9, 1.0);
      const double cap = double(std::min<std::uint64_t>(budget / 2, 1u << 20));
      std::uint64_t total = 0;
      while (true) {
        const double x = std::min(cap, std::floor(std::pow(u(rng), -1.0 / 1.1)) - 1.0);
        const std::uint64_t sz = std::uint64_t(std::max(0.0, x));
        if (total + sz > budget) break;
        total += sz;
        s.push_back(sz);
      }
      break;
    }
    case Layout::huge_among_tiny: {
      const std::uint64_t huge = budget / 2;
      std::uint64_t tiny_total = 0;
      while (tiny_total + 3 <= budget - huge && s.size() < (1u << 20)) {
        const std::uint64_t sz = rnd(0, 3);
        tiny_total += sz;
        s.push_back(sz);
      }
      s.insert(s.begin() + std::ptrdiff_t(rng() % (s.size() + 1)), huge);
      break;
    }
    case Layout::boundaries:
    case Layout::boundaries_3m: {
      s = boundary_sizes();
      // Twice each, so neighbours of every class share launches.
      const std::size_t k = s.size();
      for (std::size_t i = 0; i < k; ++i) s.push_back(s[i]);
      if (layout == Layout::boundaries_3m) s.push_back(3000000 + rng() % 1000);
      std::shuffle(s.begin(), s.end(), rng);
      break;
    }
  }
  if (s.empty()) s.push_back(0);
  return s;
}

inline std::vector<std::uint64_t> offsets_from_sizes(const std::vector<std::uint64_t>& sizes, std::uint64_t first) {
  std::vector<std::uint64_t> o(sizes.size() + 1);
  o[0] = first;
  for (std::size_t i = 0; i < sizes.size(); ++i) o[i + 1] = o[i] + sizes[i];
  return o;
}

/// Builds a case: `prefix` items before offsets[0] and `suffix` items after
/// the last offset (both must stay untouched), keys from `dist`, values =
/// item index.
inline HostCase make_case(KeyType kt, ValueType vt, OffsetType ot, const std::vector<std::uint64_t>& sizes,
                          Dist dist, Rng& rng, std::uint64_t prefix = 0, std::uint64_t suffix = 0) {
  HostCase c;
  c.key_type = kt;
  c.value_type = vt;
  c.offset_type = ot;
  c.offsets = offsets_from_sizes(sizes, prefix);
  c.n = c.offsets.back() + suffix;
  c.keys = generate_keys(kt, dist, c.n, rng);
  c.values = index_values(vt, c.n);
  std::ostringstream d;
  d << name_of(kt) << "/" << name_of(vt) << "/" << name_of(ot) << " dist=" << name_of(dist)
    << " segments=" << sizes.size() << " items=" << c.n << " prefix=" << prefix << " suffix=" << suffix
    << " longest=" << c.longest_segment();
  c.description = d.str();
  return c;
}

}  // namespace tstest
