// tilesort-demo's CPU-side logic: tile footprints, the depth-key encoding the
// shaders use, the CPU fallback sort against the reference, the frame
// verification (it must catch every kind of corruption), options and PPM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "demo_core.hpp"
#include "gpu_test_util.hpp"  // tstest::test_seed / seed_message (TILESORT_TEST_SEED)
#include "options.hpp"
#include "tilesort/emit.cuh"

namespace td = tilesort::demo;

namespace {

// Brute force: tile (tx, ty) covers [tx*T, (tx+1)*T) x [ty*T, (ty+1)*T); the
// footprint is every tile that meets the closed square [x-r, x+r] x [y-r, y+r].
td::TileRect brute_footprint(float x, float y, float r, std::uint32_t T, std::uint32_t tiles_x, std::uint32_t tiles_y) {
  td::TileRect rect;
  bool any = false;
  for (std::uint32_t ty = 0; ty < tiles_y; ++ty)
    for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
      const float lx = float(tx * T), hx = float((tx + 1) * T), ly = float(ty * T), hy = float((ty + 1) * T);
      if (x - r < hx && x + r >= lx && y - r < hy && y + r >= ly) {
        if (!any) {
          rect = {tx, ty, tx, ty};
          any = true;
        }
        rect.x0 = std::min(rect.x0, tx);
        rect.y0 = std::min(rect.y0, ty);
        rect.x1 = std::max(rect.x1, tx);
        rect.y1 = std::max(rect.y1, ty);
      }
    }
  return rect;
}

}  // namespace

TEST(DemoCore, FootprintHandPicked) {
  // 1280x720 at 16 px: 80 x 45 tiles.
  const std::uint32_t T = 16, tx = 80, ty = 45;
  EXPECT_EQ(td::footprint(8.0f, 8.0f, 3.0f, T, tx, ty), (td::TileRect{0, 0, 0, 0}));       // inside tile 0
  EXPECT_EQ(td::footprint(16.0f, 8.0f, 3.0f, T, tx, ty), (td::TileRect{0, 0, 1, 0}));      // straddles x = 16
  EXPECT_EQ(td::footprint(13.0f, 8.0f, 3.0f, T, tx, ty), (td::TileRect{0, 0, 1, 0}));      // x + r == 16 touches tile 1
  EXPECT_EQ(td::footprint(12.5f, 8.0f, 3.0f, T, tx, ty), (td::TileRect{0, 0, 0, 0}));      // x + r < 16
  EXPECT_EQ(td::footprint(40.0f, 40.0f, 20.0f, T, tx, ty), (td::TileRect{1, 1, 3, 3}));
  EXPECT_EQ(td::footprint(-5.0f, 8.0f, 10.0f, T, tx, ty), (td::TileRect{0, 0, 0, 1}));     // clipped at the left edge
  EXPECT_EQ(td::footprint(1279.0f, 719.0f, 4.0f, T, tx, ty), (td::TileRect{79, 44, 79, 44}));  // clipped bottom right
  EXPECT_TRUE(td::footprint(-20.0f, 8.0f, 10.0f, T, tx, ty).empty());                       // off screen left
  EXPECT_TRUE(td::footprint(8.0f, 740.0f, 10.0f, T, tx, ty).empty());                       // off screen below
  EXPECT_EQ(td::footprint(8.0f, 8.0f, 3.0f, T, tx, ty).count(), 1u);
  EXPECT_EQ((td::TileRect{1, 1, 3, 3}).count(), 9u);
  EXPECT_EQ(td::TileRect{}.count(), 0u);
}

