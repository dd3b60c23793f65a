// GPU tests: errors only the device can see (counts in device memory, bad
// offsets, segments above plan.max_segment_items). segmented_sort returns ok,
// the DeviceStatus in the workspace names the problem, user data is left
// byte-for-byte untouched, and the next valid sort on the same workspace
// works and reports ok.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"

namespace tstest {
namespace {

using tilesort::StatusCode;

struct Types {
  const char* name;
  KeyType key;
  ValueType value;
  OffsetType offset;
};

void PrintTo(const Types& t, std::ostream* os) { *os << t.name; }

/// Count / size values to write over what upload_case put there.
struct Overrides {
  std::optional<std::uint32_t> d_num_segments;  // device segment count
  std::optional<std::uint32_t> d_num_items;     // device item count
  std::optional<std::uint64_t> host_num_items;  // SortArgs::num_items
};

class DeviceErrors : public GpuTest, public ::testing::WithParamInterface<Types> {
 protected:
  HostCase make(const std::vector<std::uint64_t>& sizes, std::uint64_t prefix = 0, std::uint64_t suffix = 0,
                OffsetType offset_type = OffsetType(255)) {
    const Types& t = GetParam();
    return make_case(t.key, t.value, offset_type == OffsetType(255) ? t.offset : offset_type, sizes, Dist::uniform,
                     rng_, prefix, suffix);
  }

  tilesort::SortPlan plan(std::uint64_t max_items, std::uint64_t max_segments, std::uint64_t max_segment_items = 0,
                          OffsetType offset_type = OffsetType(255)) const {
    const Types& t = GetParam();
    tilesort::SortPlan p;
    p.key_type = t.key;
    p.value_type = t.value;
    p.offset_type = offset_type == OffsetType(255) ? t.offset : offset_type;
    p.max_items = max_items;
    p.max_segments = max_segments;
    p.max_segment_items = max_segment_items;
    return p;
  }

  /// The sort must be accepted on the host, refused on the device with one
  /// of `codes`, and leave keys, values and offsets untouched.
  void expect_refused(Workspace& ws, const HostCase& c, const RunOptions& o, std::vector<StatusCode> codes,
                      const Overrides& ov = {}) {
    SCOPED_TRACE(c.description + " | " + o.describe());
    DeviceCase d;
    ASSERT_NO_FATAL_FAILURE(upload_case(c, o, d));
    tilesort::SortArgs args = make_args(c, o, d);
    if (ov.d_num_segments) {
      args.d_num_segments = d.num_segments.as<const std::uint32_t>();
      TS_CUDA_ASSERT(cudaMemcpy(d.num_segments.get(), &*ov.d_num_segments, 4, cudaMemcpyHostToDevice));
    }
    if (ov.d_num_items) {
      args.d_num_items = d.num_items.as<const std::uint32_t>();
      args.num_items = UINT64_MAX;
      TS_CUDA_ASSERT(cudaMemcpy(d.num_items.get(), &*ov.d_num_items, 4, cudaMemcpyHostToDevice));
    }
    if (ov.host_num_items) {
      args.d_num_items = nullptr;
      args.num_items = *ov.host_num_items;
    }
    TS_CUDA_ASSERT(cudaDeviceSynchronize());  // the copies above are on the legacy stream
    const tilesort::Status st = tilesort::segmented_sort(ws.buf.get(), ws.bytes, ws.plan, args, stream_);
    ASSERT_TRUE(st.ok()) << "expected the host to accept this call (the error is device-side): "
                         << tilesort::to_string(st.code()) << ": " << st.what();
    const tilesort::Status ds = tilesort::read_device_status(ws.buf.get(), stream_);
    TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
    TS_CUDA_ASSERT(cudaGetLastError());
    EXPECT_FALSE(ds.ok());
    bool expected = false;
    std::string names;
    for (StatusCode code : codes) {
      expected |= ds.code() == code;
      names += std::string(names.empty() ? "" : " or ") + tilesort::to_string(code);
    }
    EXPECT_TRUE(expected) << "device status " << tilesort::to_string(ds.code()) << " (" << ds.what()
                          << "), expected " << names;
    EXPECT_STRNE(ds.what(), "");
    EXPECT_STRNE(ds.what(), "ok");

    // The raw DeviceStatus lives in the workspace and says the same.
    const tilesort::DeviceStatus* dsp = tilesort::device_status(ws.buf.get());
    ASSERT_NE(dsp, nullptr);
    const auto* base = static_cast<const unsigned char*>(ws.buf.get());
    const auto* at = reinterpret_cast<const unsigned char*>(dsp);
    EXPECT_TRUE(at >= base && at + sizeof(tilesort::DeviceStatus) <= base + ws.bytes)
        << "device_status() does not point into the workspace";
    tilesort::DeviceStatus raw{};
    TS_CUDA_ASSERT(cudaMemcpy(&raw, dsp, sizeof raw, cudaMemcpyDeviceToHost));
    EXPECT_EQ(raw.code, std::int32_t(ds.code()));
    EXPECT_EQ(tilesort::to_status(raw).code(), ds.code());

    HostCase got;
    ASSERT_NO_FATAL_FAILURE(download_case(c, d, got));  // also checks the offsets
    ASSERT_NO_FATAL_FAILURE(expect_same(c, c, got));    // untouched
  }

