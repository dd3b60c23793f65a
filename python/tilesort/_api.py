"""Sorter (segmented sort) and Binner (bin, bin_index, gather, bin_and_sort).

Each object owns one workspace, sized once for its capacities and allocated
on first use through the caller's framework, and one set of ctypes argument
structs, refilled on every call. Arguments are checked here, in Python,
before anything is launched: wrong dtypes raise TypeError, wrong sizes,
devices or layouts ValueError. A call only enqueues work on the stream;
errors the device finds are raised by check(), which waits for the stream.
"""

import ctypes
import operator
import threading

from . import _arrays
from . import _capi


class TilesortError(RuntimeError):
    """A failed tilesort call: `code` (a tilesort_code), `name` ("cuda_error",
    ...), `cuda_error` (the cudaError_t behind a cuda_error, else 0)."""

    def __init__(self, code, name, message, cuda_error=0):
        super().__init__(message)
        self.code = code
        self.name = name
        self.cuda_error = cuda_error


class TilesortArgumentError(TilesortError, ValueError):
    """The C API refused the arguments (a ValueError too)."""


class TilesortDeviceError(TilesortError):
    """What the device found (offsets out of range, a bad tile id, a count
    over capacity), raised by check(). The call's outputs were left untouched."""


_ARGUMENT_CODES = (_capi.INVALID_ARGUMENT, _capi.UNSUPPORTED_TYPE, _capi.WORKSPACE_TOO_SMALL,
                   _capi.COUNT_OVER_CAPACITY)


def _raise(lib, err, device_side=False):
    code = err.code
    cls = TilesortDeviceError if device_side else TilesortArgumentError if code in _ARGUMENT_CODES else TilesortError
    raise cls(code, lib.name_of(code), "tilesort: " + err.message.decode(errors="replace"), err.cuda_error)


_thread = threading.local()


def _use_device(lib, device, err):
    """tilesort's own CUDA runtime (linked statically) keeps its own current
    device per thread: match it to the arrays' device, calling it only when
    that changes."""
    if getattr(_thread, "device", None) != device:
        if lib.set_device(device, ctypes.byref(err)):
            _raise(lib, err)
        _thread.device = device


def _device_of(lib, a, err, what):
    if a.device is None:  # a plain __cuda_array_interface__: ask the runtime
        d = ctypes.c_int32(-1)
        if lib.pointer_device(a.ptr, ctypes.byref(d), ctypes.byref(err)):
            _raise(lib, err)
        if d.value < 0:
            raise ValueError("tilesort: %s is not in CUDA device memory" % what)
        a.device = d.value
    return a.device


def _same_device(lib, err, arrays):
    """The one device of [(Array, what), ...] (None entries skipped); checked
    after every other argument, since it may need the CUDA runtime."""
    device = None
    first = None
    for a, what in arrays:
        if a is None:
            continue
        d = _device_of(lib, a, err, what)
        if device is None:
            device, first = d, what
        elif d != device:
            raise ValueError("tilesort: %s is on device %d, %s on device %d" % (what, d, first, device))
    return device


def _one_d(a, what):
    if len(a.shape) != 1:
        raise ValueError("tilesort: %s must be 1-D, it has shape %s" % (what, a.shape))


def _bit_range(bits, key_bits):
    if bits is None:
        return 0, -1
    if isinstance(bits, int):
        begin, end = 0, bits
    else:
        try:
            begin, end = (int(b) for b in bits)
        except (TypeError, ValueError):
            raise TypeError("tilesort: bits must be None, an int (end bit) or a (begin, end) pair; got %r" % (bits,))
    if not 0 <= begin < end <= key_bits:
        raise ValueError("tilesort: bits (%d, %d) must satisfy 0 <= begin < end <= %d" % (begin, end, key_bits))
    return begin, end


