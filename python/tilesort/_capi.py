"""ctypes binding of the C API (capi/include/tilesort_c.h).

The structs below mirror the header field for field; their sizes are fixed by
static_asserts in capi/src/tilesort_c.cpp and checked again by
tests/python/test_capi.py. Nothing here is compiled against Python, so one
library serves every Python 3.
"""

import ctypes
import glob
import os
import threading

ABI_VERSION = 1
LIBRARY_ENV = "TILESORT_LIBRARY"

# tilesort_code (== tilesort::StatusCode).
OK = 0
INVALID_ARGUMENT = 1
UNSUPPORTED_TYPE = 2
WORKSPACE_TOO_SMALL = 3
COUNT_OVER_CAPACITY = 4
OFFSETS_OUT_OF_RANGE = 5
OFFSETS_NOT_MONOTONIC = 6
SEGMENT_TOO_LARGE = 7
CUDA_ERROR = 8
TILE_ID_OUT_OF_RANGE = 13
PERMUTATION_OUT_OF_RANGE = 14

KEY_TYPES = {"u4": 0, "i4": 1, "f4": 2, "u8": 3, "i8": 4, "f8": 5}
VALUE_NONE, VALUE_B32, VALUE_B64 = 0, 1, 2
OFFSET_U32, OFFSET_U64 = 0, 1
COUNT_NOT_GIVEN = 2**64 - 1

_p = ctypes.c_void_p
_u32, _u64, _i32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32


class Error(ctypes.Structure):
    _fields_ = [("code", _i32), ("cuda_error", _i32), ("message", ctypes.c_char * 192)]


class DeviceStatus(ctypes.Structure):
    _fields_ = [("code", _i32), ("reserved", _u32), ("index", _u64), ("value", _u64)]


class SortPlan(ctypes.Structure):
    _fields_ = [("key_type", _i32), ("value_type", _i32), ("offset_type", _i32), ("reserved", _i32),
                ("max_items", _u64), ("max_segments", _u64), ("max_segment_items", _u64)]


class SortArgs(ctypes.Structure):
    _fields_ = [("keys", _p), ("values", _p), ("offsets", _p),
                ("num_segments", _u64), ("d_num_segments", _p),
                ("num_items", _u64), ("d_num_items", _p),
                ("order", _i32), ("begin_bit", _i32), ("end_bit", _i32), ("reserved", _i32)]


class BinPlan(ctypes.Structure):
    _fields_ = [("max_records", _u64), ("max_tiles", _u32), ("value_type", _i32), ("max_tile_records", _u64)]


class BinArgs(ctypes.Structure):
    _fields_ = [("tile_ids", _p), ("keys", _p), ("values", _p), ("d_num_records", _p),
                ("num_records", _u64), ("num_tiles", _u32), ("order", _i32),
                ("out_keys", _p), ("out_values", _p), ("out_offsets", _p),
                ("begin_bit", _i32), ("end_bit", _i32)]


class BinIndexArgs(ctypes.Structure):
    _fields_ = [("tile_ids", _p), ("d_num_records", _p), ("num_records", _u64), ("num_tiles", _u32),
                ("reserved", _u32), ("out_permutation", _p), ("out_offsets", _p)]


class GatherArgs(ctypes.Structure):
    _fields_ = [("records", _p), ("out_records", _p), ("record_bytes", _u64), ("permutation", _p),
                ("d_num_records", _p), ("num_records", _u64)]


STRUCT_SIZES = {Error: 200, DeviceStatus: 24, SortPlan: 40, SortArgs: 72, BinPlan: 24, BinArgs: 80,
                BinIndexArgs: 48, GatherArgs: 48}

