"""GPU tests with CuPy: segmented sorts and binning against the NumPy
reference, CuPy's current stream and a non-blocking one, device errors, and
outputs and workspaces allocated through CuPy. Skipped without CuPy or a GPU."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
try:
    if cupy.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no device")
except Exception as e:  # CuPy raises its own CUDARuntimeError without a driver
    pytest.skip("no CUDA device visible to CuPy (%s)" % e, allow_module_level=True)

import reference as ref  # noqa: E402
import tilesort  # noqa: E402

KEYS = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]


def keys_for(rng, n, dtype):
    if np.dtype(dtype).kind == "f":
        k = rng.normal(0, 1000, n)
        ties = rng.random(n) < 0.3
        k[ties] = rng.integers(-3, 4, int(ties.sum()))
        k[rng.random(n) < 0.05] = np.nan
        k[rng.random(n) < 0.05] = -0.0
        return k.astype(dtype)
    info = np.iinfo(dtype)
    k = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    k[rng.random(n) < 0.3] = 3
    return k


def offsets_for(rng, segments, max_len, dtype=np.int32):
    lengths = rng.integers(0, max_len + 1, segments)
    lengths[rng.random(segments) < 0.2] = 0
    offsets = np.zeros(segments + 1, np.int64)
    offsets[1:] = np.cumsum(lengths)
    return offsets.astype(dtype)


def bitwise_equal(a, b):
    return a.dtype.itemsize == b.dtype.itemsize and np.array_equal(a.view("u%d" % a.dtype.itemsize),
                                                                   b.view("u%d" % b.dtype.itemsize))


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("value_dtype", [None, np.uint32, np.float64], ids=str)
@pytest.mark.parametrize("key_dtype", KEYS, ids=lambda d: np.dtype(d).name)
def test_segmented_sort(key_dtype, value_dtype, descending, seed):
    rng = np.random.default_rng(seed)
    offsets = offsets_for(rng, 200, 3000, np.uint64 if np.dtype(key_dtype).itemsize == 8 else np.int32)
    n = int(offsets[-1]) + 5
    keys = keys_for(rng, n, key_dtype)
    values = None if value_dtype is None else rng.integers(0, 2**31, n).astype(value_dtype)
    want_k, want_v = ref.segmented_sort(keys, values, offsets, descending)
    d_keys, d_off = cupy.asarray(keys), cupy.asarray(offsets)
    d_values = None if values is None else cupy.asarray(values)
    sorter = tilesort.Sorter(n, 200, key_dtype, value_dtype, offsets.dtype)
    sorter.sort_(d_keys, d_off, d_values, descending=descending)
    sorter.check()
    assert bitwise_equal(cupy.asnumpy(d_keys), want_k), "seed %d" % seed
    if values is not None:
        assert bitwise_equal(cupy.asnumpy(d_values), want_v), "seed %d" % seed


def test_streams(seed):
    rng = np.random.default_rng(seed)
    offsets = offsets_for(rng, 300, 2000)
    keys = keys_for(rng, int(offsets[-1]), np.float32)
    want_k, _ = ref.segmented_sort(keys, None, offsets)
    sorter = tilesort.Sorter(len(keys), 300, np.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    for use_current in (True, False):
        with stream:
            d_keys = cupy.asarray(keys)
            d_off = cupy.asarray(offsets)
            if use_current:
                sorter.sort_(d_keys, d_off)  # CuPy's current stream: `stream`
        if not use_current:
            sorter.sort_(d_keys, d_off, stream=stream)
        sorter.check()  # waits for the last call's stream
        assert bitwise_equal(cupy.asnumpy(d_keys), want_k)


@pytest.mark.parametrize("descending, bits", [(False, None), (True, None), (False, 12)])
def test_bin_and_sort(descending, bits, seed):
    rng = np.random.default_rng(seed)
    n, num_tiles = 300000, 8160
    tiles = rng.integers(0, num_tiles, n).astype(np.uint32)
    keys = rng.integers(0, 1 << 16, n).astype(np.uint32)
    values = np.arange(n, dtype=np.uint64) + (1 << 40)
    k, v, off = tilesort.bin_and_sort(cupy.asarray(tiles), cupy.asarray(keys), cupy.asarray(values), num_tiles,
                                      descending=descending, bits=bits, check=True)
    assert isinstance(k, cupy.ndarray) and k.dtype == np.uint32 and v.dtype == np.uint64
    b = None if bits is None else (0, bits)
    wk, wv, woff, _ = ref.bin_and_sort(tiles, keys, values, num_tiles, descending, b)
    assert np.array_equal(cupy.asnumpy(off), woff)
    assert np.array_equal(cupy.asnumpy(k), wk) and np.array_equal(cupy.asnumpy(v), wv), "seed %d" % seed


def test_device_errors():
    sorter = tilesort.Sorter(10, 2, np.int64)
    keys = cupy.arange(10, 0, -1, dtype=cupy.int64)
    # One bad offset only (offsets[2] = 11 past the 10 items), so the error is not a race
    # between two threads reporting different problems.
    sorter.sort_(keys, cupy.asarray(np.array([0, 5, 11], np.int32)), num_items=10)
    with pytest.raises(tilesort.TilesortDeviceError, match="offsets_out_of_range"):
        sorter.check()
    assert cupy.asnumpy(keys).tolist() == list(range(10, 0, -1))
    binner = tilesort.Binner(4, 2, None)
    binner.bin(cupy.asarray(np.array([0, 1, 2, 1], np.int32)), cupy.zeros(4, cupy.uint32), None, 2)
    with pytest.raises(tilesort.TilesortDeviceError, match="record 2 has tile id 2"):
        binner.check()
