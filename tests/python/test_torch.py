"""GPU tests with PyTorch: segmented sorts against torch.argsort (stable) per
segment for every key, value and offset dtype and both orders; bit ranges;
binning against the NumPy reference; device errors through check(); graph
capture with torch.cuda.graph; work on non-default streams; the generic
__cuda_array_interface__ and DLPack paths. Skipped without torch or a GPU."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to PyTorch", allow_module_level=True)

import reference as ref  # noqa: E402
import tilesort  # noqa: E402

DEV = torch.device("cuda", 0)
KEY_DTYPES = [torch.uint32, torch.int32, torch.float32, torch.uint64, torch.int64, torch.float64]
VALUE_DTYPES = [None, torch.int32, torch.float64]
OFFSET_DTYPES = [torch.int32, torch.uint32, torch.int64, torch.uint64]
_SIGNED = {torch.uint32: torch.int32, torch.uint64: torch.int64}


def clone(t):
    """clone() through a signed view: older PyTorch lacks most uint32/uint64 kernels."""
    return bits_of(t).clone().view(t.dtype)


def bits_of(t):
    """A same-size signed-integer view, for bit-exact comparisons."""
    return t.view(torch.int32 if t.element_size() == 4 else torch.int64)


def assert_bits_equal(got, want, what, seed):
    g, w = bits_of(got), bits_of(want)
    if not torch.equal(g, w):
        bad = (g != w).nonzero()[0].item()
        raise AssertionError("%s differ first at %d (got %r, want %r); TILESORT_TEST_SEED-derived seed %d"
                             % (what, bad, g[bad].item(), w[bad].item(), seed))


def make_keys(gen, n, dtype):
    """Keys with ties, extremes and, for floats, -0.0/+0.0, infinities, NaNs."""
    if dtype.is_floating_point:
        k = torch.randn(n, generator=gen, dtype=torch.float64) * 1000
        ties = torch.rand(n, generator=gen) < 0.3
        k[ties] = torch.randint(-3, 4, (int(ties.sum()),), generator=gen).to(torch.float64)
        specials = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan")], dtype=torch.float64)
        where = torch.rand(n, generator=gen) < 0.05
        k[where] = specials[torch.randint(0, 5, (int(where.sum()),), generator=gen)]
        return k.to(dtype).to(DEV)
    signed = _SIGNED.get(dtype, dtype)
    info = torch.iinfo(signed)
    k = torch.randint(info.min, info.max, (n,), generator=gen, dtype=signed)
    small = torch.rand(n, generator=gen) < 0.3  # many ties
    k[small] = torch.randint(-3, 4, (int(small.sum()),), generator=gen, dtype=signed)
    k[:2] = torch.tensor([info.min, info.max], dtype=signed)
    k = k.to(DEV)
    return k.view(dtype) if dtype in _SIGNED else k


def make_offsets(gen, segments, max_len, dtype, tail=0):
    lengths = torch.randint(0, max_len + 1, (segments,), generator=gen)
    lengths[torch.rand(segments, generator=gen) < 0.2] = 0
    lengths[torch.rand(segments, generator=gen) < 0.1] = 1
    offsets = torch.zeros(segments + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    n = int(offsets[-1]) + tail
    signed = _SIGNED.get(dtype, dtype)
    o = offsets.to(signed).to(DEV)
    return (o.view(dtype) if dtype in _SIGNED else o), n


def ordered_code(keys):
    """int64 codes whose ascending order is the contract's (positive NaNs)."""
    dt = keys.dtype
    if dt in (torch.int32, torch.int64):
        return keys.to(torch.int64)
    if dt == torch.uint32:
        return keys.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    if dt == torch.uint64:
        return keys.view(torch.int64) ^ (-2**63)
    b = bits_of(keys).to(torch.int64)
    return torch.where(b < 0, b ^ (0x7FFFFFFF if dt == torch.float32 else 0x7FFFFFFFFFFFFFFF), b)


