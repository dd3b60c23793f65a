// CPU self-tests of the reference and generators (run on CI, no GPU): the
// GPU tests are only as good as the reference they compare against.
#include <gtest/gtest.h>

#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "reference.hpp"

namespace tstest {
namespace {

template <class K> std::vector<K> sort_one_segment(std::vector<K> keys, Order order, int b = 0, int e = -1,
                                                   std::vector<std::uint32_t>* perm = nullptr) {
  std::vector<unsigned char> kb(keys.size() * sizeof(K)), vb(keys.size() * 4);
  std::memcpy(kb.data(), keys.data(), kb.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) std::memcpy(vb.data() + 4 * i, &i, 4);
  reference_segmented_sort(tilesort::key_type_of<K>(), order, b, e, kb.data(), 4, vb.data(), {0, keys.size()});
  std::memcpy(keys.data(), kb.data(), kb.size());
  if (perm) {
    perm->resize(keys.size());
    std::memcpy(perm->data(), vb.data(), vb.size());
  }
  return keys;
}

template <class F> std::vector<BitsOf<F>> bits_of(const std::vector<F>& v) {
  std::vector<BitsOf<F>> b;
  for (F f : v) b.push_back(to_bits(f));
  return b;
}

// The contract's float order, written out by hand for f32.
TEST(Reference, FloatTotalOrderF32) {
  const std::vector<std::uint32_t> ascending = {
      0xff800000u,  // -inf
      0xff7fffffu,  // -FLT_MAX
      0xbf800000u,  // -1
      0x80800000u,  // -FLT_MIN
      0x807fffffu,  // largest negative denormal magnitude
      0x80000001u,  // -smallest denormal
      0x80000000u,  // -0
      0x00000000u,  // +0
      0x00000001u,  // +smallest denormal
      0x3f800000u,  // 1
      0x7f7fffffu,  // FLT_MAX
      0x7f800000u,  // +inf
      0x7f800001u,  // +NaN, increasing raw bits
      0x7fc00000u,
      0x7fffffffu,
      0xffffffffu,  // -NaN, decreasing raw bits
      0xffc00000u,
      0xff800001u,
  };
  const std::vector<std::uint32_t> descending = {
      0x7f800000u, 0x7f7fffffu, 0x3f800000u, 0x00000001u, 0x00000000u, 0x80000000u,
      0x80000001u, 0x807fffffu, 0x80800000u, 0xbf800000u, 0xff7fffffu, 0xff800000u,
      // NaNs: same order as ascending, still last.
      0x7f800001u, 0x7fc00000u, 0x7fffffffu, 0xffffffffu, 0xffc00000u, 0xff800001u,
  };
  Rng rng(1);
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<float> in;
    for (auto b : ascending) in.push_back(from_bits<float>(b));
    std::shuffle(in.begin(), in.end(), rng);
    EXPECT_EQ(bits_of(sort_one_segment(in, Order::ascending)), ascending);
    EXPECT_EQ(bits_of(sort_one_segment(in, Order::descending)), descending);
  }
}

TEST(Reference, FloatTotalOrderF64) {
  const std::vector<std::uint64_t> ascending = {
      0xfff0000000000000ull, 0xbff0000000000000ull, 0x8000000000000001ull, 0x8000000000000000ull,
      0x0000000000000000ull, 0x000fffffffffffffull, 0x4000000000000000ull, 0x7ff0000000000000ull,
      0x7ff0000000000001ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0xfff0000000000001ull,
  };
  const std::vector<std::uint64_t> descending = {
      0x7ff0000000000000ull, 0x4000000000000000ull, 0x000fffffffffffffull, 0x0000000000000000ull,
      0x8000000000000000ull, 0x8000000000000001ull, 0xbff0000000000000ull, 0xfff0000000000000ull,
      0x7ff0000000000001ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0xfff0000000000001ull,
  };
  std::vector<double> in;
  for (auto b : ascending) in.push_back(from_bits<double>(b));
  std::reverse(in.begin(), in.end());
  EXPECT_EQ(bits_of(sort_one_segment(in, Order::ascending)), ascending);
  EXPECT_EQ(bits_of(sort_one_segment(in, Order::descending)), descending);
}

TEST(Reference, StableInBothOrders) {
  const std::vector<std::int32_t> in = {3, 1, 3, 2, 1, 3, -5, 2};
  std::vector<std::uint32_t> perm;
  EXPECT_EQ(sort_one_segment(in, Order::ascending, 0, -1, &perm), (std::vector<std::int32_t>{-5, 1, 1, 2, 2, 3, 3, 3}));
  EXPECT_EQ(perm, (std::vector<std::uint32_t>{6, 1, 4, 3, 7, 0, 2, 5}));
  EXPECT_EQ(sort_one_segment(in, Order::descending, 0, -1, &perm), (std::vector<std::int32_t>{3, 3, 3, 2, 2, 1, 1, -5}));
  EXPECT_EQ(perm, (std::vector<std::uint32_t>{0, 2, 5, 3, 7, 1, 4, 6}));
}

TEST(Reference, EqualFloatBitsAreStable) {
  const float nan = from_bits<float>(0x7fc00000u), zero = 0.0f, negzero = -0.0f;
  const std::vector<float> in = {nan, zero, negzero, nan, zero, negzero};
  std::vector<std::uint32_t> perm;
  sort_one_segment(in, Order::ascending, 0, -1, &perm);
  EXPECT_EQ(perm, (std::vector<std::uint32_t>{2, 5, 1, 4, 0, 3}));
  sort_one_segment(in, Order::descending, 0, -1, &perm);
  EXPECT_EQ(perm, (std::vector<std::uint32_t>{1, 4, 2, 5, 0, 3}));
}

TEST(Reference, BitRangeUnsigned) {
  // Bits [4, 8): 0x1F -> 1, 0x20 -> 2, 0x0F -> 0, 0x13 -> 1, 0xF00 -> 0.
  const std::vector<std::uint32_t> in = {0x1F, 0x20, 0x0F, 0x13, 0xF00};
  std::vector<std::uint32_t> perm;
  EXPECT_EQ(sort_one_segment(in, Order::ascending, 4, 8, &perm), (std::vector<std::uint32_t>{0x0F, 0xF00, 0x1F, 0x13, 0x20}));
  EXPECT_EQ(sort_one_segment(in, Order::descending, 4, 8, &perm), (std::vector<std::uint32_t>{0x20, 0x1F, 0x13, 0x0F, 0xF00}));
  // end_bit = -1: bits [4, 32).
  EXPECT_EQ(sort_one_segment(in, Order::ascending, 4, -1), (std::vector<std::uint32_t>{0x0F, 0x1F, 0x13, 0x20, 0xF00}));
}

TEST(Reference, BitRangeSignedUsesFlippedSignBit) {
  // Top bit of (x XOR sign bit): negatives 0, non-negatives 1.
  const std::vector<std::int32_t> in = {0, -1, INT_MAX, INT_MIN, 5, -7};
  EXPECT_EQ(sort_one_segment(in, Order::ascending, 31, 32), (std::vector<std::int32_t>{-1, INT_MIN, -7, 0, INT_MAX, 5}));
  EXPECT_EQ(sort_one_segment(in, Order::descending, 31, 32), (std::vector<std::int32_t>{0, INT_MAX, 5, -1, INT_MIN, -7}));
  // Full range through the bit-field path equals plain integer order.
  Rng rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t a = std::int64_t(rng()), b = std::int64_t(rng());
    ASSERT_EQ(bit_field(a, 0, 64) < bit_field(b, 0, 64), a < b);
    const std::int32_t c = std::int32_t(rng()), d = std::int32_t(rng());
    ASSERT_EQ(bit_field(c, 0, -1) < bit_field(d, 0, -1), c < d);
  }
}

