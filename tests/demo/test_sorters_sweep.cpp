// tilesort-demo: the sorter switch (which sorters a run uses, the A/B
// summary), the timeline's values and the sweep driver (point order,
// warm-up and stale frames, medians, CSV and SVG). CPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "options.hpp"
#include "sorters.hpp"
#include "sweep.hpp"
#include "timeline.hpp"

namespace td = tilesort::demo;
using td::Sorter;

namespace {
bool parse(std::vector<std::string> args, td::Options* o, std::string* e) {
  std::vector<char*> argv = {const_cast<char*>("tilesort-demo")};
  for (auto& a : args) argv.push_back(a.data());
  return td::parse_options(int(argv.size()), argv.data(), o, e);
}
}  // namespace

TEST(DemoSorters, NamesRoundTrip) {
  for (int i = 0; i < td::kSorterCount; ++i) {
    Sorter s = Sorter::cpu;
    ASSERT_TRUE(td::parse_sorter(td::sorter_name(Sorter(i)), &s));
    EXPECT_EQ(int(s), i);
  }
  Sorter s = Sorter::tilesort;
  EXPECT_FALSE(td::parse_sorter("cub", &s));
  EXPECT_FALSE(td::parse_sorter("", &s));
  EXPECT_EQ(s, Sorter::tilesort);  // untouched on failure
}

TEST(DemoSorters, DefaultsFollowTheCudaPath) {
  td::SorterSet set;
  std::string e;
  ASSERT_TRUE(td::choose_sorters("", -1, true, &set, &e)) << e;
  EXPECT_EQ(set.primary, Sorter::tilesort);
  ASSERT_EQ(set.compared.size(), 1u);
  EXPECT_EQ(set.compared[0], Sorter::gs3d);
  // The primary runs last: its lists are the ones the frame composites.
  EXPECT_EQ(set.run_order(), (std::vector<Sorter>{Sorter::gs3d, Sorter::tilesort}));

  ASSERT_TRUE(td::choose_sorters("", -1, false, &set, &e)) << e;
  EXPECT_EQ(set.primary, Sorter::cpu);
  EXPECT_TRUE(set.compared.empty());
  EXPECT_EQ(set.run_order(), (std::vector<Sorter>{Sorter::cpu}));
}

TEST(DemoSorters, ExplicitChoices) {
  td::SorterSet set;
  std::string e;
  ASSERT_TRUE(td::choose_sorters("3dgs", -1, true, &set, &e)) << e;
  EXPECT_EQ(set.primary, Sorter::gs3d);
  EXPECT_EQ(set.compared, (std::vector<Sorter>{Sorter::tilesort}));
  EXPECT_TRUE(set.has(Sorter::tilesort));
  EXPECT_FALSE(set.has(Sorter::cpu));

  ASSERT_TRUE(td::choose_sorters("tilesort", 0, true, &set, &e)) << e;
  EXPECT_TRUE(set.compared.empty());
  EXPECT_NE(set.note.find("--no-compare"), std::string::npos);

  ASSERT_TRUE(td::choose_sorters("cpu", 1, true, &set, &e)) << e;  // the CPU path on a GPU machine
  EXPECT_EQ(set.primary, Sorter::cpu);
  EXPECT_TRUE(set.compared.empty());
  EXPECT_FALSE(set.note.empty());  // says why the asked-for A/B is off

  e.clear();
  EXPECT_FALSE(td::choose_sorters("3dgs", -1, false, &set, &e));
  EXPECT_NE(e.find("CUDA"), std::string::npos);
  e.clear();
  EXPECT_FALSE(td::choose_sorters("radix", -1, true, &set, &e));
  EXPECT_NE(e.find("radix"), std::string::npos);
}