def torch_reference(keys, values, offsets, descending):
    """The contract's result from torch.argsort(stable=True): by key code,
    then stably by segment (two stable passes = lexicographic order)."""
    off = bits_of(offsets).to(torch.int64).cpu()
    start, end = int(off[0]), int(off[-1])
    lengths = (off[1:] - off[:-1]).to(DEV)
    seg = torch.repeat_interleave(torch.arange(len(lengths), device=DEV), lengths)
    code = ordered_code(keys[start:end])
    if descending:
        code = torch.bitwise_not(code)
        if keys.dtype.is_floating_point:
            code = torch.where(torch.isnan(keys[start:end]), torch.iinfo(torch.int64).max, code)
    by_key = torch.argsort(code, stable=True)
    perm = by_key[torch.argsort(seg[by_key], stable=True)] + start
    out_k = clone(keys)
    bits_of(out_k)[start:end] = bits_of(keys)[perm]
    out_v = None
    if values is not None:
        out_v = clone(values)
        bits_of(out_v)[start:end] = bits_of(values)[perm]
    return out_k, out_v


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("offset_dtype", OFFSET_DTYPES, ids=str)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES, ids=str)
@pytest.mark.parametrize("key_dtype", KEY_DTYPES, ids=str)
def test_matches_torch_argsort(key_dtype, value_dtype, offset_dtype, descending, seed):
    gen = torch.Generator().manual_seed(seed)
    offsets, n = make_offsets(gen, 300, 400, offset_dtype, tail=7)  # every class up to 400, a tail outside
    keys = make_keys(gen, n, key_dtype)
    values = None
    if value_dtype is not None:
        values = (torch.arange(n, dtype=torch.int64) * 3 + (1 << 40)).to(DEV)
        values = values.to(torch.int32) if value_dtype == torch.int32 else values.view(torch.float64)
    want_k, want_v = torch_reference(keys, values, offsets, descending)
    sorter = tilesort.Sorter(n, 300, key_dtype, value_dtype, offset_dtype)
    assert sorter.sort_(keys, offsets, values, descending=descending) is keys
    sorter.check()
    assert_bits_equal(keys, want_k, "keys", seed)
    if values is not None:
        assert_bits_equal(values, want_v, "values", seed)


@pytest.mark.parametrize("key_dtype", [torch.float32, torch.uint32, torch.int64], ids=str)
def test_large_segments(key_dtype, seed):
    """Segments past the one-block classes (the MSD path), among small ones."""
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([1 << 20, 5, 0, 20000, 16385, 3, 70000])
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    n = int(offsets[-1])
    keys = make_keys(gen, n, key_dtype)
    values = torch.arange(n, dtype=torch.int32, device=DEV)
    offsets = offsets.to(torch.int32).to(DEV)
    for descending in (False, True):
        k, v = clone(keys), clone(values)
        want_k, want_v = torch_reference(k, v, offsets, descending)
        tilesort.segmented_sort_(k, offsets, v, descending=descending, check=True)
        assert_bits_equal(k, want_k, "keys", seed)
        assert_bits_equal(v, want_v, "values", seed)


@pytest.mark.parametrize("bits", [(0, 8), (4, 20), (16, 32), (0, 1)], ids=str)
@pytest.mark.parametrize("key_dtype", [torch.uint32, torch.int32, torch.uint64, torch.int64], ids=str)
def test_bit_ranges(key_dtype, bits, seed):
    gen = torch.Generator().manual_seed(seed)
    offsets, n = make_offsets(gen, 200, 3000, torch.int32)
    keys = make_keys(gen, n, key_dtype)
    values = torch.arange(n, dtype=torch.int32, device=DEV)
    for descending in (False, True):
        k, v = clone(keys), clone(values)
        want_k, want_v = ref.segmented_sort(bits_of(keys).cpu().numpy().view(_np_dtype(key_dtype)),
                                            values.cpu().numpy(), bits_of(offsets).cpu().numpy(), descending, bits)
        tilesort.Sorter(n, 200, key_dtype, torch.int32).sort_(k, offsets, v, descending=descending, bits=bits)
        assert np.array_equal(v.cpu().numpy(), want_v), "seed %d" % seed
        assert np.array_equal(bits_of(k).cpu().numpy(), want_k.view(bits_of(k).cpu().numpy().dtype))


def _np_dtype(dtype):
    return {torch.uint32: np.uint32, torch.int32: np.int32, torch.uint64: np.uint64, torch.int64: np.int64,
            torch.float32: np.float32, torch.float64: np.float64}[dtype]


