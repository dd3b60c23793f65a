// Device API tests: block::BlockRadixSort8 inside test kernels, against a
// CPU reference: std::stable_sort of each tile's valid prefix by the compared
// bits [begin_bit, end_bit) of the encoded key (KeyCodec, the same encoding
// the device uses), cross-checked for full ranges against the library's
// reference (reference.hpp), which orders floats from first principles.
//
// Every test skips visibly without a CUDA device. Tests named *Sanitizer*
// are the small subset for compute-sanitizer memcheck / racecheck / synccheck.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "block_test_util.hpp"
#include "gpu_test_util.hpp"
#include "reference.hpp"
#include "tilesort/block/block_radix_sort.cuh"
#include "tilesort/warp/warp_match.cuh"

namespace {

using tilesort::KeysOnly;
using tilesort::block::Arrangement;
using tilesort::block::BlockRadixSort8;
using tilesort::block::RadixMatch;
using tstest::DeviceBuffer;
using tstest::Dist;
using tstest::KeyType;
using tstest::Order;
using tstest::Rng;

using tilesort::key_type_of;  // C++ key type -> KeyType (segmented_sort.hpp)

using tstest::download;
using tstest::HostValue;
using tstest::kWithValues;
using tstest::upload;

// The header's shared-memory figures (block_radix_sort.cuh, docs/device_api.md).
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 256, 16>::TempStorage) == 43040, "");
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 512, 16>::TempStorage) == 85056, "");
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 1024, 16>::TempStorage) == 169088, "");
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 1024, 23>::TempStorage) == 228224, "");
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 1024, 24>::TempStorage) > 232448, "");
static_assert(sizeof(BlockRadixSort8<std::uint32_t, std::uint32_t, 512, 50>::TempStorage) == 228672, "");

/// Tile position of register r of thread t (written here independently of
/// the header) in a tile of n valid items; -1 where the register holds none
/// (warp_spread registers from ceil(n / T) on).
template <Arrangement A, int T, int I>
__host__ __device__ int position_of(int t, int r, int n = T * I) {
  if (A == Arrangement::blocked) return t * I + r;
  if (A == Arrangement::striped) return r * T + t;
  const int lane_items = A == Arrangement::warp_spread ? (n + T - 1) / T : I;
  if (r >= lane_items) return -1;
  return (t / 32) * (32 * lane_items) + r * 32 + t % 32;
}

/// How the kernel calls the sort: the arrangement-named wrappers (Sort,
/// SortBlockedToStriped, else SortArranged), or SortEncoded on keys the
/// kernel encodes itself.
enum class Api { typed, encoded };

template <class K, class V, int T, int I, Arrangement IN, Arrangement OUT, RadixMatch M, Api API>
__global__ void __launch_bounds__(T) radix_kernel(const K* in_keys, const HostValue<V>* in_values, K* out_keys,
                                                  HostValue<V>* out_values, const int* valid, Order order,
                                                  int begin_bit, int end_bit) {
  using Sort = BlockRadixSort8<K, V, T, I, M>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const std::size_t tile = std::size_t(blockIdx.x) * Sort::kTileItems;
  const int t = int(threadIdx.x);
  const int n = valid[blockIdx.x];
  K key[I];
  HostValue<V> value[I];
#pragma unroll
  for (int r = 0; r < I; ++r) {
    // Slots past the valid prefix hold junk the sort must ignore; so do the
    // registers a warp_spread tile leaves empty.
    const int p = position_of<IN, T, I>(t, r, n);
    key[r] = in_keys[tile + (p < 0 ? (r * 7919 + t) % Sort::kTileItems : p)];
    if constexpr (kWithValues<V>) value[r] = in_values[tile + (p < 0 ? 0 : p)];
  }
  if constexpr (API == Api::encoded) {
    using Bits = typename Sort::Bits;
    const auto codec = tilesort::codec_for<K>(order == Order::descending);
    Bits bits[I];
#pragma unroll
    for (int r = 0; r < I; ++r) bits[r] = codec.encode(tilesort::bit_cast_to<Bits>(key[r]));
    if constexpr (kWithValues<V>) Sort(temp).template SortEncoded<IN, OUT>(bits, value, n, begin_bit, end_bit);
    else Sort(temp).template SortEncoded<IN, OUT>(bits, n, begin_bit, end_bit);
#pragma unroll
    for (int r = 0; r < I; ++r) key[r] = tilesort::bit_cast_to<K>(codec.decode(bits[r]));
  } else if constexpr (IN == Arrangement::blocked && OUT == Arrangement::blocked) {
    if constexpr (kWithValues<V>) Sort(temp).Sort(key, value, n, order, begin_bit, end_bit);
    else Sort(temp).Sort(key, n, order, begin_bit, end_bit);
  } else if constexpr (IN == Arrangement::blocked && OUT == Arrangement::striped) {
    if constexpr (kWithValues<V>) Sort(temp).SortBlockedToStriped(key, value, n, order, begin_bit, end_bit);
    else Sort(temp).SortBlockedToStriped(key, n, order, begin_bit, end_bit);
  } else {
    if constexpr (kWithValues<V>) Sort(temp).template SortArranged<IN, OUT>(key, value, n, order, begin_bit, end_bit);
    else Sort(temp).template SortArranged<IN, OUT>(key, n, order, begin_bit, end_bit);
  }
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = position_of<OUT, T, I>(t, r);
    if (rank < n) {
      out_keys[tile + rank] = key[r];
      if constexpr (kWithValues<V>) out_values[tile + rank] = value[r];
    }
  }
}

