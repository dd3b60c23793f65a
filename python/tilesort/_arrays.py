"""Device arrays from any framework: PyTorch and CuPy directly (their own
attributes are cheaper than building an interface dict every call), anything
else through __cuda_array_interface__ or DLPack.

Nothing here imports a framework: a torch tensor can only exist once torch is
imported, so sys.modules says which fast paths can apply.
"""

import contextlib
import ctypes
import sys

# dtype tokens: kind + itemsize ("f4", "u8", ...), the numpy typestr without
# its byte-order character.
_NAMES = {
    "float16": "f2", "float32": "f4", "float64": "f8", "half": "f2", "float": "f4", "double": "f8",
    "bfloat16": "bf2", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "int": "i4", "long": "i8",
    "uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8", "bool": "b1",
}
_TOKEN_NAMES = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "i2": "int16", "i4": "int32",
                "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "b1": "bool"}

_torch_tokens = None  # torch.dtype -> token, built on first torch tensor


def token_name(token):
    return _TOKEN_NAMES.get(token, token)


def itemsize(token):
    return int(token.lstrip("abcfiuv"))


def dtype_token(dtype):
    """'float32', numpy/cupy dtypes, torch dtypes, numpy scalar types -> 'f4'."""
    if dtype is None:
        return None
    s = getattr(dtype, "str", None)  # numpy.dtype
    if isinstance(s, str) and len(s) >= 3:
        return _typestr_token(s, "dtype")
    if isinstance(dtype, type):  # numpy.float32 and friends
        name = getattr(dtype, "__name__", "")
    else:
        name = str(dtype)
    if name.startswith("torch."):
        name = name[len("torch."):]
    if name in _NAMES:
        return _NAMES[name]
    if name[:1] in ("<", ">", "|", "="):  # a typestr: "<f4"
        name = _typestr_token(name, "dtype")
    if name in _TOKEN_NAMES:  # a token: "f4"
        return name
    raise TypeError("tilesort: unknown dtype %r" % (dtype,))


def _typestr_token(typestr, what):
    if typestr[0] == ">" and typestr[2:] != "1":
        raise TypeError("tilesort: %s is big-endian (%s); only little-endian data is supported" % (what, typestr))
    return typestr[1:]


def _torch_token(dtype):
    global _torch_tokens
    if _torch_tokens is None:
        torch = sys.modules["torch"]
        table = {}
        for name, token in _NAMES.items():
            d = getattr(torch, name, None)
            if d is not None and isinstance(d, torch.dtype):
                table[d] = token
        _torch_tokens = table
    token = _torch_tokens.get(dtype)
    if token is None:
        raise TypeError("tilesort: unsupported torch dtype %s" % dtype)
    return token


class Array:
    """What a call needs of one array. `owner` keeps a DLPack capsule alive."""

    __slots__ = ("ptr", "size", "shape", "token", "device", "framework", "obj", "owner")

    def __init__(self, ptr, shape, token, device, framework, obj, owner=None):
        self.ptr = ptr
        self.shape = shape
        size = 1
        for n in shape:
            size *= n
        self.size = size
        self.token = token
        self.device = device  # CUDA ordinal; None = unknown until queried
        self.framework = framework  # "torch", "cupy" or None
        self.obj = obj
        self.owner = owner


def _c_contiguous(shape, strides, itemsize_):
    if strides is None:
        return True
    expected = itemsize_
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def is_array(obj):
    """Whether `obj` is a device array (rather than, say, a Python int)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return True
    return hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")


def describe(obj, what):
    """An Array for `obj`, or TypeError / ValueError naming `what`."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        if not obj.is_cuda:
            raise ValueError("tilesort: %s is on %s; it must be on a CUDA device" % (what, obj.device))
        if not obj.is_contiguous():
            raise ValueError("tilesort: %s is not contiguous (strides %s); pass .contiguous()" % (what, obj.stride()))
        return Array(obj.data_ptr(), tuple(obj.shape), _torch_token(obj.dtype), obj.get_device(), "torch", obj)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        if not obj.flags.c_contiguous:
            raise ValueError("tilesort: %s is not C-contiguous (strides %s)" % (what, obj.strides))
        return Array(obj.data.ptr, obj.shape, _typestr_token(obj.dtype.str, what), obj.device.id, "cupy", obj)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cai(obj, cai, what)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, what)
    raise TypeError("tilesort: %s is a %s, not a CUDA array (expected __cuda_array_interface__ or DLPack: a "
                    "PyTorch tensor, CuPy or Numba array)" % (what, type(obj).__name__))


def _from_cai(obj, cai, what):
    try:
        shape = tuple(int(n) for n in cai["shape"])
        typestr = cai["typestr"]
        ptr, readonly = cai["data"]
    except (KeyError, TypeError, ValueError) as e:
        raise TypeError("tilesort: %s has a malformed __cuda_array_interface__ (%s)" % (what, e))
    token = _typestr_token(typestr, what)
    if readonly:
        raise ValueError("tilesort: %s is read-only" % what)
    if cai.get("mask") is not None:
        raise ValueError("tilesort: %s has a mask; masked arrays are not supported" % what)
    if not _c_contiguous(shape, cai.get("strides"), itemsize(token)):
        raise ValueError("tilesort: %s is not C-contiguous (strides %s)" % (what, tuple(cai["strides"])))
    return Array(int(ptr or 0), shape, token, None, None, obj)