def _count(count, default, what):
    """A count argument: None (the default), an int, or a one-element device
    array of int32/uint32 (never read on the host). Returns (host count or
    None, Array or None)."""
    if count is None:
        return default, None
    if not _arrays.is_array(count):
        count = operator.index(count)
        if count < 0:
            raise ValueError("tilesort: %s is negative (%d)" % (what, count))
        return count, None
    a = _arrays.describe(count, what)
    if a.token not in ("u4", "i4") or a.size < 1:
        raise TypeError("tilesort: a device %s must hold one int32/uint32 (got %s with %d elements)"
                        % (what, _arrays.token_name(a.token), a.size))
    return None, a


class _Workspace:
    """One workspace: allocated on first use through the caller's framework,
    256-byte aligned (what the C++ API asks), kept for the object's life."""

    __slots__ = ("nbytes", "array", "ptr", "device")

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.array = None
        self.ptr = 0
        self.device = None

    def ensure(self, framework, device, stream):
        if self.array is None:
            self.array = _arrays.workspace(framework, self.nbytes + 256, device, stream)
            base = _arrays.describe(self.array, "workspace").ptr
            self.ptr = (base + 255) & ~255
            self.device = device
        elif device != self.device:
            raise ValueError("tilesort: this object's workspace is on device %d, the arrays are on device %d; "
                             "use one object per device" % (self.device, device))


def _dtype_of(token, allowed, what):
    if token not in allowed:
        raise TypeError("tilesort: %s must be one of %s, not %s"
                        % (what, ", ".join(_arrays.token_name(t) for t in allowed), _arrays.token_name(token)))


def _value_type(value_dtype):
    token = _arrays.dtype_token(value_dtype)
    if token is None:
        return _capi.VALUE_NONE, 0
    size = _arrays.itemsize(token)
    if size not in (4, 8):
        raise TypeError("tilesort: values are 32- or 64-bit payloads; %s has %d bytes"
                        % (_arrays.token_name(token), size))
    return (_capi.VALUE_B32 if size == 4 else _capi.VALUE_B64), size