  /// A valid sort on the same workspace works, is correct and reports ok.
  void expect_recovers(Workspace& ws, const HostCase& c, const RunOptions& o = RunOptions()) {
    SCOPED_TRACE("recovery sort on the same workspace");
    ASSERT_NO_FATAL_FAILURE(sort_and_check(stream_, c, o, &ws));
    tilesort::DeviceStatus raw{};
    TS_CUDA_ASSERT(cudaMemcpy(&raw, tilesort::device_status(ws.buf.get()), sizeof raw, cudaMemcpyDeviceToHost));
    EXPECT_EQ(raw.code, std::int32_t(StatusCode::ok));
  }
};

RunOptions device_counts(bool items_too = false) {
  RunOptions o;
  o.segments = CountMode::device;
  o.items = items_too ? ItemsMode::device : ItemsMode::none;
  o.offsets_garbage_tail = 16;
  return o;
}

TEST_P(DeviceErrors, SegmentCountOverCapacity) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(4096, 8), ws));
  const HostCase c = make(std::vector<std::uint64_t>(10, 50), 7, 7);
  for (std::uint32_t count : {9u, 10u, 0xFFFFFFFFu}) {
    SCOPED_TRACE(count);
    Overrides ov;
    ov.d_num_segments = count;
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, device_counts(), {StatusCode::count_over_capacity}, ov));
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, device_counts(true), {StatusCode::count_over_capacity}, ov));
  }
  // Exactly at capacity is fine.
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, make(std::vector<std::uint64_t>(8, 300), 5, 5), device_counts(true)));
}

TEST_P(DeviceErrors, ItemCountOverCapacity) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(1000, 16), ws));
  const HostCase c = make({250, 250, 0, 250, 250});
  ASSERT_EQ(c.n, 1000u);
  for (std::uint32_t items : {1001u, 0xFFFFFFFFu}) {
    for (bool dev_segments : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "d_num_items=" << items << " device segments " << dev_segments);
      RunOptions o = device_counts(true);
      o.segments = dev_segments ? CountMode::device : CountMode::host;
      Overrides ov;
      ov.d_num_items = items;
      ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, o, {StatusCode::count_over_capacity}, ov));
    }
  }
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, c, device_counts(true)));  // exactly max_items
}