/// The cluster form: the C CTAs of each cluster sort one tile of C x T x I
/// items; CTA c (cooperative_groups' block rank, independent of the
/// header's) loads and stores cluster positions [c, c + 1) x T x I.
template <class K, class V, int T, int I, int C, Arrangement IN, Arrangement OUT>
__global__ void __launch_bounds__(T) radix_cluster_kernel(const K* in_keys, const HostValue<V>* in_values,
                                                          K* out_keys, HostValue<V>* out_values, const int* valid,
                                                          Order order, int begin_bit, int end_bit) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Sort = BlockRadixSort8<K, V, T, I, RadixMatch::ballot, C>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto& temp = *reinterpret_cast<typename Sort::TempStorage*>(shared_raw);
  const unsigned cta = cooperative_groups::this_cluster().block_rank();
  const std::size_t tile = std::size_t(blockIdx.x / C) * Sort::kClusterTileItems;
  const int first = int(cta) * Sort::kTileItems;
  const int t = int(threadIdx.x);
  const int n = valid[blockIdx.x / C];
  K key[I];
  HostValue<V> value[I];
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int p = first + position_of<IN, T, I>(t, r);
    key[r] = in_keys[tile + p];  // past the valid prefix: junk the sort must ignore
    if constexpr (kWithValues<V>) value[r] = in_values[tile + p];
  }
  if constexpr (kWithValues<V>) Sort(temp).template SortArranged<IN, OUT>(key, value, n, order, begin_bit, end_bit);
  else Sort(temp).template SortArranged<IN, OUT>(key, n, order, begin_bit, end_bit);
#pragma unroll
  for (int r = 0; r < I; ++r) {
    const int rank = first + position_of<OUT, T, I>(t, r);
    if (rank < n) {
      out_keys[tile + rank] = key[r];
      if constexpr (kWithValues<V>) out_values[tile + rank] = value[r];
    }
  }
#endif
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

const char* name_of(Arrangement a) {
  return a == Arrangement::blocked        ? "blocked"
         : a == Arrangement::striped      ? "striped"
         : a == Arrangement::warp_striped ? "warp_striped"
                                          : "warp_spread";
}


/// The expected result: each tile's valid prefix stably sorted by bits
/// [begin_bit, end_bit) of the encoded key.
template <class K, class V>
void expected_tiles(const std::vector<K>& keys, const std::vector<HostValue<V>>& values, const std::vector<int>& valid,
                    int tile_items, Order order, int begin_bit, int end_bit, std::vector<K>& want_keys,
                    std::vector<HostValue<V>>& want_values) {
  using Bits = typename tilesort::KeyTraits<K>::Bits;
  const auto codec = tilesort::codec_for<K>(order == Order::descending);
  const int width = end_bit - begin_bit;
  const Bits mask = width >= int(sizeof(Bits) * 8) ? Bits(~Bits(0)) : Bits((Bits(1) << width) - 1);
  want_keys = keys;
  want_values = values;
  std::vector<Bits> field;
  std::vector<std::uint32_t> idx;
  for (std::size_t b = 0; b < valid.size(); ++b) {
    const std::size_t base = b * std::size_t(tile_items);
    const int n = valid[b];
    field.resize(std::size_t(n));
    idx.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
      const Bits e = codec.encode(tilesort::bit_cast_to<Bits>(keys[base + i]));
      field[i] = width == 0 ? Bits(0) : Bits((e >> begin_bit) & mask);
      idx[i] = std::uint32_t(i);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t x, std::uint32_t y) { return field[x] < field[y]; });
    for (int i = 0; i < n; ++i) {
      want_keys[base + i] = keys[base + idx[i]];
      want_values[base + i] = values[base + idx[i]];
    }
  }
}

/// Device copies of a case's inputs; the outputs start as copies of the
/// inputs, so ranks the kernel must not write keep the input's junk.
template <class K, class V>
struct RadixBuffers {
  DeviceBuffer in_keys, in_values, out_keys, out_values, valid;

  void upload_case(const std::vector<K>& keys, const std::vector<HostValue<V>>& values,
                   const std::vector<int>& valid_counts) {
    ASSERT_NO_FATAL_FAILURE(upload(in_keys, keys));
    ASSERT_NO_FATAL_FAILURE(upload(in_values, values));
    ASSERT_NO_FATAL_FAILURE(upload(out_keys, keys));
    ASSERT_NO_FATAL_FAILURE(upload(out_values, values));
    ASSERT_NO_FATAL_FAILURE(upload(valid, valid_counts));
  }
};

/// Waits for the kernel, downloads its outputs and compares every valid
/// rank of every tile: keys bit for bit, values exactly (they are unique,
/// so stability is checked too).
template <class K, class V>
void expect_sorted_tiles(RadixBuffers<K, V>& buffers, const std::vector<int>& valid, int tile_items,
                         const std::vector<K>& want_keys, const std::vector<HostValue<V>>& want_values) {
  TS_CUDA_ASSERT(cudaGetLastError());
  TS_CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<K> got_keys(want_keys.size());
  std::vector<HostValue<V>> got_values(want_values.size());
  ASSERT_NO_FATAL_FAILURE(download(got_keys, buffers.out_keys));
  ASSERT_NO_FATAL_FAILURE(download(got_values, buffers.out_values));
  for (std::size_t b = 0; b < valid.size(); ++b) {
    for (int rank = 0; rank < valid[b]; ++rank) {
      const std::size_t i = b * std::size_t(tile_items) + std::size_t(rank);
      const bool key_ok = std::memcmp(&want_keys[i], &got_keys[i], sizeof(K)) == 0;
      const bool value_ok = !kWithValues<V> || want_values[i] == got_values[i];
      if (!key_ok || !value_ok) {
        ADD_FAILURE() << "tile " << b << " (valid " << valid[b] << "), rank " << rank << ": key "
                      << (key_ok ? "ok" : "differs") << ", value " << (value_ok ? "ok" : "differs") << "; "
                      << tstest::seed_message();
        return;
      }
    }
  }
}

/// Keys of `dist` and unique values for tiles of `tile_items`.
template <class K, class V>
void make_tiles(std::size_t tiles, int tile_items, Dist dist, Rng& rng, std::vector<K>& keys,
                std::vector<HostValue<V>>& values) {
  const std::size_t slots = tiles * std::size_t(tile_items);
  keys = tstest::generate_keys_typed<K>(dist, slots, rng);
  values.resize(slots);
  for (std::size_t i = 0; i < slots; ++i) values[i] = HostValue<V>(i * 2654435761u + 7);
}

