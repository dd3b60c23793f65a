/* tilesort C API: a thin, stable layer over the C++ host API
 * (tilesort/segmented_sort.hpp, tilesort/binning.hpp, tilesort/status.hpp)
 * for any language with a C FFI. It adds no behaviour of its own: every call
 * checks what only the C layer can get wrong (unknown enum values, reserved
 * fields), then forwards to the C++ function of the same name.
 *
 *   tilesort_sort_plan plan = TILESORT_SORT_PLAN_INIT;
 *   plan.key_type = TILESORT_KEY_F32; plan.value_type = TILESORT_VALUE_B32;
 *   plan.max_items = 1 << 24; plan.max_segments = 8160;
 *   size_t bytes = 0;
 *   tilesort_segmented_sort_workspace_size(&plan, &bytes, &err);
 *   cudaMalloc(&workspace, bytes);                       // once, 256-byte aligned
 *
 *   tilesort_sort_args args = TILESORT_SORT_ARGS_INIT;   // per frame
 *   args.keys = d_keys; args.values = d_values; args.offsets = d_offsets;
 *   args.num_segments = 8160;
 *   if (tilesort_segmented_sort(workspace, bytes, &plan, &args, stream, &err))
 *     fprintf(stderr, "%s\n", err.message);
 *
 * Errors: every function returns a tilesort_code (TILESORT_OK = 0) and, when
 * `error` is not NULL, fills it with the code, the CUDA error behind a
 * TILESORT_CUDA_ERROR and a message saying what was wrong. Nothing is
 * launched when a host-side check fails. Errors only the device can see are
 * kept in the workspace's device status; read them with the read_* calls
 * (they wait for the stream) or copy the status word yourself from the
 * *_device_status_address pointer and convert it with *_device_status_to_error.
 *
 * The library links the CUDA runtime statically, so it has a runtime
 * instance of its own: device memory and streams of any other runtime in the
 * process work with it (they belong to the same primary context), but its
 * current device is its own. Call tilesort_set_device() on each host thread
 * before working on a device other than 0.
 *
 * ABI: the structs use fixed-width fields only; reserved fields must be 0.
 * TILESORT_C_ABI_VERSION changes whenever a struct or a signature changes;
 * compare it with tilesort_abi_version() when loading the library at run time.
 */
#ifndef TILESORT_C_H
#define TILESORT_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(TILESORT_C_BUILDING)
#define TILESORT_C_API __attribute__((visibility("default")))
#else
#define TILESORT_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TILESORT_C_ABI_VERSION 1

/* == cudaStream_t; NULL is the legacy default stream. */
typedef struct CUstream_st* tilesort_stream;

/* Same values as tilesort::StatusCode. */
typedef enum tilesort_code {
  TILESORT_OK = 0,
  TILESORT_INVALID_ARGUMENT = 1,
  TILESORT_UNSUPPORTED_TYPE = 2,
  TILESORT_WORKSPACE_TOO_SMALL = 3,
  TILESORT_COUNT_OVER_CAPACITY = 4,
  TILESORT_OFFSETS_OUT_OF_RANGE = 5,
  TILESORT_OFFSETS_NOT_MONOTONIC = 6,
  TILESORT_SEGMENT_TOO_LARGE = 7,
  TILESORT_CUDA_ERROR = 8,
  TILESORT_VULKAN_ERROR = 9,
  TILESORT_MISSING_VULKAN_SUPPORT = 10,
  TILESORT_DEVICE_MISMATCH = 11,
  TILESORT_ORDERING_VIOLATION = 12,
  TILESORT_TILE_ID_OUT_OF_RANGE = 13,
  TILESORT_PERMUTATION_OUT_OF_RANGE = 14
} tilesort_code;

typedef enum tilesort_key_type {
  TILESORT_KEY_U32 = 0, TILESORT_KEY_I32 = 1, TILESORT_KEY_F32 = 2,
  TILESORT_KEY_U64 = 3, TILESORT_KEY_I64 = 4, TILESORT_KEY_F64 = 5
} tilesort_key_type;
/* Values are opaque payloads moved with their keys. */
typedef enum tilesort_value_type { TILESORT_VALUE_NONE = 0, TILESORT_VALUE_B32 = 1, TILESORT_VALUE_B64 = 2 } tilesort_value_type;
typedef enum tilesort_offset_type { TILESORT_OFFSET_U32 = 0, TILESORT_OFFSET_U64 = 1 } tilesort_offset_type;
typedef enum tilesort_order { TILESORT_ASCENDING = 0, TILESORT_DESCENDING = 1 } tilesort_order;

