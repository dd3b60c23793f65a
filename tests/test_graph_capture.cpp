// GPU tests: CUDA graph capture (no allocation, sync or host copy inside the
// sort), stream order, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"

namespace tstest {
namespace {

struct GraphCase {
  const char* name;
  KeyType key;
  ValueType value;
  OffsetType offset;
  Order order;
  cudaStreamCaptureMode mode;
  bool device_items;  // d_num_items given (else the total is offsets[num_segments])
};

void PrintTo(const GraphCase& g, std::ostream* os) { *os << g.name; }

std::string graph_case_name(const ::testing::TestParamInfo<GraphCase>& info) { return info.param.name; }

struct GraphHolder {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~GraphHolder() {
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
  }
};

/// Sizes of exactly `segments` segments summing to exactly `items`.
std::vector<std::uint64_t> exact_fill(Rng& rng, std::uint64_t items, std::uint64_t segments) {
  std::vector<std::uint64_t> cuts(segments - 1);
  for (auto& c : cuts) c = rng() % (items + 1);
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::uint64_t> sizes(segments);
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i + 1 < segments; ++i) {
    sizes[i] = cuts[i] - prev;
    prev = cuts[i];
  }
  sizes[segments - 1] = items - prev;
  return sizes;
}

/// Captures ONE segmented_sort with device-side counts, instantiates it, and
/// replays it `replays` times with new keys, values, offsets and counts
/// written (outside the graph) before each launch.
void capture_and_replay(cudaStream_t stream, Rng& rng, const GraphCase& p, std::uint64_t max_items,
                        std::uint64_t max_segments, int replays) {
  tilesort::SortPlan plan;
  plan.key_type = p.key;
  plan.value_type = p.value;
  plan.offset_type = p.offset;
  plan.max_items = max_items;
  plan.max_segments = max_segments;
  Workspace ws;
  ASSERT_NO_FATAL_FAILURE(make_workspace(plan, ws));

  const std::size_t kb = key_bytes(p.key), vb = value_bytes(p.value), ob = offset_bytes(p.offset);
  DeviceBuffer keys, values, offsets, nseg, nitems;
  TS_CUDA_ASSERT(keys.alloc(max_items * kb));
  if (vb) {
    TS_CUDA_ASSERT(values.alloc(max_items * vb));
  }
  TS_CUDA_ASSERT(offsets.alloc((max_segments + 1) * ob));
  TS_CUDA_ASSERT(nseg.alloc(4));
  TS_CUDA_ASSERT(nitems.alloc(4));
  TS_CUDA_ASSERT(cudaMemset(offsets.get(), 0, (max_segments + 1) * ob));
  TS_CUDA_ASSERT(cudaMemset(nseg.get(), 0, 4));
  TS_CUDA_ASSERT(cudaMemset(nitems.get(), 0, 4));
  TS_CUDA_ASSERT(cudaDeviceSynchronize());

  tilesort::SortArgs args;
  args.keys = keys.get();
  args.values = vb ? values.get() : nullptr;
  args.offsets = offsets.get();
  args.d_num_segments = nseg.as<const std::uint32_t>();
  if (p.device_items) args.d_num_items = nitems.as<const std::uint32_t>();
  args.order = p.order;

  GraphHolder g;
  TS_CUDA_ASSERT(cudaStreamBeginCapture(stream, p.mode));
  const tilesort::Status st = tilesort::segmented_sort(ws.buf.get(), ws.bytes, ws.plan, args, stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &g.graph);
  ASSERT_TRUE(st.ok()) << "segmented_sort during capture: " << st.what();
  ASSERT_EQ(end, cudaSuccess) << "stream capture was invalidated (a hidden synchronisation, allocation or "
                                 "synchronous copy inside segmented_sort?): "
                              << cudaGetErrorString(end);
  ASSERT_NE(g.graph, nullptr);

  // The captured work may not allocate (no stream-ordered alloc/free nodes).
  std::size_t num_nodes = 0;
  TS_CUDA_ASSERT(cudaGraphGetNodes(g.graph, nullptr, &num_nodes));
  ASSERT_GT(num_nodes, 0u) << "nothing was captured";
  std::vector<cudaGraphNode_t> nodes(num_nodes);
  TS_CUDA_ASSERT(cudaGraphGetNodes(g.graph, nodes.data(), &num_nodes));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    TS_CUDA_ASSERT(cudaGraphNodeGetType(node, &type));
    EXPECT_NE(type, cudaGraphNodeTypeMemAlloc) << "the captured sort allocates";
    EXPECT_NE(type, cudaGraphNodeTypeMemFree) << "the captured sort frees memory";
  }
  TS_CUDA_ASSERT(cudaGraphInstantiate(&g.exec, g.graph, 0));