TEST(DemoSorters, OptionsMapSortersToPaths) {
  td::Options o;
  std::string e;
  ASSERT_TRUE(parse({"--sorter", "3dgs", "--no-compare", "--handoff", "memory"}, &o, &e)) << e;
  EXPECT_EQ(o.sorter, "3dgs");
  EXPECT_TRUE(o.gpu);  // a CUDA sorter needs the CUDA path: exit 4 without it
  EXPECT_FALSE(o.cpu);
  EXPECT_EQ(o.compare, 0);
  EXPECT_EQ(o.handoff, "memory");
  td::Options c;
  ASSERT_TRUE(parse({"--sorter", "cpu", "--compare"}, &c, &e)) << e;
  EXPECT_TRUE(c.cpu);
  EXPECT_EQ(c.compare, 1);
  td::Options w;
  ASSERT_TRUE(parse({"--sweep", "--sweep-particles", "1000,20000", "--sweep-tiles", "8,32", "--sweep-frames", "4",
                     "--sweep-out", "/tmp/s"},
                    &w, &e))
      << e;
  EXPECT_TRUE(w.sweep);
  EXPECT_EQ(w.sweep_particles, (std::vector<std::uint32_t>{1000, 20000}));
  EXPECT_EQ(w.sweep_tiles, (std::vector<std::uint32_t>{8, 32}));
  EXPECT_EQ(w.sweep_frames, 4u);
  EXPECT_EQ(w.sweep_out, "/tmp/s");
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--sorter", "cub"},
                                                               {"--sorter"},
                                                               {"--sorter", "cpu", "--gpu"},
                                                               {"--cpu", "--sorter", "tilesort"},
                                                               {"--handoff", "fence"},
                                                               {"--sweep-tiles", "12"},
                                                               {"--sweep-tiles", "8,,16"},
                                                               {"--sweep-particles", "0"},
                                                               {"--sweep-particles", "10,x"}}) {
    td::Options b;
    std::string err;
    EXPECT_FALSE(parse(bad, &b, &err)) << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
    EXPECT_FALSE(err.empty()) << bad[0];
  }
}