def test_empty_and_device_counts(seed):
    sorter = tilesort.Sorter(1000, 16, torch.float32, torch.int32)
    empty_k = torch.empty(0, dtype=torch.float32, device=DEV)
    empty_v = torch.empty(0, dtype=torch.int32, device=DEV)
    sorter.sort_(empty_k, torch.zeros(1, dtype=torch.int32, device=DEV), empty_v)
    sorter.sort_(empty_k, torch.zeros(5, dtype=torch.int32, device=DEV), empty_v)
    sorter.check()
    # A device-side segment count: only the first 3 segments are sorted.
    gen = torch.Generator().manual_seed(seed)
    offsets = torch.tensor([0, 100, 250, 400] + [400] * 13, dtype=torch.int32, device=DEV)
    keys = make_keys(gen, 500, torch.float32)
    values = torch.arange(500, dtype=torch.int32, device=DEV)
    want_k, want_v = torch_reference(keys, values, offsets[:4], False)
    count = torch.tensor([3], dtype=torch.int32, device=DEV)
    sorter.sort_(keys, offsets, values, num_segments=count)
    sorter.check()
    assert_bits_equal(keys, want_k, "keys", seed)
    assert_bits_equal(values, want_v, "values", seed)


def test_device_errors_leave_data_untouched(seed):
    gen = torch.Generator().manual_seed(seed)
    keys = make_keys(gen, 100, torch.float32)
    before = clone(keys)
    sorter = tilesort.Sorter(100, 4, torch.float32)
    sorter.sort_(keys, torch.tensor([0, 50, 40, 100], dtype=torch.int32, device=DEV))
    with pytest.raises(tilesort.TilesortDeviceError, match="offsets_not_monotonic") as e:
        sorter.check()
    assert e.value.name == "offsets_not_monotonic"
    assert_bits_equal(keys, before, "keys after a device error", seed)
    sorter.sort_(keys, torch.tensor([0, 50, 100, 100], dtype=torch.int32, device=DEV), num_items=90)
    with pytest.raises(tilesort.TilesortDeviceError, match="offsets_out_of_range"):
        sorter.check()
    sorter.sort_(keys, torch.tensor([0, 50, 100, 100, 100], dtype=torch.int32, device=DEV),
                 num_segments=torch.tensor([5], dtype=torch.int32, device=DEV))
    with pytest.raises(tilesort.TilesortDeviceError, match="count_over_capacity"):
        sorter.check()
    sorter.sort_(keys, torch.tensor([0, 50, 100, 100], dtype=torch.int32, device=DEV))
    sorter.check()  # a good call clears it


def binning_case(gen, n, num_tiles, tile_dtype=torch.int32, value_dtype=torch.int32, key_range=1 << 31):
    """Records in random order: tile ids (one crowded tile), uint32 keys
    below key_range (ties when it is small), values naming the record."""
    tiles = torch.randint(0, num_tiles, (n,), generator=gen, dtype=torch.int32)
    tiles[torch.rand(n, generator=gen) < 0.3] = 0
    keys = torch.randint(0, key_range, (n,), generator=gen, dtype=torch.int32)
    values = None
    if value_dtype == torch.int32:
        values = torch.arange(n, dtype=torch.int32).to(DEV)
    elif value_dtype == torch.int64:
        values = (torch.arange(n, dtype=torch.int64) + (1 << 33)).to(DEV)
    tiles = tiles.to(DEV)
    return (tiles.view(torch.uint32) if tile_dtype == torch.uint32 else tiles, keys.to(DEV).view(torch.uint32),
            values)


def _np(t):
    return None if t is None else (bits_of(t) if t.dtype in _SIGNED else t).cpu().numpy()


@pytest.mark.parametrize("value_dtype", [None, torch.int32, torch.int64], ids=str)
@pytest.mark.parametrize("tile_dtype", [torch.int32, torch.uint32], ids=str)
@pytest.mark.parametrize("descending, bits", [(False, None), (True, None), (False, 16), (True, (8, 24))])
def test_bin_and_sort_against_cpu_reference(tile_dtype, value_dtype, descending, bits, seed):
    gen = torch.Generator().manual_seed(seed)
    n, num_tiles = 200000, 2040
    tiles, keys, values = binning_case(gen, n, num_tiles, tile_dtype, value_dtype, key_range=1 << 20)
    binner = tilesort.Binner(n, num_tiles, value_dtype)
    out_k, out_v, out_off = binner.bin_and_sort(tiles, keys, values, num_tiles, descending=descending, bits=bits)
    binner.check()
    b = None if bits is None else ((0, bits) if isinstance(bits, int) else bits)
    want_k, want_v, want_off, _ = ref.bin_and_sort(_np(tiles), _np(keys).view(np.uint32), _np(values), num_tiles,
                                                   descending, b)
    assert np.array_equal(_np(out_off), want_off), "seed %d" % seed
    assert np.array_equal(_np(out_k).view(np.uint32), want_k), "seed %d" % seed
    if values is not None:
        assert np.array_equal(_np(out_v), want_v), "seed %d" % seed
    else:
        assert out_v is None