TEST(DemoCore, FootprintMatchesBruteForce) {
  SCOPED_TRACE(tstest::seed_message());
  std::mt19937_64 rng(tstest::test_seed());
  for (std::uint32_t T : {8u, 16u, 32u}) {
    const std::uint32_t w = 200, h = 120, tiles_x = td::tiles_along(w, T), tiles_y = td::tiles_along(h, T);
    std::uniform_real_distribution<float> pos(-60.0f, 260.0f), rad(0.5f, 50.0f);
    std::uniform_int_distribution<int> grid(-4, 40);
    for (int i = 0; i < 20000; ++i) {
      float x = pos(rng), y = pos(rng) * 0.6f, r = rad(rng);
      if (i % 4 == 0) {  // on tile boundaries exactly, the cases rounding would break
        x = float(grid(rng) * int(T) / 2);
        y = float(grid(rng) * int(T) / 2);
        r = float(1 + grid(rng) % 8 + 4) * 0.5f * float(T) / 2.0f;
      }
      const td::TileRect got = td::footprint(x, y, r, T, tiles_x, tiles_y);
      const td::TileRect want = brute_footprint(x, y, r, T, tiles_x, tiles_y);
      ASSERT_EQ(got.empty(), want.empty()) << "x=" << x << " y=" << y << " r=" << r << " T=" << T;
      if (!got.empty()) {
        ASSERT_EQ(got, want) << "x=" << x << " y=" << y << " r=" << r << " T=" << T;
      }
    }
  }
}

TEST(DemoCore, ShaderDepthKeyEqualsTilesortDepthKey) {
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.05f, 1e-38f, -1e-38f, 1e-45f, -1e-45f,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (float f : specials) EXPECT_EQ(td::glsl_depth_key(f), tilesort::depth_key(f)) << f;
  SCOPED_TRACE(tstest::seed_message());
  std::mt19937 rng(std::uint32_t(tstest::test_seed()));
  for (int i = 0; i < 1 << 20; ++i) {
    const std::uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    ASSERT_EQ(td::glsl_depth_key(f), tilesort::depth_key(f)) << std::hex << bits;
  }
}

TEST(DemoCore, DepthKeyOrdersNearestFirst) {
  // The composite blends front to back: ascending keys must be ascending depth.
  std::vector<float> depths = {0.05f, 0.5f, 1.0f, 1.0000001f, 7.5f, 8.0f, 1000.0f};
  for (std::size_t i = 1; i < depths.size(); ++i)
    EXPECT_LT(tilesort::depth_key(depths[i - 1]), tilesort::depth_key(depths[i]));
}

namespace {
struct RandomRecords {
  std::vector<std::uint32_t> tiles, keys, ids;
  td::RecordView view() const { return {tiles.data(), keys.data(), ids.data(), tiles.size()}; }
};
RandomRecords random_records(std::mt19937_64& rng, std::size_t n, std::uint32_t num_tiles, std::uint32_t key_range) {
  RandomRecords r;
  std::uniform_int_distribution<std::uint32_t> key(0, key_range - 1);
  // Skewed tiles: some hold hundreds (the >64 path), many hold none.
  std::uniform_int_distribution<std::uint32_t> hot(0, 3), any(0, num_tiles - 1);
  for (std::size_t i = 0; i < n; ++i) {
    r.tiles.push_back(i % 3 == 0 ? hot(rng) : any(rng) / 2 * 2);  // odd tiles stay empty
    r.keys.push_back(key(rng));
    r.ids.push_back(std::uint32_t(i));
  }
  return r;
}
}  // namespace

TEST(DemoCore, CpuSortMatchesReference) {
  SCOPED_TRACE(tstest::seed_message());
  std::mt19937_64 rng(tstest::test_seed());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(5000), std::size_t(100000)})
    for (std::uint32_t key_range : {4u, 1u << 30})  // few distinct keys: stability matters
      for (bool sort_depth : {true, false})
        for (unsigned threads : {1u, 3u}) {
          const std::uint32_t num_tiles = 301;
          const RandomRecords in = random_records(rng, n, num_tiles, key_range);
          std::vector<std::uint32_t> keys(n), ids(n), offsets(num_tiles + 1, 0xDEADu);
          td::CpuSortScratch scratch;
          td::cpu_bin_and_sort(in.view(), num_tiles, sort_depth, keys.data(), ids.data(), offsets.data(), &scratch,
                               threads);
          const td::SortedRecords ref = td::reference_sort(in.view(), num_tiles, sort_depth);
          ASSERT_EQ(offsets, ref.offsets) << "n=" << n << " keys<" << key_range << " sort=" << sort_depth << " threads=" << threads;
          ASSERT_EQ(keys, ref.keys) << "n=" << n << " keys<" << key_range << " sort=" << sort_depth << " threads=" << threads;
          ASSERT_EQ(ids, ref.ids) << "n=" << n << " keys<" << key_range << " sort=" << sort_depth << " threads=" << threads;
        }
  // The scratch is reused across calls (the frame loop's case).
  td::CpuSortScratch scratch;
  for (int round = 0; round < 3; ++round) {
    const RandomRecords in = random_records(rng, 20000 + 7000 * round, 97, 16);
    std::vector<std::uint32_t> keys(in.tiles.size()), ids(in.tiles.size()), offsets(98);
    td::cpu_bin_and_sort(in.view(), 97, true, keys.data(), ids.data(), offsets.data(), &scratch, 2);
    const td::SortedRecords ref = td::reference_sort(in.view(), 97, true);
    ASSERT_EQ(ids, ref.ids) << "round " << round;
    ASSERT_EQ(offsets, ref.offsets) << "round " << round;
  }
}

