// tilesort-bench --suite binning: emitted (tile, depth, id) records in random
// order -> per-tile depth-sorted ranges, end to end, in one run:
//
//   copy         cudaMemcpyAsync of the record bytes (tile id, key, value:
//                12 bytes a record), the floor every figure is divided by;
//                always runs;
//   tilesort     tilesort::bin_and_sort;
//   3dgs         the 3D Gaussian Splatting pipeline (baselines/
//                gs3d_pipeline.hpp): 64-bit (tile << b | depth) keys, b = the
//                depth bits, cub::DeviceRadixSort::SortPairs over b + bits of
//                the tile count, then the tile-range kernel (ranges memset
//                first, as 3DGS does). The record count is taken from the
//                host: the device-to-host copy 3DGS needs is NOT timed, which
//                favours 3DGS;
//   3dgs-packed  the same with 32-bit keys where b + tile bits fit 32 (16-bit
//                depths, at most 65,536 tiles): a careful user's packing;
//   bin          tilesort::bin alone (same copy floor);
//   gather64     tilesort::gather of 64-byte records through a bin_index
//                permutation (floor: a copy of the 64-byte records; 32-bit
//                rows only).
// Each case runs with 32-bit depths and with depths quantised to 16 bits
// (tilesort sorts bits [0, 16)); --depth-bits picks others.
//
// Every method is stable, so its output must equal the CPU reference
// (binning_cases.hpp) exactly: keys, values and ranges (bin_index: the
// permutation). A method that fails is reported FAILED and not timed. The
// cases, the reference, the targets of issue 14 and the reports are host
// code in the bench core (binning_cases.*, binning_report.*).
//
// The timed bin_and_sort calls, and only they, run between
// cudaProfilerStart and cudaProfilerStop, so a profiler that starts with
// profiling off (ncu --profile-from-start off) sees exactly --reps calls:
// scripts/device_binning_profile.sh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "binning_cases.hpp"
#include "binning_report.hpp"
#include "cuda_check.hpp"
#include "gs3d_pipeline.hpp"
#include "stats.hpp"
#include "suites.hpp"
#include "timing.hpp"
#include "timeline_trace.hpp"
#include "tilesort/binning.hpp"

namespace bench {
namespace {

namespace tb = tilesort::baselines;

constexpr int kExitUsage = 64;

enum class Method { tilesort, gs3d, gs3d_packed, bin, gather64 };
struct MethodName {
  Method method;
  const char* name;
};
constexpr MethodName kMethods[] = {{Method::tilesort, "tilesort"},
                                   {Method::gs3d, "3dgs"},
                                   {Method::gs3d_packed, "3dgs-packed"},
                                   {Method::bin, "bin"},
                                   {Method::gather64, "gather64"}};

constexpr const char* kOptionsHelp =
    "--cases LIST         default: tiles16-1M,tiles16-4M,tiles8-4M,tiles32-4M,4k-tiles16,4k-tiles8;\n"
    "                     also tiles8-1M, 4k-tiles16-4M, 4k-tiles8-4M; 'all' = every one\n"
    "--methods LIST       of tilesort,3dgs,3dgs-packed,bin,gather64 (default all; the copy always runs),\n"
    "                     e.g. --methods tilesort --reps 1 --warmup 0 for a profiler\n"
    "--depth-bits LIST    depth key widths, each 1..32 (default 32,16)";

struct Selection {
  std::vector<std::string> cases = default_binning_cases();
  std::vector<int> depth_bits = {32, 16};
  std::vector<Method> methods = {Method::tilesort, Method::gs3d, Method::gs3d_packed, Method::bin, Method::gather64};