class Sorter:
    """Segmented sort in place, with a workspace sized once.

    Sorter(max_items, max_segments, key_dtype, value_dtype=None,
           offset_dtype="int32", max_segment_items=None)

    key_dtype: uint32, int32, float32, uint64, int64 or float64 (any
    spelling: "float32", torch.float32, numpy.float32). value_dtype: None
    (keys only) or any 32- or 64-bit dtype, moved as an opaque payload.
    offset_dtype: int32/uint32 or int64/uint64. max_segment_items: the longest
    segment any call holds, when known (at most 16384, the largest one-block
    size of an sm_90 build, drops the large-segment scratch from the
    workspace).

    Not for use by two threads at once (one workspace, one argument struct).
    """

    def __init__(self, max_items, max_segments, key_dtype, value_dtype=None, offset_dtype="int32",
                 max_segment_items=None):
        self._lib = lib = _capi.library()
        key = _arrays.dtype_token(key_dtype)
        _dtype_of(key, _capi.KEY_TYPES, "key_dtype")
        offsets = _arrays.dtype_token(offset_dtype)
        _dtype_of(offsets, ("i4", "u4", "i8", "u8"), "offset_dtype")
        value_type, self._value_bytes = _value_type(value_dtype)
        self._key = key
        self._key_bits = 8 * _arrays.itemsize(key)
        self._offset_tokens = ("i4", "u4") if _arrays.itemsize(offsets) == 4 else ("i8", "u8")
        self._plan = _capi.SortPlan(_capi.KEY_TYPES[key], value_type,
                                    _capi.OFFSET_U32 if _arrays.itemsize(offsets) == 4 else _capi.OFFSET_U64, 0,
                                    int(max_items), int(max_segments), int(max_segment_items or 0))
        self._err = _capi.Error()
        nbytes = ctypes.c_size_t(0)
        if lib.segmented_sort_workspace_size(ctypes.byref(self._plan), ctypes.byref(nbytes), ctypes.byref(self._err)):
            _raise(lib, self._err)
        self._ws = _Workspace(nbytes.value)
        self._args = _capi.SortArgs()
        self._call = lib.segmented_sort
        self._refs = (ctypes.byref(self._plan), ctypes.byref(self._args), ctypes.byref(self._err))
        self._last_stream = None

    @property
    def workspace_bytes(self):
        """Device bytes this Sorter's workspace takes (allocated on first use)."""
        return self._ws.nbytes

    @property
    def max_items(self):
        return self._plan.max_items

    @property
    def max_segments(self):
        return self._plan.max_segments

    def sort_(self, keys, offsets, values=None, *, descending=False, bits=None, num_segments=None,
              num_items=None, stream=None):
        """Sorts every segment [offsets[s], offsets[s+1]) of `keys` (and
        `values` with them) in place; stable. Returns `keys`.

        num_segments: default len(offsets) - 1; an int; or a one-element
        int32/uint32 device array written by earlier work (then offsets must
        have max_segments + 1 entries). num_items: default len(keys); every
        offset must lie in [0, num_items]. bits: None (all), an end bit, or
        (begin, end). stream: default the framework's current stream.
        """
        lib, plan, args, err = self._lib, self._plan, self._args, self._err
        k = _arrays.describe(keys, "keys")
        _one_d(k, "keys")
        if k.token != self._key:
            raise TypeError("tilesort: keys are %s, this Sorter sorts %s"
                            % (_arrays.token_name(k.token), _arrays.token_name(self._key)))
        o = _arrays.describe(offsets, "offsets")
        _one_d(o, "offsets")
        _dtype_of(o.token, self._offset_tokens, "offsets' dtype for this Sorter")
        n = k.size if num_items is None else operator.index(num_items)
        if n > k.size or n < 0:
            raise ValueError("tilesort: num_items = %d, but keys has %d elements" % (n, k.size))
        if n > plan.max_items:
            raise ValueError("tilesort: %d items, more than this Sorter's max_items %d" % (n, plan.max_items))
        v = None
        if values is None:
            if self._value_bytes:
                raise ValueError("tilesort: this Sorter moves values; pass values=")
        else:
            if not self._value_bytes:
                raise ValueError("tilesort: this Sorter sorts keys only (value_dtype=None), but values were given")
            v = _arrays.describe(values, "values")
            _one_d(v, "values")
            if _arrays.itemsize(v.token) != self._value_bytes:
                raise TypeError("tilesort: values are %d-byte %s; this Sorter moves %d-byte values"
                                % (_arrays.itemsize(v.token), _arrays.token_name(v.token), self._value_bytes))
            if v.size < n:
                raise ValueError("tilesort: values has %d elements, fewer than the %d items" % (v.size, n))
        segments, d_segments = _count(num_segments, o.size - 1, "num_segments")
        if d_segments is None:
            if segments < 0:
                raise ValueError("tilesort: offsets must have num_segments + 1 entries; it is empty")
            if o.size < segments + 1:
                raise ValueError("tilesort: offsets has %d entries, num_segments = %d needs %d"
                                 % (o.size, segments, segments + 1))
            if segments > plan.max_segments:
                raise ValueError("tilesort: %d segments, more than this Sorter's max_segments %d"
                                 % (segments, plan.max_segments))
        elif o.size < plan.max_segments + 1:
            raise ValueError("tilesort: with a device num_segments, offsets needs max_segments + 1 = %d "
                             "entries (the device may read that far); it has %d" % (plan.max_segments + 1, o.size))
        begin, end = _bit_range(bits, self._key_bits)
        device = _same_device(lib, err, ((k, "keys"), (o, "offsets"), (v, "values"), (d_segments, "num_segments")))
        handle = _arrays.stream_handle(stream, k.framework, device)

        self._ws.ensure(k.framework, device, handle)
        _use_device(lib, device, err)
        # An empty array may have no address, which the C API reads as a
        # missing argument: with no items nothing is read or written there,
        # so the (aligned, valid) workspace address stands in.
        args.keys = k.ptr or self._ws.ptr
        args.values = (v.ptr or self._ws.ptr) if v is not None else None
        args.offsets = o.ptr
        args.num_segments = segments or 0
        args.d_num_segments = d_segments.ptr if d_segments is not None else None
        args.num_items = n
        args.d_num_items = None
        args.order = 1 if descending else 0
        args.begin_bit = begin
        args.end_bit = end
        plan_ref, args_ref, err_ref = self._refs
        if self._call(self._ws.ptr, self._ws.nbytes, plan_ref, args_ref, handle, err_ref):
            _raise(lib, err)
        self._last_stream = handle
        return keys

    def check(self, stream=None):
        """Waits for `stream` (default: the last call's) and raises
        TilesortDeviceError if the last sort found bad input on the device.
        Not for the hot path: call it when a result is needed anyway."""
        if self._last_stream is None:
            return
        handle = self._last_stream if stream is None else _arrays.stream_handle(stream, None, self._ws.device)
        _use_device(self._lib, self._ws.device, self._err)
        code = self._lib.read_device_status(self._ws.ptr, handle, ctypes.byref(self._err))
        if code:
            _raise(self._lib, self._err, device_side=code != _capi.CUDA_ERROR)