TEST_P(DeviceErrors, OffsetBeyondGivenItemCount) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(1000, 16), ws));
  // Last offset 60 > 50 items.
  const HostCase last = make({30, 30});
  // Monotone offsets, the middle ones beyond 90 items.
  HostCase middle = make({30, 30, 30});
  middle.offsets = {0, 95, 95, 95};
  // Every offset beyond the items.
  HostCase first = make({30, 30, 30});
  first.offsets = {91, 91, 91, 91};
  struct K {
    const HostCase* c;
    std::uint64_t items;
  };
  for (const K& k : {K{&last, 50}, K{&middle, 90}, K{&first, 90}}) {
    SCOPED_TRACE(::testing::Message() << "num_items=" << k.items);
    Overrides host;
    host.host_num_items = k.items;
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, *k.c, RunOptions(), {StatusCode::offsets_out_of_range}, host));
    Overrides dev;
    dev.d_num_items = std::uint32_t(k.items);
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, *k.c, device_counts(true), {StatusCode::offsets_out_of_range}, dev));
  }
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, last));
}

TEST_P(DeviceErrors, U64OffsetsAbove2p32AreNotTruncated) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(1000, 16, 0, OffsetType::u64), ws));
  const std::uint64_t big = std::uint64_t(1) << 32;
  // Truncated to 32 bits these would be valid offsets ({5, 5, 5} and {0, 5, 5}).
  HostCase empty_segments = make({20, 20}, 0, 0, OffsetType::u64);
  empty_segments.offsets = {big + 5, big + 5, big + 5};
  HostCase huge_segment = make({20, 20}, 0, 0, OffsetType::u64);
  huge_segment.offsets = {0, big + 5, big + 5};
  Overrides host;
  host.host_num_items = 40;
  Overrides dev;
  dev.d_num_items = 40;
  ASSERT_NO_FATAL_FAILURE(
      expect_refused(ws, empty_segments, RunOptions(), {StatusCode::offsets_out_of_range}, host));
  ASSERT_NO_FATAL_FAILURE(
      expect_refused(ws, empty_segments, device_counts(true), {StatusCode::offsets_out_of_range}, dev));
  // Segment 0 is also longer than 2^31 - 1 here: either check may fire first.
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, huge_segment, RunOptions(),
                                         {StatusCode::offsets_out_of_range, StatusCode::segment_too_large}, host));
  // No item count given: the total offsets[2] is itself far above capacity.
  HostCase b = make({10, 20}, 0, 0, OffsetType::u64);
  b.offsets = {0, 10, big + 30};
  ASSERT_NO_FATAL_FAILURE(expect_refused(
      ws, b, RunOptions(),
      {StatusCode::count_over_capacity, StatusCode::offsets_out_of_range, StatusCode::segment_too_large}));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, make({20, 20}, 0, 0, OffsetType::u64)));
}

TEST_P(DeviceErrors, OffsetsNotMonotonic) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(60000, 6000), ws));
  HostCase mid = make({30, 10, 0}, 0, 0);  // 40 items
  mid.offsets = {0, 30, 20, 40};
  HostCase first = make({10, 30}, 0, 0);
  first.offsets = {10, 5, 40};
  HostCase lastpair = make({10, 30, 0}, 0, 0);
  lastpair.offsets = {0, 10, 40, 39};
  for (const HostCase* c : {&mid, &first, &lastpair}) {
    ASSERT_EQ(c->n, 40u);
    Overrides host;
    host.host_num_items = 40;
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, *c, RunOptions(), {StatusCode::offsets_not_monotonic}, host));
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, *c, device_counts(true), {StatusCode::offsets_not_monotonic}));
  }
  // Total not given: every offset of `mid` is still within offsets[3] = 40.
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, mid, RunOptions(), {StatusCode::offsets_not_monotonic}));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, mid, device_counts(), {StatusCode::offsets_not_monotonic}));

  // One inversion somewhere among 5000 segments.
  HostCase many = make(std::vector<std::uint64_t>(5000, 10), 3, 3);
  const std::size_t k = 1 + rng_() % (many.num_segments() - 2);
  many.offsets[k] = many.offsets[k + 1] + 1;
  SCOPED_TRACE(::testing::Message() << "inversion at offsets[" << k << "]");
  Overrides host;
  host.host_num_items = many.n;
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, many, RunOptions(), {StatusCode::offsets_not_monotonic}, host));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, many, device_counts(true), {StatusCode::offsets_not_monotonic}));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, make(std::vector<std::uint64_t>(5000, 10), 3, 3), device_counts(true)));
}

