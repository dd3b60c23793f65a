// tilesort-bench's host-side core (bench/): the --segments parser and
// generators, the sweep's sizes, the host reference and sample, the
// targets and the SVG plot. CPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "plot.hpp"
#include "report.hpp"
#include "sweep_report.hpp"
#include "targets.hpp"
#include "verify.hpp"
#include "workloads.hpp"

namespace bench {
namespace {

void expect_valid_offsets(const Workload& w, std::uint32_t items) {
  ASSERT_FALSE(w.offsets.empty());
  EXPECT_EQ(w.offsets.front(), 0u);
  EXPECT_EQ(w.items(), items);
  for (std::size_t s = 0; s + 1 < w.offsets.size(); ++s) ASSERT_LE(w.offsets[s], w.offsets[s + 1]) << s;
}

std::vector<std::uint32_t> lengths(const Workload& w) {
  std::vector<std::uint32_t> out;
  for (std::size_t s = 0; s + 1 < w.offsets.size(); ++s) out.push_back(w.offsets[s + 1] - w.offsets[s]);
  return out;
}

TEST(BenchSegmentSpec, ParsesEveryForm) {
  SegmentSpec f = parse_segment_spec("fixed:300");
  EXPECT_EQ(f.kind, SegmentSpec::Kind::fixed);
  EXPECT_EQ(f.p1, 300.0);
  EXPECT_EQ(f.text, "fixed:300");
  SegmentSpec u = parse_segment_spec("uniform:0:4096");
  EXPECT_EQ(u.kind, SegmentSpec::Kind::uniform);
  EXPECT_EQ(u.p1, 0.0);
  EXPECT_EQ(u.p2, 4096.0);
  SegmentSpec l = parse_segment_spec("loguniform:1:65536");
  EXPECT_EQ(l.kind, SegmentSpec::Kind::loguniform);
  SegmentSpec p = parse_segment_spec("pareto:1.1:131072");
  EXPECT_EQ(p.kind, SegmentSpec::Kind::pareto);
  EXPECT_DOUBLE_EQ(p.p1, 1.1);
  EXPECT_EQ(p.p2, 131072.0);
  SegmentSpec n = parse_segment_spec("lognormal:5:1.5");
  EXPECT_EQ(n.kind, SegmentSpec::Kind::lognormal);
  EXPECT_EQ(n.max, 0u);
  EXPECT_EQ(parse_segment_spec("lognormal:5:1.5:10000").max, 10000u);
}

TEST(BenchSegmentSpec, RejectsBadSpecsWithAReason) {
  for (const char* bad : {"", "fixed", "fixed:", "fixed:0", "fixed:-3", "fixed:1.5", "fixed:12x", "fixed:1:2",
                          "uniform:5", "uniform:9:3", "uniform:0:0", "loguniform:0:10", "pareto:0:100",
                          "pareto:-1:100", "pareto:x:100", "pareto:1.1:0", "lognormal:1", "lognormal:1:-2",
                          "lognormal:1:1:0", "lognormal:900:1", "gauss:1:2", "fixed:99999999999"}) {
    try {
      parse_segment_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::strstr(e.what(), "--segments"), nullptr) << e.what();
    }
  }
}

TEST(BenchSegmentSpec, FixedKeepsWholeSegments) {
  const Workload w = make_spec_workload(parse_segment_spec("fixed:300"), 1000000, 1);
  expect_valid_offsets(w, 300u * (1000000 / 300));
  for (std::uint32_t len : lengths(w)) ASSERT_EQ(len, 300u);
  EXPECT_EQ(w.name, "fixed:300");
  EXPECT_THROW(make_spec_workload(parse_segment_spec("fixed:2000"), 1000, 1), std::invalid_argument);
}

TEST(BenchSegmentSpec, RandomLengthsStayInRangeAndFillTheItems) {
  constexpr std::uint32_t kItems = 1u << 20;
  struct Case {
    const char* spec;
    std::uint32_t lo, hi;
  };
  for (const Case& c : {Case{"uniform:0:4096", 0, 4096}, Case{"uniform:7:7", 7, 7}, Case{"loguniform:4:5000", 4, 5000},
                        Case{"pareto:1.1:131072", 1, 131072}, Case{"lognormal:6:1:3000", 1, 3000}}) {
    SCOPED_TRACE(c.spec);
    const Workload w = make_spec_workload(parse_segment_spec(c.spec), kItems, 42);
    expect_valid_offsets(w, kItems);
    const std::vector<std::uint32_t> len = lengths(w);
    for (std::size_t s = 0; s + 1 < len.size(); ++s) {  // the last one is trimmed to fit
      ASSERT_GE(len[s], c.lo) << s;
      ASSERT_LE(len[s], c.hi) << s;
    }
    EXPECT_NE(w.note.find("seed 42"), std::string::npos) << w.note;
  }
}

TEST(BenchSegmentSpec, DistributionsHaveTheirShape) {
  constexpr std::uint32_t kItems = 1u << 22;
  // uniform:0:4096 has mean 2048.
  const auto u = lengths(make_spec_workload(parse_segment_spec("uniform:0:4096"), kItems, 3));
  EXPECT_NEAR(double(kItems) / u.size(), 2048.0, 60.0);
  const auto z = lengths(make_spec_workload(parse_segment_spec("uniform:0:2"), 30000, 3));
  EXPECT_NEAR(double(std::count(z.begin(), z.end(), 0u)) / z.size(), 1.0 / 3, 0.03);  // LO = 0: empty segments
  // pareto:1.1: P(L >= 10) is about 10^-1.1 = 0.079.
  const auto p = lengths(make_spec_workload(parse_segment_spec("pareto:1.1:131072"), kItems, 3));
  const double tail = double(std::count_if(p.begin(), p.end(), [](std::uint32_t l) { return l >= 10; })) / p.size();
  EXPECT_NEAR(tail, std::pow(10.0, -1.1), 0.01);
  // lognormal:MU:0 is always round(e^MU).
  const auto n = lengths(make_spec_workload(parse_segment_spec("lognormal:3:0"), 100000, 3));
  for (std::size_t s = 0; s + 1 < n.size(); ++s) ASSERT_EQ(n[s], 20u);
}

TEST(BenchSegmentSpec, SeedDecidesLengthsAndKeys) {
  const SegmentSpec spec = parse_segment_spec("uniform:1:1000");
  const Workload a = make_spec_workload(spec, 100000, 7), b = make_spec_workload(spec, 100000, 7),
                 c = make_spec_workload(spec, 100000, 8);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_NE(a.offsets, c.offsets);
  std::vector<std::uint32_t> ka(a.items()), kb(b.items()), kc(c.items());
  generate_keys(a, KeyKind::u32, ka.data());
  generate_keys(b, KeyKind::u32, kb.data());
  generate_keys(c, KeyKind::u32, kc.data());
  EXPECT_EQ(ka, kb);
  EXPECT_NE(std::vector<std::uint32_t>(ka.begin(), ka.begin() + 1000),
            std::vector<std::uint32_t>(kc.begin(), kc.begin() + 1000));
}

TEST(BenchWorkloads, BuiltInShapesAreUnchanged) {
  // ANCHORS.md's powerlaw has 2,896 segments; fixed-S are exact.
  const Workload p = make_workload("powerlaw");
  EXPECT_EQ(p.segments(), 2896u);
  EXPECT_EQ(p.items(), 1u << 24);
  const Workload f = make_workload("fixed-1024");
  EXPECT_EQ(f.segments(), 16384u);
  EXPECT_EQ(f.name, make_fixed_workload(1024, 1u << 24).name);
  EXPECT_EQ(f.offsets, make_fixed_workload(1024, 1u << 24).offsets);
}

TEST(BenchWorkloads, SixteenBitKeysAreTheLowBitsOfTheFullKeys) {
  const Workload w = make_fixed_workload(64, 4096);
  std::vector<std::uint32_t> full(w.items()), low(w.items());
  generate_keys(w, KeyKind::u32, full.data());
  generate_keys(w, KeyKind::u32, low.data(), 16);
  bool any_high = false;
  for (std::size_t i = 0; i < full.size(); ++i) {
    ASSERT_EQ(low[i], full[i] & 0xFFFFu);
    any_high |= full[i] > 0xFFFFu;
  }
  EXPECT_TRUE(any_high);
  std::vector<float> f(w.items());
  EXPECT_THROW(generate_keys(w, KeyKind::f32, f.data(), 16), std::invalid_argument);
}

TEST(BenchWorkloads, ZeroKeysReplaceTheirShareAndLeaveTheRest) {
  Workload w = make_fixed_workload(1000, 200000);
  std::vector<std::uint32_t> random(w.items()), mixed(w.items());
  std::vector<std::uint64_t> wide(w.items());
  std::vector<float> depth(w.items());
  generate_keys(w, KeyKind::u32, random.data());
  w.zero_key_percent = 30;
  generate_keys(w, KeyKind::u32, mixed.data());
  generate_keys(w, KeyKind::u64, wide.data());
  generate_keys(w, KeyKind::f32, depth.data());
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < mixed.size(); ++i) {
    if (mixed[i] == 0) {
      ++zeros;
      ASSERT_EQ(wide[i], 0u) << i;  // the same items in every key type
      ASSERT_EQ(depth[i], 0.0f) << i;
    } else {
      ASSERT_EQ(mixed[i], random[i]) << i;  // the others keep their keys
    }
  }
  EXPECT_NEAR(double(zeros) / mixed.size(), 0.30, 0.01);
}