TEST(DemoSorters, AbSummaryUsesFramesEverySorterRan) {
  td::SorterSet set;
  std::string e;
  ASSERT_TRUE(td::choose_sorters("tilesort", -1, true, &set, &e));
  std::vector<td::SorterTimes> frames = {
      {{1.0, 3.0, -1.0}}, {{2.0, 5.0, -1.0}}, {{1.5, 4.0, -1.0}},
      {{9.0, -1.0, -1.0}},  // 3dgs did not run (A/B switched on later): not a like-for-like sample
  };
  const td::AbSummary ab = td::summarize_ab(set, frames);
  EXPECT_EQ(ab.frames, 3u);
  EXPECT_DOUBLE_EQ(ab.median_ms[int(Sorter::tilesort)], 1.5);
  EXPECT_DOUBLE_EQ(ab.median_ms[int(Sorter::gs3d)], 4.0);
  EXPECT_LT(ab.median_ms[int(Sorter::cpu)], 0.0);
  EXPECT_NEAR(ab.speedup, 4.0 / 1.5, 1e-12);
  const std::string line = ab.line();
  EXPECT_NE(line.find("tilesort 1.500 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("3dgs 4.000 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("2.67x"), std::string::npos) << line;

  const td::AbSummary none = td::summarize_ab(set, {});
  EXPECT_EQ(none.frames, 0u);
  EXPECT_EQ(none.speedup, 0.0);
}

TEST(DemoTimeline, ValuesRiseThroughEveryFrame) {
  std::uint64_t previous = 0;
  for (std::uint64_t f = 0; f < 5; ++f) {
    const td::FrameTimeline t{f};
    EXPECT_EQ(t.start(), previous);  // a frame starts where the last one ended
    EXPECT_LT(t.start(), t.emitted());
    EXPECT_LT(t.emitted(), t.sorted());
    EXPECT_LT(t.sorted(), t.done());
    previous = t.done();
  }
  EXPECT_EQ(td::after_frames(5), td::FrameTimeline{4}.done());
  EXPECT_EQ(td::after_frames(0), 0u);
}

TEST(DemoSweep, PlanOrderAndCap) {
  const td::SweepPlan plan = td::make_sweep_plan({1000, 4000, 9000}, {16, 8}, 5000, 7);
  ASSERT_EQ(plan.points.size(), 4u);  // 9000 is above the buffers
  EXPECT_EQ(plan.points[0], (td::SweepPoint{1000, 16}));
  EXPECT_EQ(plan.points[1], (td::SweepPoint{4000, 16}));
  EXPECT_EQ(plan.points[2], (td::SweepPoint{1000, 8}));
  EXPECT_EQ(plan.points[3], (td::SweepPoint{4000, 8}));
  EXPECT_EQ(plan.frames, 7u);
  const td::SweepPlan defaults = td::make_sweep_plan({}, {}, 1u << 26, 0);
  EXPECT_EQ(defaults.points.size(), 18u);  // 6 counts x 3 tile sizes
  EXPECT_EQ(defaults.points.back(), (td::SweepPoint{16u << 20, 32}));
  EXPECT_GT(defaults.frames, 0u);
  EXPECT_TRUE(td::make_sweep_plan({100}, {}, 10, 0).points.empty());
}

TEST(DemoSweep, DriverSkipsWarmupAndStaleFramesAndTakesMedians) {
  td::SweepPlan plan = td::make_sweep_plan({1000, 2000}, {16}, 1u << 20, 3);
  plan.warmup_frames = 1;
  td::SorterSet set;
  std::string e;
  ASSERT_TRUE(td::choose_sorters("tilesort", -1, true, &set, &e));
  td::SweepDriver sweep(plan, set);
  ASSERT_TRUE(sweep.active());
  EXPECT_FALSE(sweep.finished());
  auto frame = [](td::SweepPoint p, std::uint32_t records, double ts, double gs) {
    td::SweepFrame f;
    f.point = p;
    f.records = records;
    f.sort_ms = {{ts, gs, -1.0}};
    return f;
  };
  const td::SweepPoint a{1000, 16}, b{2000, 16};
  EXPECT_EQ(sweep.current(), a);
  sweep.add_frame(frame(b, 1, 1, 1));        // not the current point: ignored
  sweep.add_frame(frame(a, 100, 50, 50));    // warm-up
  sweep.add_frame(frame(a, 2000, 1.0, 4.0));
  sweep.add_frame(frame(a, 2000, 3.0, 2.0));
  EXPECT_EQ(sweep.current(), a);
  sweep.add_frame(frame(a, 2000, 2.0, 3.0));  // third measured frame closes the point
  ASSERT_TRUE(sweep.active());
  EXPECT_EQ(sweep.current(), b);
  sweep.add_frame(frame(a, 2000, 9.0, 9.0));  // still in flight from the old point: ignored
  for (int i = 0; i < 4; ++i) sweep.add_frame(frame(b, 4000, 4.0, 8.0));
  EXPECT_TRUE(sweep.finished());
  EXPECT_FALSE(sweep.active());
  sweep.add_frame(frame(b, 1, 1, 1));  // after the end: ignored
  const auto& r = sweep.results();
  ASSERT_EQ(r.size(), 4u);  // 2 points x 2 sorters, run order (3dgs first)
  EXPECT_EQ(r[0].sorter, Sorter::gs3d);
  EXPECT_EQ(r[1].sorter, Sorter::tilesort);
  EXPECT_EQ(r[1].point, a);
  EXPECT_DOUBLE_EQ(r[1].sort_ms, 2.0);
  EXPECT_DOUBLE_EQ(r[0].sort_ms, 3.0);
  EXPECT_DOUBLE_EQ(r[1].records, 2000.0);
  EXPECT_EQ(r[1].frames, 3u);
  EXPECT_DOUBLE_EQ(r[1].records_per_s(), 2000.0 / 2e-3);
  EXPECT_EQ(r[3].point, b);
  EXPECT_DOUBLE_EQ(r[3].sort_ms, 4.0);

  const std::string csv = td::sweep_csv(r);
  EXPECT_EQ(csv.rfind("sorter,tile_px,particles,records_per_frame,sort_ms,records_per_s,dropped,frames\n", 0), 0u);
  EXPECT_NE(csv.find("tilesort,16,1000,2000,2.00000,1e+06,0,3\n"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);

  const std::string svg = td::sweep_svg(r, "a <title> & more");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;title&gt; &amp; more"), std::string::npos);
  std::size_t lines = 0;
  for (std::size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, 2u);  // one per (sorter, tile size)
  EXPECT_NE(td::sweep_svg({}, "empty").find("no measurements"), std::string::npos);
}
