// Binning tests: emission helpers, bin, bin_index, gather and bin_and_sort
// against the CPU references in binning_reference.hpp.
//
//   BinningHost.*        CPU only (depth-key order, references, host-side
//                        argument checks); they run without a GPU.
//   BinningGpu.*         differential / edge / error / graph tests; they skip
//                        visibly without a device.
//   BinningGpuSanitizer.* a small, fast subset for compute-sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "binning_reference.hpp"
#include "binning_test_util.hpp"
#include "gpu_test_util.hpp"
#include "tilesort/binning.hpp"
#include "tilesort/emit.cuh"

namespace tstest {
namespace {

using tilesort::BinArgs;
using tilesort::BinIndexArgs;
using tilesort::BinPlan;
using tilesort::GatherArgs;
using tilesort::StatusCode;

// ---------------------------------------------------------------------------
// CPU-only
// ---------------------------------------------------------------------------
std::vector<float> special_depths() {
  std::vector<float> v = {-std::numeric_limits<float>::infinity(), -FLT_MAX, -1.5f, -1.0f, -FLT_MIN,
                          -std::numeric_limits<float>::denorm_min(), -0.0f, 0.0f,
                          std::numeric_limits<float>::denorm_min(), FLT_MIN, 1.0f, 1.5f, FLT_MAX,
                          std::numeric_limits<float>::infinity()};
  const std::uint32_t nan_bits[] = {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFFFFFFFFu};
  for (std::uint32_t b : nan_bits) {
    float f;
    std::memcpy(&f, &b, 4);
    v.push_back(f);
  }
  Rng rng(1234);
  for (int i = 0; i < 200; ++i) {
    std::uint32_t b = std::uint32_t(rng());
    float f;
    std::memcpy(&f, &b, 4);
    v.push_back(f);
  }
  return v;
}

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(BinningHost, DepthKeyIsATotalOrderAndRoundTrips) {
  const std::vector<float> v = special_depths();
  for (float a : v) {
    EXPECT_EQ(bits_of(tilesort::depth_from_key(tilesort::depth_key(a))), bits_of(a)) << "round trip of " << a;
    for (float b : v) {
      const std::uint32_t ka = tilesort::depth_key(a), kb = tilesort::depth_key(b);
      if (binref::depth_before(a, b)) {
        EXPECT_LT(ka, kb) << a << " before " << b;
      }
      if (!std::isnan(a) && !std::isnan(b) && !binref::depth_before(a, b) && !binref::depth_before(b, a)) {
        EXPECT_EQ(ka, kb) << a << " equals " << b;
      }
      if (std::isnan(a) && !std::isnan(b)) {
        EXPECT_GT(ka, kb) << "NaN last vs " << b;
      }
    }
  }
  EXPECT_LT(tilesort::depth_key(-0.0f), tilesort::depth_key(0.0f));
}

TEST(BinningHost, QuantizedKeysKeepOrderAndFitTheirBits) {
  std::vector<float> v = special_depths();
  std::sort(v.begin(), v.end(), binref::depth_before);
  for (int bits = 1; bits <= 32; ++bits) {
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
      if (std::isnan(v[i]) && std::isnan(v[i + 1])) continue;  // NaNs are unordered among themselves
      const std::uint32_t a = tilesort::quantize_key(tilesort::depth_key(v[i]), bits);
      const std::uint32_t b = tilesort::quantize_key(tilesort::depth_key(v[i + 1]), bits);
      EXPECT_LE(a, b) << bits << " bits, " << v[i] << " vs " << v[i + 1];
      if (bits < 32) {
        EXPECT_LT(b, 1ull << bits);
      }
    }
  }
  EXPECT_EQ(tilesort::quantize_key(0xFFFFFFFFu, 32), 0xFFFFFFFFu);
}

TEST(BinningHost, ReferenceBinIsAStableSplit) {
  const std::vector<std::uint32_t> tiles = {2, 0, 2, 1, 0, 2};
  std::vector<std::uint32_t> perm, offsets;
  binref::bin_index(tiles, 4, perm, offsets);
  EXPECT_EQ(perm, (std::vector<std::uint32_t>{1, 4, 3, 0, 2, 5}));
  EXPECT_EQ(offsets, (std::vector<std::uint32_t>{0, 2, 3, 6, 6}));
  const std::vector<std::uint32_t> keys = {5, 9, 5, 1, 3, 4};
  const auto sorted = binref::bin_and_sort(tiles, keys, 4, tilesort::Order::ascending, 0, -1, offsets);
  EXPECT_EQ(sorted, (std::vector<std::uint32_t>{4, 1, 3, 5, 0, 2}));
  const auto desc = binref::bin_and_sort(tiles, keys, 4, tilesort::Order::descending, 0, -1, offsets);
  EXPECT_EQ(desc, (std::vector<std::uint32_t>{1, 4, 3, 0, 2, 5}));
}

TEST(BinningHost, WorkspaceQueryChecksThePlan) {
  std::size_t bytes = 0;
  BinPlan plan;
  EXPECT_EQ(tilesort::bin_workspace_size(plan, &bytes).code(), StatusCode::invalid_argument);
  plan.max_records = 1000;
  plan.max_tiles = 100;
  EXPECT_EQ(tilesort::bin_workspace_size(plan, nullptr).code(), StatusCode::invalid_argument);
  ASSERT_TRUE(tilesort::bin_workspace_size(plan, &bytes).ok());
  EXPECT_GT(bytes, 0u);
  std::size_t with_sort = 0;
  ASSERT_TRUE(tilesort::bin_and_sort_workspace_size(plan, &with_sort).ok());
  EXPECT_GT(with_sort, bytes);
  plan.max_tile_records = 1001;
  EXPECT_EQ(tilesort::bin_workspace_size(plan, &bytes).code(), StatusCode::invalid_argument);
  plan.max_tile_records = 0;
  plan.max_records = std::uint64_t(1) << 33;
  EXPECT_EQ(tilesort::bin_workspace_size(plan, &bytes).code(), StatusCode::invalid_argument);
  plan.max_records = 1000;
  plan.value_type = static_cast<tilesort::ValueType>(7);
  EXPECT_EQ(tilesort::bin_workspace_size(plan, &bytes).code(), StatusCode::unsupported_type);
}

// Host-side checks return before any CUDA call, so fake (never dereferenced)
// device addresses are enough here.
TEST(BinningHost, HostArgumentErrorsAreReportedBeforeLaunching) {
  alignas(256) static unsigned char fake[1024];
  BinPlan plan;
  plan.max_records = 1000;
  plan.max_tiles = 100;
  std::size_t bytes = 0;
  ASSERT_TRUE(tilesort::bin_and_sort_workspace_size(plan, &bytes).ok());
  auto* u32 = reinterpret_cast<std::uint32_t*>(fake);
  BinArgs good;
  good.tile_ids = u32;
  good.keys = u32 + 16;
  good.values = u32 + 32;
  good.num_records = 10;
  good.num_tiles = 100;
  good.out_keys = u32 + 48;
  good.out_values = u32 + 64;
  good.out_offsets = u32 + 80;

  struct Bad {
    const char* what;
    BinArgs args;
    StatusCode code;
  };
  std::vector<Bad> bad;
  BinArgs a = good; a.tile_ids = nullptr; bad.push_back({"null tile_ids", a, StatusCode::invalid_argument});
  a = good; a.keys = nullptr; bad.push_back({"null keys", a, StatusCode::invalid_argument});
  a = good; a.values = nullptr; bad.push_back({"null values", a, StatusCode::invalid_argument});
  a = good; a.out_keys = nullptr; bad.push_back({"null out_keys", a, StatusCode::invalid_argument});
  a = good; a.out_offsets = nullptr; bad.push_back({"null out_offsets", a, StatusCode::invalid_argument});
  a = good; a.num_tiles = 0; bad.push_back({"zero tiles", a, StatusCode::invalid_argument});
  a = good; a.num_tiles = 101; bad.push_back({"tiles over capacity", a, StatusCode::count_over_capacity});
  a = good; a.num_records = 1001; bad.push_back({"records over capacity", a, StatusCode::count_over_capacity});
  a = good; a.record_capacity = 9; bad.push_back({"records over the sink's capacity", a, StatusCode::count_over_capacity});
  a = good; a.out_keys = const_cast<std::uint32_t*>(a.keys); bad.push_back({"aliasing", a, StatusCode::invalid_argument});
  a = good; a.keys = reinterpret_cast<const std::uint32_t*>(fake + 2); bad.push_back({"misaligned", a, StatusCode::invalid_argument});
  a = good; a.end_bit = 33; bad.push_back({"bit range (bin_and_sort only)", a, StatusCode::invalid_argument});
  for (const Bad& b : bad) {
    const tilesort::Status s = tilesort::bin_and_sort(fake, bytes, plan, b.args, nullptr);
    EXPECT_EQ(s.code(), b.code) << b.what << ": " << s.what();
    EXPECT_STRNE(s.what(), "ok");
    if (std::string(b.what).find("bin_and_sort only") == std::string::npos) {
      const tilesort::Status s2 = tilesort::bin(fake, bytes, plan, b.args, nullptr);
      EXPECT_EQ(s2.code(), b.code) << "bin, " << b.what << ": " << s2.what();
    }
  }
  EXPECT_EQ(tilesort::bin_and_sort(nullptr, bytes, plan, good, nullptr).code(), StatusCode::invalid_argument);
  EXPECT_EQ(tilesort::bin_and_sort(fake, 16, plan, good, nullptr).code(), StatusCode::workspace_too_small);
  EXPECT_EQ(tilesort::bin_and_sort(fake + 4, bytes, plan, good, nullptr).code(), StatusCode::invalid_argument);

  BinIndexArgs ia;
  ia.tile_ids = u32;
  ia.num_records = 10;
  ia.num_tiles = 100;
  ia.out_offsets = u32 + 80;
  EXPECT_EQ(tilesort::bin_index(fake, bytes, plan, ia, nullptr).code(), StatusCode::invalid_argument);  // no permutation

  GatherArgs g;
  g.records = u32;
  g.out_records = u32 + 64;
  g.permutation = u32 + 128;
  g.record_bytes = 6;
  g.num_records = 10;
  EXPECT_EQ(tilesort::gather(fake, bytes, plan, g, nullptr).code(), StatusCode::invalid_argument);
  g.record_bytes = 64;
  g.num_records = 1001;
  EXPECT_EQ(tilesort::gather(fake, bytes, plan, g, nullptr).code(), StatusCode::count_over_capacity);
  g.num_records = 10;
  g.permutation = nullptr;
  EXPECT_EQ(tilesort::gather(fake, bytes, plan, g, nullptr).code(), StatusCode::invalid_argument);
  // gather shares the other calls' workspace checks: a workspace that is not
  // 256-byte aligned is refused, in the same words.
  g.permutation = u32 + 128;
  const tilesort::Status gathered = tilesort::gather(fake + 4, bytes, plan, g, nullptr);
  EXPECT_EQ(gathered.code(), StatusCode::invalid_argument) << gathered.what();
  EXPECT_STREQ(gathered.what(), tilesort::bin_and_sort(fake + 4, bytes, plan, good, nullptr).what());
}

TEST(BinningHost, BinStatusMessagesNameTheRecord) {
  tilesort::DeviceStatus s{};
  s.code = int(StatusCode::tile_id_out_of_range);
  s.index = 17;
  s.value = 8160;
  const tilesort::Status st = tilesort::to_bin_status(s);
  EXPECT_EQ(st.code(), StatusCode::tile_id_out_of_range);
  EXPECT_STREQ(tilesort::to_string(st.code()), "tile_id_out_of_range");
  EXPECT_NE(std::string(st.what()).find("record 17 has tile id 8160"), std::string::npos) << st.what();
  s.code = int(StatusCode::permutation_out_of_range);
  s.index = 3;
  s.value = 99;
  const tilesort::Status sp = tilesort::to_bin_status(s);
  EXPECT_EQ(sp.code(), StatusCode::permutation_out_of_range);
  EXPECT_NE(std::string(sp.what()).find("permutation[3] = 99"), std::string::npos) << sp.what();
  s = {};
  EXPECT_TRUE(tilesort::to_bin_status(s).ok());
}

// ---------------------------------------------------------------------------
// GPU helpers
// ---------------------------------------------------------------------------
template <class T>
void upload_vec(DeviceBuffer& d, const std::vector<T>& v, std::size_t capacity = 0) {
  const std::size_t n = std::max(capacity, v.size());
  TS_CUDA_ASSERT(d.alloc(n * sizeof(T)));
  TS_CUDA_ASSERT(cudaMemset(d.get(), 0x5A, n * sizeof(T)));
  if (!v.empty()) TS_CUDA_ASSERT(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
void download_vec(std::vector<T>& v, const DeviceBuffer& d, std::size_t n) {
  v.assign(n, T{});
  if (n) TS_CUDA_ASSERT(cudaMemcpy(v.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
}

/// Fills `d` (n elements of T) with a poison pattern the outputs are checked against.
constexpr int kPoison = 0xCD;
template <class T>
void alloc_poisoned(DeviceBuffer& d, std::size_t n) {
  TS_CUDA_ASSERT(d.alloc(std::max<std::size_t>(n, 1) * sizeof(T)));
  TS_CUDA_ASSERT(cudaMemset(d.get(), kPoison, std::max<std::size_t>(n, 1) * sizeof(T)));
}

template <class T>
::testing::AssertionResult all_poison(const DeviceBuffer& d, std::size_t n, const char* what) {
  std::vector<unsigned char> bytes(n * sizeof(T));
  if (n && cudaMemcpy(bytes.data(), d.get(), bytes.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
    return ::testing::AssertionFailure() << "copy of " << what << " failed";
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != kPoison) return ::testing::AssertionFailure() << what << " byte " << i << " was written";
  return ::testing::AssertionSuccess();
}

/// Record bytes with a pattern that differs from record to record.
std::vector<unsigned char> record_pattern(std::size_t bytes, int shift) {
  std::vector<unsigned char> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(splitmix64(i) >> shift);
  return out;
}

GatherArgs gather_args(const DeviceBuffer& records, DeviceBuffer& out_records, std::size_t record_bytes,
                       const DeviceBuffer& permutation, const std::uint32_t* d_num_records) {
  GatherArgs g;
  g.records = records.get();
  g.out_records = out_records.get();
  g.record_bytes = record_bytes;
  g.permutation = permutation.as<std::uint32_t>();
  g.d_num_records = d_num_records;
  return g;
}

template <class T>
::testing::AssertionResult same(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure() << what << "[" << i << "] = " << got[i] << ", expected " << want[i]
                                           << " (of " << got.size() << ")";
  return ::testing::AssertionSuccess();
}

enum class Mode { bin, bin_and_sort };

struct Case {
  std::vector<std::uint32_t> tiles, keys;
  std::vector<std::uint64_t> values;  // low 32 bits used for b32
  std::uint32_t num_tiles = 1;
  tilesort::ValueType value_type = tilesort::ValueType::b32;
  bool device_count = true;
  Mode mode = Mode::bin;
  tilesort::Order order = tilesort::Order::ascending;
  int begin_bit = 0, end_bit = -1;
  std::uint64_t max_tile_records = 0;
  std::uint64_t slack_records = 0;  // capacity beyond the records
  std::uint32_t slack_tiles = 0;
  bool also_index_and_gather = false;
};

std::string describe(const Case& c) {
  std::ostringstream os;
  os << (c.mode == Mode::bin ? "bin" : "bin_and_sort") << " n=" << c.tiles.size() << " tiles=" << c.num_tiles
     << " values=" << int(c.value_type) << " device_count=" << c.device_count << " order=" << int(c.order)
     << " bits=[" << c.begin_bit << "," << c.end_bit << ") max_tile=" << c.max_tile_records
     << " slack_tiles=" << c.slack_tiles;
  return os.str();
}

/// Runs a case on the device and compares every output with the reference.
void run_and_check(const Case& c, cudaStream_t stream) {
  SCOPED_TRACE(describe(c));
  const std::size_t n = c.tiles.size();
  BinPlan plan;
  plan.max_records = n + c.slack_records + (n + c.slack_records == 0 ? 1 : 0);
  plan.max_tiles = c.num_tiles + c.slack_tiles;
  plan.value_type = c.value_type;
  plan.max_tile_records = c.max_tile_records;
  std::size_t bytes = 0;
  if (c.mode == Mode::bin) {
    TS_STATUS_ASSERT_OK(tilesort::bin_workspace_size(plan, &bytes));
  } else {
    TS_STATUS_ASSERT_OK(tilesort::bin_and_sort_workspace_size(plan, &bytes));
  }
  DeviceBuffer ws;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  TS_CUDA_ASSERT(cudaMemset(ws.get(), 0xA5, bytes));  // the calls may not rely on zeroed memory

  DeviceBuffer tiles, keys, values, count, out_keys, out_values, out_offsets;
  ASSERT_NO_FATAL_FAILURE(upload_vec(tiles, c.tiles, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(upload_vec(keys, c.keys, plan.max_records));
  const std::size_t vb = tilesort::size_of(c.value_type);
  std::vector<std::uint32_t> values32(c.values.begin(), c.values.end());
  if (vb == 4) {
    ASSERT_NO_FATAL_FAILURE(upload_vec(values, values32, plan.max_records));
  }
  if (vb == 8) {
    ASSERT_NO_FATAL_FAILURE(upload_vec(values, c.values, plan.max_records));
  }
  const std::vector<std::uint32_t> n32 = {std::uint32_t(n)};
  ASSERT_NO_FATAL_FAILURE(upload_vec(count, n32));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_keys, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint64_t>(out_values, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, std::size_t(plan.max_tiles) + 1));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());

  BinArgs args;
  args.tile_ids = tiles.as<std::uint32_t>();
  args.keys = keys.as<std::uint32_t>();
  args.values = vb ? values.get() : nullptr;
  args.d_num_records = c.device_count ? count.as<std::uint32_t>() : nullptr;
  args.num_records = n;
  args.num_tiles = c.num_tiles;
  args.out_keys = out_keys.as<std::uint32_t>();
  args.out_values = vb ? out_values.get() : nullptr;
  args.out_offsets = out_offsets.as<std::uint32_t>();
  args.order = c.order;
  args.begin_bit = c.begin_bit;
  args.end_bit = c.end_bit;
  if (c.mode == Mode::bin) {
    TS_STATUS_ASSERT_OK(tilesort::bin(ws.get(), bytes, plan, args, stream));
    TS_STATUS_ASSERT_OK(tilesort::read_bin_status(ws.get(), stream));
  } else {
    TS_STATUS_ASSERT_OK(tilesort::bin_and_sort(ws.get(), bytes, plan, args, stream));
    TS_STATUS_ASSERT_OK(tilesort::read_bin_and_sort_status(ws.get(), plan, stream));
  }

  std::vector<std::uint32_t> want_offsets;
  const std::vector<std::uint32_t> perm =
      c.mode == Mode::bin ? [&] {
        std::vector<std::uint32_t> p;
        binref::bin_index(c.tiles, c.num_tiles, p, want_offsets);
        return p;
      }()
                          : binref::bin_and_sort(c.tiles, c.keys, c.num_tiles, c.order, c.begin_bit, c.end_bit,
                                                 want_offsets);
  std::vector<std::uint32_t> got_keys, got_offsets;
  ASSERT_NO_FATAL_FAILURE(download_vec(got_keys, out_keys, n));
  ASSERT_NO_FATAL_FAILURE(download_vec(got_offsets, out_offsets, std::size_t(c.num_tiles) + 1));
  EXPECT_TRUE(same("offsets", got_offsets, want_offsets));
  EXPECT_TRUE(same("keys", got_keys, binref::permute(c.keys, perm)));
  if (vb == 4) {
    std::vector<std::uint32_t> got;
    ASSERT_NO_FATAL_FAILURE(download_vec(got, out_values, n));
    EXPECT_TRUE(same("values", got, binref::permute(values32, perm)));
  } else if (vb == 8) {
    std::vector<std::uint64_t> got;
    ASSERT_NO_FATAL_FAILURE(download_vec(got, out_values, n));
    EXPECT_TRUE(same("values", got, binref::permute(c.values, perm)));
  }
  // Nothing beyond the records was written.
  std::vector<std::uint32_t> tail;
  ASSERT_NO_FATAL_FAILURE(download_vec(tail, out_keys, plan.max_records));
  for (std::size_t i = n; i < tail.size(); ++i) ASSERT_EQ(tail[i], 0xCDCDCDCDu) << "out_keys[" << i << "] written";

  if (!c.also_index_and_gather) return;
  // bin_index + gather with the same workspace (bin's layout is a prefix).
  DeviceBuffer permutation, records, out_records;
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(permutation, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, std::size_t(plan.max_tiles) + 1));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  BinIndexArgs ia;
  ia.tile_ids = args.tile_ids;
  ia.d_num_records = args.d_num_records;
  ia.num_records = n;
  ia.num_tiles = c.num_tiles;
  ia.out_permutation = permutation.as<std::uint32_t>();
  ia.out_offsets = out_offsets.as<std::uint32_t>();
  TS_STATUS_ASSERT_OK(tilesort::bin_index(ws.get(), bytes, plan, ia, stream));
  std::vector<std::uint32_t> want_perm, got_perm;
  binref::bin_index(c.tiles, c.num_tiles, want_perm, want_offsets);
  for (std::size_t record_bytes : {std::size_t(64), std::size_t(36), std::size_t(128)}) {
    SCOPED_TRACE("gather of " + std::to_string(record_bytes) + "-byte records");
    const std::vector<unsigned char> host_records = record_pattern(n * record_bytes, 7);
    ASSERT_NO_FATAL_FAILURE(upload_vec(records, host_records, plan.max_records * record_bytes));
    ASSERT_NO_FATAL_FAILURE(alloc_poisoned<unsigned char>(out_records, plan.max_records * record_bytes));
    TS_CUDA_ASSERT(cudaDeviceSynchronize());
    GatherArgs g = gather_args(records, out_records, record_bytes, permutation, args.d_num_records);
    g.num_records = n;
    TS_STATUS_ASSERT_OK(tilesort::gather(ws.get(), bytes, plan, g, stream));
    TS_STATUS_ASSERT_OK(tilesort::read_bin_status(ws.get(), stream));
    std::vector<unsigned char> got;
    ASSERT_NO_FATAL_FAILURE(download_vec(got, out_records, n * record_bytes));
    EXPECT_TRUE(got == binref::gather(host_records, record_bytes, want_perm)) << "gathered records differ";
  }
  ASSERT_NO_FATAL_FAILURE(download_vec(got_perm, permutation, n));
  ASSERT_NO_FATAL_FAILURE(download_vec(got_offsets, out_offsets, std::size_t(c.num_tiles) + 1));
  EXPECT_TRUE(same("permutation", got_perm, want_perm));
  EXPECT_TRUE(same("index offsets", got_offsets, want_offsets));
}

enum class TileDist { uniform, skewed, sorted, reversed, one_tile, last_tile_only };

Case random_case(Rng& rng, std::size_t n, std::uint32_t num_tiles, TileDist dist) {
  Case c;
  c.num_tiles = num_tiles;
  c.tiles.resize(n);
  const std::uint32_t hot = std::uint32_t(rng() % num_tiles);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t t = std::uint32_t(rng() % num_tiles);
    switch (dist) {
      case TileDist::uniform: break;
      case TileDist::skewed: if (rng() % 5) t = hot; break;
      case TileDist::sorted: t = std::uint32_t(std::uint64_t(i) * num_tiles / std::max<std::size_t>(n, 1)); break;
      case TileDist::reversed: t = num_tiles - 1 - std::uint32_t(std::uint64_t(i) * num_tiles / std::max<std::size_t>(n, 1)); break;
      case TileDist::one_tile: t = hot; break;
      case TileDist::last_tile_only: t = num_tiles - 1; break;
    }
    c.tiles[i] = t;
  }
  // Few distinct keys half the time, so stability is visible.
  const std::uint32_t key_range = (rng() & 1) ? 16u : 0u;
  c.keys.resize(n);
  for (auto& k : c.keys) k = key_range ? std::uint32_t(rng() % key_range) : std::uint32_t(rng());
  c.values.resize(n);
  for (auto& v : c.values) v = rng();
  const int vt = int(rng() % 3);
  c.value_type = vt == 0 ? tilesort::ValueType::none : vt == 1 ? tilesort::ValueType::b32 : tilesort::ValueType::b64;
  c.device_count = (rng() & 1) != 0;
  c.slack_records = (rng() & 1) ? rng() % 5000 : 0;
  c.slack_tiles = (rng() & 1) ? std::uint32_t(rng() % 300) : 0;
  return c;
}

/// Puts the top three tile ids into 64 random records, so that every bit a
/// pass keeps is set somewhere.
void force_top_tile_ids(Rng& rng, Case& c) {
  for (std::uint32_t i = 0; i < 64; ++i) c.tiles[rng() % c.tiles.size()] = c.num_tiles - 1 - i % 3;
}

class BinningGpu : public GpuTest {};
class BinningGpuSanitizer : public GpuTest {};

// ---------------------------------------------------------------------------
// Differential tests
// ---------------------------------------------------------------------------
TEST_F(BinningGpu, RandomBinMatchesReference) {
  TS_TRACE_SEED();
  const std::vector<std::uint32_t> tile_counts = {1, 2, 3, 200, 256, 257, 4097, 8160, 40000, 70000, 300000};
  // 3583..3585 and 7168: around the scatter's chunk (BinPolicy::kChunk, 3584 records).
  const std::vector<std::size_t> sizes = {0, 1, 31, 3583, 3584, 3585, 4096, 7168, 20000, 300000};
  const int iterations = small_mode() ? 6 : 40;
  for (int it = 0; it < iterations; ++it) {
    const std::uint32_t t = tile_counts[rng_() % tile_counts.size()];
    const std::size_t n = sizes[rng_() % sizes.size()] + ((rng_() & 1) ? rng_() % 1000 : 0);
    const TileDist dist = static_cast<TileDist>(rng_() % 6);
    Case c = random_case(rng_, n, t, dist);
    c.mode = Mode::bin;
    c.also_index_and_gather = (it % 3) == 0;
    SCOPED_TRACE("iteration " + std::to_string(it) + " dist " + std::to_string(int(dist)));
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

TEST_F(BinningGpu, RandomBinAndSortMatchesReference) {
  TS_TRACE_SEED();
  const std::vector<std::uint32_t> tile_counts = {1, 7, 256, 2040, 8160, 32400, 70000};
  const int iterations = small_mode() ? 4 : 30;
  for (int it = 0; it < iterations; ++it) {
    const std::uint32_t t = tile_counts[rng_() % tile_counts.size()];
    const std::size_t n = (rng_() % 4 == 0) ? rng_() % 100 : rng_() % 400000;
    Case c = random_case(rng_, n, t, static_cast<TileDist>(rng_() % 6));
    c.mode = Mode::bin_and_sort;
    c.order = (rng_() & 1) ? tilesort::Order::descending : tilesort::Order::ascending;
    switch (rng_() % 3) {
      case 0: break;
      case 1:  // keys quantised to 12 bits, sorted on exactly those bits
        for (auto& k : c.keys) k = tilesort::quantize_key(k, 12);
        c.end_bit = 12;
        break;
      case 2:
        c.begin_bit = int(rng_() % 16);
        c.end_bit = c.begin_bit + 1 + int(rng_() % (32 - c.begin_bit));
        break;
    }
    if (rng_() % 3 == 0) {
      std::vector<std::uint32_t> perm, offsets;
      binref::bin_index(c.tiles, c.num_tiles, perm, offsets);
      std::uint32_t longest = 0;
      for (std::uint32_t i = 0; i < c.num_tiles; ++i) longest = std::max(longest, offsets[i + 1] - offsets[i]);
      c.max_tile_records = std::max<std::uint64_t>(longest, 1);  // exact bound: no large-tile path
      c.slack_records = 0;  // max_tile_records may not exceed max_records
    }
    SCOPED_TRACE("iteration " + std::to_string(it));
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

TEST_F(BinningGpu, EdgeCases) {
  TS_TRACE_SEED();
  struct Edge {
    const char* name;
    std::size_t n;
    std::uint32_t tiles;
    TileDist dist;
  };
  const Edge edges[] = {
      {"all records in one tile", 100000, 8160, TileDist::one_tile},
      {"every tile empty but the last (T-1)", 50000, 70000, TileDist::last_tile_only},
      {"more tiles than records", 1000, 100000, TileDist::uniform},
      {"no records", 0, 8160, TileDist::uniform},
      {"one tile", 30000, 1, TileDist::uniform},
      {"one record", 1, 5, TileDist::last_tile_only},
      {"exactly one chunk", 3584, 256, TileDist::uniform},  // BinPolicy::kChunk
      {"one chunk and one record", 3585, 256, TileDist::uniform},
      // Hundreds of chunks per pass: the scatter's look-back across chunks.
      {"many chunks, three passes", 3000000, 300000, TileDist::uniform},
      {"many chunks, skewed", 2000000, 8160, TileDist::skewed},
  };
  for (const Edge& e : edges) {
    for (Mode mode : {Mode::bin, Mode::bin_and_sort}) {
      SCOPED_TRACE(e.name);
      Case c = random_case(rng_, e.n, e.tiles, e.dist);
      c.mode = mode;
      c.also_index_and_gather = mode == Mode::bin;
      ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
    }
  }
}

// Key patterns a depth sort meets (all equal, presorted, reversed, two
// values, a crowded top, keys that share their top bits) in long tiles: at
// least 512 records per tile on average, so they reach the one-block classes
// and, on one tile, the MSD rounds. 1, 2040 and 8160 tiles, both orders,
// three bit ranges.
TEST_F(BinningGpu, BinAndSortKeyPatterns) {
  TS_TRACE_SEED();
  enum class Keys { random, all_equal, shared_top_bits, presorted, reversed, two_values, skewed_top };
  const Keys kinds[] = {Keys::random,   Keys::all_equal, Keys::shared_top_bits, Keys::presorted,
                        Keys::reversed, Keys::two_values, Keys::skewed_top};
  const std::uint32_t tile_counts[] = {1, 2040, 8160};
  const std::size_t n = small_mode() ? 20000 : 1200000;
  int iteration = 0;
  for (Keys kind : kinds) {
    for (std::uint32_t tiles : tile_counts) {
      const std::size_t records = std::max<std::size_t>(n, std::size_t(tiles) * 512);
      Case c = random_case(rng_, records, tiles, static_cast<TileDist>(iteration % 4));
      c.mode = Mode::bin_and_sort;
      c.slack_records = 0;
      c.order = (iteration & 1) ? tilesort::Order::descending : tilesort::Order::ascending;
      for (std::size_t i = 0; i < records; ++i) {
        std::uint32_t& k = c.keys[i];
        switch (kind) {
          case Keys::random: k = std::uint32_t(rng_()); break;
          case Keys::all_equal: k = 0x8badf00du; break;
          case Keys::shared_top_bits: k = 0x40000000u | std::uint32_t(rng_() % 4096); break;
          case Keys::presorted: k = std::uint32_t(std::uint64_t(i) * 0xFFFFFFFFu / records); break;
          case Keys::reversed: k = ~std::uint32_t(std::uint64_t(i) * 0xFFFFFFFFu / records); break;
          case Keys::two_values: k = (rng_() & 1) ? 7u : 0xFFFFFFF0u; break;
          case Keys::skewed_top: k = (rng_() % 10) ? 0xFFFFFFFFu - std::uint32_t(rng_() % 16) : std::uint32_t(rng_()); break;
        }
      }
      switch (iteration % 3) {
        case 0: break;
        case 1: c.begin_bit = 3; c.end_bit = 4; break;  // one key bit
        case 2: c.begin_bit = 8; c.end_bit = 20; break;
      }
      SCOPED_TRACE("keys " + std::to_string(int(kind)) + " iteration " + std::to_string(iteration));
      ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
      ++iteration;
    }
  }
}

// The upsweep counts records per tile in shared memory, in parts of at most
// 51,200 counters (BinPolicy: 200 KB) and at most 8 parts; beyond 409,600
// tiles it counts with global atomics. The offsets are a chained scan over
// ranges of 2048 tiles (256 threads x 8). Tile counts on both sides of each
// boundary, with records on every part's first and last tile (sorted and
// reversed tile ids cover the whole range; skewed puts most on one tile).
// The order also changes the upsweep's shared memory up (200 KB at 51,200
// tiles), down (2 parts of 25,601) and up again (102,400): a launch must not
// fail once a smaller size has been launched.
TEST_F(BinningGpu, TileCountingPartsAndOffsetRanges) {
  TS_TRACE_SEED();
  const std::uint32_t boundaries[] = {2047, 2048, 2049, 51200, 51201, 102400, 102401, 409600, 409601};
  const TileDist dists[] = {TileDist::sorted, TileDist::reversed, TileDist::skewed, TileDist::uniform};
  int iteration = 0;
  for (std::uint32_t tiles : boundaries) {
    const TileDist dist = dists[iteration % 4];
    const std::size_t n = small_mode() ? 30000 : std::size_t(tiles) * 3 + 1000;
    Case c = random_case(rng_, n, tiles, dist);
    c.mode = (iteration % 2) ? Mode::bin_and_sort : Mode::bin;
    c.slack_tiles = 0;  // num_tiles == plan.max_tiles: the workspace's last offsets range is full
    SCOPED_TRACE("tiles " + std::to_string(tiles) + " dist " + std::to_string(int(dist)));
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
    ++iteration;
  }
}

TEST_F(BinningGpu, FourPassesOfTileIdBits) {
  TS_TRACE_SEED();
  // 2^25 tiles: 25 bits in four scatter passes (7 + 6 + 6 + 6).
  Case c = random_case(rng_, small_mode() ? 20000 : 600000, 1u << 25, TileDist::uniform);
  c.mode = Mode::bin;
  ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
}

TEST_F(BinningGpu, TileIdWidthsBetweenPasses) {
  TS_TRACE_SEED();
  // Between passes the ids keep only the bits still to sort, in 1, 2 or 4
  // bytes. Tile counts at each width's edge (8 or 16 bits left, and one
  // bit more), with the top ids forced in so that every kept bit is set.
  for (std::uint32_t tiles : {256u, 257u, 65536u, 65537u, 1u << 24, (1u << 24) + 1u}) {
    Case c = random_case(rng_, small_mode() ? 20000 : 200000, tiles, TileDist::uniform);
    force_top_tile_ids(rng_, c);
    c.mode = Mode::bin;
    c.also_index_and_gather = true;
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

TEST_F(BinningGpu, NineBitPass) {
  TS_TRACE_SEED();
  // Tile ids of 9 bits (257..512 tiles) take one 9-bit pass (512 threads,
  // one per digit) instead of two; 8 and 10 bits take 8-bit passes. Tile
  // counts on both sides, with the top ids forced in, every value type, and
  // plans with more tiles than the call: a plan of 10+ bits takes two or
  // three 8-bit passes, its 9-bit calls one 9-bit pass, whose look-back
  // words (512 per chunk) the workspace must hold too.
  struct Width {
    std::uint32_t tiles, slack;
  };
  const Width widths[] = {{256, 0},   {257, 0},           {300, 0},       {511, 0},        {512, 0},
                          {513, 0},   {300, 65536 - 300}, {512, 1u << 20}, {257, 70000 - 257}, {400, 1u << 24}};
  const tilesort::ValueType types[] = {tilesort::ValueType::b32, tilesort::ValueType::none, tilesort::ValueType::b64};
  int iteration = 0;
  for (const Width& w : widths) {
    Case c = random_case(rng_, small_mode() ? 20000 : 400000, w.tiles, TileDist::uniform);
    force_top_tile_ids(rng_, c);
    c.slack_tiles = w.slack;
    c.value_type = types[iteration % 3];
    c.mode = iteration % 2 ? Mode::bin_and_sort : Mode::bin;
    c.also_index_and_gather = c.mode == Mode::bin;
    ++iteration;
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

TEST_F(BinningGpu, PackedTileCountersWithHotTiles) {
  TS_TRACE_SEED();
  // More tiles than 32-bit shared counters hold per block (51,200 in 200 KB)
  // count two tiles per 32-bit word in 15 bits under a guard bit. Two hot
  // tiles that share a word, each with far more than 0x8000 records per
  // counting block (16M records on a GPU of about 132 SMs), pass both
  // halves' guards several times. 60,000 tiles fit one packed part (two
  // unpacked), 129,600 two (three).
  const std::size_t n = small_mode() ? 600000 : 16000000;
  for (std::uint32_t tiles : {60000u, 129600u}) {
    Case c = random_case(rng_, n, tiles, TileDist::uniform);
    const std::uint32_t hot = 2 * std::uint32_t(rng_() % (tiles / 2));
    for (std::size_t i = 0; i < n; ++i)
      if (rng_() % 10) c.tiles[i] = hot + std::uint32_t(i & 1);
    c.value_type = tilesort::ValueType::b32;
    c.mode = Mode::bin;
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

TEST_F(BinningGpuSanitizer, SmallBinAndSort) {
  TS_TRACE_SEED();
  for (std::uint32_t t : {3u, 300u, 70000u}) {
    Case c = random_case(rng_, 9000, t, TileDist::uniform);
    c.mode = Mode::bin;
    c.also_index_and_gather = true;
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
    c.mode = Mode::bin_and_sort;
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

// ---------------------------------------------------------------------------
// Bad input: device-detected errors leave every output untouched
// ---------------------------------------------------------------------------
struct ErrorRun {
  tilesort::Status status;
  tilesort::DeviceStatus device{};
};

/// Runs `mode` (0 bin, 1 bin_and_sort, 2 bin_index) on records whose count
/// in device memory is `device_count`, and checks the outputs stay poisoned.
void run_expecting_device_error(const std::vector<std::uint32_t>& tiles, std::uint32_t device_count,
                                std::uint32_t num_tiles, std::uint64_t max_records, int mode, cudaStream_t stream,
                                ErrorRun& result, std::uint64_t record_capacity = 0) {
  BinPlan plan;
  plan.max_records = max_records;
  plan.max_tiles = num_tiles;
  std::size_t bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::bin_and_sort_workspace_size(plan, &bytes));
  DeviceBuffer ws, d_tiles, keys, values, count, out_keys, out_values, out_offsets;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  const std::size_t cap = std::max<std::size_t>(tiles.size(), max_records);
  ASSERT_NO_FATAL_FAILURE(upload_vec(d_tiles, tiles, cap));
  std::vector<std::uint32_t> k(tiles.size());
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::uint32_t(splitmix64(i));
  ASSERT_NO_FATAL_FAILURE(upload_vec(keys, k, cap));
  ASSERT_NO_FATAL_FAILURE(upload_vec(values, k, cap));
  ASSERT_NO_FATAL_FAILURE(upload_vec(count, std::vector<std::uint32_t>{device_count}));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_keys, cap));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_values, cap));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, std::size_t(num_tiles) + 1));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  BinArgs a;
  a.tile_ids = d_tiles.as<std::uint32_t>();
  a.keys = keys.as<std::uint32_t>();
  a.values = values.get();
  a.d_num_records = count.as<std::uint32_t>();
  a.record_capacity = record_capacity;
  a.num_tiles = num_tiles;
  a.out_keys = out_keys.as<std::uint32_t>();
  a.out_values = out_values.get();
  a.out_offsets = out_offsets.as<std::uint32_t>();
  if (mode == 0) {
    TS_STATUS_ASSERT_OK(tilesort::bin(ws.get(), bytes, plan, a, stream));
    result.status = tilesort::read_bin_status(ws.get(), stream);
  } else if (mode == 1) {
    TS_STATUS_ASSERT_OK(tilesort::bin_and_sort(ws.get(), bytes, plan, a, stream));
    result.status = tilesort::read_bin_and_sort_status(ws.get(), plan, stream);
  } else {
    BinIndexArgs ia;
    ia.tile_ids = a.tile_ids;
    ia.d_num_records = a.d_num_records;
    ia.record_capacity = record_capacity;
    ia.num_tiles = num_tiles;
    ia.out_permutation = out_values.as<std::uint32_t>();
    ia.out_offsets = a.out_offsets;
    TS_STATUS_ASSERT_OK(tilesort::bin_index(ws.get(), bytes, plan, ia, stream));
    // A gather after the failed bin_index must not write either.
    DeviceBuffer recs, out_recs;
    ASSERT_NO_FATAL_FAILURE(upload_vec(recs, std::vector<std::uint32_t>(cap * 16, 7u)));
    ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_recs, cap * 16));
    TS_CUDA_ASSERT(cudaDeviceSynchronize());
    GatherArgs g;
    g.records = recs.get();
    g.out_records = out_recs.get();
    g.record_bytes = 64;
    g.permutation = out_values.as<std::uint32_t>();
    g.d_num_records = a.d_num_records;
    TS_STATUS_ASSERT_OK(tilesort::gather(ws.get(), bytes, plan, g, stream));
    result.status = tilesort::read_bin_status(ws.get(), stream);
    EXPECT_TRUE(all_poison<std::uint32_t>(out_recs, cap * 16, "gathered records"));
  }
  TS_CUDA_ASSERT(cudaMemcpy(&result.device, tilesort::bin_device_status(ws.get()), sizeof(result.device),
                            cudaMemcpyDeviceToHost));
  EXPECT_TRUE(all_poison<std::uint32_t>(out_keys, cap, "out_keys"));
  EXPECT_TRUE(all_poison<std::uint32_t>(out_values, cap, "out_values / permutation"));
  EXPECT_TRUE(all_poison<std::uint32_t>(out_offsets, std::size_t(num_tiles) + 1, "out_offsets"));
}

void check_bad_tile(Rng& rng, std::size_t n, std::uint32_t num_tiles, cudaStream_t stream) {
  std::vector<std::uint32_t> tiles(n);
  for (auto& t : tiles) t = std::uint32_t(rng() % num_tiles);
  const std::size_t bad = rng() % n;
  tiles[bad] = num_tiles;  // the first invalid id; num_tiles - 1 elsewhere is valid
  tiles[(bad + 1) % n] = num_tiles - 1;
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode) + ", bad record " + std::to_string(bad));
    ErrorRun r;
    ASSERT_NO_FATAL_FAILURE(run_expecting_device_error(tiles, std::uint32_t(n), num_tiles, n, mode, stream, r));
    EXPECT_EQ(r.status.code(), StatusCode::tile_id_out_of_range) << r.status.what();
    EXPECT_NE(std::string(r.status.what()).find("tile id"), std::string::npos) << r.status.what();
    EXPECT_EQ(r.device.index, bad);
    EXPECT_EQ(r.device.value, num_tiles);
  }
}

TEST_F(BinningGpuSanitizer, TileIdOutOfRangeLeavesOutputsUntouched) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(check_bad_tile(rng_, 5000, 100, stream_));
}

TEST_F(BinningGpu, TileIdOutOfRangeLeavesOutputsUntouchedLarge) {
  TS_TRACE_SEED();
  ASSERT_NO_FATAL_FAILURE(check_bad_tile(rng_, 200000, 8160, stream_));
  ASSERT_NO_FATAL_FAILURE(check_bad_tile(rng_, 100000, 70000, stream_));
}

/// gather through a permutation with one entry that is not a record index:
/// the entry is reported (index = its position, value = the entry), its
/// record's slot stays untouched and every other record still moves,
/// whichever blocks run after the report.
void check_bad_permutation(Rng& rng, std::size_t n, cudaStream_t stream) {
  BinPlan plan;
  plan.max_records = n;
  plan.max_tiles = 1;
  std::size_t bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::bin_workspace_size(plan, &bytes));
  DeviceBuffer ws, d_perm, count, records, out_records;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  std::vector<std::uint32_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = std::uint32_t(i);
  for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng() % i]);
  const std::size_t bad = rng() % n;
  const std::uint32_t bad_entry = std::uint32_t(n + rng() % 3);  // n itself, or beyond
  perm[bad] = bad_entry;
  ASSERT_NO_FATAL_FAILURE(upload_vec(d_perm, perm));
  ASSERT_NO_FATAL_FAILURE(upload_vec(count, std::vector<std::uint32_t>{std::uint32_t(n)}));
  // A clear status, as a successful bin_index leaves it. The second gather
  // runs with the first one's report still there: a bad entry stops nothing.
  TS_CUDA_ASSERT(cudaMemset(const_cast<tilesort::DeviceStatus*>(tilesort::bin_device_status(ws.get())), 0,
                            sizeof(tilesort::DeviceStatus)));
  // 64 bytes move as 16-byte words, 36 bytes as 4-byte words.
  for (std::size_t record_bytes : {std::size_t(64), std::size_t(36)}) {
    SCOPED_TRACE("record bytes " + std::to_string(record_bytes) + ", bad entry at " + std::to_string(bad));
    const std::vector<unsigned char> host_records = record_pattern(n * record_bytes, 9);
    ASSERT_NO_FATAL_FAILURE(upload_vec(records, host_records));
    ASSERT_NO_FATAL_FAILURE(alloc_poisoned<unsigned char>(out_records, n * record_bytes));
    TS_CUDA_ASSERT(cudaDeviceSynchronize());
    const GatherArgs g = gather_args(records, out_records, record_bytes, d_perm, count.as<std::uint32_t>());
    TS_STATUS_ASSERT_OK(tilesort::gather(ws.get(), bytes, plan, g, stream));
    const tilesort::Status status = tilesort::read_bin_status(ws.get(), stream);
    EXPECT_EQ(status.code(), StatusCode::permutation_out_of_range) << status.what();
    tilesort::DeviceStatus device{};
    TS_CUDA_ASSERT(cudaMemcpy(&device, tilesort::bin_device_status(ws.get()), sizeof(device), cudaMemcpyDeviceToHost));
    EXPECT_EQ(device.index, bad);
    EXPECT_EQ(device.value, bad_entry);
    std::vector<unsigned char> got;
    ASSERT_NO_FATAL_FAILURE(download_vec(got, out_records, n * record_bytes));
    std::vector<std::uint32_t> valid = perm;
    valid[bad] = 0;  // any record: its slot is compared against the poison below
    std::vector<unsigned char> want = binref::gather(host_records, record_bytes, valid);
    std::fill(want.begin() + std::ptrdiff_t(bad * record_bytes), want.begin() + std::ptrdiff_t((bad + 1) * record_bytes),
              static_cast<unsigned char>(kPoison));
    EXPECT_TRUE(same("gathered bytes", got, want));
  }
}