// The optional f64 variants: depth-like doubles in [-1024, 1024), both signs,
// no NaN, infinity or -0.0 (so every correct sort has one bit pattern), and
// zero keys on the same items as the other key types.
TEST(BenchWorkloads, DoubleKeysAreDepthLikeAndShareZeroItems) {
  Workload w = make_fixed_workload(1000, 200000);
  std::vector<double> keys(w.items());
  generate_keys(w, KeyKind::f64, keys.data());
  std::size_t negative = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(std::isfinite(keys[i])) << i;
    ASSERT_GE(keys[i], -1024.0) << i;
    ASSERT_LT(keys[i], 1024.0) << i;
    ASSERT_FALSE(keys[i] == 0.0 && std::signbit(keys[i])) << i;
    negative += keys[i] < 0.0;
  }
  EXPECT_NEAR(double(negative) / keys.size(), 0.5, 0.01);
  std::vector<double> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(std::unique(sorted.begin(), sorted.end()) - sorted.begin(), std::ptrdiff_t(keys.size() * 99 / 100));

  w.zero_key_percent = 30;
  std::vector<double> mixed(w.items());
  std::vector<float> depth(w.items());
  generate_keys(w, KeyKind::f64, mixed.data());
  generate_keys(w, KeyKind::f32, depth.data());
  for (std::size_t i = 0; i < mixed.size(); ++i) {
    ASSERT_EQ(mixed[i] == 0.0, depth[i] == 0.0f) << i;
    if (mixed[i] != 0.0) {
      ASSERT_EQ(mixed[i], keys[i]) << i;
    }
  }
  EXPECT_EQ(key_bytes(KeyKind::f64), 8u);
  EXPECT_STREQ(key_name(KeyKind::f64), "f64");
}

