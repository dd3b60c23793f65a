// Host-side API tests. These need no GPU: every error here must be found by
// segmented_sort before any CUDA call, so the buffers are plain host memory
// (nothing may be launched on them) and they must come back untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tilesort/tilesort.hpp"

namespace {

using tilesort::KeyType;
using tilesort::OffsetType;
using tilesort::Order;
using tilesort::SortArgs;
using tilesort::SortPlan;
using tilesort::Status;
using tilesort::StatusCode;
using tilesort::ValueType;

const KeyType kKeys[] = {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64, KeyType::i64, KeyType::f64};
const ValueType kValues[] = {ValueType::none, ValueType::b32, ValueType::b64};
const OffsetType kOffsets[] = {OffsetType::u32, OffsetType::u64};

int bits_of(KeyType k) { return int(tilesort::size_of(k) * 8); }

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

::testing::AssertionResult mentions(const Status& s, const char* word) {
  const std::string what = s.what() ? s.what() : "";
  if (what.empty()) return ::testing::AssertionFailure() << "empty message";
  if (lower(what).find(lower(word)) == std::string::npos)
    return ::testing::AssertionFailure() << "message \"" << what << "\" does not mention \"" << word << "\"";
  return ::testing::AssertionSuccess();
}

std::size_t workspace_size(const SortPlan& plan) {
  std::size_t bytes = 0;
  const Status s = tilesort::segmented_sort_workspace_size(plan, &bytes);
  EXPECT_TRUE(s.ok()) << s.what();
  return bytes;
}

// ---------------------------------------------------------------------------
// Host-side argument errors of segmented_sort
// ---------------------------------------------------------------------------
class HostErrors : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kItems = 1024;
  static constexpr std::uint64_t kSegments = 16;

  void SetUp() override {
    plan_.key_type = KeyType::u32;
    plan_.value_type = ValueType::b32;
    plan_.offset_type = OffsetType::u32;
    plan_.max_items = kItems;
    plan_.max_segments = kSegments;
    keys_.resize(kItems * 8);
    values_.resize(kItems * 8);
    for (std::size_t i = 0; i < keys_.size(); ++i) keys_[i] = static_cast<unsigned char>(i * 37 + 11);
    for (std::size_t i = 0; i < values_.size(); ++i) values_[i] = static_cast<unsigned char>(i * 13 + 5);
    // Valid CSR offsets, with room for a few more segments than the plan.
    offsets_.assign((kSegments + 8) * 8, 0);
    for (std::uint32_t i = 0; i <= kSegments + 4; ++i) {
      const std::uint32_t o = std::min<std::uint32_t>(i * 64, kItems);
      std::memcpy(offsets_.data() + 4 * i, &o, 4);
    }
    args_.keys = keys_.data();
    args_.values = values_.data();
    args_.offsets = offsets_.data();
    args_.num_segments = kSegments;
    set_plan();
  }

  /// Re-queries the workspace size after plan_ changed.
  void set_plan() {
    bytes_ = workspace_size(plan_);
    ASSERT_GT(bytes_, 0u);
    // 256-byte aligned, like cudaMalloc memory.
    workspace_.assign(bytes_ + 256, 0x5A);
    const auto addr = reinterpret_cast<std::uintptr_t>(workspace_.data());
    ws_ = workspace_.data() + ((256 - addr % 256) % 256);
  }

  /// segmented_sort must fail with `code`, mention `word`, touch nothing.
  void expect_error(StatusCode code, const char* word, std::size_t bytes = SIZE_MAX) {
    const auto keys = keys_, values = values_, offsets = offsets_;
    const Status s = tilesort::segmented_sort(ws_, bytes == SIZE_MAX ? bytes_ : bytes, plan_, args_,
                                              /*stream=*/nullptr);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(static_cast<bool>(s));
    EXPECT_EQ(s.code(), code) << "got " << tilesort::to_string(s.code()) << ": " << s.what();
    EXPECT_EQ(s.cuda_error(), 0) << s.what();
    EXPECT_TRUE(mentions(s, word));
    EXPECT_TRUE(keys == keys_) << "keys modified";
    EXPECT_TRUE(values == values_) << "values modified";
    EXPECT_TRUE(offsets == offsets_) << "offsets modified";
  }

  void* ws_ = nullptr;  // workspace_.data(), or null to test that
  SortPlan plan_;
  SortArgs args_;
  std::size_t bytes_ = 0;
  std::vector<unsigned char> workspace_, keys_, values_, offsets_;
};

TEST_F(HostErrors, NullWorkspace) {
  ws_ = nullptr;
  expect_error(StatusCode::invalid_argument, "workspace");
}

