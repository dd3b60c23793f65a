// GPU differential tests: segmented_sort against the CPU reference, over all
// key / value / offset types and both orders, every layout and distribution.
//
// Seeds: TILESORT_TEST_SEED=<n> reproduces a run (printed at start and in
// every failure). TILESORT_TEST_SMALL=1 shrinks everything. Tests whose name
// contains "Sanitizer" form the small subset meant for compute-sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"

namespace tstest {
namespace {

struct Combo {
  KeyType key;
  ValueType value;
  OffsetType offset;
  Order order;
};

std::string combo_name(const Combo& c) {
  return std::string(name_of(c.key)) + "_" + name_of(c.value) + "_" + name_of(c.offset) + "_" + name_of(c.order);
}

void PrintTo(const Combo& c, std::ostream* os) { *os << combo_name(c); }

std::vector<Combo> all_combos() {
  std::vector<Combo> v;
  for (KeyType k : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64, KeyType::i64, KeyType::f64})
    for (ValueType val : {ValueType::none, ValueType::b32, ValueType::b64})
      for (OffsetType o : {OffsetType::u32, OffsetType::u64})
        for (Order ord : {Order::ascending, Order::descending}) v.push_back({k, val, o, ord});
  return v;
}

/// One combo per (key width, value width) kernel instance, mixing key kinds,
/// offset types and orders.
std::vector<Combo> instance_combos() {
  return {
      {KeyType::u32, ValueType::none, OffsetType::u32, Order::ascending},
      {KeyType::f32, ValueType::b32, OffsetType::u64, Order::descending},
      {KeyType::i32, ValueType::b64, OffsetType::u32, Order::descending},
      {KeyType::u64, ValueType::none, OffsetType::u64, Order::descending},
      {KeyType::f64, ValueType::b32, OffsetType::u32, Order::ascending},
      {KeyType::i64, ValueType::b64, OffsetType::u64, Order::ascending},
  };
}

/// The instance combos plus the remaining key kinds / orders.
std::vector<Combo> spread_combos() {
  auto v = instance_combos();
  v.push_back({KeyType::f32, ValueType::b64, OffsetType::u32, Order::ascending});
  v.push_back({KeyType::f64, ValueType::none, OffsetType::u64, Order::descending});
  return v;
}

const Layout kRandomLayouts[] = {Layout::fixed,       Layout::random_sizes, Layout::with_empty,     Layout::all_empty,
                                 Layout::one_element, Layout::power_law,    Layout::huge_among_tiny};

std::vector<std::uint64_t> shuffled_boundaries(Rng& rng, std::uint64_t max_size, int copies) {
  std::vector<std::uint64_t> s;
  for (int i = 0; i < copies; ++i) {
    const auto b = boundary_sizes(max_size);
    s.insert(s.end(), b.begin(), b.end());
  }
  std::shuffle(s.begin(), s.end(), rng);
  return s;
}

// ---------------------------------------------------------------------------
// Randomized differential test over all 72 type / order combinations
// ---------------------------------------------------------------------------
class SegmentedSortTypes : public GpuTest, public ::testing::WithParamInterface<Combo> {};

TEST_P(SegmentedSortTypes, RandomizedDifferential) {
  TS_TRACE_SEED();
  const Combo p = GetParam();
  const bool small = small_mode();
  {
    SCOPED_TRACE("layout=boundaries");
    const auto sizes = shuffled_boundaries(rng_, small ? 2049 : 65537, 1);
    const Dist dist = (rng_() & 1) ? Dist::uniform : all_dists()[rng_() % all_dists().size()];
    const std::uint64_t prefix = random_pad(rng_), suffix = random_pad(rng_);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng_, prefix, suffix);
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, p.order, c)));
  }
  for (int rep = 0; rep < 4; ++rep) {
    const Layout layout = kRandomLayouts[rng_() % (sizeof kRandomLayouts / sizeof kRandomLayouts[0])];
    const Dist dist = all_dists()[rng_() % all_dists().size()];
    const std::uint64_t budget = 1 + rng_() % (small ? 20000 : 300000);
    SCOPED_TRACE(::testing::Message() << "rep " << rep << " layout=" << name_of(layout) << " budget=" << budget);
    const auto sizes = make_segment_sizes(layout, rng_, budget);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, p.order, c)));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, SegmentedSortTypes, ::testing::ValuesIn(all_combos()),
                         [](const ::testing::TestParamInfo<Combo>& info) { return combo_name(info.param); });

// ---------------------------------------------------------------------------
// Every segment layout, over a spread of types
// ---------------------------------------------------------------------------
class SegmentedSortLayouts : public GpuTest, public ::testing::WithParamInterface<Layout> {};

TEST_P(SegmentedSortLayouts, SpreadOfTypes) {
  TS_TRACE_SEED();
  const Layout layout = GetParam();
  if (layout == Layout::boundaries_3m) {
    TS_SKIP_IF_SMALL();
  }
  for (const Combo& p : spread_combos()) {
    const std::uint64_t budget = small_mode() ? 20000 : 400000;
    auto sizes = make_segment_sizes(layout, rng_, budget);
    if (small_mode() && layout == Layout::boundaries) sizes = shuffled_boundaries(rng_, 8193, 1);
    const Dist dist = (rng_() % 3 == 0) ? all_dists()[rng_() % all_dists().size()] : Dist::uniform;
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
    SCOPED_TRACE(combo_name(p));
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, p.order, c)));
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, SegmentedSortLayouts,
                         ::testing::Values(Layout::fixed, Layout::random_sizes, Layout::with_empty, Layout::all_empty,
                                           Layout::one_element, Layout::power_law, Layout::huge_among_tiny,
                                           Layout::boundaries, Layout::boundaries_3m),
                         [](const ::testing::TestParamInfo<Layout>& info) { return std::string(name_of(info.param)); });

// ---------------------------------------------------------------------------
// Every key distribution, over every key type and both orders
// ---------------------------------------------------------------------------
class SegmentedSortDistributions : public GpuTest, public ::testing::WithParamInterface<Dist> {};

TEST_P(SegmentedSortDistributions, AllKeyTypesBothOrders) {
  TS_TRACE_SEED();
  const Dist dist = GetParam();
  const ValueType vts[] = {ValueType::none, ValueType::b32, ValueType::b64};
  int i = 0;
  for (KeyType k : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64, KeyType::i64, KeyType::f64}) {
    for (Order order : {Order::ascending, Order::descending}) {
      const ValueType vt = vts[i % 3];
      const OffsetType ot = (i % 2) ? OffsetType::u64 : OffsetType::u32;
      ++i;
      // Alternate between class boundaries and a big segment with tiny ones.
      const auto sizes = (i % 2) ? shuffled_boundaries(rng_, small_mode() ? 2049 : 16385, 1)
                                 : make_segment_sizes(Layout::huge_among_tiny, rng_, small_mode() ? 20000 : 200000);
      const HostCase c = make_case(k, vt, ot, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, order, c)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDistributions, SegmentedSortDistributions, ::testing::ValuesIn(all_dists()),
                         [](const ::testing::TestParamInfo<Dist>& info) { return std::string(name_of(info.param)); });

// ---------------------------------------------------------------------------
// Edge cases
// ---------------------------------------------------------------------------
using SegmentedSortEdge = GpuTest;

/// Runs `c` under every combination of count sources.
void all_count_sources(cudaStream_t stream, const HostCase& c, Order order) {
  for (CountMode sm : {CountMode::host, CountMode::device})
    for (ItemsMode im : {ItemsMode::none, ItemsMode::host, ItemsMode::device}) {
      RunOptions o;
      o.order = order;
      o.segments = sm;
      o.items = im;
      o.extra_item_capacity = 16;
      o.extra_segment_capacity = 4;
      o.offsets_garbage_tail = 8;
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream, c, o));
    }
}

TEST_F(SegmentedSortEdge, ZeroItems) {
  TS_TRACE_SEED();
  for (const Combo& p : instance_combos()) {
    SCOPED_TRACE(combo_name(p));
    // Several empty segments over an empty buffer.
    const HostCase c = make_case(p.key, p.value, p.offset, {0, 0, 0, 0, 0}, Dist::uniform, rng_);
    ASSERT_EQ(c.n, 0u);
    ASSERT_NO_FATAL_FAILURE(all_count_sources(stream_, c, p.order));
  }
}

TEST_F(SegmentedSortEdge, ZeroSegments) {
  TS_TRACE_SEED();
  for (const Combo& p : instance_combos()) {
    SCOPED_TRACE(combo_name(p));
    // offsets = {0}, no items at all.
    const HostCase empty = make_case(p.key, p.value, p.offset, {}, Dist::uniform, rng_);
    ASSERT_EQ(empty.num_segments(), 0u);
    ASSERT_NO_FATAL_FAILURE(all_count_sources(stream_, empty, p.order));
    // offsets = {50}, 100 items, all outside every segment: untouched.
    const HostCase padded = make_case(p.key, p.value, p.offset, {}, Dist::uniform, rng_, 50, 50);
    ASSERT_NO_FATAL_FAILURE(all_count_sources(stream_, padded, p.order));
  }
}

TEST_F(SegmentedSortEdge, SingleSegmentsOfEveryBoundarySize) {
  TS_TRACE_SEED();
  const auto sizes = boundary_sizes(small_mode() ? 8193 : 65537);
  int i = 0;
  for (std::uint64_t size : sizes) {
    const Combo p = instance_combos()[i++ % instance_combos().size()];
    SCOPED_TRACE(::testing::Message() << "single segment of " << size << " " << combo_name(p));
    const HostCase c = make_case(p.key, p.value, p.offset, {size}, Dist::uniform, rng_, random_pad(rng_), random_pad(rng_));
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, p.order, c)));
  }
}