  bool has(Method m) const { return std::find(methods.begin(), methods.end(), m) != methods.end(); }
};

/// Parses the suite's own options; false (after a message) on a bad one.
bool parse_selection(const std::vector<std::string>& args, Selection* sel) {
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "binning: %s\nbinning options:\n%s\n", why.c_str(), kOptionsHelp);
    return false;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag != "--cases" && flag != "--methods" && flag != "--depth-bits") return fail("unknown option " + flag);
    if (i + 1 >= args.size()) return fail(flag + " needs a value");
    const std::string value = args[++i];
    const std::vector<std::string> items = split_list(value);
    if (items.empty()) return fail(flag + " needs a non-empty list");
    if (flag == "--cases") {
      sel->cases = value == "all" ? all_binning_cases() : items;
      for (const std::string& c : sel->cases)
        if (std::find(all_binning_cases().begin(), all_binning_cases().end(), c) == all_binning_cases().end())
          return fail("unknown case " + c);
    } else if (flag == "--methods") {
      if (value == "all") continue;
      sel->methods.clear();
      for (const std::string& m : items) {
        const MethodName* found = nullptr;
        for (const MethodName& k : kMethods)
          if (m == k.name) found = &k;
        if (found == nullptr) return fail("unknown method " + m);
        if (!sel->has(found->method)) sel->methods.push_back(found->method);
      }
    } else {
      sel->depth_bits.clear();
      for (const std::string& b : items) {
        char* end = nullptr;
        const long bits = std::strtol(b.c_str(), &end, 10);
        if (end == b.c_str() || *end != '\0' || bits < 1 || bits > 32) return fail("--depth-bits takes 1..32, got " + b);
        sel->depth_bits.push_back(int(bits));
      }
    }
  }
  return true;
}

void check_ts(const tilesort::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "binning: %s: %s\n", what, s.what());
  std::exit(kExitCudaError);
}
#define BENCH_TS_CHECK(expr) check_ts((expr), #expr)