  const std::uint64_t budget = std::min<std::uint64_t>(max_items, 400000);
  const Layout layouts[] = {Layout::random_sizes, Layout::huge_among_tiny, Layout::with_empty,
                            Layout::power_law, Layout::fixed, Layout::one_element};
  for (int r = 0; r < replays; ++r) {
    // Replay kinds: 0 = no segments, 1 = exactly full capacity, 2 = segment
    // count over capacity, 4 = item count over capacity (both refused on
    // the device; the replay after each must work again), 3 = random.
    std::vector<std::uint64_t> sizes;
    std::uint64_t prefix = 0, suffix = 0;
    const int kind = r < 3 ? r : (r == 4 && p.device_items) ? 4 : 3;
    const bool refused = kind == 2 || kind == 4;
    if (kind == 0) {
      prefix = rng() % 50;
    } else if (kind == 1) {
      sizes = exact_fill(rng, max_items, max_segments);
    } else if (refused) {
      sizes = make_segment_sizes(Layout::random_sizes, rng, std::min<std::uint64_t>(budget, 5000));
      if (sizes.size() > max_segments) sizes.resize(max_segments);
    } else {
      const Layout l = layouts[rng() % (sizeof layouts / sizeof layouts[0])];
      sizes = make_segment_sizes(l, rng, budget - 200);
      if (sizes.size() > max_segments) sizes.resize(max_segments);
      prefix = random_pad(rng);
      suffix = random_pad(rng);
    }
    const Dist dist = all_dists()[rng() % all_dists().size()];
    const HostCase c = make_case(p.key, p.value, p.offset, sizes, dist, rng, prefix, suffix);
    SCOPED_TRACE(::testing::Message() << "replay " << r << " kind " << kind << ": " << c.description);
    ASSERT_LE(c.n, max_items);
    ASSERT_LE(c.num_segments(), max_segments);

    // New inputs, written outside the graph. The buffers' tails (beyond
    // this replay's items / offsets) hold a marker / garbage offsets.
    TS_CUDA_ASSERT(cudaMemset(keys.get(), 0x77, max_items * kb));
    if (vb) {
      TS_CUDA_ASSERT(cudaMemset(values.get(), 0x66, max_items * vb));
    }
    if (c.n) {
      TS_CUDA_ASSERT(cudaMemcpy(keys.get(), c.keys.data(), c.keys.size(), cudaMemcpyHostToDevice));
    }
    if (c.n && vb) {
      TS_CUDA_ASSERT(cudaMemcpy(values.get(), c.values.data(), c.values.size(), cudaMemcpyHostToDevice));
    }
    const auto off = encode_offsets(c.offsets, p.offset, max_segments + 1);
    TS_CUDA_ASSERT(cudaMemcpy(offsets.get(), off.data(), off.size(), cudaMemcpyHostToDevice));
    std::uint32_t count = std::uint32_t(c.num_segments());
    std::uint32_t items = std::uint32_t(c.n);
    if (kind == 2) count = std::uint32_t(max_segments + 1);
    if (kind == 4) items = std::uint32_t(max_items + 1);
    TS_CUDA_ASSERT(cudaMemcpy(nseg.get(), &count, 4, cudaMemcpyHostToDevice));
    TS_CUDA_ASSERT(cudaMemcpy(nitems.get(), &items, 4, cudaMemcpyHostToDevice));

    TS_CUDA_ASSERT(cudaDeviceSynchronize());  // the copies above are on the legacy stream
    TS_CUDA_ASSERT(cudaGraphLaunch(g.exec, stream));
    const tilesort::Status ds = tilesort::read_device_status(ws.buf.get(), stream);
    TS_CUDA_ASSERT(cudaStreamSynchronize(stream));

    std::vector<unsigned char> got_keys, got_values;
    ASSERT_NO_FATAL_FAILURE(download_bytes(got_keys, keys, max_items * kb));
    if (vb) {
      ASSERT_NO_FATAL_FAILURE(download_bytes(got_values, values, max_items * vb));
    }
    // Nothing beyond this replay's items is touched.
    for (std::size_t i = c.keys.size(); i < got_keys.size(); ++i)
      ASSERT_EQ(got_keys[i], 0x77) << "key byte " << i << " beyond the items was written";
    for (std::size_t i = c.values.size(); i < got_values.size(); ++i)
      ASSERT_EQ(got_values[i], 0x66) << "value byte " << i << " beyond the items was written";
    got_keys.resize(c.keys.size());
    got_values.resize(c.values.size());

    HostCase got = c;
    got.keys = got_keys;
    got.values = got_values;
    if (refused) {
      EXPECT_EQ(ds.code(), tilesort::StatusCode::count_over_capacity) << ds.what();
      ASSERT_NO_FATAL_FAILURE(expect_same(c, c, got));  // refused: untouched
    } else {
      ASSERT_TRUE(ds.ok()) << tilesort::to_string(ds.code()) << ": " << ds.what();
      ASSERT_NO_FATAL_FAILURE(expect_same(c, reference_result(c, p.order), got));
    }
  }
}