# DLPack (dlpack.h): the legacy DLManagedTensor capsule, "dltensor".
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_KINDS = {0: "i", 1: "u", 2: "f", 4: "bf", 6: "b"}
_capsule_pointer = None


def _from_dlpack(obj, what):
    global _capsule_pointer
    if _capsule_pointer is None:
        fn = ctypes.pythonapi.PyCapsule_GetPointer
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.py_object, ctypes.c_char_p]
        _capsule_pointer = fn
    device_of = getattr(obj, "__dlpack_device__", None)
    if device_of is not None:  # the protocol's first step: where the data lives
        device_type = int(device_of()[0])
        if device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
            raise ValueError("tilesort: %s is not in CUDA device memory (DLPack device type %d)"
                             % (what, device_type))
    try:
        capsule = obj.__dlpack__(stream=-1)  # -1: no synchronisation; the caller orders its streams
    except (TypeError, ValueError, RuntimeError, BufferError):
        capsule = obj.__dlpack__()
    # The capsule keeps its "dltensor" name, so its destructor frees the
    # tensor once the Array (its owner) goes away.
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ValueError("tilesort: %s is not in CUDA device memory (DLPack device type %d)"
                         % (what, t.device.device_type))
    kind = _DL_KINDS.get(t.dtype.code)
    if kind is None or t.dtype.lanes != 1 or t.dtype.bits % 8:
        raise TypeError("tilesort: %s has an unsupported DLPack dtype (code %d, %d bits, %d lanes)"
                        % (what, t.dtype.code, t.dtype.bits, t.dtype.lanes))
    token = "%s%d" % (kind, t.dtype.bits // 8)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] * (t.dtype.bits // 8) for i in range(t.ndim))
        if not _c_contiguous(shape, strides, t.dtype.bits // 8):
            raise ValueError("tilesort: %s is not C-contiguous" % what)
    return Array((t.data or 0) + t.byte_offset, shape, token, t.device.device_id, None, obj, owner=capsule)


def stream_handle(stream, framework, device):
    """The cudaStream_t to use: `stream` (an int handle, a torch or CuPy
    stream, or any object with __cuda_stream__), else the framework's current
    stream on `device`, else the legacy default stream (0)."""
    if stream is None:
        if framework == "torch":
            return _torch_current_stream(device)
        if framework == "cupy":
            return sys.modules["cupy"].cuda.get_current_stream().ptr
        return 0
    if isinstance(stream, int):
        return stream
    handle = getattr(stream, "cuda_stream", None)  # torch.cuda.Stream
    if handle is None:
        handle = getattr(stream, "ptr", None)  # cupy.cuda.Stream
    if handle is None and hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()[1]
    if not isinstance(handle, int):
        raise TypeError("tilesort: stream must be an int handle, a torch or CuPy stream, or have __cuda_stream__; "
                        "got %s" % type(stream).__name__)
    return handle


_raw_stream = None


def _torch_current_stream(device):
    global _raw_stream
    if _raw_stream is None:
        torch = sys.modules["torch"]
        # The private getter skips building a torch.cuda.Stream object each call.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _raw_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)
    return _raw_stream(device)


def _stream_scope(framework, stream, device):
    """Makes `stream` current for an allocation, so that the framework's
    caching pool (stream-ordered in both PyTorch and CuPy) hands the block out
    again only after the work this stream runs on it."""
    if framework == "torch":
        torch = sys.modules["torch"]
        if stream == _torch_current_stream(device):
            return contextlib.nullcontext()
        return torch.cuda.stream(torch.cuda.ExternalStream(stream, device=torch.device("cuda", device)))
    cupy = sys.modules["cupy"]
    if stream == cupy.cuda.get_current_stream().ptr:
        return contextlib.nullcontext()
    try:
        return cupy.cuda.ExternalStream(stream, device_id=device)
    except TypeError:  # older CuPy: no device_id
        return cupy.cuda.ExternalStream(stream)


def empty(framework, count, token, device, stream):
    """A new contiguous 1-D array of `count` elements in that framework,
    allocated for use on `stream`."""
    name = token_name(token)
    if framework == "torch":
        torch = sys.modules["torch"]
        with _stream_scope(framework, stream, device):
            return torch.empty(count, dtype=getattr(torch, name), device=torch.device("cuda", device))
    if framework == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(device), _stream_scope(framework, stream, device):
            return cupy.empty(count, dtype=name)
    raise TypeError("tilesort: outputs can only be allocated for PyTorch or CuPy inputs; pass out arrays")


def workspace(framework, nbytes, device, stream):
    """Device bytes for a workspace, from the caller's framework (so it comes
    out of that framework's caching pool and memory accounting); PyTorch,
    then CuPy for arrays of other frameworks."""
    if framework not in ("torch", "cupy"):
        framework = "torch" if "torch" in sys.modules else "cupy" if "cupy" in sys.modules else None
    if framework is None:
        raise TypeError("tilesort: allocating a workspace needs PyTorch or CuPy; import one of them")
    return empty(framework, nbytes, "u1", device, stream)