/// Runs one configuration over tiles with the given valid counts and
/// compares every valid rank (expect_sorted_tiles).
template <class K, class V, int T, int I, Arrangement IN = Arrangement::blocked, Arrangement OUT = Arrangement::blocked,
          RadixMatch M = RadixMatch::ballot, Api API = Api::typed>
void check_radix(const std::vector<int>& valid, Order order, Dist dist, int begin_bit, int end_bit, Rng& rng) {
  using Sort = BlockRadixSort8<K, V, T, I, M>;
  constexpr int kTile = Sort::kTileItems;
  std::ostringstream what;
  what << "BlockRadixSort8<" << tstest::name_of(key_type_of<K>())
       << (kWithValues<V> ? (sizeof(V) == 8 ? ", b64" : ", b32") : ", keys") << ", " << T << "x" << I << ", "
       << (M == RadixMatch::ballot ? "ballot" : "match_any") << "> " << name_of(IN) << " -> " << name_of(OUT)
       << (API == Api::encoded ? " (SortEncoded)" : "") << " " << tstest::name_of(order) << " "
       << tstest::name_of(dist) << " bits [" << begin_bit << ", " << end_bit << ")";
  SCOPED_TRACE(what.str());

  const std::size_t slots = valid.size() * std::size_t(kTile);
  std::vector<K> keys, want_keys;
  std::vector<HostValue<V>> values, want_values;
  make_tiles<K, V>(valid.size(), kTile, dist, rng, keys, values);
  expected_tiles<K, V>(keys, values, valid, kTile, order, begin_bit, end_bit, want_keys, want_values);

  if (begin_bit == 0 && end_bit == int(sizeof(K) * 8)) {
    // Full range: the encoded-bits reference must agree with reference.hpp's
    // (NaNs last, -0.0 before +0.0, descending).
    std::vector<K> ref_keys = keys;
    std::vector<HostValue<V>> ref_values = values;
    for (std::size_t b = 0; b < valid.size(); ++b) {
      const std::vector<std::uint64_t> offsets = {b * kTile, b * kTile + std::size_t(valid[b])};
      tstest::reference_segmented_sort(key_type_of<K>(), order, 0, int(sizeof(K) * 8),
                                       reinterpret_cast<unsigned char*>(ref_keys.data()), sizeof(HostValue<V>),
                                       reinterpret_cast<unsigned char*>(ref_values.data()), offsets);
    }
    ASSERT_EQ(std::memcmp(ref_keys.data(), want_keys.data(), slots * sizeof(K)), 0) << "reference disagreement";
    ASSERT_TRUE(ref_values == want_values) << "reference disagreement";
  }

  RadixBuffers<K, V> d;
  ASSERT_NO_FATAL_FAILURE(d.upload_case(keys, values, valid));
  const auto kernel = radix_kernel<K, V, T, I, IN, OUT, M, API>;
  constexpr int kSmem = int(sizeof(typename Sort::TempStorage));
  TS_CUDA_ASSERT(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  if (!valid.empty()) {
    kernel<<<unsigned(valid.size()), T, kSmem>>>(d.in_keys.template as<K>(), d.in_values.template as<HostValue<V>>(),
                                                 d.out_keys.template as<K>(), d.out_values.template as<HostValue<V>>(),
                                                 d.valid.template as<int>(), order, begin_bit, end_bit);
  }
  ASSERT_NO_FATAL_FAILURE((expect_sorted_tiles<K, V>(d, valid, kTile, want_keys, want_values)));
}

/// Whether the device can launch thread-block clusters (sm_90 on).
bool cluster_launch_supported() {
  int device = 0, supported = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device) == cudaSuccess && supported != 0;
}

/// check_radix for the cluster form: tiles of C x T x I items, one cluster
/// of C CTAs each.
template <class K, class V, int T, int I, int C, Arrangement IN = Arrangement::warp_striped,
          Arrangement OUT = Arrangement::striped>
void check_radix_cluster(const std::vector<int>& valid, Order order, Dist dist, int begin_bit, int end_bit, Rng& rng) {
  using Sort = BlockRadixSort8<K, V, T, I, RadixMatch::ballot, C>;
  constexpr int kTile = Sort::kClusterTileItems;
  SCOPED_TRACE(::testing::Message() << "BlockRadixSort8<" << tstest::name_of(key_type_of<K>())
                                    << (kWithValues<V> ? ", b32" : ", keys") << ", " << T << "x" << I << ", cluster of "
                                    << C << "> " << name_of(IN) << " -> " << name_of(OUT) << " "
                                    << tstest::name_of(order) << " " << tstest::name_of(dist) << " bits ["
                                    << begin_bit << ", " << end_bit << ")");
  std::vector<K> keys, want_keys;
  std::vector<HostValue<V>> values, want_values;
  make_tiles<K, V>(valid.size(), kTile, dist, rng, keys, values);
  expected_tiles<K, V>(keys, values, valid, kTile, order, begin_bit, end_bit, want_keys, want_values);

  RadixBuffers<K, V> d;
  ASSERT_NO_FATAL_FAILURE(d.upload_case(keys, values, valid));
  const auto kernel = radix_cluster_kernel<K, V, T, I, C, IN, OUT>;
  constexpr int kSmem = int(sizeof(typename Sort::TempStorage));
  TS_CUDA_ASSERT(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  if (!valid.empty()) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(valid.size() * C));
    config.blockDim = dim3(unsigned(T));
    config.dynamicSmemBytes = kSmem;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(C);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    TS_CUDA_ASSERT(cudaLaunchKernelEx(&config, kernel, d.in_keys.template as<K>(), d.in_values.template as<HostValue<V>>(),
                                      d.out_keys.template as<K>(), d.out_values.template as<HostValue<V>>(), d.valid.template as<int>(), order,
                                      begin_bit, end_bit));
  }
  ASSERT_NO_FATAL_FAILURE((expect_sorted_tiles<K, V>(d, valid, kTile, want_keys, want_values)));
}