class GraphCapture : public GpuTest, public ::testing::WithParamInterface<GraphCase> {};

TEST_P(GraphCapture, ReplaysWithChangingInputs) {
  TS_TRACE_SEED();
  if (small_mode())
    capture_and_replay(stream_, rng_, GetParam(), 1 << 14, 256, 5);
  else
    capture_and_replay(stream_, rng_, GetParam(), 1 << 20, 1 << 13, 10);
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, GraphCapture,
    ::testing::Values(
        GraphCase{"f32_b32_off32_asc_global_ditems", KeyType::f32, ValueType::b32, OffsetType::u32, Order::ascending,
                  cudaStreamCaptureModeGlobal, true},
        GraphCase{"u64_b64_off64_asc_threadlocal", KeyType::u64, ValueType::b64, OffsetType::u64, Order::ascending,
                  cudaStreamCaptureModeThreadLocal, false},
        GraphCase{"i32_none_off32_desc_global", KeyType::i32, ValueType::none, OffsetType::u32, Order::descending,
                  cudaStreamCaptureModeGlobal, false},
        GraphCase{"f64_b64_off64_desc_threadlocal_ditems", KeyType::f64, ValueType::b64, OffsetType::u64,
                  Order::descending, cudaStreamCaptureModeThreadLocal, true}),
    graph_case_name);

// ---------------------------------------------------------------------------
// Stream order: work enqueued on the caller's stream right after the sort
// sees every segment sorted (short walked ones, listed ones, one-block
// classes and MSD rounds alike), on a stream of its own and on the legacy
// default stream. Only the caller's stream is waited for: a kernel of the
// call left outside the stream's order shows as unsorted segments.
// ---------------------------------------------------------------------------
using StreamOrder = GpuTest;