TEST_F(HostErrors, NullKeys) {
  args_.keys = nullptr;
  expect_error(StatusCode::invalid_argument, "keys");
}

TEST_F(HostErrors, NullOffsets) {
  args_.offsets = nullptr;
  expect_error(StatusCode::invalid_argument, "offsets");
}

TEST_F(HostErrors, NullValuesWhenPlanHasValues) {
  for (ValueType vt : {ValueType::b32, ValueType::b64}) {
    plan_.value_type = vt;
    ASSERT_NO_FATAL_FAILURE(set_plan());
      args_.values = nullptr;
    SCOPED_TRACE(int(vt));
    expect_error(StatusCode::invalid_argument, "values");
  }
}

TEST_F(HostErrors, ValuesGivenWhenPlanHasNone) {
  plan_.value_type = ValueType::none;
  ASSERT_NO_FATAL_FAILURE(set_plan());
  args_.values = values_.data();
  expect_error(StatusCode::invalid_argument, "values");
}

TEST_F(HostErrors, WorkspaceTooSmall) {
  expect_error(StatusCode::workspace_too_small, "workspace", bytes_ - 1);
  expect_error(StatusCode::workspace_too_small, "workspace", bytes_ / 2);
  expect_error(StatusCode::workspace_too_small, "workspace", 0);
}

TEST_F(HostErrors, WorkspaceTooSmallForEveryTypeCombination) {
  for (KeyType k : kKeys)
    for (ValueType v : kValues)
      for (OffsetType o : kOffsets) {
        plan_.key_type = k;
        plan_.value_type = v;
        plan_.offset_type = o;
        ASSERT_NO_FATAL_FAILURE(set_plan());
              args_.values = v == ValueType::none ? nullptr : values_.data();
        SCOPED_TRACE(::testing::Message() << "key " << int(k) << " value " << int(v) << " offset " << int(o));
        expect_error(StatusCode::workspace_too_small, "workspace", bytes_ - 1);
      }
}

TEST_F(HostErrors, HostSegmentCountOverCapacity) {
  args_.num_segments = kSegments + 1;
  expect_error(StatusCode::count_over_capacity, "segments");
  args_.num_segments = UINT64_MAX - 1;
  expect_error(StatusCode::count_over_capacity, "segments");
}

TEST_F(HostErrors, HostItemCountOverCapacity) {
  args_.num_items = kItems + 1;
  expect_error(StatusCode::count_over_capacity, "items");
  args_.num_items = UINT64_MAX - 1;
  expect_error(StatusCode::count_over_capacity, "items");
}

TEST_F(HostErrors, BadBitRanges) {
  for (KeyType k : kKeys) {
    plan_.key_type = k;
    ASSERT_NO_FATAL_FAILURE(set_plan());
      const int kb = bits_of(k);
    const std::pair<int, int> bad[] = {{-1, -1}, {-1, 8},  {-8, kb},     {0, kb + 1}, {0, 1000}, {kb - 1, kb + 1},
                                       {8, 8},   {9, 8},   {kb, kb},     {0, 0},      {0, -2},   {5, -7}};
    for (auto [b, e] : bad) {
      SCOPED_TRACE(::testing::Message() << "key bits " << kb << " range [" << b << ", " << e << ")");
      args_.begin_bit = b;
      args_.end_bit = e;
      expect_error(StatusCode::invalid_argument, "bit");
    }
  }
}

TEST_F(HostErrors, U32OffsetsCannotAddress2p32Items) {
  plan_.offset_type = OffsetType::u32;
  for (std::uint64_t max_items : {std::uint64_t(1) << 32, (std::uint64_t(1) << 32) + 7, std::uint64_t(1) << 40}) {
    SCOPED_TRACE(max_items);
    plan_.max_items = max_items;
    std::size_t bytes = 123;
    const Status q = tilesort::segmented_sort_workspace_size(plan_, &bytes);
    EXPECT_EQ(q.code(), StatusCode::invalid_argument) << q.what();
    EXPECT_TRUE(mentions(q, "offset"));
      expect_error(StatusCode::invalid_argument, "offset", SIZE_MAX - 1);
  }
}