def test_bin_bin_index_gather_and_one_shot(seed):
    gen = torch.Generator().manual_seed(seed)
    n, num_tiles = 50000, 130
    tiles, keys, values = binning_case(gen, n, num_tiles)
    want_k, want_v, want_off, perm = ref.bin_and_sort(_np(tiles), _np(keys).view(np.uint32), _np(values), num_tiles,
                                                      sort=False)
    binner = tilesort.Binner(n, num_tiles, torch.int32, sort=False)
    k, v, off = binner.bin(tiles, keys, values, num_tiles)
    binner.check()
    assert np.array_equal(_np(off), want_off) and np.array_equal(_np(v), want_v)
    p, off = binner.bin_index(tiles, num_tiles)
    assert np.array_equal(_np(p), perm) and np.array_equal(_np(off), want_off)
    records = torch.randint(-2**31, 2**31 - 1, (n, 16), generator=gen, dtype=torch.int32).to(DEV)  # 64-byte rows
    out = binner.gather(records, p)
    binner.check()
    assert out.shape == (n, 16) and torch.equal(out, records[p.long()])
    # One-shot bin_and_sort with a host count below the array length.
    k, v, off = tilesort.bin_and_sort(tiles, keys, values, num_tiles, check=True)
    want_k, want_v, want_off, _ = ref.bin_and_sort(_np(tiles), _np(keys).view(np.uint32), _np(values), num_tiles)
    assert np.array_equal(_np(k).view(np.uint32), want_k) and np.array_equal(_np(v), want_v)
    half = n // 2
    k, v, off = tilesort.Binner(n, num_tiles, torch.int32).bin_and_sort(tiles, keys, values, num_tiles,
                                                                        num_records=half)
    want_k, want_v, want_off, _ = ref.bin_and_sort(_np(tiles)[:half], _np(keys).view(np.uint32)[:half],
                                                   _np(values)[:half], num_tiles)
    assert len(k) == half and np.array_equal(_np(v), want_v) and np.array_equal(_np(off), want_off)


def test_binning_device_errors_leave_outputs_untouched(seed):
    gen = torch.Generator().manual_seed(seed)
    n, num_tiles = 10000, 64
    tiles, keys, values = binning_case(gen, n, num_tiles)
    tiles[1234] = num_tiles  # a bad tile id
    binner = tilesort.Binner(n, num_tiles)
    out_k = torch.full((n,), -1, dtype=torch.int32, device=DEV).view(torch.uint32)
    out_v = torch.full((n,), -1, dtype=torch.int32, device=DEV)
    out_off = torch.full((num_tiles + 1,), -1, dtype=torch.int32, device=DEV)
    binner.bin_and_sort(tiles, keys, values, num_tiles, out_keys=out_k, out_values=out_v, out_offsets=out_off)
    with pytest.raises(tilesort.TilesortDeviceError, match="record 1234 has tile id 64") as e:
        binner.check()
    assert e.value.name == "tile_id_out_of_range"
    for t in (out_k, out_v, out_off):
        assert bool((bits_of(t) == -1).all())
    # A device count above capacity.
    tiles[1234] = 0
    binner.bin_and_sort(tiles, keys, values, num_tiles, num_records=torch.tensor([n + 1], dtype=torch.int32,
                                                                                    device=DEV))
    with pytest.raises(tilesort.TilesortDeviceError, match="count_over_capacity"):
        binner.check()