TEST_F(BinningGpuSanitizer, GatherReportsBadPermutationEntry) {
  TS_TRACE_SEED();
  for (std::size_t n : {std::size_t(1), std::size_t(37), std::size_t(5000)})
    ASSERT_NO_FATAL_FAILURE(check_bad_permutation(rng_, n, stream_));
}

TEST_F(BinningGpu, GatherReportsBadPermutationEntryLarge) {
  TS_TRACE_SEED();
  // More words than one step of the persistent grid moves, and a tail.
  ASSERT_NO_FATAL_FAILURE(check_bad_permutation(rng_, 700001, stream_));
}

TEST_F(BinningGpuSanitizer, DeviceCountOverCapacityLeavesOutputsUntouched) {
  TS_TRACE_SEED();
  std::vector<std::uint32_t> tiles(3000);
  for (auto& t : tiles) t = std::uint32_t(rng_() % 64);
  for (int mode = 0; mode < 3; ++mode) {
    ErrorRun r;
    // Count 3000 in device memory, capacity 2999.
    ASSERT_NO_FATAL_FAILURE(run_expecting_device_error(tiles, 3000, 64, 2999, mode, stream_, r));
    EXPECT_EQ(r.status.code(), StatusCode::count_over_capacity) << r.status.what();
    EXPECT_EQ(r.device.index, 3000u);
    EXPECT_EQ(r.device.value, 2999u);
  }
}

