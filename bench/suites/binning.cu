// tilesort-bench --suite binning: emitted (tile, depth, id) records in random
// order -> per-tile depth-sorted ranges, end to end, in one run:
//
//   copy         cudaMemcpyAsync of the record bytes (tile id, key, value:
//                12 bytes a record), the floor every figure is divided by;
//   tilesort     tilesort::bin_and_sort;
//   3dgs         the 3D Gaussian Splatting pipeline: 64-bit (tile << 32 |
//                depth) keys, cub::DeviceRadixSort::SortPairs with end_bit
//                = 32 + bits of the tile count, then the tile-range kernel
//                (ranges memset first, as 3DGS does). The record count is
//                taken from the host: the device-to-host copy 3DGS needs is
//                NOT timed, which favours 3DGS;
//   bin          tilesort::bin alone (same copy floor);
//   gather64     tilesort::gather of 64-byte records through a bin_index
//                permutation (floor: a copy of the 64-byte records).
// Each case also runs with depths quantised to 16 bits: tilesort sorts bits
// [0, 16), 3DGS packs (tile << 16 | depth16) and sorts 16 + tile bits.
//
// Both pipelines are stable, so their outputs must equal the CPU reference
// exactly (keys, values and ranges); a case that fails is reported FAILED
// and not timed.
//
// Options: --cases a,b,...  (default: every case)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "stats.hpp"
#include "suites.hpp"
#include "timing.hpp"
#include "workloads.hpp"
#include "gs3d_pipeline.hpp"
#include "tilesort/binning.hpp"
#include "tilesort/emit.cuh"