/// Valid counts of a cluster tile of C x T x I: its edges, every CTA
/// boundary and one past it, and random ones.
template <int T, int I, int C>
std::vector<int> cluster_valid_counts(Rng& rng) {
  constexpr int cta = T * I, tile = C * cta;
  std::vector<int> v = {tile, 0, 1, tile - 1, 33};
  for (int c = 1; c < C; ++c) v.insert(v.end(), {c * cta - 1, c * cta, c * cta + 1});
  for (int s = 0; s < 4; ++s) v.push_back(int(rng() % std::uint64_t(tile + 1)));
  return v;
}

/// Valid counts per tile of THREADS x ITEMS: the edges (0, 1, tile - 1,
/// tile), a few around a warp, around a warp's slice of the tile (32 x
/// ITEMS: warps whose slice holds only padding skip their passes), and
/// random ones.
template <int THREADS, int ITEMS>
std::vector<int> valid_counts(Rng& rng, int samples = 6) {
  constexpr int tile = THREADS * ITEMS, warp_slice = 32 * ITEMS;
  std::vector<int> v = {tile,      0,           1,          tile - 1,       31,
                        33,        tile / 2 + 1, warp_slice, warp_slice + 1, 3 * warp_slice - 1};
  for (int s = 0; s < samples; ++s) v.push_back(int(rng() % std::uint64_t(tile + 1)));
  for (int& n : v) n = std::min(n, tile);
  return v;
}

const std::vector<Dist> kTypeDists = {Dist::uniform, Dist::specials, Dist::few_unique};

template <class K, class V, int T, int I>
void check_type_full_range(Rng& rng) {
  for (Order order : {Order::ascending, Order::descending})
    for (Dist dist : kTypeDists)
      ASSERT_NO_FATAL_FAILURE(
          (check_radix<K, V, T, I>(valid_counts<T, I>(rng), order, dist, 0, int(sizeof(K) * 8), rng)));
}

template <class K, int T, int I>
void check_type_all_values(Rng& rng) {
  ASSERT_NO_FATAL_FAILURE((check_type_full_range<K, KeysOnly, T, I>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_full_range<K, std::uint32_t, T, I>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_full_range<K, std::uint64_t, T, I>(rng)));
}

/// Bit ranges of a K key: 16-bit halves, a middle byte pair, the full
/// range, 1-bit ranges at both ends and inside, a partial last digit, an
/// empty range.
template <class K>
std::vector<std::pair<int, int>> bit_ranges() {
  if (sizeof(K) == 4)
    return {{0, 16}, {8, 24}, {16, 32}, {0, 32}, {0, 1}, {31, 32}, {17, 18}, {1, 32}, {3, 14}, {5, 5}};
  return {{0, 16}, {8, 24}, {0, 64}, {0, 32}, {32, 64}, {0, 1}, {63, 64}, {40, 41}, {3, 61}, {20, 20}};
}

template <class K, class V, int T, int I, Arrangement IN, Arrangement OUT, RadixMatch M = RadixMatch::ballot>
void check_bit_ranges(const std::vector<Dist>& dists, Rng& rng) {
  for (const auto& range : bit_ranges<K>())
    for (Order order : {Order::ascending, Order::descending})
      for (Dist dist : dists)
        ASSERT_NO_FATAL_FAILURE((check_radix<K, V, T, I, IN, OUT, M>(valid_counts<T, I>(rng, 2), order, dist,
                                                                     range.first, range.second, rng)));
}

// ---------------------------------------------------------------------------
// CPU checks of the index arithmetic (detail::RadixLayout, the header's own
// functions) and a CPU model of the passes built on it
// ---------------------------------------------------------------------------

/// Most distinct words one warp instruction touches in one bank (1 = conflict free).
template <class F>
int worst_bank_load(F&& word_of_lane) {
  int bank_load[32] = {};
  int worst = 0;
  for (int lane = 0; lane < 32; ++lane) worst = std::max(worst, ++bank_load[word_of_lane(lane) % 32]);
  return worst;
}

