// tilesort-bench --suite binning's host-side core (bench/binning_cases.*,
// bench/binning_report.*): the scene generators, the CPU reference and the
// verdicts of issue 14's targets. CPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "binning_cases.hpp"
#include "binning_report.hpp"
#include "tilesort/emit.cuh"

namespace bench {
namespace {

BinRecords hand_records(std::uint32_t num_tiles, std::vector<std::uint32_t> tiles, std::vector<std::uint32_t> keys) {
  BinRecords r;
  r.name = "hand";
  r.num_tiles = num_tiles;
  r.tiles = std::move(tiles);
  r.keys = std::move(keys);
  r.values.resize(r.tiles.size());
  std::iota(r.values.begin(), r.values.end(), 100u);
  return r;
}

TEST(BenchBinningCases, NamesDefaultsAndUnknown) {
  const std::vector<std::string> want = {"tiles16-1M", "tiles16-4M", "tiles8-4M",
                                         "tiles32-4M", "4k-tiles16", "4k-tiles8"};
  EXPECT_EQ(default_binning_cases(), want);
  const auto& all = all_binning_cases();
  for (const std::string& name : want) EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
  for (const char* extra : {"tiles8-1M", "4k-tiles16-4M", "4k-tiles8-4M", "tiles64-4M", "4k-tiles6-1M"})
    EXPECT_NE(std::find(all.begin(), all.end(), extra), all.end()) << extra;
  EXPECT_THROW(make_binning_case("tiles7-3M"), std::invalid_argument);
  EXPECT_THROW(binning_scene("tiles16-4M"), std::invalid_argument);  // a workload, not a screen scene
}

TEST(BenchBinningCases, FourKScenesAreTheSceneScaledTwiceOnA4KScreen) {
  for (const char* name : {"4k-tiles8", "4k-tiles16"}) {
    const ScreenScene s = binning_scene(name);
    EXPECT_EQ(s.width, 3840u) << name;
    EXPECT_EQ(s.height, 2160u) << name;
    EXPECT_EQ(s.scale, 2.0) << name;
    EXPECT_EQ(s.particles, 2000000u) << name;  // examples/python/benchmark.py's 4k-tiles8
  }
  EXPECT_EQ(binning_scene("4k-tiles8").num_tiles(), 480u * 270u);
  EXPECT_EQ(binning_scene("4k-tiles16").num_tiles(), 240u * 135u);
  EXPECT_EQ(binning_scene("4k-tiles8-4M").particles, 4000000u);
  // The cases of 9-bit and 18-bit tile ids (one 9-bit pass; three 6-bit).
  EXPECT_EQ(binning_scene("tiles64-4M").num_tiles(), 30u * 17u);
  EXPECT_EQ(binning_scene("4k-tiles6-1M").num_tiles(), 640u * 360u);
}

// The record counts of the suite's historical cases (bench/results, e.g.
// h200-2026-12-01-96a6397-checks.txt) pin the generator: a change that moves
// them would make the binning rows incomparable with earlier runs.
TEST(BenchBinningCases, RecordCountsArePinned) {
  EXPECT_EQ(screen_record_count(binning_scene("tiles8-4M")), 41241688u);
  EXPECT_EQ(screen_record_count(binning_scene("tiles32-4M")), 8658408u);
  EXPECT_EQ(screen_record_count(binning_scene("4k-tiles16")), 20648950u);
  EXPECT_EQ(screen_record_count(binning_scene("4k-tiles8")), 63740416u);
  // Every case fits CUB's int count and 32-bit offsets with room to spare
  // (the largest, 4k-tiles8-4M, is about 127M records: 1.5 GB of records).
  const std::uint64_t largest = screen_record_count(binning_scene("4k-tiles8-4M"));
  EXPECT_GT(largest, 100000000u);
  EXPECT_LT(largest, std::uint64_t{1} << 31);
}

TEST(BenchBinningCases, WorkloadCaseMatchesTheSegmentedSortWorkload) {
  const BinRecords r = make_binning_case("tiles16-1M");
  EXPECT_EQ(r.size(), 4127592u);  // ANCHORS.md's tiles16-1M pairs
  EXPECT_EQ(r.num_tiles, 8160u);
  ASSERT_EQ(r.keys.size(), r.size());
  ASSERT_EQ(r.values.size(), r.size());
  EXPECT_TRUE(std::all_of(r.tiles.begin(), r.tiles.end(), [&](std::uint32_t t) { return t < r.num_tiles; }));
}

TEST(BenchBinningCases, ScreenRecordsAreInRangeShuffledAndDeterministic) {
  ScreenScene s;
  s.name = "small";
  s.width = 640;  // the 1080p scene at a third of its size, 4 px tiles
  s.height = 360;
  s.tile_pixels = 4;
  s.scale = 1.0 / 3.0;
  s.particles = 20000;
  const BinRecords a = make_screen_records(s);
  EXPECT_EQ(a.size(), screen_record_count(s));
  EXPECT_GT(a.size(), 2u * s.particles);  // footprints cover several tiles
  EXPECT_EQ(a.num_tiles, 160u * 90u);
  ASSERT_EQ(a.keys.size(), a.size());
  ASSERT_EQ(a.values.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_LT(a.tiles[i], a.num_tiles) << i;
    ASSERT_LT(a.values[i], s.particles) << i;
    const float depth = tilesort::depth_from_key(a.keys[i]);
    ASSERT_GE(depth, 1.0f) << i;
    ASSERT_LT(depth, 100.0f) << i;
  }
  // Emission order is shuffled: not in particle order.
  EXPECT_FALSE(std::is_sorted(a.values.begin(), a.values.end()));
  // One depth per particle, whatever tile it lands in.
  std::vector<std::uint32_t> depth_of(s.particles, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint32_t& d = depth_of[a.values[i]];
    if (d == 0) d = a.keys[i];
    ASSERT_EQ(d, a.keys[i]) << "particle " << a.values[i];
  }
  const BinRecords b = make_screen_records(s);
  EXPECT_EQ(a.tiles, b.tiles);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.note.find(std::to_string(a.size()) + " records"), std::string::npos) << a.note;

