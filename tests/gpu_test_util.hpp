// tilesort tests: helpers for the GPU tests (RAII device buffers, checked
// CUDA calls, seeds, upload / sort / compare against the CPU reference).
//
// Helpers that assert return void; call them through ASSERT_NO_FATAL_FAILURE.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reference.hpp"
#include "tilesort/tilesort.hpp"

// ---------------------------------------------------------------------------
// Checked calls
// ---------------------------------------------------------------------------
#define TS_CUDA_ASSERT(expr)                                                                 \
  do {                                                                                       \
    const cudaError_t ts_err_ = (expr);                                                      \
    ASSERT_EQ(ts_err_, cudaSuccess) << #expr << " -> " << cudaGetErrorName(ts_err_) << ": " \
                                    << cudaGetErrorString(ts_err_);                          \
  } while (0)

#define TS_STATUS_ASSERT_OK(expr)                                                  \
  do {                                                                             \
    const ::tilesort::Status ts_st_ = (expr);                                      \
    ASSERT_TRUE(ts_st_.ok()) << #expr << " -> " << ::tilesort::to_string(ts_st_.code()) \
                             << ": " << ts_st_.what();                             \
  } while (0)

namespace tstest {

/// Whether a CUDA device can be used; `why` gets the reason when not.
inline bool cuda_device_available(std::string* why) {
  static int state = -1;
  static std::string reason;
  if (state < 0) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
      (void)cudaGetLastError();
      state = 0;
    } else if (count == 0) {
      reason = "cudaGetDeviceCount() found 0 devices";
      state = 0;
    } else {
      state = 1;
    }
  }
  if (why) *why = reason;
  return state == 1;
}

}  // namespace tstest

/// Skips the current test, visibly, when there is no usable CUDA device.
#define REQUIRE_CUDA_DEVICE()                                                  \
  do {                                                                         \
    std::string ts_why_;                                                       \
    if (!::tstest::cuda_device_available(&ts_why_))                            \
      GTEST_SKIP() << "no CUDA device: " << ts_why_;                           \
  } while (0)

namespace tstest {

// ---------------------------------------------------------------------------
// Seeds and size modes
// ---------------------------------------------------------------------------
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The run's base seed: TILESORT_TEST_SEED when set, else fresh per process.
inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("TILESORT_TEST_SEED");
    std::uint64_t s;
    if (env && *env) {
      s = std::strtoull(env, nullptr, 0);
    } else {
      std::random_device rd;
      s = (std::uint64_t(rd()) << 32) ^ rd() ^
          std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
      s &= 0xFFFFFFFFFFFFull;  // short enough to type
    }
    std::fprintf(stderr, "[tilesort] TILESORT_TEST_SEED=%" PRIu64 "%s\n", s,
                 (env && *env) ? " (from the environment)" : " (set TILESORT_TEST_SEED to reproduce)");
    return s;
  }();
  return seed;
}

inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("?");
}

/// Seed of the current test: the base seed mixed with the test's name, so a
/// test reproduces with TILESORT_TEST_SEED whatever else runs.
inline std::uint64_t test_seed() {
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : current_test_name()) h = (h ^ std::uint64_t(static_cast<unsigned char>(ch))) * 1099511628211ull;
  return splitmix64(base_seed() ^ h);
}

inline std::string seed_message() {
  return "reproduce with: TILESORT_TEST_SEED=" + std::to_string(base_seed()) +
         " --gtest_filter='" + current_test_name() + "'";
}

/// TILESORT_TEST_SMALL=1: shrink the randomized tests and skip the big ones
/// (for compute-sanitizer runs of the whole suite).
inline bool small_mode() {
  const char* env = std::getenv("TILESORT_TEST_SMALL");
  return env && *env && std::strcmp(env, "0") != 0;
}

#define TS_SKIP_IF_SMALL()                                                          \
  do {                                                                              \
    if (::tstest::small_mode()) GTEST_SKIP() << "skipped: TILESORT_TEST_SMALL is set"; \
  } while (0)