#define TILESORT_MESSAGE_BYTES 192

typedef struct tilesort_error {
  int32_t code;       /* a tilesort_code */
  int32_t cuda_error; /* the cudaError_t behind TILESORT_CUDA_ERROR, else 0 */
  char message[TILESORT_MESSAGE_BYTES]; /* NUL-terminated; "ok" on success */
} tilesort_error;

/* What the device found (tilesort::DeviceStatus, same layout). */
typedef struct tilesort_device_status {
  int32_t code; /* a tilesort_code */
  uint32_t reserved;
  uint64_t index;
  uint64_t value;
} tilesort_device_status;

/* ---- segmented sort (tilesort/segmented_sort.hpp) ---- */

/* tilesort::SortPlan. */
typedef struct tilesort_sort_plan {
  int32_t key_type;    /* tilesort_key_type */
  int32_t value_type;  /* tilesort_value_type */
  int32_t offset_type; /* tilesort_offset_type */
  int32_t reserved;
  uint64_t max_items;
  uint64_t max_segments;
  uint64_t max_segment_items; /* 0 = max_items */
} tilesort_sort_plan;
#define TILESORT_SORT_PLAN_INIT {0, 0, 0, 0, 0, 0, 0}

/* tilesort::SortArgs. num_items = TILESORT_COUNT_NOT_GIVEN (the INIT value)
 * takes the total from offsets[num_segments]; end_bit = -1 means all bits. */
#define TILESORT_COUNT_NOT_GIVEN UINT64_MAX
typedef struct tilesort_sort_args {
  void* keys;
  void* values;        /* NULL iff the plan's value type is none */
  const void* offsets; /* num_segments + 1 entries */
  uint64_t num_segments;           /* used when d_num_segments is NULL */
  const uint32_t* d_num_segments;
  uint64_t num_items;              /* used when d_num_items is NULL */
  const uint32_t* d_num_items;
  int32_t order;                   /* tilesort_order */
  int32_t begin_bit;
  int32_t end_bit;
  int32_t reserved;
} tilesort_sort_args;
#define TILESORT_SORT_ARGS_INIT {NULL, NULL, NULL, 0, NULL, UINT64_MAX, NULL, 0, 0, -1, 0}

/* ---- binning (tilesort/binning.hpp) ---- */

/* tilesort::BinPlan. */
typedef struct tilesort_bin_plan {
  uint64_t max_records;
  uint32_t max_tiles;
  int32_t value_type;        /* tilesort_value_type */
  uint64_t max_tile_records; /* bin_and_sort only; 0 = max_records */
} tilesort_bin_plan;
#define TILESORT_BIN_PLAN_INIT {0, 0, 1, 0}

/* tilesort::BinArgs (bin and bin_and_sort). */
typedef struct tilesort_bin_args {
  const uint32_t* tile_ids;
  const uint32_t* keys;
  const void* values;             /* NULL iff the plan's value type is none */
  const uint32_t* d_num_records;  /* when set, the count is read on the device */
  uint64_t num_records;
  uint32_t num_tiles;
  int32_t order;                  /* bin_and_sort only: tilesort_order */
  uint32_t* out_keys;
  void* out_values;
  uint32_t* out_offsets;          /* num_tiles + 1 entries */
  int32_t begin_bit;              /* bin_and_sort only */
  int32_t end_bit;                /* bin_and_sort only; -1 = all bits */
} tilesort_bin_args;
#define TILESORT_BIN_ARGS_INIT {NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, 0, -1}

/* tilesort::BinIndexArgs. */
typedef struct tilesort_bin_index_args {
  const uint32_t* tile_ids;
  const uint32_t* d_num_records;
  uint64_t num_records;
  uint32_t num_tiles;
  uint32_t reserved;
  uint32_t* out_permutation;
  uint32_t* out_offsets;
} tilesort_bin_index_args;
#define TILESORT_BIN_INDEX_ARGS_INIT {NULL, NULL, 0, 0, 0, NULL, NULL}