  ScreenScene other = s;
  other.particles = 20001;  // another draw
  EXPECT_NE(make_screen_records(other).tiles, a.tiles);
}

TEST(BenchBinningCases, BadScenesAreRejected) {
  ScreenScene s;
  s.name = "bad";
  s.tile_pixels = 0;
  s.particles = 10;
  EXPECT_THROW(screen_record_count(s), std::invalid_argument);
}

TEST(BenchBinningReference, QuantizedKeepsTheTopBits) {
  const BinRecords r = hand_records(1, {0, 0}, {0xABCD1234u, 0x00018000u});
  EXPECT_EQ(quantized(r, 16).keys, (std::vector<std::uint32_t>{0xABCDu, 0x0001u}));
  EXPECT_EQ(quantized(r, 32).keys, r.keys);
}

TEST(BenchBinningReference, SplitIsStableByTile) {
  const BinRecords r = hand_records(4, {2, 0, 2, 1, 0}, {5, 4, 3, 2, 1});
  const BinSplit s = split_by_tile(r);
  EXPECT_EQ(s.offsets, (std::vector<std::uint32_t>{0, 2, 3, 5, 5}));
  EXPECT_EQ(s.permutation, (std::vector<std::uint32_t>{1, 4, 3, 0, 2}));
  const BinRecords bad = hand_records(2, {0, 2}, {0, 0});
  EXPECT_THROW(split_by_tile(bad), std::logic_error);
}

TEST(BenchBinningReference, SortIsStableOverTheKeyBits) {
  // Tile 0: keys whose low 16 bits tie (records 0, 2) but whose high bits
  // differ; tile 1: a plain order.
  const BinRecords r = hand_records(2, {0, 1, 0, 0, 1}, {0x00020007u, 9, 0x00010007u, 0x00000003u, 4});
  const BinSplit s = split_by_tile(r);
  const BinExpected full = sorted_reference(r, s, 32);
  EXPECT_EQ(full.offsets, (std::vector<std::uint32_t>{0, 3, 5}));
  EXPECT_EQ(full.keys, (std::vector<std::uint32_t>{0x00000003u, 0x00010007u, 0x00020007u, 4, 9}));
  EXPECT_EQ(full.values, (std::vector<std::uint32_t>{103, 102, 100, 104, 101}));
  const BinExpected low16 = sorted_reference(r, s, 16);
  // Over bits [0, 16) records 0 and 2 tie at 7 and keep their input order.
  EXPECT_EQ(low16.keys, (std::vector<std::uint32_t>{0x00000003u, 0x00020007u, 0x00010007u, 4, 9}));
  EXPECT_EQ(low16.values, (std::vector<std::uint32_t>{103, 100, 102, 104, 101}));
}

TEST(BenchBinningReference, MatchesANaiveStableSortOnAScene) {
  ScreenScene sc;
  sc.name = "ref";
  sc.width = 320;
  sc.height = 180;
  sc.tile_pixels = 8;
  sc.scale = 0.25;
  sc.particles = 5000;
  const BinRecords r = quantized(make_screen_records(sc), 10);  // many ties
  const BinExpected e = sorted_reference(r, split_by_tile(r), 10);
  std::vector<std::uint32_t> order(r.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return r.tiles[a] != r.tiles[b] ? r.tiles[a] < r.tiles[b] : r.keys[a] < r.keys[b];
  });
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(e.keys[i], r.keys[order[i]]) << i;
    ASSERT_EQ(e.values[i], r.values[order[i]]) << i;
  }
}

