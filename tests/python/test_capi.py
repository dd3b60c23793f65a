"""The C API's host side (no GPU needed): loading, ABI, struct layouts and
every error the library reports before launching anything."""
import ctypes

import pytest

import tilesort
from tilesort import _capi

lib = _capi.library()
byref = ctypes.byref


def test_abi_version_and_library_path():
    assert lib.abi_version() == _capi.ABI_VERSION
    assert tilesort.library_path().endswith((".so", ".so.1"))


@pytest.mark.parametrize("struct, size", sorted(_capi.STRUCT_SIZES.items(), key=lambda kv: kv[0].__name__))
def test_struct_sizes_match_the_header(struct, size):
    # capi/src/tilesort_c.cpp static_asserts the same sizes.
    assert ctypes.sizeof(struct) == size


def test_code_names():
    assert lib.name_of(_capi.OK) == "ok"
    assert lib.name_of(_capi.INVALID_ARGUMENT) == "invalid_argument"
    assert lib.name_of(_capi.OFFSETS_NOT_MONOTONIC) == "offsets_not_monotonic"
    assert lib.name_of(_capi.TILE_ID_OUT_OF_RANGE) == "tile_id_out_of_range"
    assert lib.name_of(_capi.PERMUTATION_OUT_OF_RANGE) == "permutation_out_of_range"
    assert lib.name_of(99) == "unknown_status"


def plan(key=2, value=1, offsets=0, items=1 << 20, segments=1024):
    return _capi.SortPlan(key, value, offsets, 0, items, segments, 0)


def workspace_size(p):
    err = _capi.Error()
    n = ctypes.c_size_t(0)
    code = lib.segmented_sort_workspace_size(byref(p), byref(n), byref(err))
    return code, n.value, err


def test_workspace_size_for_every_type():
    for key in range(6):
        for value in range(3):
            for offsets in range(2):
                code, n, err = workspace_size(plan(key, value, offsets))
                assert code == _capi.OK, err.message
                assert err.message == b"ok" and n > 0
    # A bound on the segment length drops the large-segment scratch.
    bounded = plan()
    bounded.max_segment_items = 8192
    assert workspace_size(bounded)[1] < workspace_size(plan())[1]


@pytest.mark.parametrize("field, value, message", [
    ("key_type", 6, b"unknown key_type"), ("key_type", -1, b"unknown key_type"),
    ("value_type", 3, b"unknown value_type"), ("offset_type", 2, b"unknown offset_type"),
    ("reserved", 1, b"reserved must be 0")])
def test_bad_plan_fields(field, value, message):
    p = plan()
    setattr(p, field, value)
    code, _, err = workspace_size(p)
    assert code == _capi.INVALID_ARGUMENT == err.code
    assert message in err.message


def test_null_arguments_and_null_error_pointer():
    n = ctypes.c_size_t(0)
    assert lib.segmented_sort_workspace_size(None, byref(n), None) == _capi.INVALID_ARGUMENT
    err = _capi.Error()
    assert lib.segmented_sort_workspace_size(byref(plan()), None, byref(err)) == _capi.INVALID_ARGUMENT
    assert b"bytes is null" in err.message


def sort(p, args, workspace=256, nbytes=None):
    err = _capi.Error()
    if nbytes is None:
        nbytes = workspace_size(p)[1]
    code = lib.segmented_sort(workspace, nbytes, byref(p), byref(args), None, byref(err))
    return code, err


def args(**fields):
    a = _capi.SortArgs(keys=0x1000, values=0x2000, offsets=0x3000, num_segments=4,
                       num_items=_capi.COUNT_NOT_GIVEN, end_bit=-1)
    for k, v in fields.items():
        setattr(a, k, v)
    return a


# Fake, aligned addresses: every case below fails its host-side checks, so
# nothing is dereferenced and no GPU is needed.
@pytest.mark.parametrize("fields, workspace, code, message", [
    ({}, None, _capi.INVALID_ARGUMENT, b"workspace is null"),
    ({"keys": None}, 256, _capi.INVALID_ARGUMENT, b"keys is null"),
    ({"offsets": None}, 256, _capi.INVALID_ARGUMENT, b"offsets is null"),
    ({"values": None}, 256, _capi.INVALID_ARGUMENT, b"values is null"),
    ({"keys": 0x1002}, 256, _capi.INVALID_ARGUMENT, b"not aligned"),
    ({}, 0x100 + 16, _capi.INVALID_ARGUMENT, b"256-byte aligned"),
    ({"begin_bit": 8, "end_bit": 4}, 256, _capi.INVALID_ARGUMENT, b"bit range [8, 4)"),
    ({"end_bit": 33}, 256, _capi.INVALID_ARGUMENT, b"bit range"),
    ({"order": 2}, 256, _capi.INVALID_ARGUMENT, b"unknown order"),
    ({"reserved": 7}, 256, _capi.INVALID_ARGUMENT, b"reserved must be 0"),
    ({"num_segments": 1025}, 256, _capi.COUNT_OVER_CAPACITY, b"max_segments"),
    ({"num_items": (1 << 20) + 1}, 256, _capi.COUNT_OVER_CAPACITY, b"max_items"),
])
def test_segmented_sort_host_errors(fields, workspace, code, message):
    got, err = sort(plan(), args(**fields), workspace)
    assert got == code == err.code, err.message
    assert message in err.message, err.message
    assert err.message.startswith(lib.name_of(code).encode())


def test_values_given_to_a_keys_only_plan():
    got, err = sort(plan(value=0), args())
    assert got == _capi.INVALID_ARGUMENT and b"value_type is none" in err.message


def test_workspace_too_small():
    p = plan()
    need = workspace_size(p)[1]
    got, err = sort(p, args(), nbytes=need - 1)
    assert got == _capi.WORKSPACE_TOO_SMALL
    assert ("has %d bytes, the plan needs %d" % (need - 1, need)).encode() in err.message