// A sink smaller than the plan: counts above the sink's capacity but within
// the plan are still count_over_capacity (the records past the capacity were
// never written), for every relation of count, capacity and plan.
TEST_F(BinningGpuSanitizer, SinkOverflowIsAlwaysCountOverCapacity) {
  TS_TRACE_SEED();
  std::vector<std::uint32_t> tiles(4000);
  for (auto& t : tiles) t = std::uint32_t(rng_() % 64);
  struct Relation {
    const char* what;
    std::uint32_t count;
    std::uint64_t max_records, capacity;
    std::uint64_t reported_capacity;
  };
  const Relation relations[] = {
      {"capacity < count <= plan", 3000, 4000, 2500, 2500},
      {"capacity + 1 == count < plan", 2501, 4000, 2500, 2500},
      {"capacity < plan < count", 4000, 3500, 2500, 2500},
      {"plan < count <= capacity", 3600, 3500, 3800, 3500},
      {"plan < capacity < count", 3900, 3500, 3800, 3500},
  };
  for (const Relation& rel : relations)
    for (int mode = 0; mode < 3; ++mode) {
      SCOPED_TRACE(std::string(rel.what) + ", mode " + std::to_string(mode));
      ErrorRun r;
      ASSERT_NO_FATAL_FAILURE(
          run_expecting_device_error(tiles, rel.count, 64, rel.max_records, mode, stream_, r, rel.capacity));
      EXPECT_EQ(r.status.code(), StatusCode::count_over_capacity) << r.status.what();
      EXPECT_EQ(r.device.index, rel.count);
      EXPECT_EQ(r.device.value, rel.reported_capacity);
    }
}