class Binner:
    """bin, bin_index, gather and bin_and_sort with a workspace sized once.

    Binner(max_records, max_tiles, value_dtype="uint32",
           max_tile_records=None, sort=True)

    Keys are uint32 (order-preserving codes: for non-negative float depths,
    depth.view(torch.uint32) is one), tile ids int32 or uint32, values None
    or any 32- or 64-bit dtype. sort=False sizes the workspace for bin,
    bin_index and gather only (no segmented-sort scratch).
    """

    def __init__(self, max_records, max_tiles, value_dtype="uint32", max_tile_records=None, sort=True):
        self._lib = lib = _capi.library()
        value_type, self._value_bytes = _value_type(value_dtype)
        self._value_token = _arrays.dtype_token(value_dtype)
        self._plan = _capi.BinPlan(int(max_records), int(max_tiles), value_type, int(max_tile_records or 0))
        self._err = _capi.Error()
        nbytes = ctypes.c_size_t(0)
        size_fn = lib.bin_and_sort_workspace_size if sort else lib.bin_workspace_size
        if size_fn(ctypes.byref(self._plan), ctypes.byref(nbytes), ctypes.byref(self._err)):
            _raise(lib, self._err)
        self._sort = sort
        self._ws = _Workspace(nbytes.value)
        self._bin_args = _capi.BinArgs()
        self._index_args = _capi.BinIndexArgs()
        self._gather_args = _capi.GatherArgs()
        self._plan_ref = ctypes.byref(self._plan)
        self._err_ref = ctypes.byref(self._err)
        self._last_stream = None
        self._last_sorted = False
        # Offsets come back as int32 where they fit (friendlier to PyTorch).
        self._offset_token = "i4" if self._plan.max_records < 2**31 else "u4"

    @property
    def workspace_bytes(self):
        return self._ws.nbytes

    def _records(self, tile_ids, num_tiles, num_records):
        """Checks tile ids, num_tiles and the count; returns (tile Array,
        num_tiles, host count or None, device count Array or None, the
        length the record arrays need)."""
        plan = self._plan
        t = _arrays.describe(tile_ids, "tile_ids")
        _one_d(t, "tile_ids")
        _dtype_of(t.token, ("i4", "u4"), "tile_ids")
        try:
            num_tiles = operator.index(num_tiles)
        except TypeError:
            raise TypeError("tilesort: num_tiles must be an int, not %s" % type(num_tiles).__name__)
        if not 1 <= num_tiles <= plan.max_tiles:
            raise ValueError("tilesort: num_tiles = %d is not in [1, max_tiles = %d]" % (num_tiles, plan.max_tiles))
        count, d_count = _count(num_records, t.size, "num_records")
        if d_count is None:
            if count > t.size:
                raise ValueError("tilesort: num_records = %d, but tile_ids has %d elements" % (count, t.size))
            if count > plan.max_records:
                raise ValueError("tilesort: %d records, more than this Binner's max_records %d"
                                 % (count, plan.max_records))
            need = count
        else:
            # The device may read up to its capacity before it sees a bad count.
            need = plan.max_records
            if t.size < need:
                raise ValueError("tilesort: with a device num_records, the record arrays need max_records = %d "
                                 "entries; tile_ids has %d" % (need, t.size))
        return t, num_tiles, count, d_count, need

    def _array(self, obj, what, length, tokens=None, item_bytes=None):
        """A 1-D argument of at least `length` elements (tokens: the dtypes
        allowed; item_bytes: the element size required)."""
        a = _arrays.describe(obj, what)
        _one_d(a, what)
        if tokens is not None:
            _dtype_of(a.token, tokens, what)
        if item_bytes is not None and _arrays.itemsize(a.token) != item_bytes:
            raise TypeError("tilesort: %s are %d-byte %s; this Binner moves %d-byte values"
                            % (what, _arrays.itemsize(a.token), _arrays.token_name(a.token), item_bytes))
        if a.size < length:
            raise ValueError("tilesort: %s has %d elements, the call needs %d" % (what, a.size, length))
        return a

    def _values(self, values, need):
        if values is None:
            if self._value_bytes:
                raise ValueError("tilesort: this Binner moves values; pass values=")
            return None
        if not self._value_bytes:
            raise ValueError("tilesort: this Binner has value_dtype=None, but values were given")
        return self._array(values, "values", need, item_bytes=self._value_bytes)

    def _start(self, framework, device, stream):
        handle = _arrays.stream_handle(stream, framework, device)
        self._ws.ensure(framework, device, handle)
        return handle

    def _ptr(self, a):
        return a.ptr or self._ws.ptr  # see Sorter.sort_: an empty array's stand-in address

    def _launch(self, fn, args, device, handle, sorted_):
        _use_device(self._lib, device, self._err)
        if fn(self._ws.ptr, self._ws.nbytes, self._plan_ref, ctypes.byref(args), handle, self._err_ref):
            _raise(self._lib, self._err)
        self._last_stream = handle
        self._last_sorted = sorted_

    def _bin(self, fn, sorted_, tile_ids, keys, values, num_tiles, num_records, descending, bits, out_keys,
             out_values, out_offsets, stream):
        t, num_tiles, count, d_count, need = self._records(tile_ids, num_tiles, num_records)
        k = self._array(keys, "keys", need, tokens=("u4",))
        v = self._values(values, need)
        # Outputs: as long as the host count, else (a device count) the inputs.
        length = count if count is not None else t.size
        ok = self._array(out_keys, "out_keys", length, tokens=("u4",)) if out_keys is not None else None
        ov = None
        if out_values is not None:
            if v is None:
                raise ValueError("tilesort: out_values given without values")
            ov = self._array(out_values, "out_values", length, item_bytes=self._value_bytes)
        oo = self._array(out_offsets, "out_offsets", num_tiles + 1, tokens=("i4", "u4")) \
            if out_offsets is not None else None
        begin, end = _bit_range(bits, 32) if sorted_ else (0, -1)
        device = _same_device(self._lib, self._err, ((t, "tile_ids"), (k, "keys"), (v, "values"),
                                                     (d_count, "num_records"), (ok, "out_keys"),
                                                     (ov, "out_values"), (oo, "out_offsets")))
        handle = self._start(t.framework, device, stream)
        if ok is None:
            out_keys = _arrays.empty(t.framework, length, "u4", device, handle)
            ok = _arrays.describe(out_keys, "out_keys")
        if v is not None and ov is None:
            out_values = _arrays.empty(t.framework, length, v.token, device, handle)
            ov = _arrays.describe(out_values, "out_values")
        if oo is None:
            out_offsets = _arrays.empty(t.framework, num_tiles + 1, self._offset_token, device, handle)
            oo = _arrays.describe(out_offsets, "out_offsets")
        a = self._bin_args
        a.tile_ids = self._ptr(t)
        a.keys = self._ptr(k)
        a.values = self._ptr(v) if v is not None else None
        a.d_num_records = d_count.ptr if d_count is not None else None
        a.num_records = count or 0
        a.num_tiles = num_tiles
        a.order = 1 if descending else 0
        a.out_keys = self._ptr(ok)
        a.out_values = self._ptr(ov) if v is not None else None
        a.out_offsets = oo.ptr
        a.begin_bit = begin
        a.end_bit = end
        self._launch(fn, a, device, handle, sorted_)
        return out_keys, (out_values if v is not None else None), out_offsets

    def bin_and_sort(self, tile_ids, keys, values, num_tiles, *, num_records=None, descending=False, bits=None,
                     out_keys=None, out_values=None, out_offsets=None, stream=None):
        """Records (tile_ids[r], keys[r], values[r]) -> per-tile key-sorted
        runs. Returns (keys, values, offsets): tile t is [offsets[t],
        offsets[t+1]). Stable: equal keys keep their record order. values may
        be None for a Binner made with value_dtype=None.

        num_records: default len(tile_ids); an int; or a one-element device
        array (then every record array needs max_records entries, the outputs
        are as long as tile_ids, and offsets[num_tiles] is the count).
        Outputs are allocated in the inputs' framework unless given (out_*).
        bits: None, an end bit, or (begin, end) of the key bits to compare.
        """
        if not self._sort:
            raise ValueError("tilesort: this Binner was made with sort=False; its workspace has no sort scratch")
        return self._bin(self._lib.bin_and_sort, True, tile_ids, keys, values, num_tiles, num_records, descending,
                         bits, out_keys, out_values, out_offsets, stream)

    def bin(self, tile_ids, keys, values, num_tiles, *, num_records=None, out_keys=None, out_values=None,
            out_offsets=None, stream=None):
        """Stable split by tile (no sort): like bin_and_sort, with each
        tile's records in input order."""
        return self._bin(self._lib.bin, False, tile_ids, keys, values, num_tiles, num_records, False, None,
                         out_keys, out_values, out_offsets, stream)

    def bin_index(self, tile_ids, num_tiles, *, num_records=None, out_permutation=None, out_offsets=None,
                  stream=None):
        """The permutation only: returns (permutation, offsets), where
        permutation[i] is the record that lands at position i."""
        t, num_tiles, count, d_count, _ = self._records(tile_ids, num_tiles, num_records)
        length = count if count is not None else t.size
        op = self._array(out_permutation, "out_permutation", length, tokens=("i4", "u4")) \
            if out_permutation is not None else None
        oo = self._array(out_offsets, "out_offsets", num_tiles + 1, tokens=("i4", "u4")) \
            if out_offsets is not None else None
        device = _same_device(self._lib, self._err, ((t, "tile_ids"), (d_count, "num_records"),
                                                     (op, "out_permutation"), (oo, "out_offsets")))
        handle = self._start(t.framework, device, stream)
        if op is None:
            out_permutation = _arrays.empty(t.framework, length, "i4", device, handle)
            op = _arrays.describe(out_permutation, "out_permutation")
        if oo is None:
            out_offsets = _arrays.empty(t.framework, num_tiles + 1, self._offset_token, device, handle)
            oo = _arrays.describe(out_offsets, "out_offsets")
        a = self._index_args
        a.tile_ids = self._ptr(t)
        a.d_num_records = d_count.ptr if d_count is not None else None
        a.num_records = count or 0
        a.num_tiles = num_tiles
        a.out_permutation = self._ptr(op)
        a.out_offsets = oo.ptr
        self._launch(self._lib.bin_index, a, device, handle, False)
        return out_permutation, out_offsets

    def gather(self, records, permutation, *, num_records=None, out=None, stream=None):
        """out[i] = records[permutation[i]], for records of shape (N, ...)
        whose rows are a multiple of 4 bytes. Uses the workspace of the
        bin_index call that made `permutation` (this Binner's last one)."""
        p = _arrays.describe(permutation, "permutation")
        _one_d(p, "permutation")
        _dtype_of(p.token, ("i4", "u4"), "permutation")
        count, d_count = _count(num_records, p.size, "num_records")
        if d_count is None and count > p.size:
            raise ValueError("tilesort: num_records = %d, but permutation has %d elements" % (count, p.size))
        r = _arrays.describe(records, "records")
        if not r.shape:
            raise ValueError("tilesort: records must have a first (record) dimension")
        row_items = 1
        for n in r.shape[1:]:
            row_items *= n
        row_bytes = row_items * _arrays.itemsize(r.token)
        if row_bytes == 0 or row_bytes % 4:
            raise ValueError("tilesort: a record must be a non-zero multiple of 4 bytes; these have %d" % row_bytes)
        need = count if count is not None else self._plan.max_records
        if r.shape[0] < need:
            raise ValueError("tilesort: records has %d rows, the call needs %d" % (r.shape[0], need))
        rows = count if count is not None else p.size
        o = None
        if out is not None:
            o = _arrays.describe(out, "out")
            if o.size * _arrays.itemsize(o.token) < rows * row_bytes:
                raise ValueError("tilesort: out holds %d bytes, the call writes %d"
                                 % (o.size * _arrays.itemsize(o.token), rows * row_bytes))
        device = _same_device(self._lib, self._err, ((p, "permutation"), (r, "records"), (d_count, "num_records"),
                                                     (o, "out")))
        handle = self._start(p.framework, device, stream)
        if o is None:
            flat = _arrays.empty(r.framework or p.framework, rows * row_items, r.token, device, handle)
            out = flat.reshape((rows,) + tuple(r.shape[1:]))
            o = _arrays.describe(out, "out")
        a = self._gather_args
        a.records = self._ptr(r)
        a.out_records = self._ptr(o)
        a.record_bytes = row_bytes
        a.permutation = self._ptr(p)
        a.d_num_records = d_count.ptr if d_count is not None else None
        a.num_records = count or 0
        self._launch(self._lib.gather, a, device, handle, False)
        return out

    def check(self, stream=None):
        """Waits for `stream` (default: the last call's) and raises
        TilesortDeviceError for what the last call found on the device (a
        tile id >= num_tiles, a count over capacity, a bad permutation)."""
        if self._last_stream is None:
            return
        handle = self._last_stream if stream is None else _arrays.stream_handle(stream, None, self._ws.device)
        _use_device(self._lib, self._ws.device, self._err)
        if self._last_sorted:
            code = self._lib.read_bin_and_sort_status(self._ws.ptr, self._plan_ref, handle, self._err_ref)
        else:
            code = self._lib.read_bin_status(self._ws.ptr, handle, self._err_ref)
        if code:
            _raise(self._lib, self._err, device_side=code != _capi.CUDA_ERROR)