/// --timeline: one more call of `run`, traced (timeline_trace.hpp).
CallTimeline traced(const std::string& title, double event_ms, const std::function<void()>& run,
                    cudaStream_t stream) {
  // The call reads only its inputs: nothing to restore between calls.
  CallTimeline t = trace_call(title, [] {}, [&] {
    run();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  t.event_ms = event_ms;
  return t;
}

template <class T>
std::vector<T> fetch(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) BENCH_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

std::string first_difference(const char* what, const std::vector<std::uint32_t>& got,
                             const std::vector<std::uint32_t>& want) {
  if (got.size() != want.size()) return std::string(what) + ": wrong length";
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << what << "[" << i << "] = " << got[i] << ", expected " << want[i];
      return os.str();
    }
  return "";
}

// ---- gather64's records: filled and checked on the device --------------------
// 2^30 words for 4k-tiles8: a host round trip of them would dominate the case.

constexpr std::size_t kRecordBytes = 64;
constexpr std::size_t kRecordWords = kRecordBytes / 4;

/// Record i holds i in every word, so each gathered word names its source.
__global__ void fill_record_ids(std::uint32_t* words, std::size_t count) {
  for (std::size_t w = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; w < count;
       w += std::size_t(gridDim.x) * blockDim.x)
    words[w] = std::uint32_t(w / kRecordWords);
}

/// *first_bad = the lowest word w with out[w] != permutation[w / 16] (left
/// at its initial all-ones when every word is right).
__global__ void check_gathered(const std::uint32_t* out, const std::uint32_t* permutation, std::size_t count,
                               unsigned long long* first_bad) {
  for (std::size_t w = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; w < count;
       w += std::size_t(gridDim.x) * blockDim.x)
    if (out[w] != permutation[w / kRecordWords]) atomicMin(first_bad, static_cast<unsigned long long>(w));
}

constexpr unsigned kStrideThreads = 256, kStrideBlocks = 132 * 8;

// ---- one row: a case at one depth width --------------------------------------

BinRow run_row(std::vector<CallTimeline>& timelines, const SuiteOptions& o, const Selection& sel,
               const BinRecords& base, const BinSplit& split,
               int key_bits, cudaStream_t stream) {
  BinRecords quantised_copy;
  if (key_bits < 32) quantised_copy = quantized(base, key_bits);
  const BinRecords& r = key_bits < 32 ? quantised_copy : base;
  const std::uint32_t n = std::uint32_t(r.size());
  const std::uint32_t tiles = r.num_tiles;

  BinRow row;
  row.case_name = r.name;
  row.label = r.name + (key_bits < 32 ? " (depth" + std::to_string(key_bits) + ")" : "");
  row.note = r.note;
  row.records = n;
  row.tiles = tiles;
  row.key_bits = key_bits;

  const bool sorted_methods = sel.has(Method::tilesort) || sel.has(Method::gs3d) || sel.has(Method::gs3d_packed);
  const BinExpected want = sorted_methods ? sorted_reference(r, split, key_bits) : BinExpected{};

  // Inputs as one SoA allocation (tile ids | keys | values), so the copy
  // floor is one cudaMemcpyAsync of exactly the record bytes.
  DeviceBuffer records(std::size_t(n) * 12 + 4), copy_dst(std::size_t(n) * 12 + 4), count(4);
  auto* d_tiles = records.as<std::uint32_t>();
  auto* d_keys = d_tiles + n;
  auto* d_values = d_keys + n;
  BENCH_CUDA_CHECK(cudaMemcpy(d_tiles, r.tiles.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(d_keys, r.keys.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(d_values, r.values.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(count.get(), &n, 4, cudaMemcpyHostToDevice));

  row.copy_ms = median_ms(o.warmup, o.reps, stream, [&] {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(copy_dst.get(), records.get(), std::size_t(n) * 12, cudaMemcpyDeviceToDevice,
                                     stream));
  });
  copy_dst = DeviceBuffer();

  // ---- tilesort: bin_and_sort, bin, bin_index + gather share one workspace ----
  if (sel.has(Method::tilesort) || sel.has(Method::bin) || (sel.has(Method::gather64) && key_bits == 32)) {
    tilesort::BinPlan plan;
    plan.max_records = std::max<std::uint32_t>(n, 1);
    plan.max_tiles = tiles;
    plan.value_type = tilesort::ValueType::b32;
    std::size_t ws_bytes = 0;
    BENCH_TS_CHECK(tilesort::bin_and_sort_workspace_size(plan, &ws_bytes));
    DeviceBuffer ws(ws_bytes), out_keys(std::size_t(n) * 4 + 4), out_values(std::size_t(n) * 4 + 4),
        out_offsets((std::size_t(tiles) + 1) * 4);
    tilesort::BinArgs args;
    args.tile_ids = d_tiles;
    args.keys = d_keys;
    args.values = d_values;
    args.d_num_records = count.as<std::uint32_t>();
    args.num_tiles = tiles;
    args.out_keys = out_keys.as<std::uint32_t>();
    args.out_values = out_values.get();
    args.out_offsets = out_offsets.as<std::uint32_t>();
    args.end_bit = key_bits;

    if (sel.has(Method::tilesort)) {
      auto run = [&] { BENCH_TS_CHECK(tilesort::bin_and_sort(ws.get(), ws_bytes, plan, args, stream)); };
      run();
      const tilesort::Status st = tilesort::read_bin_and_sort_status(ws.get(), plan, stream);
      std::string why = st.ok() ? "" : st.what();
      if (why.empty()) why = first_difference("offsets", fetch(out_offsets.as<std::uint32_t>(), tiles + 1), want.offsets);
      if (why.empty()) why = first_difference("keys", fetch(out_keys.as<std::uint32_t>(), n), want.keys);
      if (why.empty()) why = first_difference("values", fetch(out_values.as<std::uint32_t>(), n), want.values);
      row.tilesort = why.empty() ? BinResult::measured(median_ms(o.warmup, o.reps, stream, run, /*profiled=*/true))
                                 : BinResult::failure(why);
      if (o.timeline && row.tilesort.ok())
        timelines.push_back(traced(row.label + ": bin_and_sort", row.tilesort.ms, run, stream));
    }

    if (sel.has(Method::bin)) {
      auto run = [&] { BENCH_TS_CHECK(tilesort::bin(ws.get(), ws_bytes, plan, args, stream)); };
      BENCH_CUDA_CHECK(cudaMemsetAsync(out_keys.get(), 0, out_keys.bytes(), stream));
      run();
      const tilesort::Status st = tilesort::read_bin_status(ws.get(), stream);
      std::string why = st.ok() ? "" : st.what();
      if (why.empty()) why = first_difference("bin offsets", fetch(out_offsets.as<std::uint32_t>(), tiles + 1), split.offsets);
      if (why.empty()) {
        // The stable split: record split.permutation[i] lands at i.
        std::vector<std::uint32_t> want_keys(n), want_values(n);
        for (std::uint32_t i = 0; i < n; ++i) {
          want_keys[i] = r.keys[split.permutation[i]];
          want_values[i] = r.values[split.permutation[i]];
        }
        why = first_difference("bin keys", fetch(out_keys.as<std::uint32_t>(), n), want_keys);
        if (why.empty()) why = first_difference("bin values", fetch(out_values.as<std::uint32_t>(), n), want_values);
      }
      row.bin = why.empty() ? BinResult::measured(median_ms(o.warmup, o.reps, stream, run)) : BinResult::failure(why);
      if (o.timeline && row.bin.ok()) timelines.push_back(traced(row.label + ": bin", row.bin.ms, run, stream));
    }

    if (sel.has(Method::gather64) && key_bits == 32) {
      const std::size_t words = std::size_t(n) * kRecordWords;
      DeviceBuffer big(words * 4 + 16), big_out(words * 4 + 16), permutation(std::size_t(n) * 4 + 4),
          first_bad(sizeof(unsigned long long));
      fill_record_ids<<<kStrideBlocks, kStrideThreads, 0, stream>>>(big.as<std::uint32_t>(), words);
      BENCH_CUDA_CHECK(cudaGetLastError());
      tilesort::BinIndexArgs ia;
      ia.tile_ids = d_tiles;
      ia.d_num_records = count.as<std::uint32_t>();
      ia.num_tiles = tiles;
      ia.out_permutation = permutation.as<std::uint32_t>();
      ia.out_offsets = out_offsets.as<std::uint32_t>();
      BENCH_TS_CHECK(tilesort::bin_index(ws.get(), ws_bytes, plan, ia, stream));
      tilesort::GatherArgs g;
      g.records = big.get();
      g.out_records = big_out.get();
      g.record_bytes = kRecordBytes;
      g.permutation = permutation.as<std::uint32_t>();
      g.d_num_records = count.as<std::uint32_t>();
      auto run = [&] { BENCH_TS_CHECK(tilesort::gather(ws.get(), ws_bytes, plan, g, stream)); };
      run();
      const tilesort::Status st = tilesort::read_bin_status(ws.get(), stream);
      std::string why = st.ok() ? "" : st.what();
      if (why.empty())
        why = first_difference("bin_index permutation", fetch(permutation.as<std::uint32_t>(), n), split.permutation);
      if (why.empty()) {
        BENCH_CUDA_CHECK(cudaMemsetAsync(first_bad.get(), 0xFF, first_bad.bytes(), stream));
        check_gathered<<<kStrideBlocks, kStrideThreads, 0, stream>>>(big_out.as<std::uint32_t>(),
                                                                     permutation.as<std::uint32_t>(), words,
                                                                     first_bad.as<unsigned long long>());
        BENCH_CUDA_CHECK(cudaGetLastError());
        const unsigned long long bad = fetch(first_bad.as<unsigned long long>(), 1)[0];
        if (bad != ~0ull) why = "gathered word " + std::to_string(bad) + " is not from its permuted record";
      }
      if (why.empty()) {
        row.gather_copy_ms = median_ms(o.warmup, o.reps, stream, [&] {
          BENCH_CUDA_CHECK(cudaMemcpyAsync(big_out.get(), big.get(), words * 4, cudaMemcpyDeviceToDevice, stream));
        });
        row.gather = BinResult::measured(median_ms(o.warmup, o.reps, stream, run));
      } else {
        row.gather = BinResult::failure(why);
      }
    }
  }

  // ---- 3DGS, 64-bit and packed 32-bit keys (baselines/gs3d_pipeline.hpp) ----
  const bool packed_fits = key_bits + std::max(tb::bits_for(tiles), 1) <= 32;
  if (sel.has(Method::gs3d_packed) && !packed_fits)
    row.gs3d_packed = BinResult::inapplicable("(tile << " + std::to_string(key_bits) + ") does not fit 32 bits");
  if (sel.has(Method::gs3d) || (sel.has(Method::gs3d_packed) && packed_fits)) {
    tb::Gs3dPipeline gs;
    BENCH_TS_CHECK(tb::Gs3dPipeline::create({std::max<std::uint32_t>(n, 1), tiles}, &gs));
    DeviceBuffer values_out(std::size_t(n) * 4 + 4), ranges(std::size_t(tiles) * sizeof(uint2)),
        depth_out(std::size_t(n) * 4 + 4);
    auto measure = [&](tb::Gs3dKeys key_word, const char* what) {
      tb::Gs3dArgs ga;
      ga.tile_ids = d_tiles;
      ga.keys = d_keys;
      ga.values = d_values;
      ga.num_records = n;
      ga.num_tiles = tiles;
      ga.depth_bits = key_bits;  // (tile << key_bits) | depth
      ga.key_word = key_word;
      ga.out_values = values_out.as<std::uint32_t>();
      ga.layout = tb::Gs3dRanges::ranges;
      ga.out_ranges = ranges.get();
      auto run = [&] { BENCH_TS_CHECK(gs.run(ga, stream)); };
      run();
      BENCH_TS_CHECK(gs.sorted_depth_keys(depth_out.as<std::uint32_t>(), n, stream));
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      const std::string keys_name = std::string(what) + " keys", values_name = std::string(what) + " values";
      std::string why = first_difference(keys_name.c_str(), fetch(depth_out.as<std::uint32_t>(), n), want.keys);
      if (why.empty()) why = first_difference(values_name.c_str(), fetch(values_out.as<std::uint32_t>(), n), want.values);
      if (why.empty()) {
        const std::vector<uint2> got = fetch(ranges.as<uint2>(), tiles);
        for (std::uint32_t t = 0; t < tiles && why.empty(); ++t) {
          const bool empty = want.offsets[t] == want.offsets[t + 1];
          const std::uint32_t wx = empty ? 0 : want.offsets[t], wy = empty ? 0 : want.offsets[t + 1];
          if (got[t].x != wx || got[t].y != wy) why = std::string(what) + " range of tile " + std::to_string(t) + " is wrong";
        }
      }
      return why.empty() ? BinResult::measured(median_ms(o.warmup, o.reps, stream, run)) : BinResult::failure(why);
    };
    if (sel.has(Method::gs3d)) row.gs3d = measure(tb::Gs3dKeys::u64, "3dgs");
    if (sel.has(Method::gs3d_packed) && packed_fits) row.gs3d_packed = measure(tb::Gs3dKeys::packed32, "3dgs-packed");
  }
  return row;
}

int run_binning(const SuiteOptions& o) {
  Selection sel;
  if (!parse_selection(o.args, &sel)) return kExitUsage;
  cudaStream_t stream;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<BinRow> rows;
  std::vector<CallTimeline> timelines;  // --timeline
  for (const std::string& name : sel.cases) {
    BinRecords r;
    try {
      r = make_binning_case(name);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "binning: %s\n", e.what());
      return kExitUsage;
    }
    std::fprintf(stderr, "binning: %s: %s\n", name.c_str(), r.note.c_str());
    const BinSplit split = split_by_tile(r);  // the same for every depth width
    for (int bits : sel.depth_bits) {
      rows.push_back(run_row(timelines, o, sel, r, split, bits, stream));
      const BinRow& w = rows.back();  // progress, in case a later case is cut short
      std::fprintf(stderr, "binning: %s: copy %.4f ms, tilesort %s, 3dgs %s, 3dgs-packed %s, bin %s, gather64 %s\n",
                   w.label.c_str(), w.copy_ms, binning_cell(w.tilesort, w.copy_ms).c_str(),
                   binning_cell(w.gs3d, w.copy_ms).c_str(), binning_cell(w.gs3d_packed, w.copy_ms).c_str(),
                   binning_cell(w.bin, w.copy_ms).c_str(), binning_cell(w.gather, w.gather_copy_ms).c_str());
    }
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  BinReportInfo info;
  info.commit = o.commit;
  info.date = o.date;
  info.device = o.device;
  info.command_line = o.command_line;
  info.reps = o.reps;
  info.warmup = o.warmup;
  info.cases = sel.cases;
  info.methods.push_back("copy");
  for (const MethodName& m : kMethods)
    if (sel.has(m.method)) info.methods.push_back(m.name);
  const std::string md = render_binning_markdown(info, rows);
  std::printf("%s", md.c_str());
  std::fflush(stdout);
  if (!o.out.empty() && !write_suite_reports(o.out, md, render_binning_json(info, rows))) return 1;
  if (o.timeline) {
    const std::string traced_md = render_timeline_markdown(
        timeline_header("tilesort-bench --suite binning --timeline: one traced call per case", o.commit, o.date,
                        o.device, o.command_line),
        timelines);
    if (o.out.empty()) std::printf("%s", traced_md.c_str());
    else if (!write_reports(o.out, {{"-timeline.md", traced_md}})) return 1;
  }
  return any_binning_failure(rows) ? 1 : 0;
}

TILESORT_BENCH_SUITE("binning",
                     "emitted records -> per-tile sorted ranges: bin_and_sort vs 3DGS (64-bit and packed "
                     "32-bit keys), bin, gather; issue 14's targets",
                     run_binning, kOptionsHelp);

}  // namespace
}  // namespace bench
