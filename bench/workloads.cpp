// Workload generators. See workloads.hpp and ANCHORS.md ("Workloads").
//
// Randomness comes from SplitMix64 and hand-written transforms (Box-Muller,
// exp) rather than <random> distributions, whose output the C++ standard
// leaves implementation-defined: the same seed must give the same workload
// with any standard library.
#include "workloads.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "parallel.hpp"

namespace bench {
namespace {

// ---- fixed-S -------------------------------------------------------------
constexpr std::uint32_t kFixedItems = 1u << 24;
constexpr std::array<std::uint32_t, 8> kFixedSegmentSizes = {16,    64,    256,    1024,
                                                             4096,  16384, 65536,  1048576};

// ---- tiles16-* -----------------------------------------------------------
constexpr double kScreenWidth = 1920.0;
constexpr double kScreenHeight = 1080.0;
constexpr double kTilePixels = 16.0;
constexpr std::uint32_t kTilesX = 120;  // ceil(1920 / 16)
constexpr std::uint32_t kTilesY = 68;   // ceil(1080 / 16): the last row is half on screen
constexpr std::uint32_t kTileCount = kTilesX * kTilesY;  // 8160 segments

struct Cluster {
  double centre_x, centre_y, sigma;
};
constexpr std::array<Cluster, 4> kClusters = {{
    {960.0, 540.0, 300.0},
    {500.0, 300.0, 120.0},
    {1400.0, 700.0, 200.0},
    {900.0, 900.0, 80.0},
}};
constexpr double kRadiusLogMu = 1.5;     // log-normal radius, pixels
constexpr double kRadiusLogSigma = 0.9;
constexpr double kRadiusCap = 200.0;
// "1M" / "4M" particles: decimal millions. These give ANCHORS' 4.13M / 16.5M
// pairs (2^20 / 2^22 particles would give about 5% more).
constexpr std::uint32_t kParticles1M = 1000000;
constexpr std::uint32_t kParticles4M = 4000000;

// ---- powerlaw ------------------------------------------------------------
constexpr std::uint32_t kPowerlawItems = 1u << 24;
constexpr std::uint32_t kPowerlawMaxSegment = 65536;

// ---- seeds ---------------------------------------------------------------
constexpr std::uint64_t kTilesSeed = 0x7469'6c65'7331'36ull;     // "tiles16"
// The powerlaw seed is the first that gives ANCHORS' 2,896 segments (any seed
// draws from the same distribution; the count is 2,839 +- 114), so the rows
// line up with ANCHORS' table.
constexpr std::uint64_t kPowerlawSeed = 74;

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix64(state_ += kGolden); }
  /// Uniform in the open interval (0, 1): safe to take the log of.
  double uniform_open() {
    constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
    return (static_cast<double>(next() >> 11) + 0.5) * kTwoPowMinus53;
  }
  /// Uniform integer in [0, n) (multiply-shift; bias < n / 2^32, negligible).
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);
  }
  /// Standard normal, Box-Muller (one of the pair; simplicity over speed).
  double normal() {
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = uniform_open();
    const double u2 = uniform_open();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }

 private:
  std::uint64_t state_;
};

/// Offsets for segments of the lengths `next_length()` draws, until `items`
/// items; the last segment is trimmed to fit.
template <class NextLength>
std::vector<std::uint32_t> fill_offsets(std::uint32_t items, NextLength next_length) {
  std::vector<std::uint32_t> offsets{0};
  std::uint32_t total = 0;
  while (total < items) {
    const std::uint32_t length = std::min<std::uint32_t>(next_length(), items - total);
    total += length;
    offsets.push_back(total);
  }
  return offsets;
}

std::string describe_lengths(const Workload& w) {
  char note[160];
  std::snprintf(note, sizeof note, "%u segments, mean %.1f, longest %u", w.segments(),
                w.segments() != 0 ? double(w.items()) / w.segments() : 0.0, max_segment_items(w));
  return note;
}

/// FNV-1a: a string hash that, unlike std::hash, is the same everywhere.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// ---- --segments parsing ---------------------------------------------------------

[[noreturn]] void bad_spec(const std::string& text, const std::string& why) {
  throw std::invalid_argument("--segments '" + text + "': " + why);
}

