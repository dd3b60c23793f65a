// The C API: converts the C structs to the C++ ones, checks what only the C
// layer can get wrong (enum values out of range, reserved fields), calls the
// C++ function and copies its Status out. No logic of its own beyond that.
#define TILESORT_C_BUILDING
#include "tilesort_c.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>

#include "tilesort/binning.hpp"
#include "tilesort/segmented_sort.hpp"
#include "tilesort/status.hpp"

namespace {

using tilesort::Status;
using tilesort::StatusCode;

// The C enums and structs mirror the C++ ones; these keep them in step.
static_assert(TILESORT_OK == int(StatusCode::ok) && TILESORT_CUDA_ERROR == int(StatusCode::cuda_error) &&
                  TILESORT_ORDERING_VIOLATION == int(StatusCode::ordering_violation) &&
                  TILESORT_TILE_ID_OUT_OF_RANGE == int(StatusCode::tile_id_out_of_range) &&
                  TILESORT_PERMUTATION_OUT_OF_RANGE == int(StatusCode::permutation_out_of_range),
              "tilesort_code must match tilesort::StatusCode");
static_assert(TILESORT_KEY_U32 == int(tilesort::KeyType::u32) && TILESORT_KEY_F64 == int(tilesort::KeyType::f64) &&
                  TILESORT_VALUE_B64 == int(tilesort::ValueType::b64) &&
                  TILESORT_OFFSET_U64 == int(tilesort::OffsetType::u64) &&
                  TILESORT_DESCENDING == int(tilesort::Order::descending),
              "the C type enums must match the C++ ones");
static_assert(sizeof(tilesort_device_status) == sizeof(tilesort::DeviceStatus) &&
                  offsetof(tilesort_device_status, index) == offsetof(tilesort::DeviceStatus, index) &&
                  offsetof(tilesort_device_status, value) == offsetof(tilesort::DeviceStatus, value),
              "tilesort_device_status must have tilesort::DeviceStatus's layout");
// Fixed sizes: python/tilesort/_capi.py declares the same layouts and its
// tests check these numbers.
static_assert(sizeof(tilesort_error) == 200 && sizeof(tilesort_sort_plan) == 40 && sizeof(tilesort_sort_args) == 72 &&
                  sizeof(tilesort_bin_plan) == 24 && sizeof(tilesort_bin_args) == 80 &&
                  sizeof(tilesort_bin_index_args) == 48 && sizeof(tilesort_gather_args) == 48,
              "the C structs' sizes are part of the ABI");

int32_t report(const Status& status, tilesort_error* error) {
  if (error) {
    error->code = int32_t(status.code());
    error->cuda_error = status.cuda_error();
    // The C struct's message is part of the ABI and shorter than Status's:
    // a longer message is cut, and says so.
    const char* what = status.what();
    const std::size_t length = std::strlen(what);
    constexpr std::size_t kRoom = sizeof(error->message) - 1;
    if (length <= kRoom) {
      std::memcpy(error->message, what, length + 1);
    } else {
      std::memcpy(error->message, what, kRoom - 3);
      std::memcpy(error->message + kRoom - 3, "...", 4);
    }
  }
  return int32_t(status.code());
}

int32_t invalid(const char* message, tilesort_error* error) {
  return report(Status(StatusCode::invalid_argument, message), error);
}

bool in_range(int32_t value, int32_t last) { return value >= 0 && value <= last; }

/// C plan -> C++ plan; false (with `why`) for an unknown enum value.
bool convert(const tilesort_sort_plan& in, tilesort::SortPlan* out, const char** why) {
  if (!in_range(in.key_type, TILESORT_KEY_F64)) *why = "plan: unknown key_type";
  else if (!in_range(in.value_type, TILESORT_VALUE_B64)) *why = "plan: unknown value_type";
  else if (!in_range(in.offset_type, TILESORT_OFFSET_U64)) *why = "plan: unknown offset_type";
  else if (in.reserved != 0) *why = "plan: reserved must be 0";
  else {
    out->key_type = tilesort::KeyType(in.key_type);
    out->value_type = tilesort::ValueType(in.value_type);
    out->offset_type = tilesort::OffsetType(in.offset_type);
    out->max_items = in.max_items;
    out->max_segments = in.max_segments;
    out->max_segment_items = in.max_segment_items;
    return true;
  }
  return false;
}

bool convert(const tilesort_bin_plan& in, tilesort::BinPlan* out, const char** why) {
  if (!in_range(in.value_type, TILESORT_VALUE_B64)) {
    *why = "plan: unknown value_type";
    return false;
  }
  out->max_records = in.max_records;
  out->max_tiles = in.max_tiles;
  out->value_type = tilesort::ValueType(in.value_type);
  out->max_tile_records = in.max_tile_records;
  return true;
}

bool convert_order(int32_t order, tilesort::Order* out, const char** why) {
  if (!in_range(order, TILESORT_DESCENDING)) {
    *why = "args: unknown order";
    return false;
  }
  *out = tilesort::Order(order);
  return true;
}

tilesort::Stream stream_of(tilesort_stream s) { return reinterpret_cast<tilesort::Stream>(s); }

tilesort::DeviceStatus device_status_of(const tilesort_device_status& s) {
  tilesort::DeviceStatus d{};
  d.code = s.code;
  d.reserved = s.reserved;
  d.index = s.index;
  d.value = s.value;
  return d;
}

/// Shared by bin and bin_and_sort: the same argument struct.
template <class Call>
int32_t bin_call(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                 const tilesort_bin_args* args, tilesort_stream stream, tilesort_error* error, Call call) {
  if (!plan || !args) return invalid("plan or args is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  tilesort::BinArgs a;
  if (!convert(*plan, &p, &why) || !convert_order(args->order, &a.order, &why)) return invalid(why, error);
  a.tile_ids = args->tile_ids;
  a.keys = args->keys;
  a.values = args->values;
  a.d_num_records = args->d_num_records;
  a.num_records = args->num_records;
  a.num_tiles = args->num_tiles;
  a.out_keys = args->out_keys;
  a.out_values = args->out_values;
  a.out_offsets = args->out_offsets;
  a.begin_bit = args->begin_bit;
  a.end_bit = args->end_bit;
  return report(call(workspace, workspace_bytes, p, a, stream_of(stream)), error);
}

}  // namespace

extern "C" {

int32_t tilesort_abi_version(void) { return TILESORT_C_ABI_VERSION; }

const char* tilesort_code_name(int32_t code) { return tilesort::to_string(StatusCode(code)); }

int32_t tilesort_segmented_sort_workspace_size(const tilesort_sort_plan* plan, size_t* bytes, tilesort_error* error) {
  if (!plan) return invalid("plan is null", error);
  const char* why = nullptr;
  tilesort::SortPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  return report(tilesort::segmented_sort_workspace_size(p, bytes), error);
}

int32_t tilesort_segmented_sort(void* workspace, size_t workspace_bytes, const tilesort_sort_plan* plan,
                                const tilesort_sort_args* args, tilesort_stream stream, tilesort_error* error) {
  if (!plan || !args) return invalid("plan or args is null", error);
  const char* why = nullptr;
  tilesort::SortPlan p;
  tilesort::SortArgs a;
  if (!convert(*plan, &p, &why) || !convert_order(args->order, &a.order, &why)) return invalid(why, error);
  if (args->reserved != 0) return invalid("args: reserved must be 0", error);
  a.keys = args->keys;
  a.values = args->values;
  a.offsets = args->offsets;
  a.num_segments = args->num_segments;
  a.d_num_segments = args->d_num_segments;
  a.num_items = args->num_items;
  a.d_num_items = args->d_num_items;
  a.begin_bit = args->begin_bit;
  a.end_bit = args->end_bit;
  return report(tilesort::segmented_sort(workspace, workspace_bytes, p, a, stream_of(stream)), error);
}

const tilesort_device_status* tilesort_device_status_address(const void* workspace) {
  return reinterpret_cast<const tilesort_device_status*>(tilesort::device_status(workspace));
}

int32_t tilesort_device_status_to_error(const tilesort_device_status* host_status, tilesort_error* error) {
  if (!host_status) return invalid("host_status is null", error);
  return report(tilesort::to_status(device_status_of(*host_status)), error);
}

int32_t tilesort_read_device_status(const void* workspace, tilesort_stream stream, tilesort_error* error) {
  return report(tilesort::read_device_status(workspace, stream_of(stream)), error);
}

int32_t tilesort_bin_workspace_size(const tilesort_bin_plan* plan, size_t* bytes, tilesort_error* error) {
  if (!plan) return invalid("plan is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  return report(tilesort::bin_workspace_size(p, bytes), error);
}

int32_t tilesort_bin_and_sort_workspace_size(const tilesort_bin_plan* plan, size_t* bytes, tilesort_error* error) {
  if (!plan) return invalid("plan is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  return report(tilesort::bin_and_sort_workspace_size(p, bytes), error);
}

int32_t tilesort_bin(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                     const tilesort_bin_args* args, tilesort_stream stream, tilesort_error* error) {
  return bin_call(workspace, workspace_bytes, plan, args, stream, error,
                  [](void* w, size_t b, const tilesort::BinPlan& p, const tilesort::BinArgs& a, tilesort::Stream s) {
                    return tilesort::bin(w, b, p, a, s);
                  });
}

int32_t tilesort_bin_and_sort(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                              const tilesort_bin_args* args, tilesort_stream stream, tilesort_error* error) {
  return bin_call(workspace, workspace_bytes, plan, args, stream, error,
                  [](void* w, size_t b, const tilesort::BinPlan& p, const tilesort::BinArgs& a, tilesort::Stream s) {
                    return tilesort::bin_and_sort(w, b, p, a, s);
                  });
}

int32_t tilesort_bin_index(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                           const tilesort_bin_index_args* args, tilesort_stream stream, tilesort_error* error) {
  if (!plan || !args) return invalid("plan or args is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  if (args->reserved != 0) return invalid("args: reserved must be 0", error);
  tilesort::BinIndexArgs a;
  a.tile_ids = args->tile_ids;
  a.d_num_records = args->d_num_records;
  a.num_records = args->num_records;
  a.num_tiles = args->num_tiles;
  a.out_permutation = args->out_permutation;
  a.out_offsets = args->out_offsets;
  return report(tilesort::bin_index(workspace, workspace_bytes, p, a, stream_of(stream)), error);
}

int32_t tilesort_gather(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                        const tilesort_gather_args* args, tilesort_stream stream, tilesort_error* error) {
  if (!plan || !args) return invalid("plan or args is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  tilesort::GatherArgs a;
  a.records = args->records;
  a.out_records = args->out_records;
  a.record_bytes = std::size_t(args->record_bytes);
  a.permutation = args->permutation;
  a.d_num_records = args->d_num_records;
  a.num_records = args->num_records;
  return report(tilesort::gather(workspace, workspace_bytes, p, a, stream_of(stream)), error);
}

const tilesort_device_status* tilesort_bin_device_status_address(const void* workspace) {
  return reinterpret_cast<const tilesort_device_status*>(tilesort::bin_device_status(workspace));
}

int32_t tilesort_bin_device_status_to_error(const tilesort_device_status* host_status, tilesort_error* error) {
  if (!host_status) return invalid("host_status is null", error);
  return report(tilesort::to_bin_status(device_status_of(*host_status)), error);
}

int32_t tilesort_read_bin_status(const void* workspace, tilesort_stream stream, tilesort_error* error) {
  return report(tilesort::read_bin_status(workspace, stream_of(stream)), error);
}

int32_t tilesort_read_bin_and_sort_status(const void* workspace, const tilesort_bin_plan* plan,
                                          tilesort_stream stream, tilesort_error* error) {
  if (!plan) return invalid("plan is null", error);
  const char* why = nullptr;
  tilesort::BinPlan p;
  if (!convert(*plan, &p, &why)) return invalid(why, error);
  return report(tilesort::read_bin_and_sort_status(workspace, p, stream_of(stream)), error);
}

int32_t tilesort_set_device(int32_t device, tilesort_error* error) {
  return report(Status::from_cuda(cudaSetDevice(device), "cudaSetDevice"), error);
}

int32_t tilesort_get_device(int32_t* device, tilesort_error* error) {
  if (!device) return invalid("device is null", error);
  int d = 0;
  const cudaError_t err = cudaGetDevice(&d);
  if (err == cudaSuccess) *device = d;
  return report(Status::from_cuda(err, "cudaGetDevice"), error);
}

int32_t tilesort_pointer_device(const void* pointer, int32_t* device, tilesort_error* error) {
  if (!device) return invalid("device is null", error);
  cudaPointerAttributes attributes{};
  const cudaError_t err = cudaPointerGetAttributes(&attributes, pointer);
  if (err != cudaSuccess) return report(Status::from_cuda(err, "cudaPointerGetAttributes"), error);
  const bool on_device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  *device = on_device ? attributes.device : -1;
  return report(Status(), error);
}

}  // extern "C"
