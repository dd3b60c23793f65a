// The workspace layout that sorting and binning share (core/workspace.hpp),
// and the size queries built on it. CPU only.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/workspace.hpp"
#include "tilesort/binning.hpp"
#include "tilesort/segmented_sort.hpp"

namespace {

using tilesort::Status;
using tilesort::StatusCode;
using tilesort::detail::check_workspace;
using tilesort::detail::WorkspaceLayout;
using tilesort::detail::WorkspaceSlot;

constexpr std::size_t kAlign = WorkspaceLayout::kAlignment;

struct Wide {
  std::uint64_t a, b, c;  // 24 bytes: not a divisor of the alignment
};

TEST(WorkspaceLayout, SlotsAreAlignedDisjointAndInOrder) {
  WorkspaceLayout layout;
  const std::uint64_t counts[] = {1, 0, 7, 64, 0, 1000, 3, 65536, 1};
  std::vector<std::size_t> begins, ends;
  for (std::size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
    const std::uint64_t n = counts[i];
    std::size_t offset = 0, end = 0;
    if (i % 3 == 0) {
      const WorkspaceSlot<std::uint32_t> s = layout.take<std::uint32_t>(n);
      offset = s.offset, end = s.end();
      EXPECT_EQ(s.count, n);
      EXPECT_EQ(end - offset, n * sizeof(std::uint32_t));
    } else if (i % 3 == 1) {
      const WorkspaceSlot<Wide> s = layout.take<Wide>(n);
      offset = s.offset, end = s.end();
      EXPECT_EQ(end - offset, n * sizeof(Wide));
    } else {
      const WorkspaceSlot<unsigned char> s = layout.take<unsigned char>(n);
      offset = s.offset, end = s.end();
      EXPECT_EQ(end - offset, n);
    }
    SCOPED_TRACE(::testing::Message() << "slot " << i << " of " << n << " elements");
    EXPECT_EQ(offset % kAlign, 0u);
    if (!ends.empty()) {
      EXPECT_GE(offset, ends.back()) << "overlaps the slot before it";
    }
    // A slot takes whole alignment units: the next one starts at the first
    // boundary at or after its end.
    EXPECT_EQ(layout.bytes(), (end + kAlign - 1) / kAlign * kAlign);
    begins.push_back(offset);
    ends.push_back(end);
  }
  EXPECT_EQ(begins.front(), 0u) << "the first slot (the device status) sits at the workspace's front";
  EXPECT_GE(layout.bytes(), ends.back());
  EXPECT_EQ(layout.bytes() % kAlign, 0u);
}

TEST(WorkspaceLayout, EmptySlotsTakeNoBytes) {
  WorkspaceLayout layout;
  layout.take<std::uint32_t>(5);
  const std::size_t before = layout.bytes();
  const WorkspaceSlot<std::uint64_t> empty = layout.take<std::uint64_t>(0);
  EXPECT_EQ(empty.offset, before);
  EXPECT_EQ(layout.bytes(), before);
  EXPECT_EQ(layout.take<std::uint32_t>(1).offset, before);
}

TEST(WorkspaceLayout, SlotsMapOntoTheWorkspace) {
  WorkspaceLayout layout;
  const auto a = layout.take<std::uint32_t>(10);
  const auto b = layout.take<std::uint64_t>(3);
  const auto c = layout.take<unsigned char>(17);
  std::vector<unsigned char> storage(layout.bytes() + kAlign);
  unsigned char* base = storage.data();
  while (reinterpret_cast<std::uintptr_t>(base) % kAlign) ++base;
  void* workspace = base;
  EXPECT_EQ(static_cast<void*>(a.in(workspace)), static_cast<void*>(base + a.offset));
  EXPECT_EQ(static_cast<void*>(b.in(workspace)), static_cast<void*>(base + b.offset));
  EXPECT_EQ(static_cast<const void*>(c.in(static_cast<const void*>(workspace))),
            static_cast<const void*>(base + c.offset));
  EXPECT_EQ(static_cast<void*>(b.as<std::uint32_t>(workspace)), static_cast<void*>(b.in(workspace)));
  // Writing every slot in full stays inside the workspace and apart.
  std::memset(a.in(workspace), 0xA1, a.count * sizeof(std::uint32_t));
  std::memset(b.in(workspace), 0xB2, b.count * sizeof(std::uint64_t));
  std::memset(c.in(workspace), 0xC3, c.count);
  EXPECT_EQ(a.in(workspace)[9], 0xA1A1A1A1u);
  EXPECT_EQ(b.in(workspace)[0], 0xB2B2B2B2B2B2B2B2ull);
  EXPECT_EQ(c.in(workspace)[16], 0xC3);
}

TEST(WorkspaceLayout, CheckWorkspaceRefusesWithReasons) {
  alignas(256) static unsigned char storage[1024];
  const Status null_status = check_workspace(nullptr, 1024, 512);
  EXPECT_EQ(null_status.code(), StatusCode::invalid_argument);
  EXPECT_NE(std::string(null_status.what()).find("null"), std::string::npos);

  const Status misaligned = check_workspace(storage + 16, 1000, 512);
  EXPECT_EQ(misaligned.code(), StatusCode::invalid_argument);
  EXPECT_NE(std::string(misaligned.what()).find("aligned"), std::string::npos);

  const Status small = check_workspace(storage, 511, 512);
  EXPECT_EQ(small.code(), StatusCode::workspace_too_small);
  EXPECT_NE(std::string(small.what()).find("511"), std::string::npos) << small.what();
  EXPECT_NE(std::string(small.what()).find("512"), std::string::npos) << small.what();

  EXPECT_TRUE(check_workspace(storage, 512, 512).ok());
  EXPECT_TRUE(check_workspace(storage, 1024, 512).ok());
}

// bin_and_sort's workspace is binning's with a whole sort workspace appended
// as its last array: both queries and the sort's come from one layout type.
TEST(WorkspaceLayout, BinAndSortHoldsBinningAndASortWorkspace) {
  const tilesort::ValueType values[] = {tilesort::ValueType::none, tilesort::ValueType::b32,
                                        tilesort::ValueType::b64};
  const std::uint32_t tiles[] = {1, 255, 8160, 65536, 65537, 1u << 20};
  const std::uint64_t records[] = {1, 3584, 1u << 22};
  for (tilesort::ValueType v : values)
    for (std::uint32_t t : tiles)
      for (std::uint64_t r : records)
        for (std::uint64_t bound : {std::uint64_t(0), std::uint64_t(1)}) {
          SCOPED_TRACE(::testing::Message() << "value " << int(v) << " tiles " << t << " records " << r
                                            << " bounded " << bound);
          tilesort::BinPlan plan;
          plan.value_type = v;
          plan.max_tiles = t;
          plan.max_records = r;
          plan.max_tile_records = bound ? (r + 1) / 2 : 0;
          std::size_t bin_bytes = 0, both_bytes = 0, sort_bytes = 0;
          ASSERT_TRUE(tilesort::bin_workspace_size(plan, &bin_bytes).ok());
          ASSERT_TRUE(tilesort::bin_and_sort_workspace_size(plan, &both_bytes).ok());
          tilesort::SortPlan sort;
          sort.key_type = tilesort::KeyType::u32;
          sort.value_type = v;
          sort.offset_type = tilesort::OffsetType::u32;
          sort.max_items = r;
          sort.max_segments = t;
          sort.max_segment_items = plan.max_tile_records;
          ASSERT_TRUE(tilesort::segmented_sort_workspace_size(sort, &sort_bytes).ok());
          EXPECT_EQ(bin_bytes % kAlign, 0u);
          EXPECT_EQ(sort_bytes % kAlign, 0u);
          EXPECT_EQ(both_bytes, bin_bytes + sort_bytes);
        }
}

}  // namespace