template <int T, int I>
void check_layout() {
  using L = tilesort::block::detail::RadixLayout<T, I>;
  SCOPED_TRACE(::testing::Message() << "RadixLayout<" << T << ", " << I << ">");
  constexpr int kN = T * I;
  // Slots: padded(index_of) in closed form, a bijection onto the plane.
  for (Arrangement a : {Arrangement::blocked, Arrangement::striped, Arrangement::warp_striped}) {
    std::vector<int> seen(L::kStride, 0);
    for (int t = 0; t < T; ++t) {
      for (int r = 0; r < I; ++r) {
        const int index = a == Arrangement::blocked ? L::template index_of<Arrangement::blocked>(t, r)
                          : a == Arrangement::striped ? L::template index_of<Arrangement::striped>(t, r)
                                                      : L::template index_of<Arrangement::warp_striped>(t, r);
        const int slot = a == Arrangement::blocked ? L::template slot_of<Arrangement::blocked>(t, r)
                         : a == Arrangement::striped ? L::template slot_of<Arrangement::striped>(t, r)
                                                     : L::template slot_of<Arrangement::warp_striped>(t, r);
        ASSERT_EQ(index, (a == Arrangement::blocked ? position_of<Arrangement::blocked, T, I>(t, r)
                          : a == Arrangement::striped ? position_of<Arrangement::striped, T, I>(t, r)
                                                      : position_of<Arrangement::warp_striped, T, I>(t, r)));
        ASSERT_EQ(slot, L::padded(index)) << name_of(a) << " t " << t << " r " << r;
        ASSERT_LT(slot, L::kStride);
        ++seen[slot];
      }
    }
    int used = 0;
    for (int c : seen) { ASSERT_LE(c, 1); used += c; }
    ASSERT_EQ(used, kN);
  }
  // Conflict-free register loops (the header's claim): striped and
  // warp-striped always, blocked when ITEMS divides 32.
  for (int w = 0; w < T / 32; ++w) {
    for (int r = 0; r < I; ++r) {
      ASSERT_EQ(worst_bank_load([&](int l) { return L::template slot_of<Arrangement::striped>(32 * w + l, r); }), 1);
      ASSERT_EQ(worst_bank_load([&](int l) { return L::template slot_of<Arrangement::warp_striped>(32 * w + l, r); }), 1);
      if (32 % I == 0)
        ASSERT_EQ(worst_bank_load([&](int l) { return L::template slot_of<Arrangement::blocked>(32 * w + l, r); }), 1);
    }
  }
  // The scan visits every (digit, warp) counter once, in (digit, warp) order.
  std::vector<int> seen(256 * L::kCounterStride, 0);
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < L::kCountersPerThread; ++j) {
      const int k = t * L::kCountersPerThread + j;
      ASSERT_EQ(L::scan_base(t) + L::scan_offset(j), L::counter(k / (T / 32), k % (T / 32))) << "t " << t << " j " << j;
      ++seen[L::scan_base(t) + L::scan_offset(j)];
    }
  }
  for (int d = 0; d < 256; ++d)
    for (int w = 0; w < T / 32; ++w) ASSERT_EQ(seen[L::counter(d, w)], 1);
  // Bank loads: one warp's counters of 32 consecutive digits (the clear) are
  // conflict free; the scan's reads are conflict free at 256 and 1024
  // threads, 2-way at 512 (the header's figures).
  for (int w = 0; w < T / 32; ++w)
    for (int k = 0; k < 8; ++k) ASSERT_EQ(worst_bank_load([&](int l) { return L::counter(l + 32 * k, w); }), 1);
  int scan_worst = 0;
  for (int w = 0; w < T / 32; ++w)
    for (int j = 0; j < L::kCountersPerThread; ++j)
      scan_worst = std::max(scan_worst, worst_bank_load([&](int l) { return L::scan_base(32 * w + l) + L::scan_offset(j); }));
  if (T == 256 || T == 1024) ASSERT_EQ(scan_worst, 1);
  if (T == 512) ASSERT_EQ(scan_worst, 2);
}

/// A CPU model of sort_bits (blocked in, OUT out) on encoded 32-bit keys,
/// step by step on RadixLayout's addresses: the per-warp match ranking in
/// (register, lane) order, the counter scan in (digit, warp) order, the
/// scatter to padded ranks, values kept in their plane. Returns, per output
/// rank, the input position it holds.
template <int T, int I, Arrangement OUT>
std::vector<std::uint32_t> model_sort(const std::vector<std::uint32_t>& encoded, int valid, int begin_bit,
                                      int end_bit) {
  using L = tilesort::block::detail::RadixLayout<T, I>;
  constexpr int kW = T / 32;
  std::vector<std::uint32_t> kplane(L::kStride), vplane(L::kStride), counters(256 * L::kCounterStride);
  std::vector<std::uint32_t> key(T * I), value(T * I), item(T * I);  // registers [t * I + r]
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < I; ++r) {
      const int p = L::template index_of<Arrangement::blocked>(t, r);
      key[t * I + r] = p < valid ? encoded[p] : ~0u;
      vplane[L::template slot_of<Arrangement::blocked>(t, r)] = std::uint32_t(p);  // the value: its position
      kplane[L::template slot_of<Arrangement::blocked>(t, r)] = key[t * I + r];
    }
  }
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < I; ++r) key[t * I + r] = kplane[L::template slot_of<Arrangement::warp_striped>(t, r)];
  for (int shift = begin_bit; shift < end_bit; shift += 8) {
    const int bits = std::min(8, end_bit - shift);
    const std::uint32_t mask = (1u << bits) - 1u;
    std::fill(counters.begin(), counters.end(), 0u);
    for (int w = 0; w < kW; ++w) {
      for (int r = 0; r < I; ++r) {
        std::uint32_t d[32], before[32], peers[32];
        for (int l = 0; l < 32; ++l) d[l] = (key[(32 * w + l) * I + r] >> shift) & mask;
        for (int l = 0; l < 32; ++l) {
          peers[l] = 0;
          for (int m = 0; m < 32; ++m) peers[l] |= (d[m] == d[l] ? 1u : 0u) << m;
          before[l] = counters[L::counter(int(d[l]), w)];
        }
        for (int l = 0; l < 32; ++l) {
          const std::uint32_t lower = std::uint32_t(__builtin_popcount(peers[l] & ((1u << l) - 1u)));
          if (lower == 0) counters[L::counter(int(d[l]), w)] = before[l] + std::uint32_t(__builtin_popcount(peers[l]));
          item[(32 * w + l) * I + r] = (d[l] << 16) | (before[l] + lower);
        }
      }
    }
    std::uint32_t running = 0;  // the scan, thread by thread (what the warp scans add up to)
    for (int t = 0; t < T; ++t) {
      for (int j = 0; j < L::kCountersPerThread; ++j) {
        std::uint32_t& c = counters[L::scan_base(t) + L::scan_offset(j)];
        const std::uint32_t n = c;
        c = running;
        running += n;
      }
    }
    std::vector<std::uint32_t> vregs(T * I);
    for (int t = 0; t < T; ++t) {
      for (int r = 0; r < I; ++r) {
        std::uint32_t& it = item[t * I + r];
        it = counters[L::counter(int(it >> 16), t / 32)] + (it & 0xFFFFu);
        kplane[L::padded(int(it))] = key[t * I + r];
        vregs[t * I + r] = vplane[L::template slot_of<Arrangement::warp_striped>(t, r)];
      }
    }
    for (int t = 0; t < T; ++t)
      for (int r = 0; r < I; ++r) vplane[L::padded(int(item[t * I + r]))] = vregs[t * I + r];
    for (int t = 0; t < T; ++t)
      for (int r = 0; r < I; ++r) key[t * I + r] = kplane[L::template slot_of<Arrangement::warp_striped>(t, r)];
  }
  std::vector<std::uint32_t> out(T * I);
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < I; ++r)
      out[L::template index_of<OUT>(t, r)] = vplane[L::template slot_of<OUT>(t, r)];
  return out;
}

