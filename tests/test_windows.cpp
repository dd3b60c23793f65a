// Packing (sorter/src/kernels/pack.cuh). Windows: several whole segments
// sorted in one block's tile (kernels/classify.cuh); classification packs
// runs of consecutive segments whose own class would leave much of its tile
// empty. The walk: the warp kernel takes 32 consecutive segments at a time
// and sorts those of up to 32 keys (16 with 64-bit keys or values), one lane
// per segment of up to 8 keys, groups of lanes for longer ones. These tests draw layouts
// that make such runs and batches (and break them) in every way the packing
// distinguishes, and check every result against the CPU reference. Seeds as
// in test_segmented_sort.cpp (TILESORT_TEST_SEED).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"

namespace tstest {
namespace {

struct WindowCombo {
  KeyType key;
  ValueType value;
  OffsetType offset;
};

// Windows exist for 32-bit keys; the other widths must be unaffected.
const WindowCombo kCombos[] = {
    {KeyType::u32, ValueType::b32, OffsetType::u32}, {KeyType::f32, ValueType::b64, OffsetType::u64},
    {KeyType::i32, ValueType::none, OffsetType::u32}, {KeyType::u32, ValueType::none, OffsetType::u64},
    {KeyType::u64, ValueType::b32, OffsetType::u32},
};

std::string name(const WindowCombo& c) {
  return std::string(name_of(c.key)) + "_" + name_of(c.value) + "_" + name_of(c.offset);
}

/// Sorts segments of these sizes in the combination's types, with a random
/// key distribution, guard padding, order and options, and checks the result
/// against the CPU reference.
void sort_random_case(Rng& rng, cudaStream_t stream, const WindowCombo& p, const std::vector<std::uint64_t>& sizes) {
  const Dist dist = all_dists()[rng() % all_dists().size()];
  const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng, random_pad(rng), random_pad(rng));
  const Order order = (rng() & 1) ? Order::ascending : Order::descending;
  ASSERT_NO_FATAL_FAILURE(sort_and_check(stream, c, random_options(rng, order, c)));
}

/// Sizes that pack into windows of every window class, and the sizes just
/// past them (a window class's tile / k, +-1).
std::vector<std::uint64_t> packing_sizes() {
  std::vector<std::uint64_t> s = {2, 3, 5, 9, 17, 33, 65, 100, 129, 170, 200, 257, 300, 384, 513, 700, 1025, 1300, 2049, 2100, 3000, 5000, 6000};
  for (std::uint64_t tile : {256u, 1024u, 2048u, 4096u, 16384u})
    for (std::uint64_t k : {2u, 3u, 4u, 7u})
      for (std::int64_t d : {-1, 0, 1}) s.push_back(tile / k + d);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// Runs of `run` equal segments of a random packing size, separated by
/// breakers: empty and one-key segments, a segment of another size, or a
/// long one; some runs end exactly where a window's tile is full.
std::vector<std::uint64_t> window_layout(Rng& rng, std::uint64_t budget) {
  const auto sizes = packing_sizes();
  std::vector<std::uint64_t> out;
  std::uint64_t total = 0;
  while (total < budget) {
    const std::uint64_t s = sizes[rng() % sizes.size()];
    const std::uint64_t run = 1 + rng() % 40;
    for (std::uint64_t i = 0; i < run && total < budget; ++i) {
      // Sometimes a run of slightly different sizes (same window class or not).
      const std::uint64_t len = (rng() % 4 == 0) ? std::uint64_t(std::max<std::int64_t>(2, std::int64_t(s) + std::int64_t(rng() % 7) - 3)) : s;
      out.push_back(len);
      total += len;
    }
    switch (rng() % 6) {
      case 0: out.push_back(0); break;
      case 1: out.push_back(1); break;
      case 2: out.push_back(sizes[rng() % sizes.size()]); total += out.back(); break;
      case 3: out.push_back(20000 + rng() % 5000); total += out.back(); break;  // MSD path between runs
      case 4: {  // fill a 1024-key tile exactly: k segments summing to 1024
        const std::uint64_t k = 4 + rng() % 4;
        for (std::uint64_t i = 0; i + 1 < k; ++i) out.push_back(1024 / k);
        out.push_back(1024 - (k - 1) * (1024 / k));
        total += 1024;
        break;
      }
      default: break;
    }
  }
  return out;
}

using SegmentedSortWindows = GpuTest;

TEST_F(SegmentedSortWindows, FixedPackingSizes) {
  TS_TRACE_SEED();
  const std::uint64_t budget = small_mode() ? 30000 : 600000;
  for (const WindowCombo& p : kCombos) {
    for (std::uint64_t s : packing_sizes()) {
      SCOPED_TRACE(::testing::Message() << name(p) << " fixed-" << s);
      const std::vector<std::uint64_t> sizes(std::max<std::uint64_t>(1, budget / s / 4), s);
      ASSERT_NO_FATAL_FAILURE(sort_random_case(rng_, stream_, p, sizes));
    }
  }
}

TEST_F(SegmentedSortWindows, RandomRunsAndBreakers) {
  TS_TRACE_SEED();
  const int reps = small_mode() ? 3 : 12;
  for (const WindowCombo& p : kCombos) {
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t budget = 1 + rng_() % (small_mode() ? 40000 : 800000);
      SCOPED_TRACE(::testing::Message() << name(p) << " rep " << rep << " budget " << budget);
      const auto sizes = window_layout(rng_, budget);
      ASSERT_NO_FATAL_FAILURE(sort_random_case(rng_, stream_, p, sizes));
    }
  }
}

// Bit ranges change the key width inside the (segment, key, position) word,
// and plans bounding the segment length drop window classes that are not
// launched: both must still sort every window.
TEST_F(SegmentedSortWindows, BitRangesAndSegmentBounds) {
  TS_TRACE_SEED();
  const std::uint64_t budget = small_mode() ? 30000 : 300000;
  for (int rep = 0; rep < 8; ++rep) {
    const auto sizes = window_layout(rng_, budget);
    std::uint64_t longest = 0;
    for (std::uint64_t s : sizes) longest = std::max(longest, s);
    const HostCase c = make_case(KeyType::u32, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_);
    RunOptions o = random_options(rng_, (rep & 1) ? Order::descending : Order::ascending, c);
    const int begin = int(rng_() % 20);
    o.begin_bit = begin;
    o.end_bit = begin + 1 + int(rng_() % (32 - begin));
    o.max_segment_items = (rep % 3 == 0) ? longest : 0;
    SCOPED_TRACE(::testing::Message() << "rep " << rep << " bits [" << o.begin_bit << ", " << o.end_bit
                                      << ") max_segment_items " << o.max_segment_items);
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// 32-bit keys alone take BlockSort, and windows, in the 257..2048 classes.
// A partial bit range makes their order among equal compared bits visible
// (the other bits differ), so a window must keep it stable; float keys bring
// NaNs and -0.0, and every layout mixes windowed runs with segments sorted
// alone, in warp classes and on the MSD path.
TEST_F(SegmentedSortWindows, KeysAloneWindowsWithBitRanges) {
  TS_TRACE_SEED();
  const std::uint64_t budget = small_mode() ? 30000 : 300000;
  const KeyType keys[] = {KeyType::u32, KeyType::f32, KeyType::i32};
  for (int rep = 0; rep < 12; ++rep) {
    const KeyType key = keys[rep % 3];
    const Dist dist = all_dists()[rng_() % all_dists().size()];
    const auto sizes = window_layout(rng_, budget);
    const HostCase c = make_case(key, ValueType::none, OffsetType::u32, sizes, dist, rng_);
    RunOptions o = random_options(rng_, (rep & 1) ? Order::descending : Order::ascending, c);
    // Partial ranges of float bits have no defined order (the reference
    // refuses them); every fourth integer case compares all bits.
    if (key != KeyType::f32 && rep % 4 != 0) {
      const int begin = int(rng_() % 20);
      o.begin_bit = begin;
      o.end_bit = begin + 1 + int(rng_() % (32 - begin));
    }
    SCOPED_TRACE(::testing::Message() << name_of(key) << " " << name_of(dist) << " rep " << rep << " bits ["
                                      << o.begin_bit << ", " << o.end_bit << ")");
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

// In 513..2048 keys, a segment alone (or an MSD child) sorts with radix8 and
// a window with BlockSort, in one kernel: always for 32-bit keys with
// values, for keys alone when the range compares at most 16 bits. Runs of
// segments that window (3 or 4 to a 2048-key tile) alternate with segments
// sorted alone in the same classes, partial tiles of every warp count, and
// segments of 65K-200K keys whose ~1K-key MSD children (24 bits left, or
// fewer with a bit range) reach the same classes; 4- and 8-byte values and
// none, bit ranges of at most 16 bits and wider partial ones (stability
// among equal compared bits), and both orders.
TEST_F(SegmentedSortWindows, RadixRangesBesideWindows) {
  TS_TRACE_SEED();
  const int reps = small_mode() ? 6 : 18;
  const ValueType values[] = {ValueType::b32, ValueType::b64, ValueType::none};
  const KeyType keys[] = {KeyType::u32, KeyType::f32, KeyType::i32};
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<std::uint64_t> sizes;
    const std::uint64_t budget = small_mode() ? 60000 : 600000;
    for (std::uint64_t total = 0; total < budget;) {
      std::uint64_t len;
      switch (rng_() % 5) {
        case 0: len = 2048 / (3 + rng_() % 2) - rng_() % 8; break;  // windows of 3 or 4
        case 1: len = 513 + rng_() % 512; break;                    // 513..1024
        case 2: len = 1025 + rng_() % 1024; break;                  // 1025..2048
        case 3: len = (rng_() % 2) ? 1024 + rng_() % 3 - 1 : 2048 - rng_() % 2; break;  // class edges
        default: len = rng_() % 4 == 0 ? 65536 + rng_() % 131072 : rng_() % 3; break;   // MSD, or empty / short
      }
      sizes.push_back(len);
      total += len;
    }
    const KeyType key = keys[(rep / 3) % 3];
    const ValueType value = values[rep % 3];
    const Dist dist = all_dists()[rng_() % all_dists().size()];
    const HostCase c = make_case(key, value, OffsetType::u32, sizes, dist, rng_, random_pad(rng_), random_pad(rng_));
    RunOptions o = random_options(rng_, (rep & 1) ? Order::descending : Order::ascending, c);
    // Partial ranges of float bits have no defined order (the reference
    // refuses them). The others: every bit, at most 16 bits (radix8 for
    // keys alone too), or a wider partial range.
    if (key != KeyType::f32) {
      const unsigned pick = unsigned(rng_() % 4);
      if (pick != 0) o.begin_bit = int(rng_() % 12);
      if (pick == 1) o.end_bit = o.begin_bit + 1 + int(rng_() % 16);
      if (pick >= 2) o.end_bit = o.begin_bit + 4 + int(rng_() % (29 - o.begin_bit));
    }
    SCOPED_TRACE(::testing::Message() << name_of(key) << "_" << name_of(value) << " " << name_of(dist) << " rep "
                                      << rep << " bits [" << o.begin_bit << ", " << o.end_bit << ")");
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

/// Segments of 0..140 keys drawn so that every batch of 32 consecutive ones
/// mixes what the walk sorts (one lane per segment up to 8 keys, 4 with
/// 64-bit keys or values; groups of lanes up to 32 keys, 16 with 64-bit keys
/// or values) with what it leaves to the lists (the longer ones up to 128
/// keys, some of them windowed), one-key and empty
/// segments, and now and then a block-class or MSD segment; or, with
/// `uniform_batches`, long runs of one length so whole batches fall into
/// one class.
std::vector<std::uint64_t> walk_layout(Rng& rng, std::uint64_t segments, bool uniform_batches) {
  std::vector<std::uint64_t> out;
  while (out.size() < segments) {
    if (uniform_batches) {
      const std::uint64_t len = rng() % 141;
      for (std::uint64_t i = 0, run = 1 + rng() % 100; i < run; ++i) out.push_back(len);
      continue;
    }
    const unsigned pick = unsigned(rng() % 16);
    if (pick == 0) out.push_back(129 + rng() % 3000);
    else if (pick == 1 && rng() % 8 == 0) out.push_back(20000 + rng() % 5000);
    else if (pick < 4) out.push_back(rng() % 2);
    else if (pick < 8) out.push_back(2 + rng() % 7);
    else if (pick < 11) out.push_back(9 + rng() % 8);
    else if (pick < 13) out.push_back(17 + rng() % 16);
    else out.push_back(2 + rng() % 139);
  }
  out.resize(segments);
  return out;
}

TEST_F(SegmentedSortWindows, WalkedBatchesOfEveryClassMix) {
  TS_TRACE_SEED();
  const int reps = small_mode() ? 2 : 6;
  for (const WindowCombo& p : kCombos) {
    for (int rep = 0; rep < reps; ++rep) {
      // Counts around whole batches: 1, 31, 32, 33 and larger.
      const std::uint64_t counts[] = {1, 31, 32, 33, 64 + rng_() % 32, 1 + rng_() % (small_mode() ? 3000 : 60000)};
      for (std::uint64_t count : counts) {
        const bool uniform = rng_() % 3 == 0;
        SCOPED_TRACE(::testing::Message() << name(p) << " rep " << rep << " segments " << count
                                          << (uniform ? " uniform batches" : " mixed batches"));
        const auto sizes = walk_layout(rng_, count, uniform);
        ASSERT_NO_FATAL_FAILURE(sort_random_case(rng_, stream_, p, sizes));
      }
    }
  }
}

// The walk compares the call's bits: positions keep equal compared keys in
// input order (stability) whatever the other bits hold.
TEST_F(SegmentedSortWindows, WalkedBatchesWithBitRanges) {
  TS_TRACE_SEED();
  for (int rep = 0; rep < 8; ++rep) {
    const auto sizes = walk_layout(rng_, small_mode() ? 2000 : 40000, rep % 2 == 0);
    const KeyType key = rep % 4 < 2 ? KeyType::u32 : KeyType::u64;
    const ValueType value = rep % 3 == 0 ? ValueType::none : ValueType::b32;
    const HostCase c = make_case(key, value, OffsetType::u32, sizes, Dist::few_unique, rng_);
    RunOptions o = random_options(rng_, (rep & 1) ? Order::descending : Order::ascending, c);
    const int bits = key == KeyType::u32 ? 32 : 64;
    o.begin_bit = int(rng_() % 8);
    o.end_bit = o.begin_bit + 1 + int(rng_() % (bits - o.begin_bit));
    SCOPED_TRACE(::testing::Message() << name_of(key) << "_" << name_of(value) << " bits [" << o.begin_bit << ", "
                                      << o.end_bit << ")");
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o));
  }
}

using SanitizerSegmentedSortWindows = GpuTest;

TEST_F(SanitizerSegmentedSortWindows, MixedRuns) {
  TS_TRACE_SEED();
  for (const WindowCombo& p : kCombos) {
    SCOPED_TRACE(name(p));
    const auto sizes = window_layout(rng_, 20000);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_, 3, 3);
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, Order::ascending, c)));
  }
}

TEST_F(SanitizerSegmentedSortWindows, WalkedBatches) {
  TS_TRACE_SEED();
  for (const WindowCombo& p : kCombos) {
    SCOPED_TRACE(name(p));
    const auto sizes = walk_layout(rng_, 700, false);
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, Dist::uniform, rng_, 3, 3);
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, random_options(rng_, Order::descending, c)));
  }
}

}  // namespace
}  // namespace tstest
