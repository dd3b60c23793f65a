"""Argument checks of the Python layer, with fake __cuda_array_interface__
objects (no GPU needed): every bad argument raises TypeError or ValueError
naming it, before the CUDA runtime is touched."""
import numpy as np
import pytest

import tilesort
from conftest import cuda_device_count
from tilesort import _arrays


class Fake:
    """Looks like a device array; its address is never dereferenced."""

    def __init__(self, n, typestr="<f4", ptr=0x7f0000000000, shape=None, strides=None, readonly=False, mask=None):
        self.__cuda_array_interface__ = {"shape": shape or (n,), "typestr": typestr, "data": (ptr, readonly),
                                         "strides": strides, "version": 3}
        if mask is not None:
            self.__cuda_array_interface__["mask"] = mask


def sorter(**kw):
    args = dict(max_items=1000, max_segments=10, key_dtype="float32", value_dtype="int32")
    args.update(kw)
    return tilesort.Sorter(**args)


def test_dtype_spellings():
    for spelling in ("float32", "<f4", "f4", np.float32, np.dtype("float32"), "float"):
        assert _arrays.dtype_token(spelling) == "f4"
    assert _arrays.dtype_token("uint64") == "u8" and _arrays.dtype_token(np.int32) == "i4"
    assert _arrays.dtype_token(None) is None
    with pytest.raises(TypeError, match="unknown dtype"):
        _arrays.dtype_token("complex-ish")
    with pytest.raises(TypeError, match="big-endian"):
        _arrays.dtype_token(">f4")


@pytest.mark.parametrize("kw, error, message", [
    ({"key_dtype": "float16"}, TypeError, "key_dtype must be one of"),
    ({"key_dtype": "bool"}, TypeError, "key_dtype must be one of"),
    ({"value_dtype": "int16"}, TypeError, "32- or 64-bit payloads"),
    ({"offset_dtype": "float32"}, TypeError, "offset_dtype must be one of"),
    ({"key_dtype": "nonsense"}, TypeError, "unknown dtype"),
])
def test_bad_sorter_types(kw, error, message):
    with pytest.raises(error, match=message):
        sorter(**kw)


def test_sorter_workspace_and_capacities():
    s = sorter(max_segment_items=4096)
    assert s.workspace_bytes > 0 and s.max_items == 1000 and s.max_segments == 10


K, O, V = Fake(100), Fake(11, "<i4"), Fake(100, "<i4")


@pytest.mark.parametrize("call, error, message", [
    (lambda s: s.sort_([1.0, 2.0], O, V), TypeError, "keys is a list, not a CUDA array"),
    (lambda s: s.sort_(np.zeros(100, np.float32), O, V), ValueError, "not in CUDA device memory"),
    (lambda s: s.sort_(Fake(100, "<f8"), O, V), TypeError, "keys are float64, this Sorter sorts float32"),
    (lambda s: s.sort_(Fake(100, shape=(10, 10)), O, V), ValueError, "keys must be 1-D"),
    (lambda s: s.sort_(Fake(100, strides=(8,)), O, V), ValueError, "keys is not C-contiguous"),
    (lambda s: s.sort_(Fake(100, readonly=True), O, V), ValueError, "keys is read-only"),
    (lambda s: s.sort_(Fake(100, mask=(1, False)), O, V), ValueError, "mask"),
    (lambda s: s.sort_(Fake(100, ">f4"), O, V), TypeError, "big-endian"),
    (lambda s: s.sort_(K, Fake(11, "<i8"), V), TypeError, "offsets' dtype for this Sorter must be one of int32"),
    (lambda s: s.sort_(K, Fake(11, "<f4"), V), TypeError, "offsets' dtype"),
    (lambda s: s.sort_(K, Fake(0, "<i4"), V), ValueError, "num_segments \\+ 1 entries; it is empty"),
    (lambda s: s.sort_(K, Fake(12, "<i4"), V), ValueError, "12 entries|11 segments, more than"),
    (lambda s: s.sort_(K, O, V, num_segments=11), ValueError, "offsets has 11 entries, num_segments = 11"),
    (lambda s: s.sort_(K, O), ValueError, "this Sorter moves values"),
    (lambda s: s.sort_(K, O, Fake(100, "<i2")), TypeError, "values are 2-byte int16"),
    (lambda s: s.sort_(K, O, Fake(100, "<i8")), TypeError, "8-byte int64; this Sorter moves 4-byte"),
    (lambda s: s.sort_(K, O, Fake(99, "<u4")), ValueError, "values has 99 elements, fewer than the 100 items"),
    (lambda s: s.sort_(Fake(1001), O, Fake(1001, "<i4")), ValueError, "1001 items, more than this Sorter's max_items"),
    (lambda s: s.sort_(K, O, V, num_items=101), ValueError, "num_items = 101, but keys has 100"),
    (lambda s: s.sort_(K, O, V, num_items=-1), ValueError, "num_items = -1"),
    (lambda s: s.sort_(K, O, V, num_segments=-2), ValueError, "num_segments is negative"),
    (lambda s: s.sort_(K, O, V, num_segments=Fake(1, "<f4")), TypeError, "device num_segments must hold one int32"),
    (lambda s: s.sort_(K, Fake(5, "<i4"), V, num_segments=Fake(1, "<u4")), ValueError, "max_segments \\+ 1 = 11"),
    (lambda s: s.sort_(K, O, V, bits=33), ValueError, "0 <= begin < end <= 32"),
    (lambda s: s.sort_(K, O, V, bits=(8, 8)), ValueError, "bits \\(8, 8\\)"),
    (lambda s: s.sort_(K, O, V, bits="all"), TypeError, "bits must be None"),
    (lambda s: s.sort_(K, O, V, num_segments=1.5), TypeError, ""),
])
def test_sort_argument_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(sorter())