std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin));
    if (colon == std::string::npos) return parts;
    begin = colon + 1;
  }
}

double parse_real(const std::string& spec, const std::string& what, const std::string& field) {
  char* end = nullptr;
  const double v = field.empty() ? 0.0 : std::strtod(field.c_str(), &end);
  if (field.empty() || end != field.c_str() + field.size() || !std::isfinite(v))
    bad_spec(spec, what + " must be a number, got '" + field + "'");
  return v;
}

std::uint32_t parse_length(const std::string& spec, const std::string& what, const std::string& field,
                           std::uint32_t min) {
  const bool digits = !field.empty() && field.size() <= 10 &&
                      std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
  const unsigned long long v = digits ? std::strtoull(field.c_str(), nullptr, 10) : 0;
  if (!digits || v > 0xFFFFFFFFull) bad_spec(spec, what + " must be an integer below 2^32, got '" + field + "'");
  if (v < min) bad_spec(spec, what + " must be at least " + std::to_string(min) + ", got " + field);
  return static_cast<std::uint32_t>(v);
}

}  // namespace

Workload make_fixed_workload(std::uint32_t segment_items, std::uint32_t items) {
  if (segment_items == 0 || segment_items > items)
    throw std::invalid_argument("fixed segments of " + std::to_string(segment_items) + " need 1 <= S <= " +
                                std::to_string(items) + " (the item count)");
  Workload w;
  w.name = "fixed-" + std::to_string(segment_items);
  const std::uint32_t segments = items / segment_items;
  w.offsets.resize(std::size_t{segments} + 1);
  for (std::uint32_t s = 0; s <= segments; ++s) w.offsets[s] = s * segment_items;
  return w;
}

SegmentSpec parse_segment_spec(const std::string& text) {
  const std::vector<std::string> f = split_colons(text);
  SegmentSpec spec;
  spec.text = text;
  auto want = [&](std::size_t lo, std::size_t hi, const char* form) {
    if (f.size() - 1 < lo || f.size() - 1 > hi) bad_spec(text, std::string("expected ") + form);
  };
  const std::string& kind = f[0];
  if (kind == "fixed") {
    want(1, 1, "fixed:S");
    spec.kind = SegmentSpec::Kind::fixed;
    spec.p1 = parse_length(text, "S", f[1], 1);
  } else if (kind == "uniform" || kind == "loguniform") {
    const bool log = kind == "loguniform";
    want(2, 2, log ? "loguniform:LO:HI" : "uniform:LO:HI");
    spec.kind = log ? SegmentSpec::Kind::loguniform : SegmentSpec::Kind::uniform;
    spec.p1 = parse_length(text, "LO", f[1], log ? 1 : 0);
    spec.p2 = parse_length(text, "HI", f[2], std::max<std::uint32_t>(1, static_cast<std::uint32_t>(spec.p1)));
  } else if (kind == "pareto") {
    want(2, 2, "pareto:ALPHA:MAX");
    spec.kind = SegmentSpec::Kind::pareto;
    spec.p1 = parse_real(text, "ALPHA", f[1]);
    if (spec.p1 <= 0.0) bad_spec(text, "ALPHA must be > 0");
    spec.p2 = parse_length(text, "MAX", f[2], 1);
  } else if (kind == "lognormal") {
    want(2, 3, "lognormal:MU:SIGMA[:MAX]");
    spec.kind = SegmentSpec::Kind::lognormal;
    spec.p1 = parse_real(text, "MU", f[1]);
    spec.p2 = parse_real(text, "SIGMA", f[2]);
    if (spec.p2 < 0.0) bad_spec(text, "SIGMA must be >= 0");
    if (spec.p1 > 30.0 || spec.p1 + 10.0 * spec.p2 > 700.0) bad_spec(text, "MU / SIGMA too large for 32-bit lengths");
    if (f.size() == 4) spec.max = parse_length(text, "MAX", f[3], 1);
  } else {
    bad_spec(text, "unknown distribution '" + kind +
                       "' (fixed:S, uniform:LO:HI, loguniform:LO:HI, pareto:ALPHA:MAX, lognormal:MU:SIGMA[:MAX])");
  }
  return spec;
}

