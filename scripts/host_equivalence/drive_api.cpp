// Calls every public sort and binning entry point over a grid of plans and
// argument variants (and one of each host-detected error), with fake device
// addresses, against fake_cudart.cpp: its output is the complete record of
// what the host code launches. For scripts/host_equivalence/run.sh.
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "tilesort/binning.hpp"
#include "tilesort/segmented_sort.hpp"

using namespace tilesort;

extern "C" void trace_note(const char* line);

namespace {

void* fake(std::uintptr_t address) { return reinterpret_cast<void*>(address); }
template <class T>
T* fake_as(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

void note(const char* what, const Status& s) {
  char line[512];
  std::snprintf(line, sizeof(line), "== %s -> %d %s", what, int(s.code()), s.what());
  trace_note(line);
}

void drive_sorts() {
  const KeyType keys[] = {KeyType::u32, KeyType::f32, KeyType::i32, KeyType::u64, KeyType::f64, KeyType::i64};
  const ValueType values[] = {ValueType::none, ValueType::b32, ValueType::b64};
  const std::uint64_t segment_bounds[] = {0, 100, 3000, 20000, 70000, 1u << 20};
  const std::uint64_t item_caps[] = {1000, 1u << 24, 3ull << 26};
  for (KeyType k : keys)
    for (ValueType v : values)
      for (int wide_offsets = 0; wide_offsets < 2; ++wide_offsets)
        for (std::uint64_t bound : segment_bounds)
          for (std::uint64_t items : item_caps) {
            SortPlan plan;
            plan.key_type = k;
            plan.value_type = v;
            plan.offset_type = wide_offsets ? OffsetType::u64 : OffsetType::u32;
            plan.max_items = items;
            plan.max_segments = items / 7 + 1;
            plan.max_segment_items = bound;
            std::size_t bytes = 0;
            const Status size_status = segmented_sort_workspace_size(plan, &bytes);
            char what[256];
            std::snprintf(what, sizeof(what), "plan key %d value %d offsets %d bound %llu items %llu bytes %zu", int(k),
                          int(v), wide_offsets, (unsigned long long)bound, (unsigned long long)items, bytes);
            note(what, size_status);
            if (!size_status.ok()) continue;
            void* workspace = fake(0x700000000ull);
            SortArgs base;
            base.keys = fake(0x100000000ull);
            base.values = v == ValueType::none ? nullptr : fake(0x200000000ull);
            base.offsets = fake(0x300000000ull);
            for (int variant = 0; variant < 4; ++variant) {
              SortArgs args = base;
              if (variant & 1) args.d_num_segments = fake_as<const std::uint32_t>(0x400000000ull);
              else args.num_segments = plan.max_segments;
              if (variant == 2) {
                args.end_bit = 16;
                args.order = Order::descending;
              }
              if (variant == 3) {
                args.begin_bit = 3;
                args.end_bit = 29;
                args.d_num_items = fake_as<const std::uint32_t>(0x500000000ull);
              }
              std::snprintf(what, sizeof(what), "sort variant %d", variant);
              note(what, segmented_sort(workspace, bytes, plan, args, nullptr));
            }
            note("workspace one byte short", segmented_sort(workspace, bytes - 1, plan, base, nullptr));
            note("workspace misaligned", segmented_sort(fake(0x700000010ull), bytes, plan, base, nullptr));
            note("workspace null", segmented_sort(nullptr, bytes, plan, base, nullptr));
            SortArgs bad_bits = base;
            bad_bits.end_bit = 65;
            note("bit range", segmented_sort(workspace, bytes, plan, bad_bits, nullptr));
          }
}

void drive_binning() {
  const ValueType values[] = {ValueType::none, ValueType::b32, ValueType::b64};
  const std::uint32_t tile_caps[] = {1, 200, 8160, 70000, 1u << 22};
  const std::uint64_t record_caps[] = {1000, 1u << 22, 1u << 26};
  for (ValueType v : values)
    for (std::uint32_t tiles : tile_caps)
      for (std::uint64_t records : record_caps)
        for (std::uint64_t bound : {std::uint64_t(0), std::uint64_t(5000)}) {
          BinPlan plan;
          plan.max_records = records;
          plan.max_tiles = tiles;
          plan.value_type = v;
          plan.max_tile_records = bound > records ? records : bound;
          std::size_t bin_bytes = 0, both_bytes = 0;
          const Status bin_size = bin_workspace_size(plan, &bin_bytes);
          const Status both_size = bin_and_sort_workspace_size(plan, &both_bytes);
          char what[256];
          std::snprintf(what, sizeof(what), "bin plan value %d tiles %u records %llu bound %llu bytes %zu %zu", int(v),
                        tiles, (unsigned long long)records, (unsigned long long)bound, bin_bytes, both_bytes);
          note(what, bin_size);
          note("bin_and_sort size", both_size);
          if (!bin_size.ok() || !both_size.ok()) continue;
          void* workspace = fake(0x700000000ull);
          for (int variant = 0; variant < 3; ++variant) {
            BinArgs args;
            args.tile_ids = fake_as<const std::uint32_t>(0x100000000ull);
            args.keys = fake_as<const std::uint32_t>(0x200000000ull);
            args.values = v == ValueType::none ? nullptr : fake(0x300000000ull);
            args.out_keys = fake_as<std::uint32_t>(0x400000000ull);
            args.out_values = v == ValueType::none ? nullptr : fake(0x500000000ull);
            args.out_offsets = fake_as<std::uint32_t>(0x600000000ull);
            args.num_tiles = variant == 2 ? (tiles + 1) / 2 : tiles;
            if (variant == 1) args.d_num_records = fake_as<const std::uint32_t>(0x800000000ull);
            else args.num_records = records / 2;
            if (variant == 2) {
              args.end_bit = 16;
              args.record_capacity = records / 3;
              args.num_records = records / 4;
            }
            note("bin", bin(workspace, bin_bytes, plan, args, nullptr));
            note("bin_and_sort", bin_and_sort(workspace, both_bytes, plan, args, nullptr));
            note("bin_and_sort workspace short", bin_and_sort(workspace, both_bytes - 256, plan, args, nullptr));
            BinIndexArgs index_args;
            index_args.tile_ids = args.tile_ids;
            index_args.num_records = args.num_records;
            index_args.d_num_records = args.d_num_records;
            index_args.num_tiles = args.num_tiles;
            index_args.out_permutation = args.out_keys;
            index_args.out_offsets = args.out_offsets;
            note("bin_index", bin_index(workspace, bin_bytes, plan, index_args, nullptr));
            GatherArgs gather_args;
            gather_args.records = fake(0x900000000ull);
            gather_args.out_records = fake(0xa00000000ull);
            gather_args.record_bytes = variant == 1 ? 12 : 64;
            gather_args.permutation = args.out_keys;
            gather_args.num_records = args.num_records;
            gather_args.d_num_records = args.d_num_records;
            note("gather", gather(workspace, bin_bytes, plan, gather_args, nullptr));
            note("gather workspace short", gather(workspace, bin_bytes - 1, plan, gather_args, nullptr));
          }
        }
}

}  // namespace

int main() {
  drive_sorts();
  drive_binning();
  return 0;
}