// The host reference and verify_sorted for double keys: a stable sort passes,
// a pair out of order or a value moved without its key does not.
TEST(BenchVerify, DoubleKeysReferenceAndVerify) {
  const Workload w = make_fixed_workload(1000, 20000);
  HostProblem p;
  p.key = KeyKind::f64;
  p.offsets = &w.offsets;
  p.keys.resize(std::size_t{w.items()} * sizeof(double));
  generate_keys(w, KeyKind::f64, p.keys.data());
  p.values.resize(w.items());
  std::iota(p.values.begin(), p.values.end(), 0u);
  p.checked = {{0u, 20u}};
  compute_reference(p);
  std::vector<double> keys(w.items()), ref(w.items());
  std::memcpy(keys.data(), p.keys.data(), p.keys.size());
  std::memcpy(ref.data(), p.sorted_keys.data(), p.sorted_keys.size());
  std::vector<std::uint32_t> order(w.items());
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t s = 0; s + 1 < w.offsets.size(); ++s)
    std::stable_sort(order.begin() + w.offsets[s], order.begin() + w.offsets[s + 1],
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  std::vector<double> out_keys(w.items());
  std::vector<std::uint32_t> out_values(w.items());
  for (std::size_t i = 0; i < order.size(); ++i) out_keys[i] = keys[order[i]], out_values[i] = order[i];
  for (std::size_t i = 0; i < out_keys.size(); ++i) ASSERT_EQ(out_keys[i], ref[i]) << i;
  EXPECT_EQ(verify_sorted(p, out_keys.data(), out_values.data(), true), "");
  std::vector<double> swapped = out_keys;
  std::swap(swapped[5], swapped[6]);
  EXPECT_NE(verify_sorted(p, swapped.data(), out_values.data(), true), "");
  std::vector<std::uint32_t> moved = out_values;
  std::swap(moved[7], moved[8]);
  EXPECT_NE(verify_sorted(p, out_keys.data(), moved.data(), true), "");
}