TEST_F(SegmentedSortEdge, ItemsOutsideSegmentsUntouched) {
  TS_TRACE_SEED();
  for (const Combo& p : instance_combos()) {
    SCOPED_TRACE(combo_name(p));
    const auto sizes = shuffled_boundaries(rng_, 4097, 1);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_, 3000, 5000);
    ASSERT_NO_FATAL_FAILURE(all_count_sources(stream_, c, p.order));
  }
}

TEST_F(SegmentedSortEdge, TightCapacities) {
  TS_TRACE_SEED();
  for (const Combo& p : instance_combos()) {
    SCOPED_TRACE(combo_name(p));
    const auto sizes = make_segment_sizes(Layout::random_sizes, rng_, small_mode() ? 10000 : 100000);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_);
    RunOptions o;
    o.order = p.order;
    o.segments = CountMode::device;
    o.items = ItemsMode::device;
    o.max_segment_items = c.longest_segment();  // every bound exactly met
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

TEST_F(SegmentedSortEdge, HostSegmentCountIgnoredWhenDeviceCountGiven) {
  TS_TRACE_SEED();
  const HostCase c = make_case(KeyType::u32, ValueType::b32, OffsetType::u32, {10, 300, 5000, 0, 7}, Dist::uniform, rng_);
  RunOptions o;
  o.segments = CountMode::device;
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), ws));
  DeviceCase d;
  ASSERT_NO_FATAL_FAILURE(upload_case(c, o, d));
  tilesort::SortArgs args = make_args(c, o, d);
  args.num_segments = ws.plan.max_segments + 1000;  // must be ignored
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort(ws.buf.get(), ws.bytes, ws.plan, args, stream_));
  TS_STATUS_ASSERT_OK(tilesort::read_device_status(ws.buf.get(), stream_));
  HostCase got;
  ASSERT_NO_FATAL_FAILURE(download_case(c, d, got));
  ASSERT_NO_FATAL_FAILURE(expect_same(c, reference_result(c, Order::ascending), got));
}

TEST_F(SegmentedSortEdge, LegacyDefaultStream) {
  TS_TRACE_SEED();
  const auto sizes = shuffled_boundaries(rng_, 16385, 1);
  const HostCase c = make_case(KeyType::f32, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_, 7, 9);
  RunOptions o;
  o.segments = CountMode::device;
  ASSERT_NO_FATAL_FAILURE(sort_and_check(/*stream=*/nullptr, c, o));
}

TEST_F(SegmentedSortEdge, WorkspaceReusedAcrossCallsOrdersAndBitRanges) {
  TS_TRACE_SEED();
  for (auto [kt, vt, ot] : {std::make_tuple(KeyType::u64, ValueType::b64, OffsetType::u64),
                            std::make_tuple(KeyType::f32, ValueType::b32, OffsetType::u32)}) {
    tilesort::SortPlan plan;
    plan.key_type = kt;
    plan.value_type = vt;
    plan.offset_type = ot;
    plan.max_items = 300000;
    plan.max_segments = 1 << 20;
    Workspace ws;
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan, ws));
    for (int rep = 0; rep < 8; ++rep) {
      const Layout layout = kRandomLayouts[rng_() % (sizeof kRandomLayouts / sizeof kRandomLayouts[0])];
      const auto sizes = make_segment_sizes(layout, rng_, small_mode() ? 20000 : 200000);
      const HostCase c = make_case(kt, vt, ot, sizes, all_dists()[rng_() % all_dists().size()], rng_,
                                   random_pad(rng_), random_pad(rng_));
      RunOptions o = random_options(rng_, (rng_() & 1) ? Order::descending : Order::ascending, c);
      if (!is_float(kt) && (rng_() & 1)) {
        o.begin_bit = int(rng_() % 32);
        o.end_bit = o.begin_bit + 1 + int(rng_() % 32);
      }
      SCOPED_TRACE(::testing::Message() << "rep " << rep << " layout " << name_of(layout));
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o, &ws));
    }
  }
}

// ---------------------------------------------------------------------------
// Floats: NaN, signed zeros, infinities, denormals
// ---------------------------------------------------------------------------
using SegmentedSortFloats = GpuTest;

TEST_F(SegmentedSortFloats, HandWrittenOrderF32) {
  TS_TRACE_SEED();
  // The contract's order, written out (not taken from the reference).
  const std::vector<std::uint32_t> ascending = {
      0xff800000u, 0xff7fffffu, 0xbf800000u, 0x80800000u, 0x807fffffu, 0x80000001u, 0x80000000u,
      0x00000000u, 0x00000001u, 0x3f800000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fc00000u,
      0x7fffffffu, 0xffffffffu, 0xffc00000u, 0xff800001u};
  const std::vector<std::uint32_t> descending = {
      0x7f800000u, 0x7f7fffffu, 0x3f800000u, 0x00000001u, 0x00000000u, 0x80000000u,
      0x80000001u, 0x807fffffu, 0x80800000u, 0xbf800000u, 0xff7fffffu, 0xff800000u,
      0x7f800001u, 0x7fc00000u, 0x7fffffffu, 0xffffffffu, 0xffc00000u, 0xff800001u};
  for (Order order : {Order::ascending, Order::descending}) {
    SCOPED_TRACE(name_of(order));
    // Three segments holding the same shuffled list; the middle one is
    // preceded by an empty segment.
    std::vector<std::uint32_t> in;
    for (int s = 0; s < 3; ++s) {
      auto part = ascending;
      std::shuffle(part.begin(), part.end(), rng_);
      in.insert(in.end(), part.begin(), part.end());
    }
    const std::uint64_t m = ascending.size();
    HostCase c = make_case(KeyType::f32, ValueType::b32, OffsetType::u32, {m, 0, m, m}, Dist::uniform, rng_);
    std::memcpy(c.keys.data(), in.data(), in.size() * 4);
    RunOptions o;
    o.order = order;
    Workspace ws;
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), ws));
    HostCase got;
    ASSERT_NO_FATAL_FAILURE(sort_on_device(stream_, ws, c, o, got));
    const auto& want = order == Order::ascending ? ascending : descending;
    for (int s = 0; s < 3; ++s) {
      std::vector<std::uint32_t> seg(m);
      std::memcpy(seg.data(), got.keys.data() + s * m * 4, m * 4);
      EXPECT_EQ(seg, want) << "segment " << s;
    }
    ASSERT_NO_FATAL_FAILURE(expect_same(c, reference_result(c, order), got));
  }
}

TEST_F(SegmentedSortFloats, SpecialValuesAgainstReference) {
  TS_TRACE_SEED();
  for (KeyType kt : {KeyType::f32, KeyType::f64})
    for (Order order : {Order::ascending, Order::descending})
      for (ValueType vt : {ValueType::none, ValueType::b32, ValueType::b64}) {
        SCOPED_TRACE(::testing::Message() << name_of(kt) << " " << name_of(order) << " " << name_of(vt));
        const auto sizes = (vt == ValueType::b64) ? make_segment_sizes(Layout::huge_among_tiny, rng_, small_mode() ? 20000 : 100000)
                                                  : shuffled_boundaries(rng_, small_mode() ? 2049 : 16385, 1);
        const HostCase c = make_case(kt, vt, (rng_() & 1) ? OffsetType::u64 : OffsetType::u32, sizes, Dist::specials,
                                     rng_, random_pad(rng_), random_pad(rng_));
        ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, order, c)));
      }
}

TEST_F(SegmentedSortFloats, ExplicitFullBitRangeIsTheTotalOrder) {
  TS_TRACE_SEED();
  for (KeyType kt : {KeyType::f32, KeyType::f64})
    for (Order order : {Order::ascending, Order::descending}) {
      SCOPED_TRACE(::testing::Message() << name_of(kt) << " " << name_of(order));
      const auto sizes = shuffled_boundaries(rng_, small_mode() ? 2049 : 16385, 1);
      const HostCase c = make_case(kt, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_);
      RunOptions o;
      o.order = order;
      o.begin_bit = 0;
      o.end_bit = key_bits(kt);
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
    }
}

// ---------------------------------------------------------------------------
// Bit ranges (integer keys), stable ties in both orders
// ---------------------------------------------------------------------------
using SegmentedSortBitRanges = GpuTest;

/// Sorts `c` on bits [begin_bit, end_bit) with otherwise random options, and
/// checks it against the reference.
void sort_bits_and_check(cudaStream_t stream, Rng& rng, const HostCase& c, Order order, int begin_bit, int end_bit) {
  RunOptions o = random_options(rng, order, c);
  o.begin_bit = begin_bit;
  o.end_bit = end_bit;
  ASSERT_NO_FATAL_FAILURE(sort_and_check(stream, c, o));
}