def test_device_status_conversion():
    err = _capi.Error()
    ok = _capi.DeviceStatus(0, 0, 0, 0)
    assert lib.device_status_to_error(byref(ok), byref(err)) == _capi.OK and err.message == b"ok"
    bad = _capi.DeviceStatus(_capi.OFFSETS_NOT_MONOTONIC, 0, 5, 9)
    assert lib.device_status_to_error(byref(bad), byref(err)) == _capi.OFFSETS_NOT_MONOTONIC
    assert b"offsets[5] = 9 is greater than offsets[6]" in err.message
    tile = _capi.DeviceStatus(_capi.TILE_ID_OUT_OF_RANGE, 0, 3, 70000)
    assert lib.bin_device_status_to_error(byref(tile), byref(err)) == _capi.TILE_ID_OUT_OF_RANGE
    assert b"record 3 has tile id 70000" in err.message
    assert lib.device_status_to_error(None, byref(err)) == _capi.INVALID_ARGUMENT


def test_device_status_address_is_in_the_workspace():
    assert lib.device_status_address(4096) == 4096
    assert lib.bin_device_status_address(4096) is not None


def test_read_status_of_a_null_workspace():
    err = _capi.Error()
    assert lib.read_device_status(None, None, byref(err)) == _capi.INVALID_ARGUMENT
    assert lib.read_bin_status(None, None, byref(err)) == _capi.INVALID_ARGUMENT
    bp = _capi.BinPlan(1 << 20, 8160, 1, 0)
    assert lib.read_bin_and_sort_status(None, byref(bp), None, byref(err)) == _capi.INVALID_ARGUMENT


def bin_plan(**fields):
    p = _capi.BinPlan(1 << 20, 8160, 1, 0)
    for k, v in fields.items():
        setattr(p, k, v)
    return p


def test_bin_workspace_sizes():
    err = _capi.Error()
    a, b = ctypes.c_size_t(0), ctypes.c_size_t(0)
    assert lib.bin_workspace_size(byref(bin_plan()), byref(a), byref(err)) == _capi.OK, err.message
    assert lib.bin_and_sort_workspace_size(byref(bin_plan()), byref(b), byref(err)) == _capi.OK, err.message
    assert 0 < a.value < b.value  # bin_and_sort adds the sort's workspace
    assert lib.bin_workspace_size(byref(bin_plan(value_type=5)), byref(a), byref(err)) == _capi.INVALID_ARGUMENT
    assert b"unknown value_type" in err.message


BIN_GOOD = dict(tile_ids=0x1000, keys=0x2000, values=0x3000, num_records=100, num_tiles=16, out_keys=0x4000,
                out_values=0x5000, out_offsets=0x6000, end_bit=-1)


@pytest.mark.parametrize("name", ["bin", "bin_and_sort"])
@pytest.mark.parametrize("change, workspace, code, message", [
    ({}, None, _capi.INVALID_ARGUMENT, b"workspace is null"),
    ({"tile_ids": None}, 256, _capi.INVALID_ARGUMENT, b"tile_ids is null"),
    ({"num_tiles": 0}, 256, _capi.INVALID_ARGUMENT, b"num_tiles is 0"),
    ({"num_tiles": 9000}, 256, _capi.COUNT_OVER_CAPACITY, b"max_tiles"),
    ({"num_records": (1 << 20) + 1}, 256, _capi.COUNT_OVER_CAPACITY, b"max_records"),
    ({"order": 5}, 256, _capi.INVALID_ARGUMENT, b"unknown order")])
def test_bin_host_errors(name, change, workspace, code, message):
    p = bin_plan()
    n = ctypes.c_size_t(0)
    err = _capi.Error()
    assert lib.bin_and_sort_workspace_size(byref(p), byref(n), byref(err)) == _capi.OK
    a = _capi.BinArgs(**dict(BIN_GOOD, **change))
    assert getattr(lib, name)(workspace, n.value, byref(p), byref(a), None, byref(err)) == code == err.code
    assert message in err.message, err.message


def test_bin_and_sort_bit_range():
    p = bin_plan()
    n = ctypes.c_size_t(0)
    err = _capi.Error()
    lib.bin_and_sort_workspace_size(byref(p), byref(n), byref(err))
    a = _capi.BinArgs(**dict(BIN_GOOD, begin_bit=3, end_bit=2))
    assert lib.bin_and_sort(256, n.value, byref(p), byref(a), None, byref(err)) == _capi.INVALID_ARGUMENT
    assert b"bit range [3, 2)" in err.message


def test_bin_index_and_gather_host_errors():
    p = bin_plan()
    n = ctypes.c_size_t(0)
    err = _capi.Error()
    lib.bin_workspace_size(byref(p), byref(n), byref(err))
    ia = _capi.BinIndexArgs(tile_ids=0x1000, num_records=10, num_tiles=4, reserved=1, out_permutation=0x2000,
                            out_offsets=0x3000)
    assert lib.bin_index(256, n.value, byref(p), byref(ia), None, byref(err)) == _capi.INVALID_ARGUMENT
    assert b"reserved must be 0" in err.message
    ia.reserved, ia.out_permutation = 0, None
    assert lib.bin_index(256, n.value, byref(p), byref(ia), None, byref(err)) == _capi.INVALID_ARGUMENT
    ga = _capi.GatherArgs(records=0x1000, out_records=0x2000, record_bytes=6, permutation=0x3000, num_records=10)
    assert lib.gather(256, n.value, byref(p), byref(ga), None, byref(err)) == _capi.INVALID_ARGUMENT
    assert b"record_bytes must be a positive multiple of 4" in err.message