TEST(BenchSweep, SizesAreFourPerOctave) {
  const std::vector<std::uint32_t> sizes = sweep_segment_sizes(1u << 24);
  const std::vector<std::uint32_t> head = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64};
  ASSERT_GE(sizes.size(), head.size());
  EXPECT_EQ(std::vector<std::uint32_t>(sizes.begin(), sizes.begin() + head.size()), head);
  EXPECT_EQ(sizes.size(), 92u);  // 1, 2, 3, then 4 per octave from 4 to 2^24 (22 octaves), then 2^24
  EXPECT_EQ(sizes.back(), 1u << 24);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end());
  for (int k = 2; k < 24; ++k)
    for (std::uint32_t s : {4u << k, 5u << k, 6u << k, 7u << k})
      EXPECT_TRUE(std::binary_search(sizes.begin(), sizes.end(), s >> 2)) << (s >> 2);
  EXPECT_EQ(sweep_segment_sizes(1), std::vector<std::uint32_t>{1});
  EXPECT_EQ(sweep_segment_sizes(10), (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 10}));
}

TEST(BenchSweep, NextPowerOfTwo) {
  EXPECT_EQ(next_power_of_two(1), 1u);
  EXPECT_EQ(next_power_of_two(3), 4u);
  EXPECT_EQ(next_power_of_two(4), 4u);
  EXPECT_EQ(next_power_of_two(5u << 20), 8u << 20);
  EXPECT_EQ(next_power_of_two(1u << 31), 1u << 31);
}

TEST(BenchVerify, SampleIsWholeSegmentsFromStartMiddleAndEnd) {
  const Workload w = make_fixed_workload(100, 1000000);  // 10,000 segments
  const auto runs = sample_segments(w.offsets, 30000);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].second, 100u);
  EXPECT_EQ(runs[1].first, 5000u);
  EXPECT_EQ(runs[2].second, 10000u);
  for (const auto& [a, b] : runs) EXPECT_LE(w.offsets[b] - w.offsets[a], 10000u);
  // Everything when it fits; one segment per run when a segment is larger.
  EXPECT_EQ(sample_segments(w.offsets, 1u << 20).size(), 1u);
  const Workload big = make_fixed_workload(1u << 18, 1u << 20);
  const auto few = sample_segments(big.offsets, 1000);
  ASSERT_EQ(few.size(), 3u);
  for (const auto& [a, b] : few) EXPECT_EQ(b - a, 1u);
}