// bin_args_for(sink): the sink's arrays, count and capacity. A count within
// the capacity bins; the same frame overflowing its sink does not, though
// the plan holds it.
TEST_F(BinningGpuSanitizer, BinArgsForSinkBindsTheCapacity) {
  TS_TRACE_SEED();
  const std::uint32_t capacity = 2000, num_tiles = 40;
  BinPlan plan;
  plan.max_records = 5000;
  plan.max_tiles = num_tiles;
  std::size_t bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::bin_and_sort_workspace_size(plan, &bytes));
  DeviceBuffer ws, tiles, keys, values, count, out_keys, out_values, out_offsets;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  std::vector<std::uint32_t> t(capacity), k(capacity), v(capacity);
  for (std::uint32_t i = 0; i < capacity; ++i) {
    t[i] = std::uint32_t(rng_() % num_tiles);
    k[i] = std::uint32_t(rng_() % 50);
    v[i] = i;
  }
  ASSERT_NO_FATAL_FAILURE(upload_vec(tiles, t));
  ASSERT_NO_FATAL_FAILURE(upload_vec(keys, k));
  ASSERT_NO_FATAL_FAILURE(upload_vec(values, v));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_keys, capacity));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_values, capacity));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, num_tiles + 1));
  tilesort::RecordSink sink;
  sink.tile_ids = tiles.as<std::uint32_t>();
  sink.keys = keys.as<std::uint32_t>();
  sink.values = values.as<std::uint32_t>();
  sink.count = nullptr;
  sink.capacity = capacity;
  for (std::uint32_t emitted : {capacity, capacity + 1, 4999u}) {
    SCOPED_TRACE("emitted " + std::to_string(emitted));
    ASSERT_NO_FATAL_FAILURE(upload_vec(count, std::vector<std::uint32_t>{emitted}));
    sink.count = count.as<std::uint32_t>();
    BinArgs a = tilesort::bin_args_for(sink);
    EXPECT_EQ(a.record_capacity, capacity);
    a.num_tiles = num_tiles;
    a.out_keys = out_keys.as<std::uint32_t>();
    a.out_values = out_values.get();
    a.out_offsets = out_offsets.as<std::uint32_t>();
    TS_STATUS_ASSERT_OK(tilesort::bin_and_sort(ws.get(), bytes, plan, a, stream_));
    const tilesort::Status s = tilesort::read_bin_and_sort_status(ws.get(), plan, stream_);
    if (emitted <= capacity) {
      TS_STATUS_ASSERT_OK(s);
      std::vector<std::uint32_t> want_offsets, got_keys, got_values, got_offsets;
      const std::vector<std::uint32_t> perm =
          binref::bin_and_sort(t, k, num_tiles, tilesort::Order::ascending, 0, -1, want_offsets);
      ASSERT_NO_FATAL_FAILURE(download_vec(got_keys, out_keys, capacity));
      ASSERT_NO_FATAL_FAILURE(download_vec(got_values, out_values, capacity));
      ASSERT_NO_FATAL_FAILURE(download_vec(got_offsets, out_offsets, num_tiles + 1));
      EXPECT_TRUE(same("keys", got_keys, binref::permute(k, perm)));
      EXPECT_TRUE(same("values", got_values, binref::permute(v, perm)));
      EXPECT_TRUE(same("offsets", got_offsets, want_offsets));
      ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_keys, capacity));
      ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_values, capacity));
      ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, num_tiles + 1));
    } else {
      EXPECT_EQ(s.code(), StatusCode::count_over_capacity) << s.what();
      EXPECT_TRUE(all_poison<std::uint32_t>(out_keys, capacity, "out_keys"));
      EXPECT_TRUE(all_poison<std::uint32_t>(out_offsets, num_tiles + 1, "out_offsets"));
    }
  }
}