TEST(DemoCore, ReferenceSortIsStableByTileThenDepth) {
  const std::vector<std::uint32_t> tiles = {2, 0, 2, 0, 2, 1};
  const std::vector<std::uint32_t> keys = {5, 9, 5, 1, 3, 7};
  const std::vector<std::uint32_t> ids = {10, 11, 12, 13, 14, 15};
  const td::RecordView in{tiles.data(), keys.data(), ids.data(), tiles.size()};
  const td::SortedRecords s = td::reference_sort(in, 4, true);
  EXPECT_EQ(s.offsets, (std::vector<std::uint32_t>{0, 2, 3, 6, 6}));
  EXPECT_EQ(s.ids, (std::vector<std::uint32_t>{13, 11, 15, 14, 10, 12}));  // equal keys 5: 10 before 12
  const td::SortedRecords u = td::reference_sort(in, 4, false);
  EXPECT_EQ(u.ids, (std::vector<std::uint32_t>{11, 13, 15, 10, 12, 14}));  // emission order per tile
}

namespace {
// A frame as the shaders would produce it: splats with their footprints,
// records in a shuffled (atomic-arrival-like) particle order, sorted outputs
// from the reference.
td::FrameReadback synthetic_frame(std::uint64_t seed, std::uint32_t particles) {
  std::mt19937_64 rng(seed);
  td::FrameReadback f;
  td::FrameConstants& c = f.constants;
  c.num_particles = particles;
  c.width = 320;
  c.height = 200;
  c.tile_size = 16;
  c.tiles_x = td::tiles_along(c.width, 16);
  c.tiles_y = td::tiles_along(c.height, 16);
  c.capacity = particles * 8;
  std::uniform_real_distribution<float> px(-20.0f, 340.0f), py(-20.0f, 220.0f), pr(0.75f, 30.0f), pd(0.1f, 20.0f);
  for (std::uint32_t i = 0; i < particles; ++i) {
    td::Splat s{};
    s.pos.x = px(rng);
    s.pos.y = py(rng);
    s.pos.z = pr(rng);                                              // radius
    s.pos.w = (i % 7 == 0 && i) ? f.splats[i - 1].pos.w : pd(rng);  // depth; some equal depths
    const td::TileRect r = td::footprint(s.pos.x, s.pos.y, s.pos.z, c.tile_size, c.tiles_x, c.tiles_y);
    s.info.w = r.empty() ? 0u : 1u;  // visible
    if (!r.empty()) {
      s.info.y = r.x0 | (r.y0 << 16);
      s.info.z = r.x1 | (r.y1 << 16);
    } else {
      s.info.y = 1 | (1u << 16);
      s.info.z = 0;
    }
    f.splats.push_back(s);
  }
  std::vector<std::uint32_t> order(particles);
  for (std::uint32_t i = 0; i < particles; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (std::uint32_t i : order) {
    const td::TileRect r = td::splat_rect(f.splats[i]);
    if (r.empty()) continue;
    for (std::uint32_t ty = r.y0; ty <= r.y1; ++ty)
      for (std::uint32_t tx = r.x0; tx <= r.x1; ++tx) {
        f.tile_ids.push_back(ty * c.tiles_x + tx);
        f.keys.push_back(tilesort::depth_key(f.splats[i].pos.w));
        f.ids.push_back(i);
      }
  }
  const std::uint32_t n = std::uint32_t(f.tile_ids.size());
  f.counters = {n, c.capacity, n, 0};
  const td::SortedRecords s =
      td::reference_sort({f.tile_ids.data(), f.keys.data(), f.ids.data(), n}, c.tiles_x * c.tiles_y, true);
  f.sorted_keys = s.keys;
  f.sorted_ids = s.ids;
  f.offsets = s.offsets;
  return f;
}
}  // namespace

TEST(DemoCore, VerifyAcceptsACorrectFrame) {
  const td::FrameReadback f = synthetic_frame(tstest::test_seed(), 3000);
  const td::VerifyResult r = td::verify_frame(f);
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_GT(r.records, 3000u);
}

TEST(DemoCore, VerifyCatchesEveryCorruption) {
  const td::FrameReadback good = synthetic_frame(tstest::test_seed(), 3000);
  ASSERT_TRUE(td::verify_frame(good).ok);
  const std::size_t mid = good.sorted_ids.size() / 2;
  auto expect_fail = [](const td::FrameReadback& f, const char* what) {
    const td::VerifyResult r = td::verify_frame(f);
    EXPECT_FALSE(r.ok) << what;
    EXPECT_FALSE(r.errors.empty()) << what;
  };
  {
    td::FrameReadback f = good;  // two records of one tile swapped (unstable / unsorted)
    std::size_t t = 0;
    while (f.offsets[t + 1] - f.offsets[t] < 2 || f.sorted_keys[f.offsets[t]] == f.sorted_keys[f.offsets[t] + 1]) ++t;
    std::swap(f.sorted_ids[f.offsets[t]], f.sorted_ids[f.offsets[t] + 1]);
    std::swap(f.sorted_keys[f.offsets[t]], f.sorted_keys[f.offsets[t] + 1]);
    expect_fail(f, "swapped sorted records");
  }
  {
    td::FrameReadback f = good;
    f.sorted_ids[mid] = 0xFFFFFFFFu;  // what --corrupt-for-test does
    expect_fail(f, "bad sorted id");
  }
  {
    td::FrameReadback f = good;
    ++f.offsets[f.offsets.size() / 2];
    expect_fail(f, "bad tile offset");
  }
  {
    td::FrameReadback f = good;
    f.keys[mid] ^= 1u;  // emitted key != depth_key(depth)
    expect_fail(f, "bad emitted key");
  }
  {
    td::FrameReadback f = good;
    f.tile_ids[mid] = (f.tile_ids[mid] + 7) % (f.constants.tiles_x * f.constants.tiles_y);
    expect_fail(f, "record outside its footprint");
  }
  {
    td::FrameReadback f = good;  // the shader's rectangle disagrees with the CPU footprint
    for (td::Splat& s : f.splats)
      if (s.info.w && (s.info.z & 0xFFFFu) + 1 < f.constants.tiles_x) {
        ++s.info.z;
        break;
      }
    expect_fail(f, "wrong footprint");
  }
  {
    td::FrameReadback f = good;  // a record lost without the capacity running out
    f.tile_ids.pop_back();
    f.keys.pop_back();
    f.ids.pop_back();
    --f.counters.num_records;
    --f.counters.requested;
    f.sorted_keys.pop_back();
    f.sorted_ids.pop_back();
    expect_fail(f, "missing record");
  }
}

TEST(DemoCore, VerifyAllowsWholeParticlesDroppedAtCapacity) {
  td::FrameReadback f = synthetic_frame(tstest::test_seed(), 2000);
  // Drop the records of the last-emitted particle, as the emit shader does
  // when its slot range passes the capacity; the counter still asked for them.
  const std::uint32_t last = f.ids.back();
  std::size_t keep = f.ids.size();
  while (keep > 0 && f.ids[keep - 1] == last) --keep;
  const std::uint32_t requested = std::uint32_t(f.ids.size());
  f.tile_ids.resize(keep);
  f.keys.resize(keep);
  f.ids.resize(keep);
  f.counters = {requested, std::uint32_t(keep), std::uint32_t(keep), 0};
  const td::SortedRecords s = td::reference_sort({f.tile_ids.data(), f.keys.data(), f.ids.data(), keep},
                                                 f.constants.tiles_x * f.constants.tiles_y, true);
  f.sorted_keys = s.keys;
  f.sorted_ids = s.ids;
  f.offsets = s.offsets;
  const td::VerifyResult r = td::verify_frame(f);
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_EQ(r.dropped, requested - keep);
  // A partial particle is never allowed: drop whole particles from the end
  // until the last one has several records (a one-record particle cut short
  // would be a whole drop), then cut one record off it.
  const auto run_start = [&](std::size_t end) {
    std::size_t begin = end;
    while (begin > 0 && f.ids[begin - 1] == f.ids[end - 1]) --begin;
    return begin;
  };
  std::size_t end = keep;
  while (end > 0 && end - run_start(end) < 2) end = run_start(end);
  ASSERT_GT(end, 0u) << "the synthetic frame has no particle with two records; " << tstest::seed_message();
  const std::size_t cut = end - 1;
  f.tile_ids.resize(cut);
  f.keys.resize(cut);
  f.ids.resize(cut);
  f.counters.num_records = f.counters.first_unfit = std::uint32_t(cut);
  const td::SortedRecords s2 = td::reference_sort({f.tile_ids.data(), f.keys.data(), f.ids.data(), cut},
                                                  f.constants.tiles_x * f.constants.tiles_y, true);
  f.sorted_keys = s2.keys;
  f.sorted_ids = s2.ids;
  f.offsets = s2.offsets;
  EXPECT_FALSE(td::verify_frame(f).ok);
}

TEST(DemoCore, OptionsParse) {
  auto parse = [](std::vector<std::string> args, td::Options* o, std::string* e) {
    std::vector<char*> argv = {const_cast<char*>("tilesort-demo")};
    for (auto& a : args) argv.push_back(a.data());
    return td::parse_options(int(argv.size()), argv.data(), o, e);
  };
  td::Options o;
  std::string e;
  ASSERT_TRUE(parse({"--headless", "--cpu", "--frames", "3", "--particles", "20000", "--tile", "8", "--size",
                     "640x360", "--no-sort", "--out", "/tmp/x.ppm"},
                    &o, &e))
      << e;
  EXPECT_TRUE(o.headless);
  EXPECT_TRUE(o.cpu);
  EXPECT_EQ(o.frames, 3u);
  EXPECT_EQ(o.particles, 20000u);
  EXPECT_EQ(o.tile_size, 8u);
  EXPECT_EQ(o.width, 640u);
  EXPECT_EQ(o.height, 360u);
  EXPECT_FALSE(o.sort);
  EXPECT_EQ(o.out, "/tmp/x.ppm");
  td::Options shot;
  std::string shot_error;
  ASSERT_TRUE(parse({"--window", "--frames", "5", "--screenshot", "/tmp/s.ppm"}, &shot, &shot_error)) << shot_error;
  EXPECT_EQ(shot.screenshot, "/tmp/s.ppm");
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--tile", "12"},
                                                               {"--frames"},
                                                               {"--frames", "x"},
                                                               {"--size", "10x10"},
                                                               {"--headless", "--window"},
                                                               {"--cpu", "--gpu"},
                                                               {"--particles", "100", "--max-particles", "10"},
                                                               {"--screenshot", "/tmp/s.ppm"},
                                                               {"--headless", "--frames", "3", "--screenshot", "s"},
                                                               {"--bogus"}}) {
    td::Options b;
    std::string err;
    EXPECT_FALSE(parse(bad, &b, &err)) << bad[0];
    EXPECT_FALSE(err.empty()) << bad[0];
  }
}