namespace bench {
namespace {

struct Records {
  std::string name;
  std::string note;
  std::uint32_t num_tiles = 0;
  std::vector<std::uint32_t> tiles, keys, values;  // emission order (shuffled)
};

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Emission order is random: a renderer's atomics give no order.
void shuffle_records(Records& r, std::uint64_t seed) {
  for (std::size_t i = r.tiles.size(); i > 1; --i) {
    const std::size_t j = std::size_t(mix(seed + i) % i);
    std::swap(r.tiles[i - 1], r.tiles[j]);
    std::swap(r.keys[i - 1], r.keys[j]);
    std::swap(r.values[i - 1], r.values[j]);
  }
}

/// tiles16-*: the workloads of ANCHORS.md, one record per (particle, tile);
/// the depth is the particle's f32 key, the value its index.
Records records_from_workload(const std::string& name) {
  const Workload w = make_workload(name);
  Records r;
  r.name = name;
  r.note = w.note;
  r.num_tiles = w.segments();
  const std::uint32_t n = w.items();
  std::vector<float> depth(n);
  generate_keys(w, KeyKind::f32, depth.data());
  r.tiles.resize(n);
  r.keys.resize(n);
  r.values.resize(n);
  for (std::uint32_t s = 0; s < w.segments(); ++s)
    for (std::uint32_t i = w.offsets[s]; i < w.offsets[s + 1]; ++i) {
      r.tiles[i] = s;
      r.keys[i] = tilesort::depth_key(depth[i]);
      r.values[i] = w.key_ids[i];
    }
  shuffle_records(r, 0x62696e73ull);
  return r;
}

/// Other tile sizes: the same scene recipe as tiles16-* (ANCHORS.md: four
/// Gaussian clusters on 1920x1080, log-normal radii capped at 200 px, every
/// tile a particle's square footprint touches), with `tile_pixels` tiles.
Records records_for_tile_size(const std::string& name, int tile_pixels, std::uint32_t particles) {
  struct Cluster {
    double x, y, sigma;
  };
  const std::array<Cluster, 4> clusters = {{{960, 540, 300}, {500, 300, 120}, {1400, 700, 200}, {900, 900, 80}}};
  const double width = 1920, height = 1080;
  const std::uint32_t tiles_x = std::uint32_t((1920 + tile_pixels - 1) / tile_pixels);
  const std::uint32_t tiles_y = std::uint32_t((1080 + tile_pixels - 1) / tile_pixels);
  Records r;
  r.name = name;
  r.num_tiles = tiles_x * tiles_y;
  std::uint64_t state = 0x74696c6573ull ^ (std::uint64_t(tile_pixels) << 40) ^ particles;
  auto uniform = [&] { return (double((mix(state++) >> 11)) + 0.5) / 9007199254740992.0; };
  auto normal = [&] { return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); };
  for (std::uint32_t p = 0; p < particles; ++p) {
    const Cluster& c = clusters[mix(state++) % 4];
    const double x = c.x + c.sigma * normal(), y = c.y + c.sigma * normal();
    const double radius = std::min(std::exp(1.5 + 0.9 * normal()), 200.0);
    const float depth = float(1.0 + 99.0 * uniform());
    const double left = std::max(x - radius, 0.0), right = std::min(x + radius, width);
    const double top = std::max(y - radius, 0.0), bottom = std::min(y + radius, height);
    if (left >= width || right < 0 || top >= height || bottom < 0 || left > right || top > bottom) continue;
    auto tile = [&](double px, std::uint32_t count) {
      return std::min<std::uint32_t>(std::uint32_t(px / tile_pixels), count - 1);
    };
    for (std::uint32_t ty = tile(top, tiles_y); ty <= tile(bottom, tiles_y); ++ty)
      for (std::uint32_t tx = tile(left, tiles_x); tx <= tile(right, tiles_x); ++tx) {
        r.tiles.push_back(ty * tiles_x + tx);
        r.keys.push_back(tilesort::depth_key(depth));
        r.values.push_back(p);
      }
  }
  char note[160];
  std::snprintf(note, sizeof note, "%u particles, %zu records, %ux%u px tiles (%u tiles)", particles,
                r.tiles.size(), tile_pixels, tile_pixels, r.num_tiles);
  r.note = note;
  shuffle_records(r, 0x62696e73ull + std::uint64_t(tile_pixels));
  return r;
}

/// What every pipeline must produce: the stable (tile, key-field) order.
struct Expected {
  std::vector<std::uint32_t> keys, values, offsets;
};

Expected reference(const Records& r, int key_bits) {
  const std::size_t n = r.tiles.size();
  Expected e;
  e.offsets.assign(r.num_tiles + 1, 0);
  for (std::uint32_t t : r.tiles) ++e.offsets[t + 1];
  for (std::uint32_t t = 0; t < r.num_tiles; ++t) e.offsets[t + 1] += e.offsets[t];
  std::vector<std::uint32_t> perm(n), cursor(e.offsets.begin(), e.offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i) perm[cursor[r.tiles[i]]++] = std::uint32_t(i);
  const std::uint32_t mask = key_bits >= 32 ? 0xFFFFFFFFu : (1u << key_bits) - 1u;
  for (std::uint32_t t = 0; t < r.num_tiles; ++t)
    std::stable_sort(perm.begin() + e.offsets[t], perm.begin() + e.offsets[t + 1],
                     [&](std::uint32_t a, std::uint32_t b) { return (r.keys[a] & mask) < (r.keys[b] & mask); });
  e.keys.resize(n);
  e.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    e.keys[i] = r.keys[perm[i]];
    e.values[i] = r.values[perm[i]];
  }
  return e;
}

void check_ts(const tilesort::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "binning: %s: %s\n", what, s.what());
  std::exit(kExitCudaError);
}
#define BENCH_TS_CHECK(expr) check_ts((expr), #expr)

struct Timing {
  double ms = 0;
  bool ok = false;
  std::string why;
};

Timing time_it(const SuiteOptions& o, cudaStream_t stream, const std::function<void()>& run) {
  EventTimer timer;
  for (int i = 0; i < o.warmup; ++i) run();
  std::vector<float> samples;
  for (int i = 0; i < o.reps; ++i) {
    timer.start(stream);
    run();
    timer.stop(stream);
    samples.push_back(timer.elapsed_ms());
  }
  Timing t;
  t.ms = summarize(samples).median;
  t.ok = true;
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
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << what << "[" << i << "] = " << got[i] << ", expected " << want[i];
      return os.str();
    }
  return "";
}