// ---------------------------------------------------------------------------
// RAII device memory
// ---------------------------------------------------------------------------
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(ptr_, o.ptr_);
      std::swap(bytes_, o.bytes_);
    }
    return *this;
  }

  /// Allocates `bytes` (at least one byte, so the pointer is never null).
  cudaError_t alloc(std::size_t bytes) {
    reset();
    bytes_ = bytes;
    return cudaMalloc(&ptr_, bytes ? bytes : 1);
  }
  void reset() {
    if (ptr_) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Allocates `d` and copies `host` into it.
inline void upload_bytes(DeviceBuffer& d, const void* host, std::size_t bytes) {
  TS_CUDA_ASSERT(d.alloc(bytes));
  if (bytes) {
    TS_CUDA_ASSERT(cudaMemcpy(d.get(), host, bytes, cudaMemcpyHostToDevice));
  }
}

inline void download_bytes(std::vector<unsigned char>& host, const DeviceBuffer& d, std::size_t bytes) {
  host.resize(bytes);
  if (bytes) {
    TS_CUDA_ASSERT(cudaMemcpy(host.data(), d.get(), bytes, cudaMemcpyDeviceToHost));
  }
}

/// Offsets as the device sees them, `capacity` entries (>= offsets.size());
/// entries past the real ones hold `garbage` (the sort must never read them).
inline std::vector<unsigned char> encode_offsets(const std::vector<std::uint64_t>& offsets, OffsetType t,
                                                 std::size_t capacity = 0, std::uint64_t garbage = ~0ull) {
  capacity = std::max(capacity, offsets.size());
  const std::size_t ob = offset_bytes(t);
  std::vector<unsigned char> out(capacity * ob);
  for (std::size_t i = 0; i < capacity; ++i) {
    const std::uint64_t v = i < offsets.size() ? offsets[i] : garbage;
    if (t == OffsetType::u32) {
      const std::uint32_t v32 = std::uint32_t(v);
      std::memcpy(out.data() + i * 4, &v32, 4);
    } else {
      std::memcpy(out.data() + i * 8, &v, 8);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Workspace and run options
// ---------------------------------------------------------------------------
struct Workspace {
  tilesort::SortPlan plan;
  std::size_t bytes = 0;
  DeviceBuffer buf;
};

/// Queries the size, allocates (outside any sort) and fills the workspace
/// with a garbage pattern: the sort may not rely on zeroed memory.
inline void make_workspace(const tilesort::SortPlan& plan, Workspace& ws, int fill = 0xA5) {
  ws.plan = plan;
  ws.bytes = 0;
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort_workspace_size(plan, &ws.bytes));
  ASSERT_GT(ws.bytes, 0u);
  TS_CUDA_ASSERT(ws.buf.alloc(ws.bytes));
  TS_CUDA_ASSERT(cudaMemset(ws.buf.get(), fill, ws.bytes));
  // cudaMemset / cudaMemcpy run on the legacy default stream, which does not
  // order against the non-blocking test streams: finish them first.
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
}

enum class CountMode { host, device };
enum class ItemsMode { none, host, device };

struct RunOptions {
  Order order = Order::ascending;
  int begin_bit = 0;
  int end_bit = -1;
  CountMode segments = CountMode::host;
  ItemsMode items = ItemsMode::none;
  std::uint64_t extra_item_capacity = 0;     // plan.max_items = total + this
  std::uint64_t extra_segment_capacity = 0;  // plan.max_segments = num_segments + this
  std::uint64_t max_segment_items = 0;       // plan.max_segment_items
  std::size_t offsets_garbage_tail = 0;      // extra garbage entries after the offsets

  std::string describe() const {
    std::ostringstream s;
    s << "order=" << name_of(order) << " bits=[" << begin_bit << "," << end_bit << ")"
      << " segments=" << (segments == CountMode::host ? "host" : "device")
      << " items=" << (items == ItemsMode::none ? "not-given" : items == ItemsMode::host ? "host" : "device")
      << " extra_cap=" << extra_item_capacity << "/" << extra_segment_capacity
      << " max_segment_items=" << max_segment_items << " offsets_tail=" << offsets_garbage_tail;
    return s.str();
  }
};

/// Random count sources, capacities and offset tails for a case.
inline RunOptions random_options(Rng& rng, Order order, const HostCase& c) {
  RunOptions o;
  o.order = order;
  o.segments = (rng() & 1) ? CountMode::device : CountMode::host;
  const unsigned im = unsigned(rng() % 3);
  o.items = im == 0 ? ItemsMode::none : im == 1 ? ItemsMode::host : ItemsMode::device;
  o.extra_item_capacity = (rng() & 1) ? 0 : rng() % 5000;
  o.extra_segment_capacity = (rng() & 1) ? 0 : rng() % 300;
  const unsigned ms = unsigned(rng() % 4);
  if (ms == 1) o.max_segment_items = std::max<std::uint64_t>(c.longest_segment(), 1);  // tight bound: still ok
  if (ms == 2) o.max_segment_items = std::max<std::uint64_t>(c.longest_segment(), 1) + rng() % 10000;
  o.offsets_garbage_tail = (rng() & 1) ? 0 : 1 + rng() % 64;
  return o;
}

/// Items the sort is told about (the total every offset must lie in).
inline std::uint64_t total_items(const HostCase& c, const RunOptions& o) {
  return o.items == ItemsMode::none ? c.last_offset() : c.n;
}

inline tilesort::SortPlan plan_for(const HostCase& c, const RunOptions& o) {
  tilesort::SortPlan p;
  p.key_type = c.key_type;
  p.value_type = c.value_type;
  p.offset_type = c.offset_type;
  p.max_items = std::max<std::uint64_t>(total_items(c, o) + o.extra_item_capacity, 1);
  p.max_segments = std::max<std::uint64_t>(c.num_segments() + o.extra_segment_capacity, 1);
  p.max_segment_items = o.max_segment_items;
  return p;
}

// ---------------------------------------------------------------------------
// A case on the device
// ---------------------------------------------------------------------------
struct DeviceCase {
  DeviceBuffer keys, values, offsets, num_segments, num_items;
};

inline void upload_case(const HostCase& c, const RunOptions& o, DeviceCase& d) {
  ASSERT_NO_FATAL_FAILURE(upload_bytes(d.keys, c.keys.data(), c.keys.size()));
  if (c.value_type != ValueType::none) {
    ASSERT_NO_FATAL_FAILURE(upload_bytes(d.values, c.values.data(), c.values.size()));
  }
  const auto off = encode_offsets(c.offsets, c.offset_type, c.offsets.size() + o.offsets_garbage_tail);
  ASSERT_NO_FATAL_FAILURE(upload_bytes(d.offsets, off.data(), off.size()));
  const std::uint32_t nseg = std::uint32_t(c.num_segments());
  const std::uint32_t nitems = std::uint32_t(c.n);
  ASSERT_NO_FATAL_FAILURE(upload_bytes(d.num_segments, &nseg, 4));
  ASSERT_NO_FATAL_FAILURE(upload_bytes(d.num_items, &nitems, 4));
  // A pageable cudaMemcpy may return before the data has landed, and the
  // sort runs on a non-blocking stream: wait for the copies.
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
}

inline tilesort::SortArgs make_args(const HostCase& c, const RunOptions& o, const DeviceCase& d) {
  tilesort::SortArgs a;
  a.keys = d.keys.get();
  a.values = c.value_type == ValueType::none ? nullptr : d.values.get();
  a.offsets = d.offsets.get();
  if (o.segments == CountMode::device)
    a.d_num_segments = d.num_segments.as<const std::uint32_t>();
  else
    a.num_segments = c.num_segments();
  if (o.items == ItemsMode::host) a.num_items = c.n;
  if (o.items == ItemsMode::device) a.d_num_items = d.num_items.as<const std::uint32_t>();
  a.order = o.order;
  a.begin_bit = o.begin_bit;
  a.end_bit = o.end_bit;
  return a;
}

/// Copies keys, values and offsets back into a HostCase shaped like `c`.
inline void download_case(const HostCase& c, const DeviceCase& d, HostCase& out) {
  out = HostCase();
  out.key_type = c.key_type;
  out.value_type = c.value_type;
  out.offset_type = c.offset_type;
  out.n = c.n;
  out.offsets = c.offsets;
  out.description = c.description;
  ASSERT_NO_FATAL_FAILURE(download_bytes(out.keys, d.keys, c.keys.size()));
  if (c.value_type != ValueType::none) {
    ASSERT_NO_FATAL_FAILURE(download_bytes(out.values, d.values, c.values.size()));
  }
  std::vector<unsigned char> off;
  const auto expect = encode_offsets(c.offsets, c.offset_type);
  ASSERT_NO_FATAL_FAILURE(download_bytes(off, d.offsets, expect.size()));
  ASSERT_TRUE(off == expect) << "the sort modified the offsets array";
}

// ---------------------------------------------------------------------------
// Comparison with readable failures
// ---------------------------------------------------------------------------
inline std::string hex_item(const unsigned char* p, std::size_t bytes) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes == 4 ? "0x%08" PRIx64 : "0x%016" PRIx64, v);
  return buf;
}

inline std::string key_text(KeyType kt, const unsigned char* p) {
  std::ostringstream s;
  switch (kt) {
    case KeyType::u32: { std::uint32_t v; std::memcpy(&v, p, 4); s << v; break; }
    case KeyType::i32: { std::int32_t v; std::memcpy(&v, p, 4); s << v; break; }
    case KeyType::f32: { float v; std::memcpy(&v, p, 4); s.precision(9); s << v; break; }
    case KeyType::u64: { std::uint64_t v; std::memcpy(&v, p, 8); s << v; break; }
    case KeyType::i64: { std::int64_t v; std::memcpy(&v, p, 8); s << v; break; }
    case KeyType::f64: { double v; std::memcpy(&v, p, 8); s.precision(17); s << v; break; }
  }
  s << " (" << hex_item(p, key_bytes(kt)) << ")";
  return s.str();
}

/// Where item i lives: "segment s (item j of len)" or "outside all segments".
inline std::string locate(const HostCase& c, std::uint64_t i) {
  if (c.offsets.empty() || i < c.offsets.front() || i >= c.offsets.back()) return "outside all segments";
  const auto it = std::upper_bound(c.offsets.begin(), c.offsets.end(), i);
  std::size_t s = std::size_t(it - c.offsets.begin()) - 1;
  while (s + 1 < c.offsets.size() && c.offsets[s + 1] == c.offsets[s]) ++s;  // skip empty segments
  std::ostringstream o;
  o << "segment " << s << " (item " << (i - c.offsets[s]) << " of " << (c.offsets[s + 1] - c.offsets[s]) << ")";
  return o.str();
}

/// Byte-exact comparison of n items; names the first mismatches.
inline ::testing::AssertionResult items_equal(const char* what, const HostCase& c, const std::vector<unsigned char>& want,
                                              const std::vector<unsigned char>& got, std::size_t item_bytes,
                                              bool is_key) {
  if (want.size() != got.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != expected " << want.size();
  if (item_bytes == 0 || std::memcmp(want.data(), got.data(), want.size()) == 0)
    return ::testing::AssertionSuccess();
  const std::uint64_t n = want.size() / item_bytes;
  std::uint64_t bad = 0;
  std::ostringstream msg;
  for (std::uint64_t i = 0; i < n; ++i) {
    const unsigned char* w = want.data() + i * item_bytes;
    const unsigned char* g = got.data() + i * item_bytes;
    if (std::memcmp(w, g, item_bytes) == 0) continue;
    if (bad < 8) {
      msg << "\n  " << what << "[" << i << "] in " << locate(c, i) << ": expected "
          << (is_key ? key_text(c.key_type, w) : hex_item(w, item_bytes)) << ", got "
          << (is_key ? key_text(c.key_type, g) : hex_item(g, item_bytes));
    }
    ++bad;
  }
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << n << " items differ" << msg.str();
}

/// Asserts `got` equals `want` (keys and values, byte for byte).
inline void expect_same(const HostCase& input, const HostCase& want, const HostCase& got) {
  ASSERT_TRUE(items_equal("keys", input, want.keys, got.keys, key_bytes(input.key_type), true));
  ASSERT_TRUE(items_equal("values", input, want.values, got.values, value_bytes(input.value_type), false));
}

/// Uploads `c`, sorts it with workspace `ws` (which must fit), checks both
/// statuses and downloads the result into `got`.
inline void sort_on_device(cudaStream_t stream, Workspace& ws, const HostCase& c, const RunOptions& o, HostCase& got) {
  DeviceCase d;
  ASSERT_NO_FATAL_FAILURE(upload_case(c, o, d));
  const tilesort::SortArgs args = make_args(c, o, d);
  TS_STATUS_ASSERT_OK(tilesort::segmented_sort(ws.buf.get(), ws.bytes, ws.plan, args, stream));
  TS_STATUS_ASSERT_OK(tilesort::read_device_status(ws.buf.get(), stream));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream));
  TS_CUDA_ASSERT(cudaGetLastError());
  ASSERT_NO_FATAL_FAILURE(download_case(c, d, got));
}

