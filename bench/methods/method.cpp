#include "methods/method.hpp"

namespace bench {

const std::vector<MethodInfo>& all_methods() {
  static const std::vector<MethodInfo> methods = {
      {MethodId::copy, "copy", false, true, false,
       "one cudaMemcpyAsync device-to-device of the key and value bytes"},
      {MethodId::tilesort, "tilesort", false, false, true,
       "tilesort::segmented_sort in place; counts read from device memory"},
      {MethodId::cub_segmented_sort, "cub-segmented-sort", true, false, false,
       "cub::DeviceSegmentedSort::SortPairs / SortKeys, out of place (it has no bit range: on 16-bit "
       "variants it compares the whole keys, which hold no other bits)"},
      {MethodId::cub_segmented_radix_sort, "cub-segmented-radix-sort", true, false, true,
       "cub::DeviceSegmentedRadixSort::SortPairs / SortKeys, out of place, over the variant's key bits"},
      {MethodId::cub_radix_sort_composite, "cub-radix-sort-composite", true, false, true,
       "build (segment, key) composite keys + cub::DeviceRadixSort on the bits in use + "
       "unpack into the original arrays"},
      {MethodId::cub_radix_sort, "cub-radix-sort", true, false, true,
       "cub::DeviceRadixSort::SortPairs / SortKeys (DoubleBuffer form, no copy back) over the variant's "
       "key bits; one-segment workloads only",
       true},
  };
  return methods;
}

std::unique_ptr<Method> make_method(MethodId id, const Problem& problem) {
  switch (id) {
    case MethodId::copy: return make_copy(problem);
    case MethodId::tilesort: return make_tilesort(problem);
    case MethodId::cub_segmented_sort: return make_cub_segmented_sort(problem);
    case MethodId::cub_segmented_radix_sort: return make_cub_segmented_radix_sort(problem);
    case MethodId::cub_radix_sort_composite: return make_cub_radix_sort_composite(problem);
    case MethodId::cub_radix_sort: return make_cub_radix_sort(problem);
  }
  throw MethodUnavailable("unknown method");
}

}  // namespace bench