TEST_F(HostErrors, UnknownOrder) {
  args_.order = static_cast<Order>(7);
  const auto keys = keys_;
  const Status s = tilesort::segmented_sort(ws_, bytes_, plan_, args_, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.what();
  EXPECT_TRUE(keys == keys_);
}

// ---------------------------------------------------------------------------
// Workspace size query
// ---------------------------------------------------------------------------
TEST(WorkspaceSize, NullBytesPointer) {
  SortPlan plan;
  plan.max_items = 1000;
  plan.max_segments = 10;
  const Status s = tilesort::segmented_sort_workspace_size(plan, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_STRNE(s.what(), "");
}

TEST(WorkspaceSize, U32OffsetsLimit) {
  SortPlan plan;
  plan.offset_type = OffsetType::u32;
  plan.max_segments = 1;
  std::size_t bytes = 0;
  plan.max_items = (std::uint64_t(1) << 32) - 1;
  EXPECT_TRUE(tilesort::segmented_sort_workspace_size(plan, &bytes).ok());
  plan.max_items = std::uint64_t(1) << 32;
  EXPECT_EQ(tilesort::segmented_sort_workspace_size(plan, &bytes).code(), StatusCode::invalid_argument);
  plan.offset_type = OffsetType::u64;
  EXPECT_TRUE(tilesort::segmented_sort_workspace_size(plan, &bytes).ok());
}

TEST(WorkspaceSize, UnknownTypesAreRefused) {
  std::size_t bytes = 0;
  SortPlan plan;
  plan.max_items = 100;
  plan.max_segments = 4;
  auto refused = [&](const SortPlan& p) {
    const Status s = tilesort::segmented_sort_workspace_size(p, &bytes);
    return s.code() == StatusCode::invalid_argument || s.code() == StatusCode::unsupported_type;
  };
  SortPlan p = plan;
  p.key_type = static_cast<KeyType>(77);
  EXPECT_TRUE(refused(p));
  p = plan;
  p.value_type = static_cast<ValueType>(9);
  EXPECT_TRUE(refused(p));
  p = plan;
  p.offset_type = static_cast<OffsetType>(5);
  EXPECT_TRUE(refused(p));
}

TEST(WorkspaceSize, DependsOnlyOnThePlanAndIsMonotone) {
  const std::uint64_t item_caps[] = {1, 2, 100, 1000, 4096, 100000, 1 << 20, 1 << 24, 100000000};
  const std::uint64_t seg_caps[] = {1, 3, 1000, 1 << 16, 1 << 20, 1 << 24};
  for (KeyType k : kKeys)
    for (ValueType v : kValues)
      for (OffsetType o : kOffsets) {
        SCOPED_TRACE(::testing::Message() << "key " << int(k) << " value " << int(v) << " offset " << int(o));
        SortPlan plan;
        plan.key_type = k;
        plan.value_type = v;
        plan.offset_type = o;
        std::size_t prev_row = 0;
        for (std::uint64_t segs : seg_caps) {
          plan.max_segments = segs;
          std::size_t prev = 0;
          std::size_t first = 0;
          for (std::uint64_t items : item_caps) {
            plan.max_items = items;
            const std::size_t a = workspace_size(plan);
            const std::size_t b = workspace_size(plan);
            EXPECT_EQ(a, b) << "same plan, different size";
            EXPECT_GT(a, 0u);
            EXPECT_GE(a, prev) << "not monotone in max_items at " << items;
            prev = a;
            if (first == 0) first = a;
          }
          EXPECT_GE(first, prev_row) << "not monotone in max_segments at " << segs;
          prev_row = first;
        }
        // Monotone in max_segments at a fixed, large max_items too.
        plan.max_items = 1 << 24;
        std::size_t prev = 0;
        for (std::uint64_t segs : seg_caps) {
          plan.max_segments = segs;
          const std::size_t a = workspace_size(plan);
          EXPECT_GE(a, prev) << "not monotone in max_segments at " << segs;
          prev = a;
        }
      }
}

TEST(WorkspaceSize, SegmentBoundNeverNeedsMore) {
  for (KeyType k : kKeys) {
    SortPlan plan;
    plan.key_type = k;
    plan.value_type = ValueType::b64;
    plan.offset_type = OffsetType::u64;
    plan.max_items = 1 << 22;
    plan.max_segments = 1 << 16;
    const std::size_t unbounded = workspace_size(plan);
    for (std::uint64_t bound : {std::uint64_t(1), std::uint64_t(16), std::uint64_t(256), std::uint64_t(1024),
                                 std::uint64_t(8192), std::uint64_t(100000), std::uint64_t(1) << 22}) {
      plan.max_segment_items = bound;
      const std::size_t bounded = workspace_size(plan);
      EXPECT_GT(bounded, 0u);
      EXPECT_LE(bounded, unbounded) << "max_segment_items=" << bound;
    }
  }
}

// ---------------------------------------------------------------------------
// Status, names, sizes
// ---------------------------------------------------------------------------
TEST(StatusApi, NamesOfCodes) {
  const std::pair<StatusCode, const char*> names[] = {
      {StatusCode::ok, "ok"},
      {StatusCode::invalid_argument, "invalid_argument"},
      {StatusCode::unsupported_type, "unsupported_type"},
      {StatusCode::workspace_too_small, "workspace_too_small"},
      {StatusCode::count_over_capacity, "count_over_capacity"},
      {StatusCode::offsets_out_of_range, "offsets_out_of_range"},
      {StatusCode::offsets_not_monotonic, "offsets_not_monotonic"},
      {StatusCode::segment_too_large, "segment_too_large"},
      {StatusCode::cuda_error, "cuda_error"},
  };
  for (auto [code, name] : names) {
    ASSERT_NE(tilesort::to_string(code), nullptr);
    EXPECT_STREQ(tilesort::to_string(code), name);
  }
}

TEST(StatusApi, DefaultIsOk) {
  const Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), StatusCode::ok);
  EXPECT_EQ(s.cuda_error(), 0);
  EXPECT_STREQ(s.what(), "ok");
}