TEST(Reference, FloatPartialBitRangeIsRefused) {
  std::vector<unsigned char> k(8);
  EXPECT_THROW(reference_segmented_sort(KeyType::f32, Order::ascending, 0, 16, k.data(), 0, nullptr, {0, 2}),
               std::invalid_argument);
  EXPECT_NO_THROW(reference_segmented_sort(KeyType::f32, Order::ascending, 0, 32, k.data(), 0, nullptr, {0, 2}));
}

TEST(Reference, OnlySegmentsAreTouched) {
  Rng rng(3);
  HostCase c = make_case(KeyType::u64, ValueType::b64, OffsetType::u64, {5, 0, 7}, Dist::uniform, rng, 4, 6);
  ASSERT_EQ(c.n, 22u);
  const HostCase r = reference_result(c, Order::ascending);
  EXPECT_TRUE(std::equal(c.keys.begin(), c.keys.begin() + 4 * 8, r.keys.begin()));
  EXPECT_TRUE(std::equal(c.keys.begin() + 16 * 8, c.keys.end(), r.keys.begin() + 16 * 8));
  EXPECT_TRUE(std::equal(c.values.begin() + 16 * 8, c.values.end(), r.values.begin() + 16 * 8));
  std::uint64_t k[22];
  std::memcpy(k, r.keys.data(), sizeof k);
  EXPECT_TRUE(std::is_sorted(k + 4, k + 9));
  EXPECT_TRUE(std::is_sorted(k + 9, k + 16));
}