// ---- the targets ------------------------------------------------------------

BinRow row(const std::string& name, int bits, double copy_ms) {
  BinRow r;
  r.case_name = name;
  r.label = name + (bits < 32 ? " (depth16)" : "");
  r.key_bits = bits;
  r.copy_ms = copy_ms;
  r.records = 1000;
  r.tiles = 10;
  return r;
}

const TargetLine* find_line(const std::vector<TargetLine>& lines, const std::string& prefix) {
  for (const TargetLine& l : lines)
    if (l.target.rfind(prefix, 0) == 0) return &l;
  return nullptr;
}

TEST(BenchBinningTargets, BestBaselineIsTheFasterVerifiedOne) {
  BinRow r = row("tiles16-4M", 16, 0.1);
  EXPECT_FALSE(best_gs3d(r).has_value());
  r.gs3d = BinResult::measured(1.2);
  ASSERT_TRUE(best_gs3d(r).has_value());
  EXPECT_STREQ(best_gs3d(r)->name, "64-bit");
  r.gs3d_packed = BinResult::measured(0.8);
  EXPECT_STREQ(best_gs3d(r)->name, "packed 32-bit");
  EXPECT_DOUBLE_EQ(best_gs3d(r)->ms, 0.8);
  r.gs3d_packed = BinResult::failure("keys[3] wrong");
  EXPECT_STREQ(best_gs3d(r)->name, "64-bit");
}

TEST(BenchBinningTargets, VerdictsPerRowAndOverRows) {
  std::vector<BinRow> rows;
  BinRow a = row("tiles16-4M", 32, 0.1);  // 4.0x copy, 3.0x faster: passes
  a.tilesort = BinResult::measured(0.4);
  a.gs3d = BinResult::measured(1.2);
  a.gs3d_packed = BinResult::inapplicable("does not fit");
  a.bin = BinResult::measured(0.15);
  a.gather = BinResult::measured(0.2);
  a.gather_copy_ms = 0.15;
  rows.push_back(a);
  BinRow b = row("tiles16-4M", 16, 0.1);  // against packed: 2.0x, fails
  b.tilesort = BinResult::measured(0.4);
  b.gs3d = BinResult::measured(1.2);
  b.gs3d_packed = BinResult::measured(0.8);
  b.bin = BinResult::measured(0.25);  // 2.5x copy: the bin target fails
  rows.push_back(b);
  BinRow c = row("tiles8-4M", 32, 0.2);  // tilesort failed verification
  c.tilesort = BinResult::failure("keys[0] = 1, expected 0");
  c.gs3d = BinResult::measured(2.0);
  rows.push_back(c);
  BinRow d = row("4k-tiles8", 32, 0.3);  // --methods tilesort: no baseline ran
  d.tilesort = BinResult::measured(1.0);
  rows.push_back(d);

  const std::vector<TargetLine> lines = evaluate_binning_targets(rows);
  // 3 speedup lines (d has no baseline), the headline, bin, gather.
  ASSERT_EQ(lines.size(), 6u);
  const TargetLine* sa = find_line(lines, "tiles16-4M: bin_and_sort >= 2.50x");
  ASSERT_NE(sa, nullptr);
  EXPECT_EQ(sa->verdict, Verdict::pass);
  EXPECT_NE(sa->measured.find("3.00x vs 3DGS 64-bit"), std::string::npos) << sa->measured;
  const TargetLine* sb = find_line(lines, "tiles16-4M (depth16): bin_and_sort");
  ASSERT_NE(sb, nullptr);
  EXPECT_EQ(sb->verdict, Verdict::fail);
  EXPECT_NE(sb->measured.find("2.00x vs 3DGS packed 32-bit"), std::string::npos) << sb->measured;
  const TargetLine* sc = find_line(lines, "tiles8-4M: bin_and_sort");
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->verdict, Verdict::fail);
  EXPECT_EQ(find_line(lines, "4k-tiles8"), nullptr);

  const TargetLine* head = find_line(lines, "tiles16-4M (32-bit depths)");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->verdict, Verdict::pass);
  EXPECT_NE(head->measured.find("4.00x copy"), std::string::npos) << head->measured;

  const TargetLine* bin = find_line(lines, "bin alone");
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->verdict, Verdict::fail);
  EXPECT_NE(bin->measured.find("worst 2.50x (tiles16-4M (depth16)); 1 of 2 over"), std::string::npos)
      << bin->measured;
  const TargetLine* gather = find_line(lines, "gather of 64-byte records");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->verdict, Verdict::pass);
}