/* tilesort::GatherArgs. */
typedef struct tilesort_gather_args {
  const void* records;
  void* out_records;
  uint64_t record_bytes;
  const uint32_t* permutation;
  const uint32_t* d_num_records;
  uint64_t num_records;
} tilesort_gather_args;
#define TILESORT_GATHER_ARGS_INIT {NULL, NULL, 0, NULL, NULL, 0}

/* ---- functions ---- */

/* TILESORT_C_ABI_VERSION of the library. */
TILESORT_C_API int32_t tilesort_abi_version(void);
/* "ok", "invalid_argument", ...; "unknown_status" for other values. Never NULL. */
TILESORT_C_API const char* tilesort_code_name(int32_t code);

TILESORT_C_API int32_t tilesort_segmented_sort_workspace_size(const tilesort_sort_plan* plan, size_t* bytes,
                                                              tilesort_error* error);
TILESORT_C_API int32_t tilesort_segmented_sort(void* workspace, size_t workspace_bytes, const tilesort_sort_plan* plan,
                                               const tilesort_sort_args* args, tilesort_stream stream,
                                               tilesort_error* error);
/* Device address of the status the last sort on this workspace wrote. */
TILESORT_C_API const tilesort_device_status* tilesort_device_status_address(const void* workspace);
/* A host copy of that status to a code and message. */
TILESORT_C_API int32_t tilesort_device_status_to_error(const tilesort_device_status* host_status, tilesort_error* error);
/* Not for the hot path: waits for `stream`, then reads and converts the status. */
TILESORT_C_API int32_t tilesort_read_device_status(const void* workspace, tilesort_stream stream, tilesort_error* error);

TILESORT_C_API int32_t tilesort_bin_workspace_size(const tilesort_bin_plan* plan, size_t* bytes, tilesort_error* error);
TILESORT_C_API int32_t tilesort_bin_and_sort_workspace_size(const tilesort_bin_plan* plan, size_t* bytes,
                                                            tilesort_error* error);
TILESORT_C_API int32_t tilesort_bin(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                                    const tilesort_bin_args* args, tilesort_stream stream, tilesort_error* error);
TILESORT_C_API int32_t tilesort_bin_index(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                                          const tilesort_bin_index_args* args, tilesort_stream stream,
                                          tilesort_error* error);
TILESORT_C_API int32_t tilesort_gather(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                                       const tilesort_gather_args* args, tilesort_stream stream, tilesort_error* error);
TILESORT_C_API int32_t tilesort_bin_and_sort(void* workspace, size_t workspace_bytes, const tilesort_bin_plan* plan,
                                             const tilesort_bin_args* args, tilesort_stream stream,
                                             tilesort_error* error);
TILESORT_C_API const tilesort_device_status* tilesort_bin_device_status_address(const void* workspace);
TILESORT_C_API int32_t tilesort_bin_device_status_to_error(const tilesort_device_status* host_status,
                                                           tilesort_error* error);
/* Not for the hot path (they wait for `stream`). */
TILESORT_C_API int32_t tilesort_read_bin_status(const void* workspace, tilesort_stream stream, tilesort_error* error);
TILESORT_C_API int32_t tilesort_read_bin_and_sort_status(const void* workspace, const tilesort_bin_plan* plan,
                                                         tilesort_stream stream, tilesort_error* error);

/* ---- this library's CUDA runtime instance (see the top of this file) ---- */

/* cudaSetDevice / cudaGetDevice of the runtime that runs tilesort's calls. */
TILESORT_C_API int32_t tilesort_set_device(int32_t device, tilesort_error* error);
TILESORT_C_API int32_t tilesort_get_device(int32_t* device, tilesort_error* error);
/* The device that owns `pointer` (device or managed memory), -1 for host
 * memory (pageable or pinned), for checking arrays before a call. */
TILESORT_C_API int32_t tilesort_pointer_device(const void* pointer, int32_t* device, tilesort_error* error);

#ifdef __cplusplus
}
#endif

#endif /* TILESORT_C_H */
