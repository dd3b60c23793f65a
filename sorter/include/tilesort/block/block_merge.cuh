// Block-level merge of two sorted runs (merge path), for callers that sort in
// chunks: sort each chunk with BlockSort, then merge pairs of sorted chunks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilesort/block/block_sort.cuh"

namespace tilesort {
namespace block {

/// Merges two sorted runs held by a block in a blocked arrangement: tile
/// positions [0, count_a) hold run A, [count_a, count_a + count_b) run B, both
/// sorted in `order` (the key order of BlockSort / the host API). Afterwards
/// positions [0, count_a + count_b) hold the merged run, blocked; positions
/// beyond are undefined. Stable: on equal keys A's items come first, and
/// each run keeps its own order.
///
/// Method: the runs go to shared memory as encoded keys; each thread finds
/// where its ITEMS_PER_THREAD outputs start with a merge-path binary search
/// on the diagonal t * ITEMS_PER_THREAD, then merges serially. Writes use
/// the shifted-diagonal layout of BlockSort (conflict free); the reads of
/// the search and of the serial merge are data dependent.
///
/// Preconditions: 0 <= count_a, 0 <= count_b, count_a + count_b <=
/// kTileItems, the same values in every thread; each run sorted in `order`.
///
/// Shared memory: sizeof(TempStorage) = (key bytes + value bytes) * (N + N/32)
/// with N = BLOCK_THREADS * ITEMS_PER_THREAD.
///
/// Synchronisation: Merge() calls __syncthreads() and must be reached by every
/// thread of the block. The caller owes a __syncthreads() between the last
/// other use of the TempStorage memory and Merge(), and one after Merge()
/// before reusing that memory.
///
/// Example (two sorted runs of 512 from two BlockSort calls):
///
///     using Merge = tilesort::block::BlockMerge<float, std::uint32_t, 128, 8>;
///     __shared__ Merge::TempStorage temp;
///     // thread t holds positions [8t, 8t + 8): run A = [0, na), run B = [na, na + nb)
///     Merge(temp).Merge(keys, values, na, nb);
template <class Key, class Value, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class BlockMerge {
 public:
  using Bits = typename KeyTraits<Key>::Bits;
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool kHasValues = !std::is_same<Value, KeysOnly>::value;
  static_assert(!kHasValues || sizeof(Value) == 4 || sizeof(Value) == 8, "values: 4 or 8 bytes");
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024, "BLOCK_THREADS: 1..1024");

 private:
  static constexpr int kStride = kTileItems + kTileItems / 32;
  using ValueBits = std::conditional_t<kHasValues && sizeof(Value) == 8, std::uint64_t, std::uint32_t>;

 public:
  struct TempStorage {
    Bits keys[kStride];
    ValueBits values[kHasValues ? kStride : 1];
  };

  __device__ __forceinline__ explicit BlockMerge(TempStorage& storage) : storage_(storage) {}

  /// Merges keys only. See the class comment.
  __device__ __forceinline__ void Merge(Key (&keys)[ITEMS_PER_THREAD], int count_a, int count_b,
                                        Order order = Order::ascending) {
    merge_impl<false>(keys, nullptr, count_a, count_b, order);
  }

  /// Merges keys and moves values with them. See the class comment.
  __device__ __forceinline__ void Merge(Key (&keys)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
                                        int count_a, int count_b, Order order = Order::ascending) {
    static_assert(kHasValues, "BlockMerge<Key, KeysOnly, ...> has no values");
    merge_impl<true>(keys, values, count_a, count_b, order);
  }

 private:
  template <bool WITH_VALUES>
  __device__ __forceinline__ void merge_impl(Key (&keys)[ITEMS_PER_THREAD], Value* values, int count_a, int count_b,
                                             Order order) {
    const int t = int(threadIdx.x);
    const int total = count_a + count_b;
    const auto codec = codec_for<Key>(order == Order::descending);
    Bits* sk = storage_.keys;
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) {
      const int p = t * ITEMS_PER_THREAD + r;
      if (p < total) {
        sk[detail::padded_index(p)] = codec.encode(bit_cast_to<Bits>(keys[r]));
        if constexpr (WITH_VALUES) storage_.values[detail::padded_index(p)] = bit_cast_to<ValueBits>(values[r]);
      }
    }
    __syncthreads();
    // A at [0, count_a), B at [count_a, total); encoded keys compare as unsigned.
    const auto a_at = [&](int i) { return sk[detail::padded_index(i)]; };
    const auto b_at = [&](int j) { return sk[detail::padded_index(count_a + j)]; };
    const int diag = min(t * ITEMS_PER_THREAD, total);
    // Merge path: the number of A items among the first `diag` outputs, with
    // A first on ties (B[j] goes before A[i] only when strictly smaller).
    int lo = max(0, diag - count_b);
    int hi = min(diag, count_a);
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (b_at(diag - 1 - mid) < a_at(mid)) hi = mid;
      else lo = mid + 1;
    }
    int i = lo;
    int j = diag - lo;
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) {
      if (diag + r >= total) break;
      const bool take_b = i >= count_a || (j < count_b && b_at(j) < a_at(i));
      const int p = take_b ? count_a + j : i;
      keys[r] = bit_cast_to<Key>(codec.decode(sk[detail::padded_index(p)]));
      if constexpr (WITH_VALUES) values[r] = bit_cast_to<Value>(storage_.values[detail::padded_index(p)]);
      i += take_b ? 0 : 1;
      j += take_b ? 1 : 0;
    }
  }

  TempStorage& storage_;
};

}  // namespace block
}  // namespace tilesort