TEST_F(SegmentedSortBitRanges, IntegerKeys) {
  TS_TRACE_SEED();
  const std::vector<std::pair<int, int>> r32 = {{0, 8}, {4, 20}, {16, 32}, {31, 32}, {0, 1}, {8, -1}, {0, 32}, {3, 29}};
  const std::vector<std::pair<int, int>> r64 = {{0, 64}, {32, 64}, {20, 45}, {63, 64}, {0, 13}, {40, -1}, {0, 32}, {7, 61}};
  const Dist dists[] = {Dist::uniform, Dist::few_unique, Dist::low16, Dist::specials};
  std::vector<std::uint64_t> sizes = boundary_sizes(small_mode() ? 2049 : 8193);
  if (!small_mode()) {
    sizes.push_back(20000);
    sizes.push_back(70000);
  }
  int i = 0;
  for (KeyType kt : {KeyType::u32, KeyType::i32, KeyType::u64, KeyType::i64}) {
    for (auto [b, e] : key_bits(kt) == 32 ? r32 : r64) {
      for (Order order : {Order::ascending, Order::descending}) {
        SCOPED_TRACE(::testing::Message() << name_of(kt) << " bits [" << b << "," << e << ") " << name_of(order));
        std::shuffle(sizes.begin(), sizes.end(), rng_);
        const Dist dist = dists[i++ % 4];
        const HostCase c = make_case(kt, (i % 2) ? ValueType::b32 : ValueType::b64,
                                     (i % 3) ? OffsetType::u32 : OffsetType::u64, sizes, dist, rng_, random_pad(rng_),
                                     random_pad(rng_));
        ASSERT_NO_FATAL_FAILURE(sort_bits_and_check(stream_, rng_, c, order, b, e));
      }
    }
  }
}

// Calls of at most 16 compared bits take their own kernel in the 4097..16384
// classes (BlockRadixSort8 on key-position words): 32-bit integer keys,
// every value width, both orders, widths 1..16 at several offsets, lengths
// at and around those classes' edges and through the MSD path above them.
TEST_F(SegmentedSortBitRanges, NarrowRangesThroughTheRadixClasses) {
  TS_TRACE_SEED();
  const std::vector<std::pair<int, int>> ranges = {{0, 16}, {16, 32}, {5, 13}, {31, 32}, {0, 9}, {12, 20}};
  std::vector<std::uint64_t> sizes = {4095, 4096, 4097, 5000, 8191, 8192, 8193, 9999, 12000, 16383, 16384, 16385};
  if (!small_mode()) sizes.insert(sizes.end(), {30000, 70000, 1, 0, 2});
  const Dist dists[] = {Dist::uniform, Dist::few_unique, Dist::low16, Dist::all_equal};
  int i = 0;
  for (KeyType kt : {KeyType::u32, KeyType::i32}) {  // float keys take no partial bit ranges in the reference
    for (ValueType vt : {ValueType::none, ValueType::b32, ValueType::b64}) {
      for (auto [b, e] : ranges) {
        const Order order = (i % 2) ? Order::descending : Order::ascending;
        const Dist dist = dists[i++ % 4];
        SCOPED_TRACE(::testing::Message() << name_of(kt) << " values " << name_of(vt) << " bits [" << b << "," << e
                                          << ") " << name_of(order) << " " << name_of(dist));
        std::shuffle(sizes.begin(), sizes.end(), rng_);
        const HostCase c = make_case(kt, vt, OffsetType::u32, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
        ASSERT_NO_FATAL_FAILURE(sort_bits_and_check(stream_, rng_, c, order, b, e));
      }
    }
  }
}

// Calls of a bit range have block kernels of their own (KeyRange::partial):
// 129..256-key ranges of at most 16 compared bits sort as narrow (key,
// position) words, and windows of several segments as (segment, key,
// position) words of 32 bits where those fit. Keys alone and with either
// value width, stable on the compared bits, the keys' other bits kept.
// Lengths around the 256-key class's edges, alone and mixed with short ones
// (windows, the walk), windows of 33..128 and 257..600 keys, both orders,
// ties on the compared bits (few_unique, low16 with high ranges, all_equal).
TEST_F(SegmentedSortBitRanges, NarrowRangesInTheSmallBlockClassesAndWindows) {
  TS_TRACE_SEED();
  const std::vector<std::pair<int, int>> ranges = {{0, 16}, {16, 32}, {5, 13}, {31, 32}, {0, 1}, {8, 24}};
  const auto cycle = [](std::initializer_list<std::uint64_t> lengths, std::size_t count) {
    std::vector<std::uint64_t> v;
    for (std::size_t i = 0; i < count; ++i) v.push_back(*(lengths.begin() + i % lengths.size()));
    return v;
  };
  const std::size_t many = small_mode() ? 40 : 400;
  const std::vector<std::vector<std::uint64_t>> layouts = {
      {129, 130, 160, 192, 200, 255, 256, 256, 200, 129},
      {128, 129, 257, 256, 0, 1, 2, 17, 33, 65, 140, 250, 3, 256, 129},
      std::vector<std::uint64_t>(many, 171),
      cycle({40, 57, 90, 120, 33, 64, 100}, many),
      cycle({300, 380, 520, 600, 270, 2, 450}, many / 2),
  };
  const Dist dists[] = {Dist::uniform, Dist::few_unique, Dist::low16, Dist::all_equal};
  int i = 0;
  for (KeyType kt : {KeyType::u32, KeyType::i32}) {
    for (ValueType vt : {ValueType::none, ValueType::b32, ValueType::b64}) {
      for (auto [b, e] : ranges) {
        for (const auto& layout : layouts) {
          const Order order = (i % 2) ? Order::descending : Order::ascending;
          const Dist dist = dists[i++ % 4];
          SCOPED_TRACE(::testing::Message() << name_of(kt) << " values " << name_of(vt) << " bits [" << b << "," << e
                                            << ") " << name_of(order) << " " << name_of(dist) << " " << layout.size()
                                            << " segments");
          std::vector<std::uint64_t> sizes = layout;
          std::shuffle(sizes.begin(), sizes.end(), rng_);
          const HostCase c = make_case(kt, vt, OffsetType::u32, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
          ASSERT_NO_FATAL_FAILURE(sort_bits_and_check(stream_, rng_, c, order, b, e));
        }
      }
    }
  }
}

// Every key type of `key_types` x every value width x `ranges` (float keys:
// the full range only, as the reference orders them), orders alternating,
// key distributions in turn (a float key's every call at position 2 of the
// cycle takes NaN / -0.0 specials instead), on `sizes` shuffled each time.
void sort_types_over_ranges(cudaStream_t stream, Rng& rng, std::initializer_list<KeyType> key_types,
                            const std::vector<std::pair<int, int>>& ranges, std::vector<std::uint64_t> sizes,
                            const std::vector<Dist>& dists) {
  std::size_t i = 0;
  for (KeyType kt : key_types) {
    for (ValueType vt : {ValueType::none, ValueType::b32, ValueType::b64}) {
      for (auto [b, e] : ranges) {
        if (is_float(kt) && (b != 0 || e != key_bits(kt))) continue;
        const Order order = (i % 2) ? Order::descending : Order::ascending;
        const Dist dist = is_float(kt) && i % dists.size() == 2 ? Dist::specials : dists[i % dists.size()];
        ++i;
        SCOPED_TRACE(::testing::Message() << name_of(kt) << " values " << name_of(vt) << " bits [" << b << "," << e
                                          << ") " << name_of(order) << " " << name_of(dist));
        std::shuffle(sizes.begin(), sizes.end(), rng);
        const HostCase c = make_case(kt, vt, (i % 3) ? OffsetType::u32 : OffsetType::u64, sizes, dist, rng,
                                     random_pad(rng), random_pad(rng));
        ASSERT_NO_FATAL_FAILURE(sort_bits_and_check(stream, rng, c, order, b, e));
      }
    }
  }
}

// 64-bit keys sort with BlockRadixSort8 from 257 to 16384 keys (cub's merge
// sort below): every value width, both orders, full and partial bit ranges
// (integers; floats take every bit), lengths at and around every class edge
// from 129 and through the MSD path above. With 4-byte values block4..6
// have a kernel per key code (KeyCode: u64 ascending the identity, i64, f64
// and descending calls the encoded one); every type meets both orders.
TEST_F(SegmentedSortBitRanges, WideKeysThroughTheRadix8Classes) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes = {255, 256, 257, 300, 511, 512, 513, 1024, 1025, 1500, 2048, 2049,
                                      4096, 4097, 8192, 8193, 12000, 16383, 16384, 16385, 0, 1, 2};
  if (!small_mode()) sizes.insert(sizes.end(), {40000, 70000});
  ASSERT_NO_FATAL_FAILURE(sort_types_over_ranges(stream_, rng_, {KeyType::u64, KeyType::i64, KeyType::f64},
                                                 {{0, 64}, {5, 37}, {32, 64}, {60, 64}, {0, 8}, {17, 33}}, sizes,
                                                 {Dist::uniform, Dist::few_unique, Dist::low16, Dist::presorted}));
}

// 32-bit keys in the radix8 classes (2049..16384) have a kernel per key
// code (KeyCode): the identity (u32 ascending) loads keys as they are; i32,
// f32 and descending calls load every key, then encode. Every 32-bit key
// type and value width, both orders (alternating with the value width, so
// each type meets both kernels), full and partial bit ranges (floats: every
// bit, with NaN / -0.0 specials in the cycle), lengths at and inside every
// radix8 class edge (partial tiles, a tile's last warp only partly full),
// mixed with short segments, and MSD children that land in those classes.
TEST_F(SegmentedSortBitRanges, Radix8ClassesPerKeyCode) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes = {2049, 2050, 3000, 4095, 4096, 4097, 6000, 8191, 8192,
                                      8193, 12000, 16383, 16384, 0, 1, 2, 100, 1500};
  if (!small_mode()) sizes.insert(sizes.end(), {40000, 70000});
  ASSERT_NO_FATAL_FAILURE(sort_types_over_ranges(
      stream_, rng_, {KeyType::u32, KeyType::i32, KeyType::f32}, {{0, 32}, {0, 16}, {7, 29}}, sizes,
      {Dist::uniform, Dist::few_unique, Dist::all_equal, Dist::presorted, Dist::reversed}));
}