TEST_P(DeviceErrors, OffsetBeyondTotalTakenFromOffsets) {
  TS_TRACE_SEED();
  // No item count: the total is offsets[2] = 10, and offsets[1] = 50 is both
  // beyond it and above its successor; either code names the problem.
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(1000, 16), ws));
  HostCase c = make({50, 10});
  c.offsets = {0, 50, 10};
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, RunOptions(),
                                         {StatusCode::offsets_out_of_range, StatusCode::offsets_not_monotonic}));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, device_counts(),
                                         {StatusCode::offsets_out_of_range, StatusCode::offsets_not_monotonic}));
  // The total taken from offsets[num_segments] above max_items.
  HostCase over = make({600, 600});
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, over, RunOptions(),
                                         {StatusCode::count_over_capacity, StatusCode::offsets_out_of_range}));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, make({500, 500})));
}

TEST_P(DeviceErrors, SegmentTooLarge) {
  TS_TRACE_SEED();
  for (std::uint64_t bound : {std::uint64_t(1), std::uint64_t(256), std::uint64_t(8192), std::uint64_t(50000)}) {
    SCOPED_TRACE(::testing::Message() << "max_segment_items=" << bound);
    Workspace ws;
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan(2 * bound + 2000, 16, bound), ws));
    const HostCase c = make({std::min<std::uint64_t>(100, bound), bound + 1, 1, 0}, 4, 4);
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, RunOptions(), {StatusCode::segment_too_large}));
    ASSERT_NO_FATAL_FAILURE(expect_refused(ws, c, device_counts(true), {StatusCode::segment_too_large}));
    // Segments exactly at the bound are fine.
    ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, make({bound, 0, 1, bound}, 4, 4), device_counts(true)));
  }
}

TEST_P(DeviceErrors, StatusBelongsToTheLastSort) {
  TS_TRACE_SEED();
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan(4096, 64, 2048), ws));
  const HostCase good = make({100, 2048, 0, 1, 700}, 2, 2);
  HostCase nonmono = make({10, 10, 10});
  nonmono.offsets = {0, 20, 10, 30};
  const HostCase too_large = make({10, 2049, 3});
  HostCase out_of_range = make({10, 10});
  Overrides over_segments;
  over_segments.d_num_segments = 65;
  Overrides few_items;
  few_items.host_num_items = 15;

  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, good, device_counts(true)));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, nonmono, RunOptions(), {StatusCode::offsets_not_monotonic}));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, good));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, good, device_counts(), {StatusCode::count_over_capacity}, over_segments));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, good, device_counts()));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, too_large, RunOptions(), {StatusCode::segment_too_large}));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, good));
  ASSERT_NO_FATAL_FAILURE(expect_refused(ws, out_of_range, RunOptions(), {StatusCode::offsets_out_of_range}, few_items));
  ASSERT_NO_FATAL_FAILURE(expect_recovers(ws, good, device_counts(true)));
}

// One type combination in the sanitizer subset, two more outside it.
INSTANTIATE_TEST_SUITE_P(Sanitizer, DeviceErrors,
                         ::testing::Values(Types{"u32_b32_off32", KeyType::u32, ValueType::b32, OffsetType::u32}),
                         [](const ::testing::TestParamInfo<Types>& i) { return std::string(i.param.name); });
INSTANTIATE_TEST_SUITE_P(MoreTypes, DeviceErrors,
                         ::testing::Values(Types{"f64_b64_off64", KeyType::f64, ValueType::b64, OffsetType::u64},
                                           Types{"i32_none_off64", KeyType::i32, ValueType::none, OffsetType::u64}),
                         [](const ::testing::TestParamInfo<Types>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace tstest