_ref = ctypes.POINTER
_PROTOTYPES = {
    # name: (restype, argtypes)
    "tilesort_abi_version": (_i32, []),
    "tilesort_code_name": (ctypes.c_char_p, [_i32]),
    "tilesort_segmented_sort_workspace_size": (_i32, [_ref(SortPlan), _ref(ctypes.c_size_t), _ref(Error)]),
    "tilesort_segmented_sort": (_i32, [_p, ctypes.c_size_t, _ref(SortPlan), _ref(SortArgs), _p, _ref(Error)]),
    "tilesort_device_status_address": (_p, [_p]),
    "tilesort_device_status_to_error": (_i32, [_ref(DeviceStatus), _ref(Error)]),
    "tilesort_read_device_status": (_i32, [_p, _p, _ref(Error)]),
    "tilesort_bin_workspace_size": (_i32, [_ref(BinPlan), _ref(ctypes.c_size_t), _ref(Error)]),
    "tilesort_bin_and_sort_workspace_size": (_i32, [_ref(BinPlan), _ref(ctypes.c_size_t), _ref(Error)]),
    "tilesort_bin": (_i32, [_p, ctypes.c_size_t, _ref(BinPlan), _ref(BinArgs), _p, _ref(Error)]),
    "tilesort_bin_index": (_i32, [_p, ctypes.c_size_t, _ref(BinPlan), _ref(BinIndexArgs), _p, _ref(Error)]),
    "tilesort_gather": (_i32, [_p, ctypes.c_size_t, _ref(BinPlan), _ref(GatherArgs), _p, _ref(Error)]),
    "tilesort_bin_and_sort": (_i32, [_p, ctypes.c_size_t, _ref(BinPlan), _ref(BinArgs), _p, _ref(Error)]),
    "tilesort_bin_device_status_address": (_p, [_p]),
    "tilesort_bin_device_status_to_error": (_i32, [_ref(DeviceStatus), _ref(Error)]),
    "tilesort_read_bin_status": (_i32, [_p, _p, _ref(Error)]),
    "tilesort_read_bin_and_sort_status": (_i32, [_p, _ref(BinPlan), _p, _ref(Error)]),
    "tilesort_set_device": (_i32, [_i32, _ref(Error)]),
    "tilesort_get_device": (_i32, [_ref(_i32), _ref(Error)]),
    "tilesort_pointer_device": (_i32, [_p, _ref(_i32), _ref(Error)]),
}

_NAMES = ("libtilesort_c.so.1", "libtilesort_c.so")


def candidate_paths():
    """Where the library is looked for, in order (TILESORT_LIBRARY first)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get(LIBRARY_ENV)
    paths = []
    if env:
        if os.path.isdir(env):
            paths += [os.path.join(env, n) for n in _NAMES] + [os.path.join(env, "capi", n) for n in _NAMES]
        else:
            paths.append(env)
        return paths  # an explicit choice is never second-guessed
    paths += [os.path.join(here, "lib", n) for n in _NAMES]  # bundled by `pip install ./python`
    # Straight from a build tree: python/tilesort -> the repository's build*/capi.
    root = os.path.dirname(os.path.dirname(here))
    for build in sorted(glob.glob(os.path.join(root, "build*", "capi"))):
        paths += [os.path.join(build, n) for n in _NAMES]
    paths += list(_NAMES)  # the loader's search path (an installed tilesort)
    return paths


class Library:
    """The loaded library: every prototype bound once, as attributes."""

    def __init__(self, handle, path):
        self.path = path
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(handle, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name[len("tilesort_"):], fn)

    def name_of(self, code):
        """tilesort_code_name as a str ("ok", "invalid_argument", ...)."""
        return self.code_name(code).decode()


_lock = threading.Lock()
_library = None


def library():
    """The library, loaded on first use; ImportError says where it looked."""
    global _library
    if _library is not None:
        return _library
    with _lock:
        if _library is None:
            tried = []
            for path in candidate_paths():
                if os.sep in path and not os.path.exists(path):
                    tried.append(path + " (absent)")
                    continue
                try:
                    handle = ctypes.CDLL(path)
                except OSError as e:
                    tried.append("%s (%s)" % (path, e))
                    continue
                lib = Library(handle, path)
                version = lib.abi_version()
                if version != ABI_VERSION:
                    raise ImportError("tilesort: %s has C ABI version %d, this package needs %d"
                                      % (path, version, ABI_VERSION))
                _library = lib
                break
            else:
                raise ImportError("tilesort: libtilesort_c.so not found. Build it (cmake --build build --target "
                                  "tilesort_c), or set %s to the file or its directory. Tried: %s"
                                  % (LIBRARY_ENV, "; ".join(tried)))
    return _library