// 32-bit keys of 16385..32768 in calls of at most 16 compared bits sort in
// thread-block clusters of 2 CTAs (each holding 16384 keys; the passes
// exchange keys and values in distributed shared memory); wider calls take
// the MSD rounds: every 32-bit key type and value width, both orders, full
// and partial bit ranges, lengths at and around every CTA and class edge,
// mixed with short segments and with MSD-sized ones, and key distributions
// whose digits pile into one CTA (few unique, all equal, presorted,
// reversed) as well as spread ones.
TEST_F(SegmentedSortBitRanges, ClusterClasses) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes = {16384, 16385, 16386, 20000, 24576, 32767, 32768, 32769,
                                      40000, 49153, 65535, 65536, 0, 1, 2, 300};
  if (!small_mode()) sizes.insert(sizes.end(), {65537, 100000});
  ASSERT_NO_FATAL_FAILURE(sort_types_over_ranges(
      stream_, rng_, {KeyType::u32, KeyType::i32, KeyType::f32},
      {{0, 16}, {0, 32}, {16, 32}, {3, 19}, {24, 32}, {0, 8}, {3, 29}}, sizes,
      {Dist::uniform, Dist::few_unique, Dist::all_equal, Dist::presorted, Dist::reversed, Dist::low16}));
}

// Buckets of one to several histogram spans (16 chunks of 4096 keys), and the
// grouping of their MSD children: children of every length from 0 up, in
// runs that fill a tile exactly, end just past one, or straddle one block's
// limit. Several key distributions, since they set the children's lengths.
TEST_F(SegmentedSortBitRanges, MsdSpansAndChildGroups) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes = {65535, 65536, 65537, 16385, 131073, 0, 1, 2, 3, 300};
  if (!small_mode()) sizes.insert(sizes.end(), {4096 * 16 * 5 + 7, 1 << 20});
  const Dist dists[] = {Dist::uniform, Dist::low16, Dist::few_unique, Dist::presorted, Dist::reversed};
  int i = 0;
  for (const Combo& p : {Combo{KeyType::u32, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::u32, ValueType::none, OffsetType::u64, Order::descending},
                         Combo{KeyType::f32, ValueType::b64, OffsetType::u32, Order::ascending},
                         Combo{KeyType::u64, ValueType::b32, OffsetType::u32, Order::descending}}) {
    for (const Dist dist : dists) {
      SCOPED_TRACE(::testing::Message() << combo_name(p) << " " << name_of(dist));
      std::shuffle(sizes.begin(), sizes.end(), rng_);
      const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
      RunOptions o = random_options(rng_, p.order, c);
      if (p.key == KeyType::u32 && (i++ % 2) == 1) {
        o.begin_bit = 0;
        o.end_bit = 16;
      }
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
    }
  }
}

// The MSD scatter for every key and value width (32-bit keys with values take
// the staged scatter, keys alone the chunk sort in registers; 64-bit keys with
// values the staged scatter's wide shape, 64-bit values staging the most
// shared memory): buckets whose last chunk (4096 keys; 8192 for 64-bit keys
// with values) is full, one key long or one short, in both rounds; keys with one
// digit everywhere (skipped buckets), few values (long equal runs, where the
// stable rank matters) and the 16-bit range.
TEST_F(SegmentedSortBitRanges, MsdScatterChunkTailsEveryWidth) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes = {4096 * 5,     4096 * 5 + 1, 4096 * 6 - 1, 16385, 3, 0, 8193, 4096 * 16 + 1,
                                      8192 * 3 + 1, 8192 * 4};
  if (!small_mode()) sizes.push_back(4096 * 40 - 1);
  int i = 0;
  for (const KeyType key : {KeyType::u32, KeyType::f32, KeyType::u64}) {
    for (const ValueType value : {ValueType::none, ValueType::b32, ValueType::b64}) {
      for (const Dist dist : {Dist::uniform, Dist::few_unique, Dist::all_equal, Dist::low16, Dist::mixed_runs}) {
        SCOPED_TRACE(::testing::Message() << name_of(key) << " " << name_of(value) << " " << name_of(dist));
        std::shuffle(sizes.begin(), sizes.end(), rng_);
        const HostCase c = make_case(key, value, OffsetType::u32, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
        RunOptions o = random_options(rng_, (i % 2) ? Order::descending : Order::ascending, c);
        if (key == KeyType::u32 && (i % 3) == 0) {
          o.begin_bit = 0;
          o.end_bit = 16;
        }
        ++i;
        ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The largest sizes
// ---------------------------------------------------------------------------
using SegmentedSortMaxSize = GpuTest;

TEST_F(SegmentedSortMaxSize, SingleSegmentOf2p24) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::uint64_t n = std::uint64_t(1) << 24;
  const Combo combos[] = {{KeyType::u32, ValueType::b32, OffsetType::u32, Order::ascending},
                          {KeyType::f64, ValueType::b64, OffsetType::u64, Order::descending}};
  for (const Combo& p : combos) {
    SCOPED_TRACE(combo_name(p));
    const HostCase c = make_case(p.key, p.value, p.offset, {n}, Dist::uniform, rng_);
    RunOptions o;
    o.order = p.order;
    o.segments = CountMode::device;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

TEST_F(SegmentedSortMaxSize, TwoPow20SegmentsOf16) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::vector<std::uint64_t> sizes(std::size_t(1) << 20, 16);
  const Combo combos[] = {{KeyType::u32, ValueType::none, OffsetType::u32, Order::ascending},
                          {KeyType::i64, ValueType::b64, OffsetType::u64, Order::descending}};
  for (const Combo& p : combos) {
    SCOPED_TRACE(combo_name(p));
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_);
    RunOptions o;
    o.order = p.order;
    o.segments = p.key == KeyType::u32 ? CountMode::host : CountMode::device;
    o.items = p.key == KeyType::u32 ? ItemsMode::none : ItemsMode::device;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

/// Skips the test unless the device has `bytes` free (with the reason).
#define TS_SKIP_UNLESS_DEVICE_MEMORY(bytes)                                                            \
  do {                                                                                                 \
    std::size_t free_bytes = 0, total_bytes = 0;                                                       \
    TS_CUDA_ASSERT(cudaMemGetInfo(&free_bytes, &total_bytes));                                         \
    if (free_bytes < (bytes))                                                                          \
      GTEST_SKIP() << "skipped: needs " << ((bytes) >> 20) << " MiB of device memory, " << (free_bytes >> 20) \
                   << " MiB free";                                                                     \
  } while (0)

/// Sorts u32 `keys` (and u32 `values`, when not null) in place on the device
/// under `plan`, in the segments of the u32 `offsets` (host count), with one
/// call of the public API, and checks its device status; the vectors then
/// hold the result. For the largest tests, which know their sorted result
/// without a reference sort.
void sort_u32_in_place(cudaStream_t stream, const tilesort::SortPlan& plan, const std::vector<std::uint32_t>& offsets,
                       std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>* values, int begin_bit = 0,
                       int end_bit = -1) {
  const std::size_t bytes = keys.size() * sizeof(std::uint32_t);
  DeviceBuffer d_keys, d_values, d_offsets;
  upload_bytes(d_keys, keys.data(), bytes);
  if (values) upload_bytes(d_values, values->data(), bytes);
  upload_bytes(d_offsets, offsets.data(), offsets.size() * sizeof(std::uint32_t));
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan, ws));
  tilesort::SortArgs args;
  args.keys = d_keys.get();
  args.values = values ? d_values.get() : nullptr;
  args.offsets = d_offsets.get();
  args.num_segments = offsets.size() - 1;
  args.begin_bit = begin_bit;
  args.end_bit = end_bit;
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort(ws.buf.get(), ws.bytes, plan, args, stream));
  TS_STATUS_ASSERT_OK(tilesort::read_device_status(ws.buf.get(), stream));
  TS_CUDA_ASSERT(cudaMemcpy(keys.data(), d_keys.get(), bytes, cudaMemcpyDeviceToHost));
  if (values) TS_CUDA_ASSERT(cudaMemcpy(values->data(), d_values.get(), bytes, cudaMemcpyDeviceToHost));
}

/// Sorts u32 keys, with their input positions as values when `with_values`
/// (one plan sized for them), on key bits [begin_bit, end_bit), and checks
/// every segment against std::stable_sort on those bits: the keys, and the
/// order of the positions.
void sort_u32_and_check(cudaStream_t stream, const std::vector<std::uint32_t>& offsets,
                        std::vector<std::uint32_t> keys, bool with_values, int begin_bit = 0, int end_bit = -1) {
  const std::uint32_t total = offsets.back();
  const int high_bit = end_bit < 0 ? 32 : end_bit;
  const std::uint32_t mask = std::uint32_t(((std::uint64_t(1) << (high_bit - begin_bit)) - 1u) << begin_bit);
  std::vector<std::uint32_t> values(total), want_keys(total), want_values(total);
  for (std::uint32_t i = 0; i < total; ++i) values[i] = i;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    std::vector<std::uint32_t> order(values.begin() + offsets[s], values.begin() + offsets[s + 1]);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return (keys[a] & mask) < (keys[b] & mask); });
    for (std::size_t j = 0; j < order.size(); ++j) {
      want_values[offsets[s] + j] = order[j];
      want_keys[offsets[s] + j] = keys[order[j]];
    }
  }
  tilesort::SortPlan plan;
  plan.key_type = KeyType::u32;
  plan.value_type = with_values ? ValueType::b32 : ValueType::none;
  plan.max_items = total;
  plan.max_segments = offsets.size() - 1;
  ASSERT_NO_FATAL_FAILURE(
      sort_u32_in_place(stream, plan, offsets, keys, with_values ? &values : nullptr, begin_bit, end_bit));
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    SCOPED_TRACE(::testing::Message() << "segment " << s << " of " << offsets[s + 1] - offsets[s] << " keys");
    std::uint32_t bad = 0, first_bad = 0;
    for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i)
      if ((keys[i] != want_keys[i] || (with_values && values[i] != want_values[i])) && bad++ == 0)
        first_bad = i - offsets[s];
    EXPECT_EQ(bad, 0u) << "first wrong rank " << first_bad;
  }
}