TEST(BenchVerify, LongSegmentReferenceMatchesStdSort) {
  // One segment above the parallel-sort threshold, and a sample.
  const Workload w = make_fixed_workload(1u << 19, 1u << 20);
  HostProblem p;
  p.key = KeyKind::u32;
  p.offsets = &w.offsets;
  p.keys.resize(std::size_t{w.items()} * 4);
  generate_keys(w, KeyKind::u32, p.keys.data());
  p.values.resize(w.items());
  std::iota(p.values.begin(), p.values.end(), 0u);
  p.checked = {{1u, 2u}};
  compute_reference(p);
  std::vector<std::uint32_t> keys(w.items()), ref(w.items());
  std::memcpy(keys.data(), p.keys.data(), p.keys.size());
  std::memcpy(ref.data(), p.sorted_keys.data(), p.sorted_keys.size());
  std::vector<std::uint32_t> expect(keys.begin() + (1 << 19), keys.end());
  std::sort(expect.begin(), expect.end());
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), ref.begin() + (1 << 19)));
  EXPECT_TRUE(std::equal(keys.begin(), keys.begin() + (1 << 19), ref.begin()));  // unchecked: untouched

  // verify_sorted looks at the checked segment only: a stable sort of it passes.
  std::vector<std::uint32_t> order(w.items());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin() + (1 << 19), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  std::vector<std::uint32_t> out_keys(w.items()), out_values(w.items());
  for (std::size_t i = 0; i < order.size(); ++i) out_keys[i] = keys[order[i]], out_values[i] = order[i];
  EXPECT_EQ(verify_sorted(p, out_keys.data(), out_values.data(), true), "");
  std::swap(out_values[(1 << 19) + 5], out_values[(1 << 19) + 6]);
  EXPECT_NE(verify_sorted(p, out_keys.data(), out_values.data(), true), "");
  EXPECT_EQ(verify_copy(p, keys.data(), p.values.data()), "");
}

Row make_test_row(const std::string& workload, const std::string& variant, const std::string& method, double ms,
                  std::uint64_t items = 1u << 24) {
  Row r;
  r.workload = workload;
  r.variant = variant;
  r.method = method;
  r.is_copy = method == "copy";
  r.is_cub = method.rfind("cub-", 0) == 0;
  r.items = items;
  r.segments = 1;
  r.status = RowStatus::ok;
  r.verified = true;
  r.ms = Stats{ms, ms, ms, {}};
  return r;
}

/// Rows of a made-up sweep: x copy of tilesort = 2 + log2(S) / 4, with a
/// cliff at S = 3 * 2^10.
std::vector<Row> synthetic_sweep(const SweepLayout& layout) {
  std::vector<Row> rows;
  for (const std::string& v : layout.variants) {
    for (std::uint32_t s : layout.sizes) {
      const std::string w = "fixed-" + std::to_string(s);
      const double x = 2.0 + std::log2(double(s)) / 4 + (s == 3072 ? 2.0 : 0.0);
      rows.push_back(make_test_row(w, v, "copy", 0.067));
      rows.push_back(make_test_row(w, v, "tilesort", 0.067 * x));
      rows.push_back(make_test_row(w, v, "cub-segmented-sort", 0.067 * (3 + std::abs(std::log2(double(s)) - 12) * 6)));
      rows.push_back(make_test_row(w, v, "cub-radix-sort-composite", 0.067 * 19));
      if (s >= 256 && s <= (1u << 18))
        rows.push_back(make_test_row(w, v, "cub-segmented-radix-sort", 0.067 * (14 + 4000.0 / s)));
      if (s == (1u << 24)) rows.push_back(make_test_row(w, v, "cub-radix-sort", 0.067 * 9));
    }
    const std::string single = single_segment_workload_name(layout.single_items);
    rows.push_back(make_test_row(single, v, "copy", 0.26, layout.single_items));
    rows.push_back(make_test_row(single, v, "tilesort", 1.1, layout.single_items));
    rows.push_back(make_test_row(single, v, "cub-radix-sort", 2.0, layout.single_items));
  }
  compute_derived(rows);
  return rows;
}

const TargetLine* find_target(const std::vector<TargetLine>& lines, const std::string& start) {
  for (const TargetLine& l : lines)
    if (l.target.rfind(start, 0) == 0) return &l;
  return nullptr;
}