template <int T, int I, Arrangement OUT>
void check_model(Rng& rng) {
  SCOPED_TRACE(::testing::Message() << "model " << T << "x" << I << " -> " << name_of(OUT));
  constexpr int kN = T * I;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<std::uint32_t> enc(kN);
    const int kind = trial % 3;
    for (auto& e : enc) e = kind == 0 ? std::uint32_t(rng()) : kind == 1 ? std::uint32_t(rng() % 5) : 7u;
    const int valid = trial < 3 ? kN : int(rng() % std::uint64_t(kN + 1));
    for (const auto& range : {std::make_pair(0, 32), std::make_pair(0, 16), std::make_pair(3, 14), std::make_pair(31, 32)}) {
      const std::uint32_t mask = range.second - range.first >= 32 ? ~0u : (1u << (range.second - range.first)) - 1u;
      std::vector<std::uint32_t> want(valid);
      std::iota(want.begin(), want.end(), 0u);
      std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
        return ((enc[a] >> range.first) & mask) < ((enc[b] >> range.first) & mask);
      });
      const std::vector<std::uint32_t> got = model_sort<T, I, OUT>(enc, valid, range.first, range.second);
      for (int i = 0; i < valid; ++i)
        ASSERT_EQ(got[i], want[i]) << "rank " << i << " bits [" << range.first << ", " << range.second << ") valid "
                                   << valid << "; " << tstest::seed_message();
    }
  }
}

}  // namespace

// CPU only: the index arithmetic and a model of the passes (runs everywhere).
TEST(BlockRadixLayoutHost, SlotsScanAndBanks) {
  check_layout<32, 1>();
  check_layout<64, 3>();
  check_layout<128, 4>();
  check_layout<256, 16>();
  check_layout<512, 8>();
  check_layout<512, 16>();
  check_layout<512, 32>();
  check_layout<1024, 16>();
  check_layout<1024, 23>();
}
TEST(BlockRadixLayoutHost, ModelOfThePasses) {
  Rng rng(tstest::test_seed());
  check_model<256, 16, Arrangement::striped>(rng);
  check_model<512, 8, Arrangement::blocked>(rng);
  check_model<64, 3, Arrangement::warp_striped>(rng);
  check_model<1024, 4, Arrangement::striped>(rng);
}

// Every key type x {keys only, 32-bit, 64-bit values} x both orders, with
// NaNs, -0.0/+0.0 and many duplicates, full range, on a 4096-item tile.
TEST(BlockRadixSort8, AllTypesOrdersValues_256x16) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<std::uint32_t, 256, 16>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<std::int32_t, 256, 16>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<float, 256, 16>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<std::uint64_t, 256, 16>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<std::int64_t, 256, 16>(rng)));
  ASSERT_NO_FATAL_FAILURE((check_type_all_values<double, 256, 16>(rng)));
}

// Partial ranges on every key width: 2 passes, 1 pass of 1 bit, partial last
// digits, none at all; with the layouts the library would use (warp-striped
// in, striped out) and the blocked ones.
TEST(BlockRadixSort8, BitRanges) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kB = Arrangement::blocked;
  constexpr auto kS = Arrangement::striped;
  constexpr auto kW = Arrangement::warp_striped;
  const std::vector<Dist> dists = {Dist::uniform, Dist::few_unique, Dist::low16};
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<std::uint32_t, std::uint32_t, 512, 16, kW, kS>(dists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<std::int32_t, KeysOnly, 256, 16, kB, kB>(dists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<float, std::uint32_t, 256, 8, kB, kS>({Dist::specials}, rng)));
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<std::uint64_t, std::uint32_t, 256, 8, kW, kW>(dists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<std::int64_t, std::uint64_t, 128, 8, kB, kS>(dists, rng)));
  ASSERT_NO_FATAL_FAILURE((check_bit_ranges<double, KeysOnly, 128, 4, kW, kB>({Dist::specials}, rng)));
}