TEST(BenchBinningTargets, HeadlineFailsAboveTheLimitOrOnAFailedRow) {
  BinRow r = row("tiles16-4M", 32, 0.1);
  r.tilesort = BinResult::measured(0.46);  // 4.6x
  std::vector<TargetLine> lines = evaluate_binning_targets({r});
  ASSERT_EQ(lines.size(), 1u);  // no baseline, no bin, no gather: only the floor
  EXPECT_EQ(lines[0].verdict, Verdict::fail);
  r.tilesort = BinResult::failure("offsets[1] = 3, expected 2");
  lines = evaluate_binning_targets({r});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].verdict, Verdict::fail);
  r.tilesort = BinResult();  // not run: nothing to say
  EXPECT_TRUE(evaluate_binning_targets({r}).empty());
}

TEST(BenchBinningTargets, AFailedBinRowFailsTheBinTarget) {
  BinRow r = row("tiles32-4M", 32, 0.1);
  r.bin = BinResult::failure("bin keys[5] = 1, expected 2");
  const std::vector<TargetLine> lines = evaluate_binning_targets({r});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].verdict, Verdict::fail);
  EXPECT_NE(lines[0].measured.find("FAILED verification on 1"), std::string::npos) << lines[0].measured;
}

TEST(BenchBinningReport, MarkdownAndJsonCarryBothBaselines) {
  BinRow r = row("tiles16-4M", 16, 0.1);
  r.note = "4000000 particles";
  r.tilesort = BinResult::measured(0.3);
  r.gs3d = BinResult::measured(0.9);
  r.gs3d_packed = BinResult::measured(0.6);
  BinRow f = row("tiles8-4M", 32, 0.2);
  f.tilesort = BinResult::failure("keys[0] = 1, expected 0");
  f.gs3d_packed = BinResult::inapplicable("does not fit");
  BinReportInfo info;
  info.commit = "abc1234";
  info.reps = 15;
  info.warmup = 3;
  info.cases = {"tiles16-4M", "tiles8-4M", "4k-tiles8"};
  info.methods = {"copy", "tilesort", "3dgs", "3dgs-packed"};
  info.date = "2026-12-07";
  info.device = "NVIDIA H200";
  const std::string md = render_binning_markdown(info, {r, f});
  EXPECT_NE(md.find("\n\n- commit: abc1234\n- date: 2026-12-07\n- device: NVIDIA H200\n- command: `"), std::string::npos) << md;
  EXPECT_NE(md.find("## Targets (issue 14)"), std::string::npos);
  EXPECT_NE(md.find("| speedup vs better 3DGS |"), std::string::npos);
  EXPECT_NE(md.find("2.00x (vs packed 32-bit)"), std::string::npos) << md;
  EXPECT_NE(md.find("0.600 (6.00x)"), std::string::npos) << md;
  EXPECT_NE(md.find("tiles8-4M tilesort FAILED verification: keys[0] = 1, expected 0"), std::string::npos) << md;
  EXPECT_NE(md.find("- 4k-tiles8: not run"), std::string::npos) << md;
  EXPECT_NE(md.find("- tiles16-4M: 4000000 particles"), std::string::npos) << md;
  const std::string js = render_binning_json(info, {r, f});
  EXPECT_NE(js.find("\"gs3d_packed_ms\": 0.6"), std::string::npos) << js;
  EXPECT_NE(js.find("\"best_gs3d\": \"gs3d_packed\""), std::string::npos) << js;
  EXPECT_NE(js.find("\"speedup_vs_best_gs3d\": 2.0000"), std::string::npos) << js;
  EXPECT_NE(js.find("\"tilesort_ms\": -1"), std::string::npos) << js;  // the failed row
  EXPECT_NE(js.find("\"gs3d_packed\": \"not applicable\""), std::string::npos) << js;
  EXPECT_NE(js.find("\"targets\": ["), std::string::npos) << js;
  EXPECT_TRUE(any_binning_failure({r, f}));
  EXPECT_FALSE(any_binning_failure({r}));
}

}  // namespace
}  // namespace bench