TEST(BenchTargets, EvaluatesXCopyCliffSingleAndCub) {
  SweepLayout layout;
  layout.variants = {"u32-u32"};
  layout.sizes = sweep_segment_sizes(1u << 24);
  layout.items = 1u << 24;
  layout.single_items = 1u << 26;
  const std::vector<TargetLine> lines = evaluate_targets(synthetic_sweep(layout));

  const TargetLine* f16 = find_target(lines, "fixed-16 u32-u32");  // x copy 3.0 > 1.5
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ(f16->verdict, Verdict::fail);
  const TargetLine* big = find_target(lines, "fixed-1048576 u32-u32");  // 7.0 > 5
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->verdict, Verdict::fail);
  const TargetLine* cliff = find_target(lines, "no cliff (u32-u32)");
  ASSERT_NE(cliff, nullptr);
  EXPECT_EQ(cliff->verdict, Verdict::fail);
  EXPECT_NE(cliff->measured.find("3,072"), std::string::npos) << cliff->measured;
  const TargetLine* single_x = find_target(lines, "one segment of 2^26 (u32-u32): tilesort <= 5.00x copy");
  ASSERT_NE(single_x, nullptr);
  EXPECT_EQ(single_x->verdict, Verdict::pass);  // 1.1 / 0.26 = 4.2
  const TargetLine* single_cub = find_target(lines, "one segment of 2^26 (u32-u32): tilesort >= 1.50x");
  ASSERT_NE(single_cub, nullptr);
  EXPECT_EQ(single_cub->verdict, Verdict::pass);  // 2.0 / 1.1 = 1.8
  const TargetLine* cub = find_target(lines, "never slower than the best CUB method (u32-u32");
  ASSERT_NE(cub, nullptr);
  EXPECT_EQ(cub->verdict, Verdict::fail);  // segmented sort wins near S = 4096
  EXPECT_EQ(find_target(lines, "tiles16-4M"), nullptr);  // not in the rows

  // A 16-bit pair: 0.6 of the full time passes.
  std::vector<Row> rows = {make_test_row("fixed-4096", "u32-u32", "copy", 0.067),
                           make_test_row("fixed-4096", "u32-u32", "tilesort", 0.2),
                           make_test_row("fixed-4096", "u32-u32-16bit", "copy", 0.067),
                           make_test_row("fixed-4096", "u32-u32-16bit", "tilesort", 0.12)};
  compute_derived(rows);
  const auto bits = evaluate_targets(rows);
  const TargetLine* sixteen = find_target(bits, "fixed-4096: 16-bit range");
  ASSERT_NE(sixteen, nullptr);
  EXPECT_EQ(sixteen->verdict, Verdict::pass);
  EXPECT_NE(render_targets_markdown(bits).find("## Targets"), std::string::npos);
}

TEST(BenchSweepReport, WritesMarkdownCsvJsonAndSvg) {
  SweepLayout layout;
  layout.variants = {"u32-u32", "u32-none"};
  layout.sizes = sweep_segment_sizes(1u << 24);
  layout.items = 1u << 24;
  layout.single_items = 1u << 26;
  layout.svg_name = "sweep.svg";
  const std::vector<Row> rows = synthetic_sweep(layout);
  RunInfo info;
  info.commit = "test";
  const std::string md = render_sweep_markdown(info, layout, rows);
  EXPECT_NE(md.find("](sweep.svg)"), std::string::npos);
  EXPECT_NE(md.find("| 3,072 |"), std::string::npos);
  EXPECT_NE(md.find("**1.38 cliff**"), std::string::npos);  // (2 + log2(3072) / 4 + 2) / (2 + 3)
  const std::string csv = render_sweep_csv(layout, rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * (92 + 1));
  const std::string json = render_sweep_json_member(layout, rows);
  EXPECT_EQ(json.rfind("\"sweep\": {", 0), 0u);

  const std::string svg = render_svg_plot(make_sweep_plot(layout, rows));
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '<') , std::count(svg.begin(), svg.end(), '>'));
  EXPECT_NE(svg.find(">tilesort<"), std::string::npos);
  EXPECT_NE(svg.find(">u32-none<"), std::string::npos);
  EXPECT_NE(svg.find(">64M<"), std::string::npos);  // the single segment's tick
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  if (const char* path = std::getenv("TILESORT_BENCH_SVG_OUT")) {  // for looking at it
    FILE* f = std::fopen(path, "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(svg.data(), 1, svg.size(), f);
    std::fclose(f);
  }
}