void sort_u32_pairs_and_check(cudaStream_t stream, const std::vector<std::uint32_t>& offsets,
                              std::vector<std::uint32_t> keys, int begin_bit = 0, int end_bit = -1) {
  sort_u32_and_check(stream, offsets, std::move(keys), true, begin_bit, end_bit);
}

// One segment of 2^28 u32 pairs with 16 copies of every key: keys are
// (a random bijection of [0, 2^28)) >> 4, spread over the upper 24 bits, so
// the sorted keys are known without a reference sort, and stability shows
// as ascending record indices (the values) among equal keys.
TEST_F(SegmentedSortMaxSize, SingleSegmentOf2p28PairsIsStable) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::uint64_t n = std::uint64_t(1) << 28;
  tilesort::SortPlan plan;
  plan.key_type = KeyType::u32;
  plan.value_type = ValueType::b32;
  plan.max_items = n;
  plan.max_segments = 1;
  std::size_t workspace_bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort_workspace_size(plan, &workspace_bytes));
  TS_SKIP_UNLESS_DEVICE_MEMORY(workspace_bytes + n * 8 + (std::size_t(1) << 30));

  const std::uint32_t mask = std::uint32_t(n - 1);
  const std::uint32_t multiplier = (std::uint32_t(rng_()) | 1u) & mask;
  const std::uint32_t shift = std::uint32_t(rng_()) & mask;
  const std::uint32_t low = std::uint32_t(rng_()) & 0xffu;
  auto key_of = [&](std::uint32_t i) { return (((i * multiplier + shift) & mask) >> 4) << 8 | low; };
  std::vector<std::uint32_t> keys(n), values(n);
  for (std::uint32_t i = 0; i < std::uint32_t(n); ++i) {
    keys[i] = key_of(i);
    values[i] = i;
  }
  ASSERT_NO_FATAL_FAILURE(sort_u32_in_place(stream_, plan, {0, std::uint32_t(n)}, keys, &values));
  // Rank j holds key (j >> 4) << 8 | low; its 16 records come in index order,
  // and each is a record that has this key: together, exactly its 16 records.
  std::uint64_t bad = 0, first_bad = n;
  for (std::uint32_t j = 0; j < std::uint32_t(n); ++j) {
    const std::uint32_t want = (j >> 4) << 8 | low;
    const bool ok = keys[j] == want && values[j] < n && key_of(values[j]) == want &&
                    ((j & 15u) == 0 || values[j] > values[j - 1]);
    if (!ok && bad++ == 0) first_bad = j;
  }
  EXPECT_EQ(bad, 0u) << "first wrong rank " << first_bad;
}

// u32 pairs in buckets of hundreds of 4096-key chunks each, more than the
// MSD scatter has blocks, so every block copies its next chunk in while it
// scatters the current one, across bucket boundaries and past buckets that
// one digit fills (skipped: nothing to copy): random keys; keys whose top
// byte is one value (round 0 skips); keys whose top 16 bits are one value
// (round 0 skips and round 1 starts at the highest differing bit); few
// distinct keys (long equal runs, where stability shows). Checked against
// std::stable_sort.
TEST_F(SegmentedSortMaxSize, MsdScatterCopiesAheadAcrossBuckets) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::vector<std::uint32_t> sizes = {(1u << 21) + 5, (1u << 21) - 3, 12289, (1u << 19) + 1, 1u << 20};
  std::vector<std::uint32_t> offsets(1, 0);
  for (const std::uint32_t n : sizes) offsets.push_back(offsets.back() + n);
  std::vector<std::uint32_t> keys(offsets.back());
  const std::uint32_t top8 = std::uint32_t(rng_()) << 24, top16 = std::uint32_t(rng_()) << 16;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      const std::uint32_t r = std::uint32_t(rng_());
      switch (s) {
        case 1: keys[i] = top8 | (r & 0x00FFFFFFu); break;
        case 3: keys[i] = top16 | (r & 0xFFFFu); break;
        case 4: keys[i] = (r % 7u) * 0x24924925u; break;
        default: keys[i] = r;
      }
    }
  }
  ASSERT_NO_FATAL_FAILURE(sort_u32_pairs_and_check(stream_, offsets, keys));
}

// Round 0 of the MSD path has one bucket per segment above one block
// (16,384 keys): with up to 512 of them the MSD scatter's blocks read every
// bucket's chunk range into shared memory once and find each chunk's bucket
// there; with more they search the bucket list in global memory. Both sides
// of that bound, segments of 16,385..20,000 keys (their second chunk
// partial) with short ones between them: u32 pairs (two chunk buffers per
// block, checked for stability) and u64 keys with u32 values (one buffer).
TEST_F(SegmentedSortMaxSize, MsdScatterFindsChunksAmongManyBuckets) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  for (const std::uint32_t large : {512u, 513u}) {
    SCOPED_TRACE(::testing::Message() << large << " segments above one block");
    std::vector<std::uint64_t> sizes;
    for (std::uint32_t i = 0; i < large; ++i) {
      sizes.push_back(16385 + rng_() % 3616);
      sizes.push_back(rng_() % 40);
    }
    std::vector<std::uint32_t> offsets(1, 0);
    for (const std::uint64_t n : sizes) offsets.push_back(offsets.back() + std::uint32_t(n));
    std::vector<std::uint32_t> keys(offsets.back());
    for (std::uint32_t& k : keys) k = std::uint32_t(rng_());
    ASSERT_NO_FATAL_FAILURE(sort_u32_pairs_and_check(stream_, offsets, keys));
    const HostCase c = make_case(KeyType::u64, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_);
    RunOptions o;
    o.segments = CountMode::device;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// Bit ranges that the MSD rounds use up: with 16 compared bits, a segment
// above 256 x 16384 keys takes two rounds and its last round's children have
// no bits left (grouped ones included: they are already in order, in user
// memory); with 8 bits, one round, whose children are in scratch and must
// only be copied home. The keys' other bits are random, so a child sorted or
// copied wrongly shows, and so does a lost stable order (values are the
// input positions). Checked against std::stable_sort on the compared bits.
TEST_F(SegmentedSortMaxSize, MsdRoundsThatUseUpTheBitRange) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::vector<std::uint32_t> sizes = {(3u << 21) + 3, 20485, 1, (1u << 20) + 7, 0, 70001};
  std::vector<std::uint32_t> offsets(1, 0);
  for (const std::uint32_t n : sizes) offsets.push_back(offsets.back() + n);
  struct Range {
    int begin_bit, end_bit;
  };
  for (const Range r : {Range{0, 16}, Range{8, 24}, Range{0, 8}, Range{20, 28}}) {
    SCOPED_TRACE(::testing::Message() << "bits [" << r.begin_bit << ", " << r.end_bit << ")");
    std::vector<std::uint32_t> keys(offsets.back());
    for (auto& k : keys) k = std::uint32_t(rng_());
    ASSERT_NO_FATAL_FAILURE(sort_u32_pairs_and_check(stream_, offsets, keys, r.begin_bit, r.end_bit));
  }
}

// Keys whose compared bits do not all vary, in segments large enough that
// the MSD rounds need every one of their digits: each histogram finds which
// bits a bucket's keys differ in, so a round never counts a digit that
// cannot split, and its children start at their highest differing bit.
// Keys random in their low 24 bits (round 0's digit holds every key; round 1
// then leaves children of 32K keys for round 2); bit patterns of floats of
// both signs (top bytes shared by a quarter of the keys, constant exponent
// bits below them); keys that differ only in one middle byte and the lowest
// bit (two rounds skipped at once, children with one bit left); nine in ten
// keys equal (a child that no round splits, finished by the fallback); and
// short segments beside them. Values are the input positions, so the stable
// order is checked too, against std::stable_sort.
TEST_F(SegmentedSortMaxSize, MsdRoundsFollowTheKeysDifferingBits) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::vector<std::uint32_t> sizes = {(1u << 23) + 5, (1u << 22) + 1, 3, (1u << 21) - 7, 1, 1u << 21, 17000};
  std::vector<std::uint32_t> offsets(1, 0);
  for (const std::uint32_t n : sizes) offsets.push_back(offsets.back() + n);
  std::vector<std::uint32_t> keys(offsets.back());
  const std::uint32_t common = std::uint32_t(rng_());
  std::uniform_real_distribution<float> depth(-1024.0f, 1024.0f);
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      const std::uint32_t r = std::uint32_t(rng_());
      switch (s) {
        case 0: keys[i] = r & 0x00FFFFFFu; break;
        case 1: {
          const float f = depth(rng_);
          std::memcpy(&keys[i], &f, sizeof f);
          break;
        }
        case 3: keys[i] = (common & ~0x000FF001u) | ((r & 0xFFu) << 12) | ((r >> 8) & 1u); break;
        case 5: keys[i] = r % 10u != 0 ? common : r; break;
        default: keys[i] = r;
      }
    }
  }
  ASSERT_NO_FATAL_FAILURE(sort_u32_pairs_and_check(stream_, offsets, keys));
}