struct Row {
  std::string name, note;
  std::size_t records = 0;
  std::uint32_t tiles = 0;
  int key_bits = 32;
  double copy_ms = 0, gather_copy_ms = 0;
  Timing tilesort, gs, bin, gather;
};

Row run_case(const SuiteOptions& o, const Records& base, int key_bits, cudaStream_t stream) {
  Records r = base;
  if (key_bits < 32)
    for (auto& k : r.keys) k = tilesort::quantize_key(k, key_bits);
  Row row;
  row.name = r.name + (key_bits < 32 ? " (depth16)" : "");
  row.note = r.note;
  row.records = r.tiles.size();
  row.tiles = r.num_tiles;
  row.key_bits = key_bits;
  const std::uint32_t n = std::uint32_t(r.tiles.size());
  const Expected want = reference(r, key_bits);

  // Inputs as one SoA allocation (tile ids | keys | values), so the copy
  // floor is one cudaMemcpyAsync of exactly the record bytes.
  DeviceBuffer records(std::size_t(n) * 12), copy_dst(std::size_t(n) * 12), count(4);
  auto* d_tiles = records.as<std::uint32_t>();
  auto* d_keys = d_tiles + n;
  auto* d_values = d_keys + n;
  BENCH_CUDA_CHECK(cudaMemcpy(d_tiles, r.tiles.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(d_keys, r.keys.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(d_values, r.values.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(count.get(), &n, 4, cudaMemcpyHostToDevice));
  DeviceBuffer out_keys(std::size_t(n) * 4 + 4), out_values(std::size_t(n) * 4 + 4),
      out_offsets((std::size_t(r.num_tiles) + 1) * 4);

  row.copy_ms = time_it(o, stream, [&] {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(copy_dst.get(), records.get(), std::size_t(n) * 12, cudaMemcpyDeviceToDevice, stream));
  }).ms;

  // ---- tilesort bin_and_sort ----
  tilesort::BinPlan plan;
  plan.max_records = std::max<std::uint32_t>(n, 1);
  plan.max_tiles = r.num_tiles;
  plan.value_type = tilesort::ValueType::b32;
  std::size_t ws_bytes = 0;
  tilesort::Status st = tilesort::bin_and_sort_workspace_size(plan, &ws_bytes);
  if (!st.ok()) {
    row.tilesort.why = st.what();
    return row;
  }
  DeviceBuffer ws(ws_bytes);
  tilesort::BinArgs args;
  args.tile_ids = d_tiles;
  args.keys = d_keys;
  args.values = d_values;
  args.d_num_records = count.as<std::uint32_t>();
  args.num_tiles = r.num_tiles;
  args.out_keys = out_keys.as<std::uint32_t>();
  args.out_values = out_values.get();
  args.out_offsets = out_offsets.as<std::uint32_t>();
  args.end_bit = key_bits;
  auto run_tilesort = [&] {
    const tilesort::Status s = tilesort::bin_and_sort(ws.get(), ws_bytes, plan, args, stream);
    if (!s.ok()) {
      std::fprintf(stderr, "binning: bin_and_sort: %s\n", s.what());
      std::exit(kExitCudaError);
    }
  };
  run_tilesort();
  st = tilesort::read_bin_and_sort_status(ws.get(), plan, stream);
  std::string why = st.ok() ? "" : st.what();
  if (why.empty()) why = first_difference("offsets", fetch(out_offsets.as<std::uint32_t>(), r.num_tiles + 1), want.offsets);
  if (why.empty()) why = first_difference("keys", fetch(out_keys.as<std::uint32_t>(), n), want.keys);
  if (why.empty()) why = first_difference("values", fetch(out_values.as<std::uint32_t>(), n), want.values);
  if (why.empty()) row.tilesort = time_it(o, stream, run_tilesort);
  else row.tilesort.why = why;

  // ---- bin alone ----
  {
    auto run_bin = [&] {
      const tilesort::Status s = tilesort::bin(ws.get(), ws_bytes, plan, args, stream);
      if (!s.ok()) std::exit(kExitCudaError);
    };
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_keys.get(), 0, out_keys.bytes(), stream));
    run_bin();
    st = tilesort::read_bin_status(ws.get(), stream);
    // Reference for bin alone: the stable split without sorting.
    Expected split = reference(Records{r.name, "", r.num_tiles, r.tiles, std::vector<std::uint32_t>(n, 0u), r.values}, 32);
    std::string bwhy = st.ok() ? "" : st.what();
    if (bwhy.empty()) {
      // The keys under the split permutation: values are particle ids, not
      // unique, so compare keys through an index run instead.
      std::vector<std::uint32_t> got_keys = fetch(out_keys.as<std::uint32_t>(), n);
      std::vector<std::uint32_t> offsets(r.num_tiles + 1, 0), perm(n);
      for (std::uint32_t t : r.tiles) ++offsets[t + 1];
      for (std::uint32_t t = 0; t < r.num_tiles; ++t) offsets[t + 1] += offsets[t];
      for (std::uint32_t i = 0; i < n; ++i) perm[offsets[r.tiles[i]]++] = i;
      std::vector<std::uint32_t> want_keys(n);
      for (std::uint32_t i = 0; i < n; ++i) want_keys[i] = r.keys[perm[i]];
      bwhy = first_difference("bin keys", got_keys, want_keys);
      if (bwhy.empty()) bwhy = first_difference("bin values", fetch(out_values.as<std::uint32_t>(), n), split.values);
    }
    if (bwhy.empty()) row.bin = time_it(o, stream, run_bin);
    else row.bin.why = bwhy;
  }

  // ---- gather of 64-byte records through bin_index's permutation ----
  if (key_bits == 32) {
    constexpr std::size_t kRecordBytes = 64;
    DeviceBuffer big(std::size_t(n) * kRecordBytes + 16), big_out(std::size_t(n) * kRecordBytes + 16),
        permutation(std::size_t(n) * 4 + 4);
    // Record i holds i in every word, so the output proves the gather.
    std::vector<std::uint32_t> host_big(std::size_t(n) * 16);
    for (std::uint32_t i = 0; i < n; ++i) std::fill_n(host_big.begin() + std::size_t(i) * 16, 16, i);
    BENCH_CUDA_CHECK(cudaMemcpy(big.get(), host_big.data(), host_big.size() * 4, cudaMemcpyHostToDevice));
    tilesort::BinIndexArgs ia;
    ia.tile_ids = d_tiles;
    ia.d_num_records = count.as<std::uint32_t>();
    ia.num_tiles = r.num_tiles;
    ia.out_permutation = permutation.as<std::uint32_t>();
    ia.out_offsets = out_offsets.as<std::uint32_t>();
    st = tilesort::bin_index(ws.get(), ws_bytes, plan, ia, stream);
    tilesort::GatherArgs g;
    g.records = big.get();
    g.out_records = big_out.get();
    g.record_bytes = kRecordBytes;
    g.permutation = permutation.as<std::uint32_t>();
    g.d_num_records = count.as<std::uint32_t>();
    auto run_gather = [&] {
      if (!tilesort::gather(ws.get(), ws_bytes, plan, g, stream).ok()) std::exit(kExitCudaError);
    };
    if (st.ok()) run_gather();
    if (st.ok()) st = tilesort::read_bin_status(ws.get(), stream);
    std::string gwhy = st.ok() ? "" : st.what();
    if (gwhy.empty()) {
      const std::vector<std::uint32_t> perm = fetch(permutation.as<std::uint32_t>(), n);
      const std::vector<std::uint32_t> got = fetch(big_out.as<std::uint32_t>(), std::size_t(n) * 16);
      for (std::size_t w = 0; w < got.size() && gwhy.empty(); ++w)
        if (got[w] != perm[w / 16]) gwhy = "gathered word " + std::to_string(w) + " is wrong";
    }
    if (gwhy.empty()) {
      row.gather_copy_ms = time_it(o, stream, [&] {
        BENCH_CUDA_CHECK(cudaMemcpyAsync(big_out.get(), big.get(), std::size_t(n) * kRecordBytes,
                                         cudaMemcpyDeviceToDevice, stream));
      }).ms;
      row.gather = time_it(o, stream, run_gather);
    } else {
      row.gather.why = gwhy;
    }
  }

  // ---- 3DGS (baselines/gs3d_pipeline.hpp) ----
  {
    namespace tb = tilesort::baselines;
    tb::Gs3dPipeline gs;
    BENCH_TS_CHECK(tb::Gs3dPipeline::create({std::max<std::uint32_t>(n, 1), r.num_tiles}, &gs));
    DeviceBuffer values_out(std::size_t(n) * 4 + 4), ranges(std::size_t(r.num_tiles) * sizeof(uint2));
    tb::Gs3dArgs ga;
    ga.tile_ids = d_tiles;
    ga.keys = d_keys;
    ga.values = d_values;
    ga.num_records = n;
    ga.num_tiles = r.num_tiles;
    ga.depth_bits = key_bits;  // 32: (tile << 32) | depth; 16: (tile << 16) | depth16
    ga.out_values = values_out.as<std::uint32_t>();
    ga.layout = tb::Gs3dRanges::ranges;
    ga.out_ranges = ranges.get();
    auto run_3dgs = [&] { BENCH_TS_CHECK(gs.run(ga, stream)); };
    run_3dgs();
    DeviceBuffer low(std::size_t(n) * 4 + 4);
    BENCH_TS_CHECK(gs.sorted_depth_keys(low.as<std::uint32_t>(), n, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::uint32_t> low_keys = fetch(low.as<std::uint32_t>(), n);
    std::string gwhy = first_difference("3dgs keys", low_keys, want.keys);
    if (gwhy.empty()) gwhy = first_difference("3dgs values", fetch(values_out.as<std::uint32_t>(), n), want.values);
    if (gwhy.empty()) {
      const std::vector<uint2> got = fetch(ranges.as<uint2>(), r.num_tiles);
      for (std::uint32_t t = 0; t < r.num_tiles && gwhy.empty(); ++t) {
        const bool empty = want.offsets[t] == want.offsets[t + 1];
        const std::uint32_t wx = empty ? 0 : want.offsets[t], wy = empty ? 0 : want.offsets[t + 1];
        if (got[t].x != wx || got[t].y != wy) gwhy = "3dgs range of tile " + std::to_string(t) + " is wrong";
      }
    }
    if (gwhy.empty()) row.gs = time_it(o, stream, run_3dgs);
    else row.gs.why = gwhy;
  }
  return row;
}

std::string cell(const Timing& t, double floor_ms) {
  char buf[96];
  if (!t.ok) return t.why.empty() ? "—" : "FAILED";
  std::snprintf(buf, sizeof buf, "%.3f (%.2fx)", t.ms, t.ms / floor_ms);
  return buf;
}

int run_binning(const SuiteOptions& o) {
  std::vector<std::string> cases = {"tiles16-1M", "tiles16-4M", "tiles8-4M", "tiles32-4M"};
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--cases" && i + 1 < o.args.size()) {
      cases.clear();
      std::stringstream ss(o.args[++i]);
      for (std::string c; std::getline(ss, c, ',');) cases.push_back(c);
    } else {
      std::fprintf(stderr, "binning: unknown option %s (takes --cases a,b,...)\n", o.args[i].c_str());
      return 64;
    }
  }
  cudaStream_t stream;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<Row> rows;
  for (const std::string& name : cases) {
    Records r;
    if (name == "tiles16-1M" || name == "tiles16-4M") r = records_from_workload(name);
    else if (name == "tiles8-4M") r = records_for_tile_size(name, 8, 4000000);
    else if (name == "tiles32-4M") r = records_for_tile_size(name, 32, 4000000);
    else if (name == "tiles8-1M") r = records_for_tile_size(name, 8, 1000000);
    else {
      std::fprintf(stderr, "binning: unknown case %s\n", name.c_str());
      return 64;
    }
    std::fprintf(stderr, "binning: %s: %s\n", name.c_str(), r.note.c_str());
    for (int bits : {32, 16}) {
      rows.push_back(run_case(o, r, bits, stream));
      const Row& w = rows.back();  // progress, in case a later case is cut short
      std::fprintf(stderr, "binning: %s: copy %.4f ms, tilesort %s, 3dgs %s, bin %s, gather64 %s\n", w.name.c_str(),
                   w.copy_ms, cell(w.tilesort, w.copy_ms).c_str(), cell(w.gs, w.copy_ms).c_str(),
                   cell(w.bin, w.copy_ms).c_str(), cell(w.gather, w.gather_copy_ms).c_str());
    }
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  std::ostringstream md, js;
  md << "# tilesort-bench --suite binning\n\n"
     << "- commit: " << o.commit << "\n- date: " << o.date << "\n- device: " << o.device << "\n- command: "
     << o.command_line << "\n- method: median of " << o.reps << " CUDA-event timings after " << o.warmup
     << " warm-ups; x copy = time / cudaMemcpyAsync D2D of the record bytes (12 B: tile id, key, value), same run;"
        " gather64 is x a copy of the 64-byte records. 3DGS's device-to-host count copy is not timed.\n\n"
     << "| case | records | tiles | key bits | copy ms | tilesort bin_and_sort ms (x copy) | 3DGS ms (x copy) | "
        "speedup vs 3DGS | bin alone ms (x copy) | gather64 ms (x copy) |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  js << "{\n  \"suite\": \"binning\",\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date
     << "\",\n  \"device\": \"" << o.device << "\",\n  \"reps\": " << o.reps << ",\n  \"warmup\": " << o.warmup
     << ",\n  \"rows\": [\n";
  bool failed = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    char speed[32] = "—";
    if (r.tilesort.ok && r.gs.ok) std::snprintf(speed, sizeof speed, "%.2fx", r.gs.ms / r.tilesort.ms);
    md << "| " << r.name << " | " << r.records << " | " << r.tiles << " | " << r.key_bits << " | " << r.copy_ms
       << " | " << cell(r.tilesort, r.copy_ms) << " | " << cell(r.gs, r.copy_ms) << " | " << speed << " | "
       << cell(r.bin, r.copy_ms) << " | " << (r.key_bits == 32 ? cell(r.gather, r.gather_copy_ms) : "—") << " |\n";
    for (const Timing* t : {&r.tilesort, &r.gs, &r.bin, &r.gather})
      if (!t->ok && !t->why.empty()) {
        md << "\n  - " << r.name << " FAILED verification: " << t->why << "\n";
        failed = true;
      }
    js << "    {\"case\": \"" << r.name << "\", \"records\": " << r.records << ", \"tiles\": " << r.tiles
       << ", \"key_bits\": " << r.key_bits << ", \"copy_ms\": " << r.copy_ms
       << ", \"tilesort_ms\": " << (r.tilesort.ok ? r.tilesort.ms : -1) << ", \"gs3d_ms\": " << (r.gs.ok ? r.gs.ms : -1)
       << ", \"bin_ms\": " << (r.bin.ok ? r.bin.ms : -1) << ", \"gather64_ms\": " << (r.gather.ok ? r.gather.ms : -1)
       << ", \"gather64_copy_ms\": " << r.gather_copy_ms << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  md << "\nCases: ";
  for (const std::string& c : cases) md << c << " ";
  md << "\n";
  std::printf("%s", md.str().c_str());
  if (!o.out.empty() && !write_suite_reports(o.out, md.str(), js.str())) return 1;
  return failed ? 1 : 0;
}

TILESORT_BENCH_SUITE("binning", "emitted records -> per-tile sorted ranges: tilesort bin_and_sort vs the 3DGS pipeline",
                     run_binning);

}  // namespace
}  // namespace bench