TEST(BenchReport, JsonKeepsEveryRunInOrder) {
  // A row whose calls take one of two times: the median hides it, the runs
  // (in the order taken) show it.
  const Stats st = summarize({0.30f, 0.25f, 0.31f, 0.25f, 0.26f});
  EXPECT_DOUBLE_EQ(st.median, double(0.26f));
  EXPECT_DOUBLE_EQ(st.min, double(0.25f));
  EXPECT_DOUBLE_EQ(st.max, double(0.31f));
  ASSERT_EQ(st.runs.size(), 5u);
  EXPECT_FLOAT_EQ(st.runs[0], 0.30f);
  EXPECT_FLOAT_EQ(st.runs[4], 0.26f);
  Row ok;
  ok.workload = "fixed:96";
  ok.variant = "u32-u32";
  ok.method = "tilesort";
  ok.status = RowStatus::ok;
  ok.ms = summarize({0.5f, 0.25f});
  Row failed = ok;
  failed.method = "copy";
  failed.status = RowStatus::failed;
  failed.ms.reset();
  const std::string json = render_json(RunInfo{}, {}, {ok, failed});
  EXPECT_NE(json.find("\"ms_runs\": [0.5, 0.25]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ms_runs\": []"), std::string::npos) << json;
}

TEST(BenchReport, FlagsRowsWithASlowMode) {
  // Four of ten calls about 20% slower: the median sits in the fast mode.
  const Stats two_modes = summarize({0.25f, 0.30f, 0.25f, 0.26f, 0.31f, 0.25f, 0.30f, 0.25f, 0.26f, 0.30f});
  EXPECT_EQ(slow_mode_calls(two_modes), 4u);
  EXPECT_TRUE(has_slow_mode(two_modes));
  // One slow call in ten is noise; an even spread is no second mode.
  const Stats one_slow = summarize({0.25f, 0.25f, 0.26f, 0.25f, 0.31f, 0.25f, 0.26f, 0.25f, 0.25f, 0.26f});
  EXPECT_EQ(slow_mode_calls(one_slow), 1u);
  EXPECT_FALSE(has_slow_mode(one_slow));
  EXPECT_FALSE(has_slow_mode(summarize({0.250f, 0.252f, 0.254f, 0.256f, 0.258f, 0.260f, 0.262f, 0.264f})));
  EXPECT_EQ(slow_mode_calls(summarize({0.25f, 0.5f, 0.5f})), 0u);  // too few calls to tell
  Row flagged;
  flagged.workload = "fixed:96";
  flagged.variant = "u32-u32";
  flagged.method = "tilesort";
  flagged.status = RowStatus::ok;
  flagged.ms = two_modes;
  Row steady = flagged;
  steady.workload = "fixed:128";
  steady.ms = summarize({0.23f, 0.23f, 0.24f, 0.23f, 0.23f, 0.24f});
  const std::string md = render_markdown(RunInfo{}, {}, {flagged, steady});
  const std::size_t section = md.find("## Rows with a slow mode");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("| fixed:96 | u32-u32 | tilesort | 10 | 4 |", section), std::string::npos) << md;
  EXPECT_EQ(md.find("| fixed:128 | u32-u32 | tilesort | 6 |", section), std::string::npos) << md;
  EXPECT_EQ(render_markdown(RunInfo{}, {}, {steady}).find("## Rows with a slow mode"), std::string::npos);
}

TEST(BenchPlot, LabelsAndLonePoints) {
  EXPECT_EQ(power_of_two_label(1), "1");
  EXPECT_EQ(power_of_two_label(512), "512");
  EXPECT_EQ(power_of_two_label(4096), "4K");
  EXPECT_EQ(power_of_two_label(1u << 24), "16M");
  PlotSpec spec;
  spec.title = "a < b & c";
  PlotPanel panel;
  PlotSeries s;
  s.name = "m";
  s.colour = "#000";
  s.points = {{1, 1}, {2, 2}, {4, std::nan("")}, {8, 3}};
  panel.series.push_back(s);
  spec.panels.push_back(panel);
  const std::string svg = render_svg_plot(spec);
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end() - 1, '<') - std::count(svg.begin(), svg.end(), '>'), 0);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);  // 1..2
  EXPECT_NE(svg.find("<circle"), std::string::npos);    // 8 alone
}

}  // namespace
}  // namespace bench