// Ranges still larger than a block after the MSD rounds, every kind the
// fallback kernel finishes, in one call: children whose keys are all equal
// in the compared bits but that moved to scratch (two-valued keys, nine in
// ten keys equal: they only go home, copied by every block); children with
// bits left after the rounds (keys random in bits 31, 23 and 15 and the low
// byte: each round halves a bucket, leaving children of about 25,000 keys
// with 8 bits to compare, sorted by one block each); and long ones with
// bits left, whose passes many blocks share (Policy::kFallbackSpreadItems):
// one dominant key 0 among keys random in bits 31, 23, 15 and the low byte
// (a child of about 247,000 keys, in scratch, after three rounds), and one
// whose third round finds its digit constant and leaves it in the user
// arrays (so the shared pass ends in scratch and goes home). Beside them: a
// segment of equal keys that no round moves, and short segments. Small
// enough to run under the sanitizers (SanitizerSegmentedSort below). With
// values (their input positions: stable order checked), or keys alone, whose
// MSD rounds run the keys-alone scatter (the chunk sort in registers) before
// the fallback.
void sort_fallback_ranges_and_check(cudaStream_t stream, std::mt19937_64& rng, bool with_values = true) {
  const std::vector<std::uint32_t> sizes = {50000, 3, 200000, 0, 70000, 1, 20000, 100, 300000, 300000};
  std::vector<std::uint32_t> offsets(1, 0);
  for (const std::uint32_t n : sizes) offsets.push_back(offsets.back() + n);
  std::vector<std::uint32_t> keys(offsets.back());
  const std::uint32_t common = std::uint32_t(rng());
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      const std::uint32_t r = std::uint32_t(rng());
      switch (s) {
        case 0: keys[i] = common ^ (r & 0x80000000u); break;
        case 2: keys[i] = common ^ (r & 0x808080FFu); break;
        case 4: keys[i] = r % 10u != 0 ? common : r; break;
        case 6: keys[i] = common; break;
        case 8: keys[i] = r % 5u != 0 ? 0u : r & 0x808080FFu; break;
        case 9: {
          const std::uint32_t u = r % 20u;
          keys[i] = u < 16 ? 0u : u < 18 ? (r | 0x80000000u) : u == 18 ? 0x00808000u | (r & 0xFFu) : r & 0xFFu;
          break;
        }
        default: keys[i] = r;
      }
    }
  ASSERT_NO_FATAL_FAILURE(sort_u32_and_check(stream, offsets, keys, with_values));
}

using SegmentedSortFallback = GpuTest;

TEST_F(SegmentedSortFallback, RangesCopiedAndSorted) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_and_check(stream_, rng_));
}

TEST_F(SegmentedSortFallback, KeysAloneRangesSorted) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_and_check(stream_, rng_, false));
}

// The fallback with 64-bit keys, whose kernel counts with more loads in
// flight than with 32-bit keys (Policy::kFallbackCountLoads64) and runs
// unbound: the rounds compare the top 24 bits, so each kind below reaches
// the fallback with 40 bits left. A dominant key 0 among keys random in
// bits 63, 55 and 47 and the low 40 (a child of about 240,000 keys whose
// passes the grid shares); keys random in those three bits and the low
// byte (children of about 25,000 keys, one block each); nine in ten keys
// equal to a random key, the others random; and short segments beside
// them. Values are the input positions (stable order checked); both
// orders, with values and without.
HostCase fallback_ranges_u64(std::mt19937_64& rng, ValueType value_type) {
  const std::vector<std::uint64_t> sizes = {300000, 2, 200000, 0, 150000, 1, 5000};
  // make_case lays out the offsets and the position values; the keys are replaced below.
  HostCase c = make_case(KeyType::u64, value_type, OffsetType::u32, sizes, Dist::all_equal, rng);
  std::vector<std::uint64_t> keys(c.n);
  const std::uint64_t common = rng();
  constexpr std::uint64_t kRoundBits = (1ull << 63) | (1ull << 55) | (1ull << 47);
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (std::uint64_t i = c.offsets[s]; i < c.offsets[s + 1]; ++i) {
      const std::uint64_t r = rng();
      switch (s) {
        case 0: keys[i] = r % 5u != 0 ? 0u : r & (kRoundBits | 0xFFFFFFFFFFull); break;
        case 2: keys[i] = r & (kRoundBits | 0xFFull); break;
        case 4: keys[i] = r % 10u != 0 ? common : r; break;
        default: keys[i] = r;
      }
    }
  std::memcpy(c.keys.data(), keys.data(), c.keys.size());
  c.description = "u64 fallback ranges/" + std::string(name_of(value_type));
  return c;
}

void sort_fallback_ranges_u64_and_check(cudaStream_t stream, std::mt19937_64& rng) {
  for (const ValueType vt : {ValueType::b32, ValueType::none})
    for (const Order order : {Order::ascending, Order::descending}) {
      const HostCase c = fallback_ranges_u64(rng, vt);
      RunOptions o;
      o.order = order;
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream, c, o));
    }
}

TEST_F(SegmentedSortFallback, WideKeysRangesSorted) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_u64_and_check(stream_, rng_));
}

// A plan of 2^31 - 1 items: 31 segments of 2^30, 2^29, ..., 1 u32 keys,
// every size class and the MSD path in one call. Segment k's keys are a
// random bijection of [0, 2^k) under random high bits, so its sorted keys
// are those high bits followed by 0, 1, ..., 2^k - 1.
TEST_F(SegmentedSortMaxSize, PlanOf2p31Minus1Items) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  constexpr int kSegments = 31;
  const std::uint64_t n = (std::uint64_t(1) << kSegments) - 1;
  tilesort::SortPlan plan;
  plan.key_type = KeyType::u32;
  plan.value_type = ValueType::none;
  plan.max_items = n;
  plan.max_segments = kSegments;
  std::size_t workspace_bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort_workspace_size(plan, &workspace_bytes));
  TS_SKIP_UNLESS_DEVICE_MEMORY(workspace_bytes + n * 4 + (std::size_t(1) << 30));

  std::vector<std::uint32_t> offsets(kSegments + 1, 0), multiplier(kSegments), shift(kSegments), high(kSegments);
  for (int s = 0; s < kSegments; ++s) {
    const int bits = kSegments - 1 - s;  // segment s holds 2^bits keys, largest first
    const std::uint32_t mask = (std::uint32_t(1) << bits) - 1;
    offsets[s + 1] = offsets[s] + (std::uint32_t(1) << bits);
    multiplier[s] = (std::uint32_t(rng_()) | 1u) & mask;
    shift[s] = std::uint32_t(rng_()) & mask;
    high[s] = std::uint32_t(rng_()) & ~mask;
  }
  ASSERT_EQ(offsets[kSegments], n);
  std::vector<std::uint32_t> keys(n);
  for (int s = 0; s < kSegments; ++s) {
    const std::uint32_t mask = offsets[s + 1] - offsets[s] - 1;
    for (std::uint32_t i = 0; i <= mask; ++i) keys[offsets[s] + i] = high[s] | ((i * multiplier[s] + shift[s]) & mask);
  }
  ASSERT_NO_FATAL_FAILURE(sort_u32_in_place(stream_, plan, offsets, keys, nullptr));
  for (int s = 0; s < kSegments; ++s) {
    std::uint64_t bad = 0, first_bad = 0;
    for (std::uint32_t j = 0; j < offsets[s + 1] - offsets[s]; ++j)
      if (keys[offsets[s] + j] != (high[s] | j) && bad++ == 0) first_bad = j;
    EXPECT_EQ(bad, 0u) << "segment " << s << " of " << (offsets[s + 1] - offsets[s]) << " keys, first wrong rank "
                       << first_bad;
  }
}

// ---------------------------------------------------------------------------
// The warp classes' merge sort (32-bit keys alone, all bits: 33..64 keys in
// 8 lanes x 8, 65..112 in 16 lanes x 7, 113..128 in 16 lanes x 8; pairs of
// 32-bit keys and values compared on more than 25 bits: the stable merge in
// 16 lanes x 3 and 16 x 7 where a warp's ranges fit, networks else; 64-bit
// keys with 32-bit values: 16 x 4 for every 33..64-key range) and the
// networks beside it (other values, narrow bit ranges, 64-bit keys): every length
// of both classes, runs of one length so that consecutive segments share a
// warp, 112 and 113 side by side so that a warp's pair straddles the short
// shape, odd counts so that a warp's last groups have no segment, every key
// distribution, both orders.
// ---------------------------------------------------------------------------
using SegmentedSortWarpMerge = GpuTest;