// ---------------------------------------------------------------------------
// bin_and_sort over tile lengths of every size class, hot tiles, repeat runs
// ---------------------------------------------------------------------------

/// Records whose tiles have exactly the given lengths (tile i: lengths[i]),
/// in shuffled emission order.
Case case_with_tile_lengths(Rng& rng, const std::vector<std::uint32_t>& lengths, bool few_keys) {
  Case c;
  c.num_tiles = std::uint32_t(lengths.size());
  for (std::uint32_t t = 0; t < lengths.size(); ++t) c.tiles.insert(c.tiles.end(), lengths[t], t);
  for (std::size_t i = c.tiles.size(); i > 1; --i) std::swap(c.tiles[i - 1], c.tiles[rng() % i]);
  c.keys.resize(c.tiles.size());
  for (auto& k : c.keys) k = few_keys ? std::uint32_t(rng() % 3) : std::uint32_t(rng());
  c.values.resize(c.tiles.size());
  for (auto& v : c.values) v = rng();
  c.mode = Mode::bin_and_sort;
  return c;
}

// One tile at and on each side of every power of two from 32 to 16384 (the
// sort's warp and one-block class limits are among them) and beyond one
// block, with few distinct keys (ties in record order) and with random
// ones, every value type, both orders.
TEST_F(BinningGpu, BinAndSortTileClassBoundaries) {
  TS_TRACE_SEED();
  std::vector<std::uint32_t> lengths = {0, 1, 2, 3};
  for (std::uint32_t edge : {32u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 8192u, 16384u})
    for (std::uint32_t d : {edge - 1, edge, edge + 1}) lengths.push_back(d);
  lengths.push_back(40000);
  lengths.push_back(0);
  int iteration = 0;
  for (bool few_keys : {true, false})
    for (tilesort::ValueType vt : {tilesort::ValueType::none, tilesort::ValueType::b32, tilesort::ValueType::b64}) {
      std::vector<std::uint32_t> shuffled = lengths;
      for (std::size_t i = shuffled.size(); i > 1; --i) std::swap(shuffled[i - 1], shuffled[rng_() % i]);
      Case c = case_with_tile_lengths(rng_, shuffled, few_keys);
      c.value_type = vt;
      c.order = (iteration & 1) ? tilesort::Order::descending : tilesort::Order::ascending;
      c.device_count = (iteration % 3) != 0;
      if (iteration % 2 == 0) {
        c.end_bit = 16;
        for (auto& k : c.keys) k = tilesort::quantize_key(k, 16) | (few_keys ? 0u : (k & 0xFFFF0000u));
      }
      SCOPED_TRACE("iteration " + std::to_string(iteration));
      ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
      ++iteration;
    }
}