TEST(DemoCore, PpmRoundTrip) {
  const std::uint32_t w = 5, h = 3, pitch = w * 4 + 8;  // padded rows
  std::vector<std::uint8_t> rgba(std::size_t(pitch) * h, 0xEE);
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) rgba[y * pitch + x * 4 + c] = std::uint8_t(10 * y + x + 100 * (c == 1));
  const std::string path = ::testing::TempDir() + "tilesort_demo_test.ppm";
  std::string error;
  ASSERT_TRUE(td::write_ppm(path, w, h, rgba.data(), pitch, &error)) << error;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<char> data(256);
  data.resize(std::fread(data.data(), 1, data.size(), f));
  std::fclose(f);
  std::remove(path.c_str());
  const std::string header = "P6\n5 3\n255\n";
  ASSERT_EQ(data.size(), header.size() + w * h * 3);
  EXPECT_EQ(std::string(data.begin(), data.begin() + header.size()), header);
  const auto* px = reinterpret_cast<const std::uint8_t*>(data.data() + header.size());
  EXPECT_EQ(px[(2 * w + 4) * 3 + 0], 24);   // R of (4, 2)
  EXPECT_EQ(px[(2 * w + 4) * 3 + 1], 124);  // G
  EXPECT_FALSE(td::write_ppm("/nonexistent-dir/x.ppm", w, h, rgba.data(), pitch, &error));
}