TEST_F(SegmentedSortWarpMerge, EveryLengthOfTheMergeClasses) {
  TS_TRACE_SEED();
  // [2, 30): wider than narrow words, so pairs merge stably on a mask.
  const std::vector<std::pair<int, int>> ranges = {{0, -1}, {0, 16}, {5, 27}, {31, 32}, {2, 30}};
  int i = 0;
  for (const Combo& p : spread_combos()) {
    for (Dist dist : all_dists()) {
      std::vector<std::uint64_t> sizes;
      for (std::uint64_t n = 33; n <= 128; ++n) sizes.push_back(n);
      // Runs of one length, so that consecutive segments share a warp.
      const std::uint64_t run = 33 + rng_() % 96;
      for (int k = 0; k < 7; ++k) sizes.push_back(run);
      std::shuffle(sizes.begin(), sizes.end(), rng_);
      // Side by side, so that warps take pairs of one range each side of 112
      // (and of 48, where pairs merge in 16 lanes x 3 or take the network).
      for (int k = 0; k < 9; ++k) sizes.push_back(k % 2 ? 113 : 112);
      for (int k = 0; k < 9; ++k) sizes.push_back(k % 2 ? 49 : 48);
      auto [b, e] = ranges[i++ % ranges.size()];
      if (is_float(p.key)) b = 0, e = -1;  // float keys: the total order, all bits
      SCOPED_TRACE(::testing::Message() << combo_name(p) << " " << name_of(dist) << " bits [" << b << "," << e << ")");
      const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
      RunOptions o = random_options(rng_, p.order, c);
      if (e >= 0) {
        o.begin_bit = key_bits(p.key) == 64 ? b + 32 : b;
        o.end_bit = key_bits(p.key) == 64 ? e + 32 : e;
      }
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
    }
  }
}

// ---------------------------------------------------------------------------
// Narrow words (32-bit keys compared on at most 25 bits sort (compared bits,
// 7-bit position) words in the warp sorts): every length from 0 to 128 (the
// walk, the list classes, the 65..128 kernel), at widths 24, 25 (the widest
// narrow call) and 26 (the narrowest that is not), at the bottom, middle and
// top of the key. The compared bits take three values, all ones among them,
// and the other bits are random: a sort that lost stability, or a word whose
// compared bits ran into the position, moves keys that differ outside the
// range. Keys alone and with values of both widths, both orders.
// ---------------------------------------------------------------------------
TEST_F(SegmentedSortWarpMerge, NarrowWordsAtTheirWidthLimit) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t n = 0; n <= 128; ++n) sizes.push_back(n);
  for (int k = 0; k < 400; ++k) sizes.push_back(rng_() % 129);
  std::shuffle(sizes.begin(), sizes.end(), rng_);
  const std::pair<int, int> ranges[] = {{0, 24}, {0, 25}, {0, 26}, {7, 32}, {6, 32}, {3, 28}, {4, 29}};
  int i = 0;
  for (ValueType vt : {ValueType::none, ValueType::b32, ValueType::b64}) {
    for (const auto& [b, e] : ranges) {
      const Order order = (i++ % 2) ? Order::descending : Order::ascending;
      SCOPED_TRACE(::testing::Message() << "u32 keys, " << name_of(vt) << " values, " << name_of(order) << ", bits ["
                                        << b << "," << e << ")");
      HostCase c = make_case(KeyType::u32, vt, OffsetType::u32, sizes, Dist::uniform, rng_, random_pad(rng_),
                             random_pad(rng_));
      const std::uint32_t width_mask = std::uint32_t((std::uint64_t(1) << (e - b)) - 1);
      const std::uint32_t mid = std::uint32_t(rng_()) & width_mask;
      for (std::uint64_t k = 0; k < c.n; ++k) {
        const std::uint32_t pick = std::uint32_t(rng_() % 3);
        const std::uint32_t compared = pick == 0 ? 0u : pick == 1 ? width_mask : mid;
        const std::uint32_t key = (std::uint32_t(rng_()) & ~(width_mask << b)) | (compared << b);
        std::memcpy(c.keys.data() + k * sizeof(key), &key, sizeof(key));
      }
      RunOptions o = random_options(rng_, order, c);
      o.begin_bit = b;
      o.end_bit = e;
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
    }
  }
}

// ---------------------------------------------------------------------------
// The warp list classes (33..64 and 65..128 keys) with lengths mixed at
// random, the walked and empty segments between them, and enough segments
// that every warp of the list kernel takes many tasks: keys of few values
// (stability shows), pairs, keys alone, f32 keys with the special values.
// ---------------------------------------------------------------------------
using SegmentedSortWarpLists = GpuTest;

TEST_F(SegmentedSortWarpLists, MixedLengthsAndManyTasks) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes;
  const std::uint64_t count64 = 200000, count128 = 100000;
  for (std::uint64_t i = 0; i < count64 + count128; ++i) {
    const std::uint64_t pick = rng_() % (count64 + count128);
    sizes.push_back(pick < count64 ? 33 + rng_() % 32 : 65 + rng_() % 64);
    if (rng_() % 4 == 0) sizes.push_back(rng_() % 3);  // empty, one key, two keys
  }
  struct Kind {
    KeyType key;
    ValueType value;
    Order order;
    Dist dist;
  };
  const Kind kinds[] = {{KeyType::u32, ValueType::b32, Order::ascending, Dist::few_unique},
                        {KeyType::u32, ValueType::none, Order::descending, Dist::uniform},
                        {KeyType::f32, ValueType::b32, Order::descending, Dist::specials}};
  for (const Kind& k : kinds) {
    SCOPED_TRACE(::testing::Message() << name_of(k.key) << " " << name_of(k.value) << " " << name_of(k.order) << " "
                                      << name_of(k.dist));
    const HostCase c = make_case(k.key, k.value, OffsetType::u32, sizes, k.dist, rng_, 0, random_pad(rng_));
    RunOptions o;
    o.order = k.order;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// ---------------------------------------------------------------------------
// The walk (segments of up to 32 keys, straight from the offsets in batches
// of 32): one lane per segment, with the network of the batch's longest (2,
// 4, or 8 for 32-bit keys alone), groups of lanes above that. Batches whose
// longest segment is each length from 1 to 33, with shorter and empty
// segments beside it, for keys alone (all bits and partial ranges), values
// and 64-bit keys, every distribution, both orders.
// ---------------------------------------------------------------------------
using SegmentedSortWalk = GpuTest;

TEST_F(SegmentedSortWalk, EveryLongestLengthOfABatch) {
  TS_TRACE_SEED();
  struct Kind {
    KeyType key;
    ValueType value;
    int begin_bit, end_bit;  // end -1: every bit
  };
  const Kind kinds[] = {{KeyType::u32, ValueType::none, 0, -1}, {KeyType::f32, ValueType::none, 0, -1},
                        {KeyType::i32, ValueType::none, 2, 13},  {KeyType::u32, ValueType::b32, 0, -1},
                        {KeyType::u64, ValueType::none, 0, -1}};
  // Batches start at segment 0 of the call, so batch b is segments
  // [32 b, 32 b + 32): one batch per longest length.
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t longest = 1; longest <= 33; ++longest) {
    std::vector<std::uint64_t> batch(32);
    for (auto& n : batch) n = rng_() % (longest + 1);
    batch[rng_() % 32] = longest;
    sizes.insert(sizes.end(), batch.begin(), batch.end());
  }
  int i = 0;
  for (const Kind& k : kinds) {
    for (Dist dist : all_dists()) {
      const Order order = i++ % 2 ? Order::descending : Order::ascending;
      SCOPED_TRACE(::testing::Message() << name_of(k.key) << " " << name_of(k.value) << " " << name_of(dist) << " "
                                        << name_of(order) << " bits [" << k.begin_bit << "," << k.end_bit << ")");
      const HostCase c = make_case(k.key, k.value, OffsetType::u32, sizes, dist, rng_, 0, random_pad(rng_));
      RunOptions o;
      o.order = order;
      o.begin_bit = k.begin_bit;
      o.end_bit = k.end_bit;
      ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
    }
  }
}

// ---------------------------------------------------------------------------
// Sanitizer subset: small, but through every kernel path
// (warp classes, both block classes, MSD rounds, skewed-bucket fallback).
// ---------------------------------------------------------------------------
using SanitizerSegmentedSort = GpuTest;

TEST_F(SanitizerSegmentedSort, EveryClassEveryInstance) {
  TS_TRACE_SEED();
  for (const Combo& p : instance_combos()) {
    SCOPED_TRACE(combo_name(p));
    auto sizes = boundary_sizes(8193);
    sizes.push_back(12000);  // the 8193..16384 class, which every key type takes
    sizes.push_back(20000);  // above the one-block classes: MSD rounds
    std::shuffle(sizes.begin(), sizes.end(), rng_);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_, 5, 5);
    RunOptions o = random_options(rng_, p.order, c);
    o.max_segment_items = 0;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// The cluster class (16385..32768 32-bit keys, at most 16 compared bits):
// distributed shared memory, cluster barriers and the in-place writes of
// several CTAs.
TEST_F(SanitizerSegmentedSort, ClusterClasses) {
  TS_TRACE_SEED();
  for (const Combo& p : {Combo{KeyType::u32, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::u32, ValueType::none, OffsetType::u64, Order::descending},
                         Combo{KeyType::i32, ValueType::b64, OffsetType::u32, Order::ascending}}) {
    SCOPED_TRACE(combo_name(p));
    std::vector<std::uint64_t> sizes = {16385, 32768, 32769, 20000, 5, 0};
    std::shuffle(sizes.begin(), sizes.end(), rng_);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_, 5, 5);
    RunOptions o = random_options(rng_, p.order, c);
    o.begin_bit = 0;
    o.end_bit = 16;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// The fallback kernel's two kinds of ranges: copies home spread over every
// block, and one block's LSD passes.
TEST_F(SanitizerSegmentedSort, FallbackRanges) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_and_check(stream_, rng_));
}