// Half of all records in one tile (the sort's MSD path), the rest spread
// over many tiles; 32- and 16-bit keys, and a hot tile of equal keys (its
// order is the record order alone).
TEST_F(BinningGpu, BinAndSortHotTileHoldsHalfTheRecords) {
  TS_TRACE_SEED();
  const std::size_t n = small_mode() ? 80000 : 2000000;
  for (int variant = 0; variant < 4; ++variant) {
    Case c = random_case(rng_, n, 8160, TileDist::uniform);
    const std::uint32_t hot = std::uint32_t(rng_() % 8160);
    for (std::size_t i = 0; i < n; ++i)
      if (rng_() & 1) c.tiles[i] = hot;
    c.mode = Mode::bin_and_sort;
    c.order = (variant & 1) ? tilesort::Order::descending : tilesort::Order::ascending;
    if (variant == 1 || variant == 3) c.end_bit = 16;
    if (variant == 3)
      for (std::size_t i = 0; i < n; ++i)
        if (c.tiles[i] == hot) c.keys[i] = 0x1234u;
    SCOPED_TRACE("variant " + std::to_string(variant));
    ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  }
}

// Several times more chunks than the scatter has blocks (4 per SM), so every
// block takes chunk after chunk by ticket and looks back over chunks that
// other blocks took in between: two and three passes, every value type, bin
// and bin_and_sort, a count that ends inside a chunk.
TEST_F(BinningGpu, ScatterBlocksTakeManyChunks) {
  TS_TRACE_SEED();
  TS_SKIP_IF_SMALL();
  const std::size_t n = 6000000 + std::size_t(rng_() % 3584);
  int iteration = 0;
  for (std::uint32_t tiles : {8160u, 129600u})
    for (tilesort::ValueType vt : {tilesort::ValueType::b32, tilesort::ValueType::none, tilesort::ValueType::b64}) {
      Case c = random_case(rng_, n, tiles, static_cast<TileDist>(iteration % 6));
      c.value_type = vt;
      c.mode = (iteration % 2) ? Mode::bin : Mode::bin_and_sort;
      SCOPED_TRACE("tiles " + std::to_string(tiles) + " iteration " + std::to_string(iteration));
      ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
      ++iteration;
    }
}