Workload make_spec_workload(const SegmentSpec& spec, std::uint32_t items, std::uint64_t seed) {
  if (items == 0) throw std::invalid_argument("--items must be at least 1");
  Workload w;
  if (spec.kind == SegmentSpec::Kind::fixed) {
    w = make_fixed_workload(static_cast<std::uint32_t>(spec.p1), items);
  } else {
    // Each spec draws from its own stream of the seed, so two specs in one
    // run are independent.
    SplitMix64 rng(mix64(seed) ^ fnv1a(spec.text));
    const auto lo = static_cast<std::uint32_t>(spec.p1);
    const auto hi = static_cast<std::uint32_t>(spec.p2);
    switch (spec.kind) {
      case SegmentSpec::Kind::uniform:
        w.offsets = fill_offsets(items, [&] {
          return lo + static_cast<std::uint32_t>((rng.next() >> 11) % (std::uint64_t{hi} - lo + 1));
        });
        break;
      case SegmentSpec::Kind::loguniform: {
        // floor(exp(u)) for u uniform over [ln LO, ln(HI + 1)): every integer
        // in [LO, HI] has probability proportional to ln((x + 1) / x).
        const double a = std::log(double(lo)), b = std::log(double(hi) + 1.0);
        w.offsets = fill_offsets(items, [&] {
          const double x = std::floor(std::exp(a + (b - a) * rng.uniform_open()));
          return std::clamp<std::uint32_t>(static_cast<std::uint32_t>(x), lo, hi);
        });
        break;
      }
      case SegmentSpec::Kind::pareto: {
        // Inverse CDF of the Pareto law (minimum 1, shape alpha) truncated to
        // [1, MAX + 1), floored: lengths 1..MAX, P(L >= x) ~ x^-alpha.
        const double alpha = spec.p1, tail = std::pow(double(hi) + 1.0, -alpha);
        w.offsets = fill_offsets(items, [&] {
          const double x = std::pow(1.0 - rng.uniform_open() * (1.0 - tail), -1.0 / alpha);
          return std::clamp<std::uint32_t>(static_cast<std::uint32_t>(std::floor(x)), 1, hi);
        });
        break;
      }
      case SegmentSpec::Kind::lognormal: {
        const double cap = spec.max != 0 ? spec.max : items;
        w.offsets = fill_offsets(items, [&] {
          const double x = std::round(std::exp(spec.p1 + spec.p2 * rng.normal()));
          return static_cast<std::uint32_t>(std::clamp(x, 1.0, cap));
        });
        break;
      }
      case SegmentSpec::Kind::fixed: break;
    }
  }
  w.name = spec.text;
  w.key_seed = mix64(kDefaultKeySeed ^ mix64(seed));
  char head[96];
  std::snprintf(head, sizeof head, "--segments %s, seed %llu: ", spec.text.c_str(),
                static_cast<unsigned long long>(seed));
  w.note = head + describe_lengths(w);
  return w;
}

std::vector<std::uint32_t> sweep_segment_sizes(std::uint32_t max_size) {
  std::vector<std::uint32_t> sizes;
  for (std::uint64_t power = 1; power <= max_size; power *= 2)
    for (std::uint64_t quarters : {4, 5, 6, 7}) {
      const std::uint64_t s = (power * quarters + 2) / 4;  // nearest, halves up
      if (s <= max_size && (sizes.empty() || s > sizes.back())) sizes.push_back(static_cast<std::uint32_t>(s));
    }
  return sizes;
}