// The designed shapes (4096..16384 items, 256..1024 threads), the largest
// u32-pair tile, small and odd shapes, both match methods, every
// arrangement; 32-bit and 16-bit ranges.
TEST(BlockRadixSort8, Shapes) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kB = Arrangement::blocked;
  constexpr auto kS = Arrangement::striped;
  constexpr auto kW = Arrangement::warp_striped;
  constexpr auto kAny = RadixMatch::match_any;
  using u32 = std::uint32_t;
  for (Order order : {Order::ascending, Order::descending}) {
    for (int end_bit : {32, 16}) {
      SCOPED_TRACE(::testing::Message() << "bits [0, " << end_bit << ")");
      for (Dist dist : {Dist::uniform, Dist::few_unique}) {
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 256, 16, kB, kS>(valid_counts<256, 16>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 512, 8, kW, kS, kAny>(valid_counts<512, 8>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 512, 16, kW, kS>(valid_counts<512, 16>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 512, 16, kB, kB, kAny>(valid_counts<512, 16>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 1024, 8, kB, kW>(valid_counts<1024, 8>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 1024, 16, kW, kS>(valid_counts<1024, 16>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 1024, 16, kB, kS, kAny>(valid_counts<1024, 16>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 512, 32, kW, kS>(valid_counts<512, 32>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 1024, 23, kB, kS>(valid_counts<1024, 23>(rng, 2), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 32, 1, kB, kB>(valid_counts<32, 1>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 64, 3, kB, kS>(valid_counts<64, 3>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, KeysOnly, 128, 5, kW, kB, kAny>(valid_counts<128, 5>(rng), order, dist, 0, end_bit, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 1024, 16, kW, kS, RadixMatch::ballot, Api::encoded>(valid_counts<1024, 16>(rng), order, dist, 0, end_bit, rng)));
      }
    }
  }
}

// warp_spread input (a partial tile over every warp; measured and not used
// by the library's classes, bench/results/h200-2026-12-03-60b6fa0-ab.md): a partial
// tile takes ceil(n / threads) registers in every warp; the registers past
// them hold junk the sort must not touch. Every valid count of valid_counts
// (whole and partial warps, registers of one item), keys alone and with 4-
// and 8-byte values, full and partial bit ranges, every output arrangement.
TEST(BlockRadixSort8, WarpSpreadInput) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kB = Arrangement::blocked;
  constexpr auto kS = Arrangement::striped;
  constexpr auto kW = Arrangement::warp_striped;
  constexpr auto kP = Arrangement::warp_spread;
  constexpr auto kAny = RadixMatch::match_any;
  using u32 = std::uint32_t;
  const auto counts = [&](std::vector<int> v, int tile, int threads) {
    // Around every register count: k * threads and k * threads + 1.
    for (int k = 1; k * threads <= tile; ++k) {
      v.push_back(k * threads);
      if (k * threads < tile) v.push_back(k * threads + 1);
    }
    return v;
  };
  for (Order order : {Order::ascending, Order::descending}) {
    for (const auto& range : std::vector<std::pair<int, int>>{{0, 32}, {0, 16}, {3, 14}, {7, 7}}) {
      SCOPED_TRACE(::testing::Message() << "bits [" << range.first << ", " << range.second << ")");
      const Dist dist = order == Order::ascending ? Dist::uniform : Dist::few_unique;
      ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 128, 8, kP, kS>(counts(valid_counts<128, 8>(rng), 1024, 128), order, dist, range.first, range.second, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<u32, KeysOnly, 256, 8, kP, kS>(counts(valid_counts<256, 8>(rng), 2048, 256), order, dist, range.first, range.second, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<u32, std::uint64_t, 256, 16, kP, kB, kAny>(counts(valid_counts<256, 16>(rng), 4096, 256), order, dist, range.first, range.second, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<float, u32, 512, 16, kP, kW>(counts(valid_counts<512, 16>(rng, 2), 8192, 512), order, Dist::specials, 0, 32, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<u32, u32, 512, 8, kP, kS, RadixMatch::ballot, Api::encoded>(counts(valid_counts<512, 8>(rng, 2), 4096, 512), order, dist, range.first, range.second, rng)));
    }
  }
}

// Inputs that are easy to get wrong: all keys equal (one digit per pass:
// stability alone decides), already sorted, reversed, few distinct keys,
// only low 16 bits set; floats with NaNs and signed zeros.
TEST(BlockRadixSort8, Distributions) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kB = Arrangement::blocked;
  constexpr auto kS = Arrangement::striped;
  for (Dist dist : tstest::all_dists()) {
    for (Order order : {Order::ascending, Order::descending}) {
      ASSERT_NO_FATAL_FAILURE((check_radix<std::uint32_t, std::uint32_t, 1024, 16, kB, kS>(valid_counts<1024, 16>(rng, 2), order, dist, 0, 32, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<std::uint32_t, std::uint32_t, 1024, 16, kB, kS>(valid_counts<1024, 16>(rng, 2), order, dist, 0, 16, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<float, std::uint32_t, 512, 16, kB, kB>(valid_counts<512, 16>(rng, 2), order, dist, 0, 32, rng)));
      ASSERT_NO_FATAL_FAILURE((check_radix<double, std::uint64_t, 256, 16, kB, kS>(valid_counts<256, 16>(rng, 2), order, dist, 0, 64, rng)));
    }
  }
}

// The cluster form (sm_90): 2 and 4 CTAs sorting one tile in distributed
// shared memory, 32-bit keys alone and with values, both orders, full and
// partial ranges (one pass of 1 bit, a partial last digit, none), tiles
// that end at, just before and just past every CTA boundary; stability
// through equal keys (few unique, all equal), and blocked input.
TEST(BlockRadixSort8, ClusterForm) {
  REQUIRE_CUDA_DEVICE();
  if (!cluster_launch_supported()) GTEST_SKIP() << "the device cannot launch thread-block clusters (sm_90 and later)";
  Rng rng(tstest::test_seed());
  const std::vector<std::pair<int, int>> ranges = {{0, 32}, {0, 16}, {3, 14}, {31, 32}, {5, 5}};
  for (const auto& [b, e] : ranges) {
    for (Order order : {Order::ascending, Order::descending}) {
      for (Dist dist : {Dist::uniform, Dist::few_unique, Dist::all_equal}) {
        ASSERT_NO_FATAL_FAILURE((check_radix_cluster<std::uint32_t, std::uint32_t, 256, 8, 2>(
            cluster_valid_counts<256, 8, 2>(rng), order, dist, b, e, rng)));
        ASSERT_NO_FATAL_FAILURE((check_radix_cluster<std::uint32_t, KeysOnly, 256, 8, 4>(
            cluster_valid_counts<256, 8, 4>(rng), order, dist, b, e, rng)));
      }
    }
  }
  for (Order order : {Order::ascending, Order::descending}) {
    ASSERT_NO_FATAL_FAILURE((check_radix_cluster<float, std::uint32_t, 256, 8, 2>(
        cluster_valid_counts<256, 8, 2>(rng), order, Dist::specials, 0, 32, rng)));
    ASSERT_NO_FATAL_FAILURE((check_radix_cluster<std::int32_t, std::uint32_t, 512, 32, 2>(
        cluster_valid_counts<512, 32, 2>(rng), order, Dist::uniform, 0, 32, rng)));
    ASSERT_NO_FATAL_FAILURE((check_radix_cluster<std::uint32_t, std::uint32_t, 256, 8, 2, Arrangement::blocked,
                                                 Arrangement::blocked>(cluster_valid_counts<256, 8, 2>(rng), order,
                                                                       Dist::uniform, 0, 32, rng)));
  }
}

// Small subset for compute-sanitizer memcheck / racecheck / synccheck: every
// barrier pattern (blocked and warp-striped input, keys only and with
// values, 1..8 passes, no pass), partial tiles.
TEST(BlockRadixSanitizer, PartialTiles) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  constexpr auto kB = Arrangement::blocked;
  constexpr auto kS = Arrangement::striped;
  constexpr auto kW = Arrangement::warp_striped;
  check_radix<std::uint32_t, std::uint32_t, 256, 16, kB, kS>({0, 1, 4095, 4096, 1000}, Order::ascending, Dist::few_unique, 0, 32, rng);
  check_radix<std::uint32_t, std::uint32_t, 256, 16, kW, kS>({4096, 3}, Order::descending, Dist::uniform, 0, 16, rng);
  check_radix<std::uint32_t, KeysOnly, 512, 8, kW, kW, RadixMatch::match_any>({4096, 77}, Order::ascending, Dist::uniform, 4, 17, rng);
  check_radix<double, std::uint64_t, 128, 8, kB, kB>({1024, 5}, Order::descending, Dist::specials, 0, 64, rng);
  check_radix<std::int32_t, std::uint32_t, 128, 4, kB, kS>({512, 100}, Order::ascending, Dist::uniform, 9, 9, rng);
  // Warps whose slice (32 x 16 items) holds only padding skip their passes.
  check_radix<std::uint32_t, std::uint32_t, 256, 16, kW, kS>({512, 513, 1535}, Order::ascending, Dist::uniform, 0, 32, rng);
  // A partial tile spread over every warp, fewer registers each.
  check_radix<std::uint32_t, std::uint32_t, 256, 8, Arrangement::warp_spread, kS>({2048, 1025, 257, 256, 1}, Order::ascending, Dist::uniform, 0, 32, rng);
  check_radix<std::uint32_t, KeysOnly, 128, 8, Arrangement::warp_spread, kS>({1024, 640, 129}, Order::descending, Dist::few_unique, 2, 18, rng);
}

// The cluster form under the sanitizers: distributed shared memory, cluster
// barriers, values and keys alone, a partial tile ending inside the second
// CTA and one that leaves it only padding.
TEST(BlockRadixSanitizer, ClusterForm) {
  REQUIRE_CUDA_DEVICE();
  if (!cluster_launch_supported()) GTEST_SKIP() << "the device cannot launch thread-block clusters (sm_90 and later)";
  Rng rng(tstest::test_seed());
  check_radix_cluster<std::uint32_t, std::uint32_t, 256, 8, 2>({4096, 3000, 100}, Order::ascending, Dist::few_unique, 0, 32, rng);
  check_radix_cluster<std::uint32_t, KeysOnly, 256, 8, 4>({8192, 5000}, Order::descending, Dist::uniform, 0, 16, rng);
}

// ---------------------------------------------------------------------------
// warp::lanes_with_equal_bits (tilesort/warp/warp_match.cuh), both methods,
// against the lanes a CPU finds equal in bits [0, BITS)
// ---------------------------------------------------------------------------

template <int BITS>
__global__ void lanes_with_equal_bits_kernel(const std::uint32_t* values, std::uint32_t* by_ballot,
                                             std::uint32_t* by_match) {
  const std::uint32_t v = values[blockIdx.x * 32 + threadIdx.x];
  by_ballot[blockIdx.x * 32 + threadIdx.x] =
      tilesort::warp::lanes_with_equal_bits<BITS, tilesort::warp::Match::ballot>(v);
  by_match[blockIdx.x * 32 + threadIdx.x] =
      tilesort::warp::lanes_with_equal_bits<BITS, tilesort::warp::Match::match_any>(v);
}

template <int BITS>
void check_lanes_with_equal_bits(Rng& rng) {
  SCOPED_TRACE(::testing::Message() << "BITS " << BITS);
  const std::uint32_t low = BITS == 32 ? ~0u : (1u << BITS) - 1u;
  // Warps of: random words (high bits must be ignored), values below 2^BITS,
  // few distinct values, all equal, all distinct in the low bits.
  std::vector<std::uint32_t> values;
  for (int w = 0; w < 5; ++w)
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint32_t r = std::uint32_t(rng());
      values.push_back(w == 0 ? r : w == 1 ? r & low : w == 2 ? (r % 3) | (r & ~low) : w == 3 ? 7u : std::uint32_t(lane));
    }
  DeviceBuffer d_values, d_ballot, d_match;
  ASSERT_NO_FATAL_FAILURE(upload(d_values, values));
  ASSERT_EQ(d_ballot.alloc(values.size() * 4), cudaSuccess);
  ASSERT_EQ(d_match.alloc(values.size() * 4), cudaSuccess);
  lanes_with_equal_bits_kernel<BITS><<<unsigned(values.size() / 32), 32>>>(
      d_values.as<std::uint32_t>(), d_ballot.as<std::uint32_t>(), d_match.as<std::uint32_t>());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<std::uint32_t> by_ballot(values.size()), by_match(values.size());
  ASSERT_NO_FATAL_FAILURE(download(by_ballot, d_ballot));
  ASSERT_NO_FATAL_FAILURE(download(by_match, d_match));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::size_t warp = i / 32 * 32;
    std::uint32_t want = 0;
    for (int lane = 0; lane < 32; ++lane)
      if (((values[warp + lane] ^ values[i]) & low) == 0) want |= 1u << lane;
    ASSERT_EQ(by_ballot[i], want) << "ballot, warp " << i / 32 << " lane " << i % 32 << "; " << tstest::seed_message();
    ASSERT_EQ(by_match[i], want) << "match_any, warp " << i / 32 << " lane " << i % 32 << "; "
                                 << tstest::seed_message();
  }
}

TEST(WarpMatch, LanesWithEqualBits) {
  REQUIRE_CUDA_DEVICE();
  Rng rng(tstest::test_seed());
  ASSERT_NO_FATAL_FAILURE(check_lanes_with_equal_bits<1>(rng));
  ASSERT_NO_FATAL_FAILURE(check_lanes_with_equal_bits<5>(rng));
  ASSERT_NO_FATAL_FAILURE(check_lanes_with_equal_bits<8>(rng));
  ASSERT_NO_FATAL_FAILURE(check_lanes_with_equal_bits<13>(rng));
  ASSERT_NO_FATAL_FAILURE(check_lanes_with_equal_bits<32>(rng));
}