def segmented_sort_(keys, offsets, values=None, descending=False, bits=None, *, stream=None, check=False):
    """One-shot Sorter(...).sort_(...): sorts each segment of `keys` (and
    `values`) in place and returns `keys`. Allocates a workspace every call;
    a frame loop should keep a Sorter. check=True waits and raises what the
    device found."""
    k = _arrays.describe(keys, "keys")
    o = _arrays.describe(offsets, "offsets")
    value_dtype = None if values is None else _arrays.describe(values, "values").token
    sorter = Sorter(max(k.size, 1), max(o.size - 1, 1), k.token, value_dtype, o.token)
    sorter.sort_(keys, offsets, values, descending=descending, bits=bits, stream=stream)
    if check:
        sorter.check()
    return keys


def bin_and_sort(tile_ids, keys, values, num_tiles, descending=False, bits=None, *, stream=None, check=False):
    """One-shot Binner(...).bin_and_sort(...): returns (keys, values,
    offsets), new arrays in the inputs' framework."""
    t = _arrays.describe(tile_ids, "tile_ids")
    value_dtype = None if values is None else _arrays.describe(values, "values").token
    binner = Binner(max(t.size, 1), num_tiles, value_dtype)
    result = binner.bin_and_sort(tile_ids, keys, values, num_tiles, descending=descending, bits=bits, stream=stream)
    if check:
        binner.check()
    return result