/// The whole flow for one case: fresh workspace (or `reuse`), upload, sort,
/// device status, download, compare with the reference.
inline void sort_and_check(cudaStream_t stream, const HostCase& c, const RunOptions& o, Workspace* reuse = nullptr) {
  SCOPED_TRACE(c.description + " | " + o.describe());
  Workspace local;
  Workspace* ws = reuse;
  if (!ws) {
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), local));
    ws = &local;
  }
  HostCase got;
  ASSERT_NO_FATAL_FAILURE(sort_on_device(stream, *ws, c, o, got));
  const HostCase want = reference_result(c, o.order, o.begin_bit, o.end_bit);
  ASSERT_NO_FATAL_FAILURE(expect_same(c, want, got));
}

/// 0 half the time, else 1..max items of padding (outside all segments).
inline std::uint64_t random_pad(Rng& rng, std::uint64_t max = 100) { return (rng() & 1) ? 0 : 1 + rng() % max; }

// ---------------------------------------------------------------------------
// Fixture
// ---------------------------------------------------------------------------
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CUDA_DEVICE();
    seed_ = test_seed();
    rng_.seed(seed_);
    RecordProperty("TILESORT_TEST_SEED", std::to_string(base_seed()));
    TS_CUDA_ASSERT(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) {
      EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
      stream_ = nullptr;
      const cudaError_t e = cudaGetLastError();
      EXPECT_EQ(e, cudaSuccess) << "CUDA error left pending: " << cudaGetErrorString(e);
    }
  }

  cudaStream_t stream_ = nullptr;
  std::uint64_t seed_ = 0;
  Rng rng_;
};

/// Put at the top of every GPU test body: failures then name the seed.
#define TS_TRACE_SEED() SCOPED_TRACE(::tstest::seed_message())

}  // namespace tstest