TEST_F(SanitizerSegmentedSort, FallbackKeysAlone) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_and_check(stream_, rng_, false));
}

TEST_F(SanitizerSegmentedSort, FallbackWideKeys) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(sort_fallback_ranges_u64_and_check(stream_, rng_));
}

TEST_F(SanitizerSegmentedSort, SkewedLargeSegments) {
  TS_TRACE_SEED();
  // Large segments whose keys share their high bits or are all equal, so
  // buckets stay large after the MSD rounds.
  const Dist dists[] = {Dist::low16, Dist::all_equal, Dist::few_unique, Dist::presorted};
  int i = 0;
  for (const Combo& p : {instance_combos()[0], instance_combos()[2], instance_combos()[3], instance_combos()[4]}) {
    const Dist dist = dists[i++ % 4];
    SCOPED_TRACE(::testing::Message() << combo_name(p) << " " << name_of(dist));
    const HostCase c = make_case(p.key, p.value, p.offset, {3, 30000, 9000, 1}, dist, rng_);
    RunOptions o;
    o.order = p.order;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

TEST_F(SanitizerSegmentedSort, BitRangesAndFloatSpecials) {
  TS_TRACE_SEED();
  const auto sizes = shuffled_boundaries(rng_, 2049, 1);
  {
    const HostCase c = make_case(KeyType::i32, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_);
    RunOptions o;
    o.order = Order::descending;
    o.begin_bit = 20;
    o.end_bit = 32;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
  {
    const HostCase c = make_case(KeyType::u64, ValueType::b64, OffsetType::u64, sizes, Dist::uniform, rng_);
    RunOptions o;
    o.begin_bit = 3;
    o.end_bit = 40;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
  for (KeyType kt : {KeyType::f32, KeyType::f64}) {
    const HostCase c = make_case(kt, ValueType::b32, OffsetType::u32, sizes, Dist::specials, rng_);
    RunOptions o;
    o.order = kt == KeyType::f32 ? Order::descending : Order::ascending;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// The radix8 classes' kernels per key code (KeyCode): the encoded kernel's
// separate load and encode loops (floats with NaN / -0.0, signed keys,
// descending unsigned ones) beside the identity's, at every radix8 class's
// edges, 2049..16384 (64-bit keys split only with 4-byte values; alone they
// keep one kernel).
TEST_F(SanitizerSegmentedSort, Radix8KernelsPerKeyCode) {
  TS_TRACE_SEED();
  const std::vector<std::uint64_t> sizes = {2049, 4096, 4097, 8193, 12000, 16384, 3};
  for (const Combo& p : {Combo{KeyType::f32, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::f32, ValueType::b64, OffsetType::u32, Order::descending},
                         Combo{KeyType::f32, ValueType::none, OffsetType::u64, Order::ascending},
                         Combo{KeyType::i32, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::u32, ValueType::b32, OffsetType::u32, Order::descending},
                         Combo{KeyType::u32, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::f64, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::f64, ValueType::b32, OffsetType::u64, Order::descending},
                         Combo{KeyType::i64, ValueType::b32, OffsetType::u32, Order::ascending},
                         Combo{KeyType::u64, ValueType::b32, OffsetType::u32, Order::descending},
                         Combo{KeyType::u64, ValueType::b32, OffsetType::u32, Order::ascending}}) {
    SCOPED_TRACE(combo_name(p));
    const HostCase c = make_case(p.key, p.value, p.offset, sizes,
                                 is_float(p.key) ? Dist::specials : Dist::uniform, rng_, 3, 3);
    RunOptions o;
    o.order = p.order;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// Narrow calls: two or three radix8 passes over keys and values in
// 2049..16384 keys (keys alone too, up to kRadix8KeysAloneBits compared
// bits; BlockSort beyond), radix8 for single ranges in 513..2048, and for
// keys alone of at most 16 bits in 257..512.
TEST_F(SanitizerSegmentedSort, NarrowCallsInRadixClasses) {
  TS_TRACE_SEED();
  const std::vector<std::uint64_t> sizes = {5000, 8192, 8193, 16384, 3, 12000, 600, 1024, 1500, 2048, 3000, 4097, 300, 400, 512};
  struct Kind {
    ValueType value;
    int begin_bit, end_bit;
  };
  const Kind kinds[] = {{ValueType::none, 0, 16}, {ValueType::b32, 4, 20}, {ValueType::b64, 4, 20},
                        {ValueType::none, 2, 22}, {ValueType::none, 5, 30}};
  for (const Kind& k : kinds) {
    SCOPED_TRACE(std::string(name_of(k.value)) + " bits " + std::to_string(k.begin_bit) + ".." +
                 std::to_string(k.end_bit));
    const HostCase c = make_case(KeyType::u32, k.value, OffsetType::u32, sizes, Dist::uniform, rng_, 3, 3);
    RunOptions o;
    o.order = k.value == ValueType::b32 ? Order::descending : Order::ascending;
    o.begin_bit = k.begin_bit;
    o.end_bit = k.end_bit;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

TEST_F(SanitizerSegmentedSort, MsdSpans) {
  TS_TRACE_SEED();
  // 18 and 33 chunks of 4096 keys: buckets of two and three histogram spans,
  // then grouped children; 64-bit keys with values take the scatter's wide
  // shape (9 and 17 chunks of 8192 keys).
  const std::vector<std::uint64_t> sizes = {70000, 2, 135000, 0, 9};
  for (const auto& [kt, vt] : {std::pair{KeyType::u32, ValueType::none}, std::pair{KeyType::u32, ValueType::b32},
                               std::pair{KeyType::u64, ValueType::b32}}) {
    SCOPED_TRACE(::testing::Message() << name_of(kt) << " " << name_of(vt));
    const HostCase c = make_case(kt, vt, OffsetType::u32, sizes, Dist::uniform, rng_, 2, 2);
    RunOptions o;
    o.order = vt == ValueType::none ? Order::descending : Order::ascending;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// The warp merge sort's shared scratch (keys alone) and, in the same
// kernel, the networks that keys with positions (partial bits) or values
// keep; 33..130 keys cross both merge classes and the 65..128 class's
// short shape (16 x 7 up to 112 keys) in a kernel of its own.
TEST_F(SanitizerSegmentedSort, WarpMergeClass) {
  TS_TRACE_SEED();
  struct Kind {
    KeyType key;
    ValueType value;
    Order order;
    int begin_bit, end_bit;
  };
  const Kind kinds[] = {{KeyType::u32, ValueType::none, Order::ascending, 0, -1},
                        {KeyType::i32, ValueType::none, Order::descending, 3, 19},
                        {KeyType::u32, ValueType::b32, Order::ascending, 0, -1},
                        {KeyType::f32, ValueType::b32, Order::descending, 0, -1}};
  for (const Kind& k : kinds) {
    SCOPED_TRACE(::testing::Message() << name_of(k.key) << " " << name_of(k.value) << " " << name_of(k.order));
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t n = 33; n <= 130; n += 2) sizes.push_back(n);
    std::shuffle(sizes.begin(), sizes.end(), rng_);
    const HostCase c = make_case(k.key, k.value, OffsetType::u32, sizes, Dist::few_unique, rng_, 3, 3);
    RunOptions o;
    o.order = k.order;
    o.begin_bit = k.begin_bit;
    o.end_bit = k.end_bit;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// The 65..128 class's own kernel hands out tasks beyond one a warp by
// ticket, its next task in shared memory. WarpMergeClass above has too few
// segments to reach a ticket: 14,000 segments are 7,000 warp tasks, more
// than the warps of its grid on a 132-SM GPU (6 blocks of 8 warps per SM
// for 32-bit keys alone, 4 with values).
TEST_F(SanitizerSegmentedSort, WarpClassTasksByTicket) {
  TS_TRACE_SEED();
  std::vector<std::uint64_t> sizes;
  for (int i = 0; i < 14000; ++i) {
    sizes.push_back(65 + rng_() % 64);
    if (rng_() % 8 == 0) sizes.push_back(rng_() % 2);  // empty and one-key segments between them
  }
  struct Kind {
    KeyType key;
    ValueType value;
    Order order;
  };
  const Kind kinds[] = {{KeyType::u32, ValueType::none, Order::ascending},
                        {KeyType::f32, ValueType::b32, Order::descending}};
  for (const Kind& k : kinds) {
    SCOPED_TRACE(::testing::Message() << name_of(k.key) << " " << name_of(k.value) << " " << name_of(k.order));
    const HostCase c = make_case(k.key, k.value, OffsetType::u32, sizes, Dist::few_unique, rng_, 3, 3);
    RunOptions o;
    o.order = k.order;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

TEST_F(SanitizerSegmentedSort, EmptyInputs) {
  TS_TRACE_SEED();
  const HostCase none = make_case(KeyType::u32, ValueType::b32, OffsetType::u32, {}, Dist::uniform, rng_, 4, 4);
  const HostCase empty = make_case(KeyType::u64, ValueType::none, OffsetType::u64, {0, 0, 0}, Dist::uniform, rng_);
  for (const HostCase* c : {&none, &empty}) {
    RunOptions o;
    o.segments = CountMode::device;
    o.items = ItemsMode::device;
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, *c, o));
  }
}

}  // namespace
}  // namespace tstest