TEST(DemoCore, Median) {
  EXPECT_EQ(td::median({}), 0.0);
  EXPECT_EQ(td::median({3.0}), 3.0);
  EXPECT_EQ(td::median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(td::median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(DemoCore, OrbitCameraIsOrthonormalAndLooksAtTheOrigin) {
  td::FrameConstants c;
  td::orbit_camera(0.7f, 0.3f, 8.0f, &c);
  auto dot = [](const td::vec4& a, const td::vec4& b) { return a.x * b.x + a.y * b.y + a.z * b.z; };
  EXPECT_NEAR(dot(c.cam_right, c.cam_right), 1.0f, 1e-5f);
  EXPECT_NEAR(dot(c.cam_up, c.cam_up), 1.0f, 1e-5f);
  EXPECT_NEAR(dot(c.cam_forward, c.cam_forward), 1.0f, 1e-5f);
  EXPECT_NEAR(dot(c.cam_right, c.cam_up), 0.0f, 1e-5f);
  EXPECT_NEAR(dot(c.cam_right, c.cam_forward), 0.0f, 1e-5f);
  EXPECT_GT(c.cam_up.y, 0.0f);  // world up stays up
  EXPECT_NEAR(dot(c.cam_pos, c.cam_forward), -8.0f, 1e-4f);  // the origin is 8 units ahead
}

TEST(DemoCore, ImageCheckComparesThePictureWithTheSortedLists) {
  td::FrameReadback f = synthetic_frame(tstest::test_seed(), 3000);
  const td::FrameConstants& c = f.constants;
  for (std::uint32_t i = 0; i < f.splats.size(); ++i)  // distinct colours, opacity 0xE0 / 255
    f.splats[i].info.x = 0xE0000000u | ((i * 2654435761u) & 0x00FFFFFFu);
  f.image.assign(std::size_t(c.width) * c.height * 4, 0);
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  for (std::uint32_t t = 0; t < num_tiles; ++t)
    td::composite_tile(c, f.splats, f.sorted_ids.data(), f.offsets.data(), t, f.image.data());
  td::VerifyResult r = td::verify_frame(f);
  ASSERT_TRUE(r.ok) << r.summary();
  EXPECT_GT(r.image_pixels, 0u);
  EXPECT_EQ(r.image_max_diff, 0);

  // The fullest checked tile, composited in reverse (back to front in the
  // wrong direction): the check must see it.
  std::uint32_t worst = 0;
  for (std::uint32_t t = 0; t < num_tiles; t += 7)
    if (f.offsets[t + 1] - f.offsets[t] > f.offsets[worst + 1] - f.offsets[worst]) worst = t;
  ASSERT_GT(f.offsets[worst + 1] - f.offsets[worst], 20u);
  std::vector<std::uint32_t> reversed = f.sorted_ids;
  std::reverse(reversed.begin() + f.offsets[worst], reversed.begin() + f.offsets[worst + 1]);
  td::composite_tile(c, f.splats, reversed.data(), f.offsets.data(), worst, f.image.data());
  const td::ImageCheck check = td::check_image(f, 7);
  EXPECT_GT(check.mismatches, 8u);
  r = td::verify_frame(f);
  EXPECT_FALSE(r.ok) << r.summary();

  // A wrong image size is an error, not a crash.
  f.image.resize(16);
  EXPECT_FALSE(td::verify_frame(f).ok);
}