def test_keys_only_sorter_refuses_values():
    with pytest.raises(ValueError, match="keys only"):
        sorter(value_dtype=None).sort_(K, O, V)


def test_uint_offsets_and_64_bit_offsets_are_accepted_types():
    # The type checks pass; without a GPU the call then fails in the runtime.
    s = sorter(offset_dtype="uint64", key_dtype="uint64", value_dtype="float64")
    with pytest.raises(TypeError, match="int64, uint64"):
        s.sort_(Fake(100, "<u8"), Fake(11, "<u4"), Fake(100, "<f8"))


T, BK, BV = Fake(100, "<i4"), Fake(100, "<u4"), Fake(100, "<u4")


def binner(**kw):
    args = dict(max_records=1000, max_tiles=64)
    args.update(kw)
    return tilesort.Binner(**args)


@pytest.mark.parametrize("call, error, message", [
    (lambda b: b.bin_and_sort(Fake(100, "<f4"), BK, BV, 16), TypeError, "tile_ids must be one of int32, uint32"),
    (lambda b: b.bin_and_sort(T, Fake(100, "<f4"), BV, 16), TypeError, "keys must be one of uint32, not float32"),
    (lambda b: b.bin_and_sort(T, BK, Fake(100, "<u8"), 16), TypeError, "8-byte uint64; this Binner moves 4-byte"),
    (lambda b: b.bin_and_sort(T, BK, None, 16), ValueError, "this Binner moves values"),
    (lambda b: b.bin_and_sort(T, BK, BV, 0), ValueError, "num_tiles = 0 is not in \\[1, max_tiles = 64\\]"),
    (lambda b: b.bin_and_sort(T, BK, BV, 65), ValueError, "num_tiles = 65"),
    (lambda b: b.bin_and_sort(T, BK, BV, "16"), TypeError, "num_tiles must be an int"),
    (lambda b: b.bin_and_sort(T, Fake(99, "<u4"), BV, 16), ValueError, "keys has 99 elements, the call needs 100"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, num_records=101), ValueError, "num_records = 101, but tile_ids has 100"),
    (lambda b: b.bin_and_sort(Fake(2000, "<u4"), Fake(2000, "<u4"), Fake(2000, "<u4"), 16), ValueError,
     "2000 records, more than this Binner's max_records 1000"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, num_records=Fake(1, "<u4")), ValueError,
     "device num_records, the record arrays need max_records = 1000"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, out_keys=Fake(50, "<u4")), ValueError, "out_keys has 50 elements"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, out_offsets=Fake(16, "<i4")), ValueError, "out_offsets has 16"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, out_offsets=Fake(17, "<i8")), TypeError, "out_offsets must be one of"),
    (lambda b: b.bin_and_sort(T, BK, BV, 16, bits=40), ValueError, "<= 32"),
    (lambda b: b.bin(T, BK, BV, 16, out_values=Fake(100, "<u2")), TypeError, "2-byte uint16"),
    (lambda b: b.bin_index(T, 16, out_permutation=Fake(100, "<f4")), TypeError, "out_permutation must be one of"),
    (lambda b: b.gather(Fake(100, "<u1", shape=(100, 6)), Fake(100, "<u4")), ValueError, "multiple of 4 bytes"),
    (lambda b: b.gather(Fake(100, "<u4", shape=(50, 4)), Fake(100, "<u4")), ValueError, "records has 50 rows"),
    (lambda b: b.gather(Fake(100, "<u4", shape=(100, 4)), Fake(100, "<f4")), TypeError, "permutation must be one of"),
    (lambda b: b.gather(Fake(400, "<u4", shape=(100, 4)), Fake(100, "<u4"), out=Fake(10, "<u4")), ValueError,
     "out holds 40 bytes, the call writes 1600"),
])
def test_binning_argument_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(binner())


def test_binner_without_sort_scratch():
    small, full = binner(sort=False), binner()
    assert small.workspace_bytes < full.workspace_bytes
    with pytest.raises(ValueError, match="sort=False"):
        small.bin_and_sort(T, BK, BV, 16)


def test_bad_stream_argument():
    with pytest.raises(TypeError, match="stream must be"):
        _arrays.stream_handle(object(), None, 0)
    assert _arrays.stream_handle(1234, None, 0) == 1234
    assert _arrays.stream_handle(None, None, 0) == 0

    class HasProtocol:
        def __cuda_stream__(self):
            return (0, 42)
    assert _arrays.stream_handle(HasProtocol(), None, 0) == 42


def test_dlpack_of_host_memory_is_refused():
    with pytest.raises(ValueError, match="DLPack device type 1"):
        _arrays.describe(np.arange(4, dtype=np.uint32), "keys")


def test_check_before_any_call_is_a_no_op():
    sorter().check()
    binner().check()


@pytest.mark.skipif(cuda_device_count() > 0, reason="this case is for machines without a CUDA device")
def test_valid_call_without_a_gpu_raises_a_cuda_error():
    with pytest.raises(tilesort.TilesortError) as e:
        sorter().sort_(K, O, V)
    assert e.value.name == "cuda_error" and "cudaPointerGetAttributes" in str(e.value)