TEST(Generators, BoundarySizesCoverEveryClassEdge) {
  const auto s = boundary_sizes();
  const std::set<std::uint64_t> have(s.begin(), s.end());
  for (std::uint64_t want : {0ull, 1ull, 2ull, 7ull, 8ull, 9ull, 15ull, 16ull, 17ull, 31ull, 32ull, 33ull, 63ull, 64ull,
                             65ull, 127ull, 128ull, 129ull, 255ull, 256ull, 257ull, 511ull, 512ull, 513ull, 1023ull,
                             1024ull, 1025ull, 2047ull, 2048ull, 2049ull, 4095ull, 4096ull, 4097ull, 8191ull, 8192ull,
                             8193ull, 16383ull, 16384ull, 16385ull, 65535ull, 65536ull, 65537ull})
    EXPECT_TRUE(have.count(want)) << want;
  Rng rng(5);
  const auto big = make_segment_sizes(Layout::boundaries_3m, rng, 0);
  EXPECT_GE(*std::max_element(big.begin(), big.end()), 3000000u);
}

TEST(Generators, LayoutsRespectBudget) {
  Rng rng(11);
  for (Layout l : {Layout::fixed, Layout::random_sizes, Layout::with_empty, Layout::all_empty, Layout::one_element,
                   Layout::power_law, Layout::huge_among_tiny}) {
    for (int rep = 0; rep < 20; ++rep) {
      const std::uint64_t budget = 10000 + rng() % 100000;
      const auto s = make_segment_sizes(l, rng, budget);
      ASSERT_FALSE(s.empty()) << name_of(l);
      const std::uint64_t total = std::accumulate(s.begin(), s.end(), std::uint64_t(0));
      EXPECT_LE(total, budget + 1) << name_of(l);
      if (l == Layout::all_empty) {
        EXPECT_EQ(total, 0u);
      }
      if (l == Layout::with_empty) {
        EXPECT_TRUE(s.front() == 0 && s.back() == 0);
      }
    }
  }
}

TEST(Generators, SpecialFloatsCoverEveryClass) {
  Rng rng(9);
  const auto k = generate_keys_typed<float>(Dist::specials, 20000, rng);
  bool pos_nan = false, neg_nan = false, pos_zero = false, neg_zero = false, inf = false, ninf = false, denorm = false;
  for (float f : k) {
    const std::uint32_t b = to_bits(f);
    pos_nan |= bits_is_nan(f) && !bits_sign(f);
    neg_nan |= bits_is_nan(f) && bits_sign(f);
    pos_zero |= b == 0;
    neg_zero |= b == 0x80000000u;
    inf |= b == 0x7f800000u;
    ninf |= b == 0xff800000u;
    denorm |= (b & 0x7f800000u) == 0 && (b & 0x7fffffu) != 0;
  }
  EXPECT_TRUE(pos_nan && neg_nan && pos_zero && neg_zero && inf && ninf && denorm);
}

TEST(Generators, DistributionsHaveTheirShape) {
  Rng rng(13);
  const auto pre = generate_keys_typed<std::int64_t>(Dist::presorted, 1000, rng);
  EXPECT_TRUE(std::is_sorted(pre.begin(), pre.end()));
  const auto rev = generate_keys_typed<std::int32_t>(Dist::reversed, 1000, rng);
  EXPECT_TRUE(std::is_sorted(rev.rbegin(), rev.rend()));
  const auto eq = generate_keys_typed<double>(Dist::all_equal, 100, rng);
  for (double d : eq) EXPECT_EQ(to_bits(d), to_bits(eq[0]));
  const auto few = generate_keys_typed<std::uint32_t>(Dist::few_unique, 1000, rng);
  EXPECT_LE(std::set<std::uint32_t>(few.begin(), few.end()).size(), 8u);
  const auto low = generate_keys_typed<std::uint64_t>(Dist::low16, 1000, rng);
  for (auto v : low) EXPECT_LE(v, 0xFFFFu);
  const auto dom = generate_keys_typed<std::uint32_t>(Dist::dominant, 10000, rng);
  std::map<std::uint32_t, int> counts;
  for (auto v : dom) ++counts[v];
  int most = 0;
  for (const auto& [key, count] : counts) most = std::max(most, count);
  EXPECT_GE(most, 3500);
  EXPECT_LE(most, 8500);
  EXPECT_GT(counts.size(), 1000u);
  // mixed_runs: 32-key windows (a warp's keys in an MSD chunk) with at most
  // two distinct top bytes and windows with more than 10, both plentiful.
  const auto mixed = generate_keys_typed<std::uint64_t>(Dist::mixed_runs, 1 << 16, rng);
  int few_digits = 0, many_digits = 0;
  for (std::size_t w = 0; w + 32 <= mixed.size(); w += 32) {
    std::set<std::uint64_t> top;
    for (std::size_t i = w; i < w + 32; ++i) top.insert(mixed[i] >> 56);
    few_digits += top.size() <= 2;
    many_digits += top.size() > 10;
  }
  EXPECT_GT(few_digits, 300);
  EXPECT_GT(many_digits, 300);
}

}  // namespace
}  // namespace tstest