std::uint32_t next_power_of_two(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

namespace {

Workload make_fixed(std::uint32_t segment_items) { return make_fixed_workload(segment_items, kFixedItems); }

/// Inclusive tile range a particle's square footprint covers; empty when it
/// lies entirely off screen.
struct TileRect {
  std::uint16_t x0, x1, y0, y1;
  bool empty() const { return x0 > x1; }
  std::uint32_t tiles() const { return empty() ? 0u : std::uint32_t(x1 - x0 + 1) * (y1 - y0 + 1); }
};

TileRect footprint(double x, double y, double r) {
  // Clip the footprint [x-r, x+r] x [y-r, y+r] to the screen [0,W) x [0,H),
  // then take the tiles it overlaps.
  const double left = std::max(x - r, 0.0), right = std::min(x + r, kScreenWidth);
  const double top = std::max(y - r, 0.0), bottom = std::min(y + r, kScreenHeight);
  if (left >= kScreenWidth || right < 0.0 || top >= kScreenHeight || bottom < 0.0 || left > right ||
      top > bottom)
    return TileRect{1, 0, 1, 0};
  auto tile = [](double pixel, std::uint32_t tiles) {
    return static_cast<std::uint16_t>(std::min<double>(std::floor(pixel / kTilePixels), tiles - 1));
  };
  return TileRect{tile(left, kTilesX), tile(right, kTilesX), tile(top, kTilesY), tile(bottom, kTilesY)};
}

Workload make_tiles(const std::string& name, std::uint32_t particles) {
  // Pass 1: place particles (sequential RNG: deterministic) and count the
  // pairs each tile receives.
  SplitMix64 rng(kTilesSeed ^ particles);
  std::vector<TileRect> rects(particles);
  std::vector<std::uint64_t> tile_counts(kTileCount, 0);
  std::uint32_t off_screen = 0;
  for (std::uint32_t p = 0; p < particles; ++p) {
    const Cluster& c = kClusters[rng.below(static_cast<std::uint32_t>(kClusters.size()))];
    const double x = c.centre_x + c.sigma * rng.normal();
    const double y = c.centre_y + c.sigma * rng.normal();
    const double r = std::min(std::exp(kRadiusLogMu + kRadiusLogSigma * rng.normal()), kRadiusCap);
    rects[p] = footprint(x, y, r);
    if (rects[p].empty()) {
      ++off_screen;
      continue;
    }
    for (std::uint32_t ty = rects[p].y0; ty <= rects[p].y1; ++ty)
      for (std::uint32_t tx = rects[p].x0; tx <= rects[p].x1; ++tx) ++tile_counts[ty * kTilesX + tx];
  }
  const std::uint64_t pairs = std::accumulate(tile_counts.begin(), tile_counts.end(), std::uint64_t{0});
  if (pairs >= (std::uint64_t{1} << 32)) throw std::runtime_error(name + ": more pairs than u32 offsets hold");

  Workload w;
  w.name = name;
  w.offsets.resize(kTileCount + 1);
  w.offsets[0] = 0;
  for (std::uint32_t t = 0; t < kTileCount; ++t)
    w.offsets[t + 1] = w.offsets[t] + static_cast<std::uint32_t>(tile_counts[t]);

  // Pass 2: instance particles into their tiles in particle order, as a
  // renderer's count / scan / scatter would: each segment lists its
  // particles by increasing index.
  std::vector<std::uint32_t> cursor(w.offsets.begin(), w.offsets.end() - 1);
  w.key_ids.resize(pairs);
  for (std::uint32_t p = 0; p < particles; ++p) {
    const TileRect& rect = rects[p];
    if (rect.empty()) continue;
    for (std::uint32_t ty = rect.y0; ty <= rect.y1; ++ty)
      for (std::uint32_t tx = rect.x0; tx <= rect.x1; ++tx) w.key_ids[cursor[ty * kTilesX + tx]++] = p;
  }

  const std::uint32_t empty_tiles =
      static_cast<std::uint32_t>(std::count(tile_counts.begin(), tile_counts.end(), std::uint64_t{0}));
  char note[256];
  std::snprintf(note, sizeof note,
                "%u particles, %llu pairs (%.2f per particle), mean segment %.0f, longest %u, "
                "%u empty tiles, %u particles off screen",
                particles, static_cast<unsigned long long>(pairs), double(pairs) / particles,
                double(pairs) / kTileCount, max_segment_items(w), empty_tiles, off_screen);
  w.note = note;
  return w;
}

Workload make_powerlaw() {
  SplitMix64 rng(kPowerlawSeed);
  // Log-uniform over the integers [1, 65536]: floor(exp(u * ln(65537))).
  const double log_span = std::log(static_cast<double>(kPowerlawMaxSegment) + 1.0);
  Workload w;
  w.name = "powerlaw";
  w.offsets = fill_offsets(kPowerlawItems, [&] {
    const auto length = static_cast<std::uint32_t>(std::floor(std::exp(rng.uniform_open() * log_span)));
    return std::clamp<std::uint32_t>(length, 1, kPowerlawMaxSegment);
  });
  char note[160];
  std::snprintf(note, sizeof note, "%u segments, mean %.0f, longest %u", w.segments(),
                double(w.items()) / w.segments(), max_segment_items(w));
  w.note = note;
  return w;
}

}  // namespace

const std::vector<std::string>& all_workload_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (std::uint32_t s : kFixedSegmentSizes) n.push_back("fixed-" + std::to_string(s));
    n.push_back("tiles16-1M");
    n.push_back("tiles16-4M");
    n.push_back("powerlaw");
    return n;
  }();
  return names;
}