// The same input, bin_and_sort three times in one workspace, each compared
// bit for bit with the reference: no run-to-run variation (8160 and 100000
// tiles, ties everywhere).
TEST_F(BinningGpu, BinAndSortIsDeterministic) {
  TS_TRACE_SEED();
  for (std::uint32_t tiles : {8160u, 100000u}) {
    Case c = random_case(rng_, small_mode() ? 50000 : 1500000, tiles, TileDist::skewed);
    c.mode = Mode::bin_and_sort;
    for (auto& k : c.keys) k = std::uint32_t(rng_() % 4);  // ties everywhere
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("tiles " + std::to_string(tiles) + " run " + std::to_string(run));
      ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
    }
  }
}

TEST_F(BinningGpuSanitizer, BinAndSortTileLengthsOfEveryClass) {
  TS_TRACE_SEED();
  std::vector<std::uint32_t> lengths = {1, 2, 32, 33, 128, 129, 300, 600, 1500, 3000, 5000, 9000, 17000};
  Case c = case_with_tile_lengths(rng_, lengths, true);
  ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  c.end_bit = 8;
  c.order = tilesort::Order::descending;
  ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
}

// ---------------------------------------------------------------------------
// Emission
// ---------------------------------------------------------------------------
struct Expected {
  std::vector<std::uint32_t> tiles, keys, values;  // indexed by value order
};

Expected expected_emission(std::uint32_t emitters, std::uint32_t num_tiles, std::uint32_t seed) {
  Expected e;
  for (std::uint32_t i = 0; i < emitters; ++i)
    for (std::uint32_t j = 0; j < bintest::emitted_by(i, seed); ++j) {
      const bintest::EmittedRecord r = bintest::emitted_record(i, j, num_tiles, seed);
      e.tiles.push_back(r.tile);
      e.keys.push_back(tilesort::depth_key(r.depth));
      e.values.push_back(r.value);
    }
  return e;
}

/// Emits with `capacity` slots (+ a guard region), then checks the count,
/// the guard, and that every stored record is one that was emitted, once.
void check_emission(std::uint32_t emitters, std::uint32_t num_tiles, std::uint32_t seed, bool single,
                    double capacity_fraction, cudaStream_t stream) {
  SCOPED_TRACE(std::string(single ? "emit_record" : "reserve_records") + ", capacity fraction " +
               std::to_string(capacity_fraction));
  const Expected want = expected_emission(emitters, num_tiles, seed);
  const std::uint32_t total = std::uint32_t(want.values.size());
  const std::uint32_t capacity = std::uint32_t(total * capacity_fraction);
  constexpr std::uint32_t kGuard = 1024;
  DeviceBuffer tiles, keys, values, count;
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(tiles, capacity + kGuard));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(keys, capacity + kGuard));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(values, capacity + kGuard));
  TS_CUDA_ASSERT(count.alloc(4));
  TS_CUDA_ASSERT(cudaMemset(count.get(), 0, 4));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  tilesort::RecordSink sink;
  sink.tile_ids = tiles.as<std::uint32_t>();
  sink.keys = keys.as<std::uint32_t>();
  sink.values = values.as<std::uint32_t>();
  sink.count = count.as<std::uint32_t>();
  sink.capacity = capacity;
  TS_CUDA_ASSERT(bintest::launch_emit(sink, emitters, num_tiles, seed, single, stream));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream));
  std::vector<std::uint32_t> got_count, got_tiles, got_keys, got_values;
  ASSERT_NO_FATAL_FAILURE(download_vec(got_count, count, 1));
  EXPECT_EQ(got_count[0], total) << "the counter counts every emitted record, stored or not";
  ASSERT_NO_FATAL_FAILURE(download_vec(got_tiles, tiles, capacity + kGuard));
  ASSERT_NO_FATAL_FAILURE(download_vec(got_keys, keys, capacity + kGuard));
  ASSERT_NO_FATAL_FAILURE(download_vec(got_values, values, capacity + kGuard));
  const std::uint32_t stored = std::min(total, capacity);
  for (std::uint32_t i = stored; i < capacity + kGuard; ++i)
    ASSERT_TRUE(got_tiles[i] == 0xCDCDCDCDu && got_keys[i] == 0xCDCDCDCDu && got_values[i] == 0xCDCDCDCDu)
        << "slot " << i << " beyond the stored records was written";
  // Map value -> expected index (values are unique: emitter * 8 + j).
  std::vector<std::int64_t> index_of(std::size_t(emitters) * 8, -1);
  for (std::uint32_t i = 0; i < total; ++i) index_of[want.values[i]] = i;
  std::vector<char> seen(total, 0);
  for (std::uint32_t s = 0; s < stored; ++s) {
    ASSERT_LT(got_values[s], index_of.size()) << "slot " << s;
    const std::int64_t i = index_of[got_values[s]];
    ASSERT_GE(i, 0) << "slot " << s << " holds a value nobody emitted";
    ASSERT_FALSE(seen[i]) << "record stored twice";
    seen[i] = 1;
    ASSERT_EQ(got_tiles[s], want.tiles[i]) << "slot " << s;
    ASSERT_EQ(got_keys[s], want.keys[i]) << "slot " << s << ": device depth_key differs from the host's";
  }

  if (total <= capacity) return;
  // Binning the overflowed buffer reports the emitted count.
  BinPlan plan;
  plan.max_records = std::max<std::uint32_t>(capacity, 1);
  plan.max_tiles = num_tiles;
  std::size_t bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::bin_workspace_size(plan, &bytes));
  DeviceBuffer ws, out_keys, out_values, out_offsets;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_keys, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_values, plan.max_records));
  ASSERT_NO_FATAL_FAILURE(alloc_poisoned<std::uint32_t>(out_offsets, num_tiles + 1));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  BinArgs a;
  a.tile_ids = sink.tile_ids;
  a.keys = sink.keys;
  a.values = sink.values;
  a.d_num_records = sink.count;
  a.num_tiles = num_tiles;
  a.out_keys = out_keys.as<std::uint32_t>();
  a.out_values = out_values.get();
  a.out_offsets = out_offsets.as<std::uint32_t>();
  TS_STATUS_ASSERT_OK(tilesort::bin(ws.get(), bytes, plan, a, stream));
  const tilesort::Status s = tilesort::read_bin_status(ws.get(), stream);
  EXPECT_EQ(s.code(), StatusCode::count_over_capacity) << s.what();
  EXPECT_TRUE(all_poison<std::uint32_t>(out_keys, plan.max_records, "out_keys"));
  EXPECT_TRUE(all_poison<std::uint32_t>(out_offsets, num_tiles + 1, "out_offsets"));
}