TEST_F(StreamOrder, WorkAfterTheSortSeesEverySegmentSorted) {
  TS_TRACE_SEED();
  const std::uint64_t budget = small_mode() ? 200000 : 4000000;
  for (const cudaStream_t stream : {stream_, cudaStreamLegacy}) {
    for (const Layout layout : {Layout::fixed, Layout::random_sizes, Layout::huge_among_tiny}) {
      // Mostly walked segments (2..32 keys), so the walk is the longest
      // kernel, plus whatever the layout adds.
      std::vector<std::uint64_t> sizes;
      std::uint64_t total = 0;
      while (total < budget / 2) {
        sizes.push_back(2 + rng_() % 31);
        total += sizes.back();
      }
      const auto more = make_segment_sizes(layout, rng_, budget / 2);
      sizes.insert(sizes.end(), more.begin(), more.end());
      const HostCase c = make_case(KeyType::u32, ValueType::b32, OffsetType::u32, sizes, Dist::uniform, rng_);
      SCOPED_TRACE(::testing::Message() << (stream == stream_ ? "own stream, " : "legacy stream, ") << c.description);
      RunOptions o;
      o.segments = CountMode::device;
      Workspace ws;
      ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), ws));
      DeviceCase d;
      ASSERT_NO_FATAL_FAILURE(upload_case(c, o, d));
      std::vector<unsigned char> keys(c.keys.size()), values(c.values.size());
      TS_STATUS_ASSERT_OK(tilesort::segmented_sort(ws.buf.get(), ws.bytes, ws.plan, make_args(c, o, d), stream));
      TS_CUDA_ASSERT(cudaMemcpyAsync(keys.data(), d.keys.get(), keys.size(), cudaMemcpyDeviceToHost, stream));
      TS_CUDA_ASSERT(cudaMemcpyAsync(values.data(), d.values.get(), values.size(), cudaMemcpyDeviceToHost, stream));
      TS_CUDA_ASSERT(cudaStreamSynchronize(stream));
      HostCase got = c;
      got.keys = keys;
      got.values = values;
      ASSERT_NO_FATAL_FAILURE(expect_same(c, reference_result(c, Order::ascending), got));
      TS_STATUS_ASSERT_OK(tilesort::read_device_status(ws.buf.get(), stream));
    }
  }
}

using SanitizerGraphCapture = GpuTest;

TEST_F(SanitizerGraphCapture, SmallReplays) {
  TS_TRACE_SEED();
  const GraphCase p{"small", KeyType::f32, ValueType::b64, OffsetType::u32, Order::descending,
                    cudaStreamCaptureModeGlobal, true};
  capture_and_replay(stream_, rng_, p, 1 << 14, 128, 5);
}

// ---------------------------------------------------------------------------
// Determinism: the same input gives byte-identical output, whichever
// workspace (and whatever garbage it held) is used.
// ---------------------------------------------------------------------------
using Determinism = GpuTest;

TEST_F(Determinism, SameInputSameBytes) {
  TS_TRACE_SEED();
  struct C {
    KeyType k;
    ValueType v;
    OffsetType o;
    Order order;
    Dist dist;
  };
  const C cases[] = {{KeyType::f32, ValueType::b32, OffsetType::u32, Order::ascending, Dist::specials},
                     {KeyType::f64, ValueType::b64, OffsetType::u64, Order::descending, Dist::few_unique},
                     {KeyType::u32, ValueType::b64, OffsetType::u32, Order::descending, Dist::low16},
                     {KeyType::i64, ValueType::b32, OffsetType::u64, Order::ascending, Dist::all_equal}};
  for (const C& k : cases) {
    SCOPED_TRACE(::testing::Message() << name_of(k.k) << " " << name_of(k.v) << " " << name_of(k.dist));
    auto sizes = make_segment_sizes(Layout::huge_among_tiny, rng_, small_mode() ? 20000 : 1000000);
    const auto b = boundary_sizes(small_mode() ? 2049 : 16385);
    sizes.insert(sizes.end(), b.begin(), b.end());
    const HostCase c = make_case(k.k, k.v, k.o, sizes, k.dist, rng_, 3, 3);
    RunOptions o;
    o.order = k.order;
    o.segments = CountMode::device;
    Workspace a, bws;
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), a, 0x00));
    ASSERT_NO_FATAL_FAILURE(make_workspace(plan_for(c, o), bws, 0xFF));
    HostCase r1, r2, r3;
    ASSERT_NO_FATAL_FAILURE(sort_on_device(stream_, a, c, o, r1));
    ASSERT_NO_FATAL_FAILURE(sort_on_device(stream_, bws, c, o, r2));
    ASSERT_NO_FATAL_FAILURE(sort_on_device(stream_, a, c, o, r3));
    EXPECT_TRUE(r1.keys == r2.keys && r1.keys == r3.keys) << "keys differ between identical runs";
    EXPECT_TRUE(r1.values == r2.values && r1.values == r3.values) << "values differ between identical runs";
    ASSERT_NO_FATAL_FAILURE(expect_same(c, reference_result(c, k.order), r1));
  }
}

}  // namespace
}  // namespace tstest