Workload make_workload(const std::string& name) {
  for (std::uint32_t s : kFixedSegmentSizes)
    if (name == "fixed-" + std::to_string(s)) return make_fixed(s);
  if (name == "tiles16-1M") return make_tiles(name, kParticles1M);
  if (name == "tiles16-4M") return make_tiles(name, kParticles4M);
  if (name == "powerlaw") return make_powerlaw();
  throw std::invalid_argument("unknown workload '" + name + "'");
}

std::uint32_t max_segment_items(const Workload& workload) {
  std::uint32_t longest = 0;
  for (std::size_t s = 0; s + 1 < workload.offsets.size(); ++s)
    longest = std::max(longest, workload.offsets[s + 1] - workload.offsets[s]);
  return longest;
}

constexpr std::uint64_t kZeroKeySalt = 0x5a17u;

void generate_keys(const Workload& workload, KeyKind key, void* out, int end_bit) {
  if (end_bit >= 0 && (key != KeyKind::u32 || end_bit > 32))
    throw std::invalid_argument("a key bit range is generated for u32 keys only, up to 32 bits");
  std::uint32_t mask = end_bit < 0 || end_bit >= 32 ? 0xFFFFFFFFu : (1u << end_bit) - 1u;
  std::uint64_t mask64 = ~0ull;
  if (workload.key_bits >= 0 && workload.key_bits < 64) {
    mask64 = (std::uint64_t(1) << workload.key_bits) - 1u;
    mask &= static_cast<std::uint32_t>(mask64);
  }
  const std::size_t n = workload.items();
  const std::uint32_t* ids = workload.key_ids.empty() ? nullptr : workload.key_ids.data();
  const std::uint64_t seed = workload.key_seed;
  parallel_for(n, balanced_grain(n), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t h = mix64(seed + kGolden * (ids ? ids[i] : i));
      // A second hash picks the zero keys, so that the others stay as random as before.
      if (workload.zero_key_percent > 0 &&
          mix64(h ^ kZeroKeySalt) % 100u < static_cast<std::uint64_t>(workload.zero_key_percent)) {
        switch (key) {
          case KeyKind::u32: static_cast<std::uint32_t*>(out)[i] = 0u; break;
          case KeyKind::u64: static_cast<std::uint64_t*>(out)[i] = 0u; break;
          case KeyKind::f32: static_cast<float*>(out)[i] = 0.0f; break;
          case KeyKind::f64: static_cast<double*>(out)[i] = 0.0; break;
        }
        continue;
      }
      switch (key) {
        case KeyKind::u32:
          static_cast<std::uint32_t*>(out)[i] = static_cast<std::uint32_t>(h >> 32) & mask;
          break;
        case KeyKind::u64:
          static_cast<std::uint64_t*>(out)[i] = h & mask64;
          break;
        case KeyKind::f32: {
          // Depth-like keys uniform in [-kRange, kRange) on a grid of 2^24
          // values: both signs (to exercise sign handling), never NaN, inf,
          // -0.0 or denormal, so every correct sort gives one bit pattern.
          constexpr float kRange = 1024.0f;      // a power of two: scaling is exact
          constexpr float kGrid = 16777216.0f;   // 2^24
          const float unit = static_cast<float>(h >> 40) / kGrid;  // [0, 1)
          static_cast<float*>(out)[i] = (2.0f * unit - 1.0f) * kRange;
          break;
        }
        case KeyKind::f64: {
          // As f32, on a grid of 2^53 values.
          constexpr double kRange = 1024.0;
          constexpr double kGrid = 9007199254740992.0;  // 2^53
          const double unit = static_cast<double>(h >> 11) / kGrid;
          static_cast<double*>(out)[i] = (2.0 * unit - 1.0) * kRange;
          break;
        }
      }
    }
  });
}

}  // namespace bench