TEST_F(BinningGpuSanitizer, EmissionStoresEveryRecordOnce) {
  TS_TRACE_SEED();
  const std::uint32_t seed = std::uint32_t(rng_());
  ASSERT_NO_FATAL_FAILURE(check_emission(3000, 37, seed, true, 1.0, stream_));
  ASSERT_NO_FATAL_FAILURE(check_emission(3000, 37, seed, false, 1.5, stream_));
}

TEST_F(BinningGpuSanitizer, EmissionOverflowIsCountedNotWritten) {
  TS_TRACE_SEED();
  const std::uint32_t seed = std::uint32_t(rng_());
  ASSERT_NO_FATAL_FAILURE(check_emission(3000, 37, seed, true, 0.5, stream_));
  ASSERT_NO_FATAL_FAILURE(check_emission(3000, 37, seed, false, 0.3, stream_));
}

TEST_F(BinningGpu, EmissionLarge) {
  TS_TRACE_SEED();
  const std::uint32_t seed = std::uint32_t(rng_());
  ASSERT_NO_FATAL_FAILURE(check_emission(1u << 20, 8160, seed, false, 1.0, stream_));
  ASSERT_NO_FATAL_FAILURE(check_emission(1u << 20, 8160, seed, true, 0.9, stream_));
}

/// Depth keys with NaNs and signed zeros, made on the device, then
/// bin_and_sort: -0.0 sorts before +0.0 and NaNs come last in every tile.
TEST_F(BinningGpu, SpecialDepthsSortAsPromised) {
  TS_TRACE_SEED();
  std::vector<float> pool = special_depths();
  const std::size_t n = 20000;
  std::vector<float> depths(n);
  for (auto& d : depths) d = pool[rng_() % pool.size()];
  DeviceBuffer d_depths, d_codes, d_restored;
  ASSERT_NO_FATAL_FAILURE(upload_vec(d_depths, depths));
  TS_CUDA_ASSERT(d_codes.alloc(n * 4));
  TS_CUDA_ASSERT(d_restored.alloc(n * 4));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  TS_CUDA_ASSERT(bintest::launch_depth_keys(d_depths.as<float>(), d_codes.as<std::uint32_t>(),
                                            d_restored.as<float>(), std::uint32_t(n), stream_));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  std::vector<std::uint32_t> codes;
  std::vector<float> restored;
  ASSERT_NO_FATAL_FAILURE(download_vec(codes, d_codes, n));
  ASSERT_NO_FATAL_FAILURE(download_vec(restored, d_restored, n));
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(codes[i], tilesort::depth_key(depths[i])) << "depth " << depths[i];
    ASSERT_EQ(bits_of(restored[i]), bits_of(depths[i]));
  }
  Case c;
  c.num_tiles = 50;
  c.tiles.resize(n);
  for (auto& t : c.tiles) t = std::uint32_t(rng_() % c.num_tiles);
  c.keys = codes;
  c.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) c.values[i] = i;
  c.mode = Mode::bin_and_sort;
  ASSERT_NO_FATAL_FAILURE(run_and_check(c, stream_));
  // And the reference itself agrees with the float order.
  std::vector<std::uint32_t> offsets;
  const auto perm = binref::bin_and_sort(c.tiles, c.keys, c.num_tiles, c.order, 0, -1, offsets);
  for (std::uint32_t t = 0; t < c.num_tiles; ++t)
    for (std::uint32_t i = offsets[t]; i + 1 < offsets[t + 1]; ++i)
      ASSERT_FALSE(binref::depth_before(depths[perm[i + 1]], depths[perm[i]])) << "tile " << t << " position " << i;
}

// ---------------------------------------------------------------------------
// Graph capture
// ---------------------------------------------------------------------------
TEST_F(BinningGpu, GraphCaptureReplaysWithNewCounts) {
  TS_TRACE_SEED();
  BinPlan plan;
  plan.max_records = 200000;
  plan.max_tiles = 8160;
  plan.value_type = tilesort::ValueType::b32;
  std::size_t bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::bin_and_sort_workspace_size(plan, &bytes));
  DeviceBuffer ws, tiles, keys, values, count, out_keys, out_values, out_offsets;
  TS_CUDA_ASSERT(ws.alloc(bytes));
  TS_CUDA_ASSERT(tiles.alloc(plan.max_records * 4));
  TS_CUDA_ASSERT(keys.alloc(plan.max_records * 4));
  TS_CUDA_ASSERT(values.alloc(plan.max_records * 4));
  TS_CUDA_ASSERT(count.alloc(4));
  TS_CUDA_ASSERT(out_keys.alloc(plan.max_records * 4));
  TS_CUDA_ASSERT(out_values.alloc(plan.max_records * 4));
  TS_CUDA_ASSERT(out_offsets.alloc((plan.max_tiles + 1) * 4));
  BinArgs a;
  a.tile_ids = tiles.as<std::uint32_t>();
  a.keys = keys.as<std::uint32_t>();
  a.values = values.get();
  a.d_num_records = count.as<std::uint32_t>();
  a.num_tiles = plan.max_tiles;
  a.out_keys = out_keys.as<std::uint32_t>();
  a.out_values = out_values.get();
  a.out_offsets = out_offsets.as<std::uint32_t>();
  a.end_bit = 20;

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  TS_CUDA_ASSERT(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  const tilesort::Status captured = tilesort::bin_and_sort(ws.get(), bytes, plan, a, stream_);
  TS_CUDA_ASSERT(cudaStreamEndCapture(stream_, &graph));
  TS_STATUS_ASSERT_OK(captured);
  TS_CUDA_ASSERT(cudaGraphInstantiate(&exec, graph, 0));

  const std::size_t sizes[] = {150000, 0, 200000, 777};
  for (std::size_t n : sizes) {
    SCOPED_TRACE("replay with " + std::to_string(n) + " records");
    Case c = random_case(rng_, n, plan.max_tiles, TileDist::uniform);
    for (auto& k : c.keys) k &= 0xFFFFFu;
    std::vector<std::uint32_t> v32(c.values.begin(), c.values.end());
    TS_CUDA_ASSERT(cudaMemcpy(tiles.get(), c.tiles.data(), n * 4, cudaMemcpyHostToDevice));
    TS_CUDA_ASSERT(cudaMemcpy(keys.get(), c.keys.data(), n * 4, cudaMemcpyHostToDevice));
    TS_CUDA_ASSERT(cudaMemcpy(values.get(), v32.data(), n * 4, cudaMemcpyHostToDevice));
    const std::uint32_t n32 = std::uint32_t(n);
    TS_CUDA_ASSERT(cudaMemcpy(count.get(), &n32, 4, cudaMemcpyHostToDevice));
    TS_CUDA_ASSERT(cudaGraphLaunch(exec, stream_));
    TS_STATUS_ASSERT_OK(tilesort::read_bin_and_sort_status(ws.get(), plan, stream_));
    std::vector<std::uint32_t> want_offsets, got_keys, got_values, got_offsets;
    const auto perm = binref::bin_and_sort(c.tiles, c.keys, plan.max_tiles, tilesort::Order::ascending, 0, 20,
                                           want_offsets);
    ASSERT_NO_FATAL_FAILURE(download_vec(got_keys, out_keys, n));
    ASSERT_NO_FATAL_FAILURE(download_vec(got_values, out_values, n));
    ASSERT_NO_FATAL_FAILURE(download_vec(got_offsets, out_offsets, plan.max_tiles + 1));
    EXPECT_TRUE(same("offsets", got_offsets, want_offsets));
    EXPECT_TRUE(same("keys", got_keys, binref::permute(c.keys, perm)));
    EXPECT_TRUE(same("values", got_values, binref::permute(v32, perm)));
  }
  if (exec) (void)cudaGraphExecDestroy(exec);
  if (graph) (void)cudaGraphDestroy(graph);
}

}  // namespace
}  // namespace tstest