TEST(StatusApi, CarriesCodeAndMessage) {
  const Status s(StatusCode::invalid_argument, "keys is null");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(std::string(s.what()).find("keys is null"), std::string::npos) << s.what();
  const Status copy = s;  // cheap to copy; the copy owns its message
  EXPECT_EQ(copy.code(), s.code());
  EXPECT_STREQ(copy.what(), s.what());
}

TEST(StatusApi, LongMessagesAreTruncatedSafely) {
  const std::string long_msg(1000, 'x');
  const Status s(StatusCode::segment_too_large, long_msg.c_str());
  EXPECT_EQ(s.code(), StatusCode::segment_too_large);
  // Cut to the capacity, terminated, the code's name still first.
  EXPECT_EQ(std::strlen(s.what()), Status::kMessageCapacity - 1);
  EXPECT_EQ(std::string(s.what()).rfind("segment_too_large: xxx", 0), 0u) << s.what();
}

TEST(StatusApi, FromCuda) {
  const Status s = Status::from_cuda(2 /* cudaErrorMemoryAllocation */, "cudaMemsetAsync");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::cuda_error);
  EXPECT_EQ(s.cuda_error(), 2);
  EXPECT_TRUE(mentions(s, "cudaMemsetAsync"));
}

TEST(StatusApi, FromDeviceStatus) {
  const StatusCode codes[] = {StatusCode::count_over_capacity, StatusCode::offsets_out_of_range,
                              StatusCode::offsets_not_monotonic, StatusCode::segment_too_large};
  tilesort::DeviceStatus ds{};
  ds.code = std::int32_t(StatusCode::ok);
  EXPECT_TRUE(tilesort::to_status(ds).ok());
  for (StatusCode c : codes) {
    ds.code = std::int32_t(c);
    ds.index = 17;
    ds.value = 123456;
    const Status s = tilesort::to_status(ds);
    EXPECT_EQ(s.code(), c);
    EXPECT_FALSE(s.ok());
    EXPECT_STRNE(s.what(), "");
    EXPECT_STRNE(s.what(), "ok");
  }
}

TEST(TypeApi, SizesAndTraits) {
  EXPECT_EQ(tilesort::size_of(KeyType::u32), 4u);
  EXPECT_EQ(tilesort::size_of(KeyType::i32), 4u);
  EXPECT_EQ(tilesort::size_of(KeyType::f32), 4u);
  EXPECT_EQ(tilesort::size_of(KeyType::u64), 8u);
  EXPECT_EQ(tilesort::size_of(KeyType::i64), 8u);
  EXPECT_EQ(tilesort::size_of(KeyType::f64), 8u);
  EXPECT_EQ(tilesort::size_of(ValueType::none), 0u);
  EXPECT_EQ(tilesort::size_of(ValueType::b32), 4u);
  EXPECT_EQ(tilesort::size_of(ValueType::b64), 8u);
  static_assert(tilesort::key_type_of<std::uint32_t>() == KeyType::u32, "");
  static_assert(tilesort::key_type_of<std::int32_t>() == KeyType::i32, "");
  static_assert(tilesort::key_type_of<float>() == KeyType::f32, "");
  static_assert(tilesort::key_type_of<std::uint64_t>() == KeyType::u64, "");
  static_assert(tilesort::key_type_of<std::int64_t>() == KeyType::i64, "");
  static_assert(tilesort::key_type_of<double>() == KeyType::f64, "");
  const SortArgs a;
  EXPECT_EQ(a.num_items, UINT64_MAX);
  EXPECT_EQ(a.end_bit, -1);
  EXPECT_EQ(a.begin_bit, 0);
  EXPECT_EQ(a.order, Order::ascending);
}

}  // namespace