def test_graph_capture_of_sort_and_bin_and_sort(seed):
    gen = torch.Generator().manual_seed(seed)
    n, segments = 60000, 400
    sorter = tilesort.Sorter(n, segments, torch.float32, torch.int32)
    keys = torch.empty(n, dtype=torch.float32, device=DEV)
    values = torch.empty(n, dtype=torch.int32, device=DEV)
    offsets = torch.zeros(segments + 1, dtype=torch.int32, device=DEV)
    count = torch.zeros(1, dtype=torch.int32, device=DEV)
    num_tiles = 300
    binner = tilesort.Binner(n, num_tiles)
    tiles_in, keys_in, values_in = binning_case(gen, n, num_tiles)
    rec_count = torch.tensor([n], dtype=torch.int32, device=DEV)
    out_k = torch.empty(n, dtype=torch.int32, device=DEV).view(torch.uint32)
    out_v = torch.empty(n, dtype=torch.int32, device=DEV)
    out_off = torch.empty(num_tiles + 1, dtype=torch.int32, device=DEV)

    def step():
        sorter.sort_(keys, offsets, values, num_segments=count)
        binner.bin_and_sort(tiles_in, keys_in, values_in, num_tiles, num_records=rec_count, out_keys=out_k,
                            out_values=out_v, out_offsets=out_off)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside capture, as torch.cuda.graph asks
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for replay in range(3):
        segs = 100 + 100 * replay
        off_host, m = make_offsets(gen, segs, 120, torch.int32)
        padded = torch.full((segments + 1,), int(bits_of(off_host)[-1]), dtype=torch.int32, device=DEV)
        padded[:segs + 1] = off_host
        offsets.copy_(padded)
        count.fill_(segs)
        fresh_k = make_keys(gen, n, torch.float32)
        fresh_v = torch.arange(n, dtype=torch.int32, device=DEV) * (replay + 1)
        keys.copy_(fresh_k)
        values.copy_(fresh_v)
        records = n - 1000 * replay
        rec_count.fill_(records)
        graph.replay()
        sorter.check()
        binner.check()
        want_k, want_v = torch_reference(fresh_k, fresh_v, offsets[:segs + 1], False)
        assert_bits_equal(keys, want_k, "keys after replay %d" % replay, seed)
        assert_bits_equal(values, want_v, "values after replay %d" % replay, seed)
        wk, wv, woff, _ = ref.bin_and_sort(_np(tiles_in)[:records], _np(keys_in).view(np.uint32)[:records],
                                           _np(values_in)[:records], num_tiles)
        assert np.array_equal(_np(out_off), woff), "replay %d, seed %d" % (replay, seed)
        assert np.array_equal(_np(out_v)[:records], wv), "replay %d, seed %d" % (replay, seed)


def test_non_default_stream_is_respected(seed):
    """Data made on a busy side stream: a sort on that stream (given, or
    current) sees it; and the call returns without waiting for the GPU."""
    gen = torch.Generator().manual_seed(seed)
    offsets, n = make_offsets(gen, 500, 2000, torch.int32)
    source = make_keys(gen, n, torch.float32)
    want_k, _ = torch_reference(source, None, offsets, False)
    sorter = tilesort.Sorter(n, 500, torch.float32)
    for use_context in (False, True):
        side = torch.cuda.Stream()
        keys = torch.zeros(n, dtype=torch.float32, device=DEV)
        torch.cuda.synchronize()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time before the data exists
            keys.copy_(source)
        if use_context:
            with torch.cuda.stream(side):
                sorter.sort_(keys, offsets)
        else:
            sorter.sort_(keys, offsets, stream=side)
        assert not side.query(), "sort_ waited for the stream (a hidden synchronisation)"
        torch.cuda.current_stream().wait_stream(side)
        sorter.check()
        assert_bits_equal(keys, want_k, "keys sorted on a side stream", seed)


class CaiOnly:
    """Only __cuda_array_interface__ (as Numba arrays are)."""

    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DlpackOnly:
    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@pytest.mark.parametrize("wrap", [CaiOnly, DlpackOnly], ids=["cuda_array_interface", "dlpack"])
def test_generic_array_protocols(wrap, seed):
    gen = torch.Generator().manual_seed(seed)
    offsets, n = make_offsets(gen, 100, 500, torch.int64)
    keys = make_keys(gen, n, torch.float64)
    values = torch.arange(n, dtype=torch.int64, device=DEV)
    want_k, want_v = torch_reference(keys, values, offsets, True)
    sorter = tilesort.Sorter(n, 100, "float64", "int64", "int64")
    sorter.sort_(wrap(keys), wrap(offsets), wrap(values), descending=True)
    sorter.check()
    assert_bits_equal(keys, want_k, "keys", seed)
    assert_bits_equal(values, want_v, "values", seed)


def test_cpu_tensors_are_refused():
    with pytest.raises(ValueError, match="must be on a CUDA device"):
        tilesort.Sorter(10, 1, torch.float32).sort_(torch.zeros(10), torch.tensor([0, 10], dtype=torch.int32))
    with pytest.raises(ValueError, match="not contiguous"):
        k = torch.zeros(20, device=DEV)[::2]
        tilesort.Sorter(10, 1, torch.float32).sort_(k, torch.tensor([0, 10], dtype=torch.int32, device=DEV))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_second_device(seed):
    dev = torch.device("cuda", 1)
    keys = torch.randn(5000, device=dev)
    offsets = torch.tensor([0, 2500, 5000], dtype=torch.int32, device=dev)
    want = torch.cat([keys[:2500].sort().values, keys[2500:].sort().values])
    with torch.cuda.device(dev):
        tilesort.segmented_sort_(keys, offsets, check=True)
    assert torch.equal(keys, want)
