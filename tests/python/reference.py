"""NumPy references for the GPU tests: the segmented-sort contract's order
(stable, NaNs last in both orders, -0.0 before +0.0) through order-preserving
uint64 codes and np.lexsort (stable), and the binning result (stable by
tile, then by the compared key bits)."""
import numpy as np

_SIGN64 = np.uint64(1 << 63)


def order_code(keys):
    """uint64 codes whose ascending order is the contract's (positive NaNs)."""
    kind, size = keys.dtype.kind, keys.dtype.itemsize
    if kind == "u":
        return keys.astype(np.uint64)
    if kind == "i":  # x XOR the sign bit, at the key's own width
        if size == 4:
            return (keys.view(np.uint32) ^ np.uint32(0x80000000)).astype(np.uint64)
        return keys.view(np.uint64) ^ _SIGN64
    if size == 4:
        b = keys.view(np.uint32).astype(np.uint64)
        return np.where(b >> np.uint64(31) == 1, ~b & np.uint64(0xFFFFFFFF), b | np.uint64(0x80000000))
    b = keys.view(np.uint64)
    return np.where(b >> np.uint64(63) == 1, ~b, b | _SIGN64)


def sort_key(keys, descending, bits=None):
    """A uint64 per key; a stable ascending sort by it is the contract's."""
    code = order_code(keys)
    if bits is not None:
        begin, end = bits
        code = (code >> np.uint64(begin)) & np.uint64((1 << (end - begin)) - 1)
    if descending:
        code = ~code
        if keys.dtype.kind == "f" and bits is None:
            code = np.where(np.isnan(keys), np.uint64(2**64 - 1), code)
    return code


def segment_ids(offsets, n):
    """Segment of each item; items outside every segment get -1."""
    ids = np.full(n, -1, np.int64)
    for s in range(len(offsets) - 1):
        ids[offsets[s]:offsets[s + 1]] = s
    return ids


def segmented_sort(keys, values, offsets, descending=False, bits=None):
    """(keys, values) after the segmented sort; items outside segments stay."""
    offsets = offsets.astype(np.int64)
    lengths = np.diff(offsets)
    seg = np.repeat(np.arange(len(lengths)), lengths)
    start, end = int(offsets[0]) if len(offsets) else 0, int(offsets[-1]) if len(offsets) else 0
    k = keys[start:end]
    perm = np.lexsort((sort_key(k, descending, bits), seg)) + start
    out_k, out_v = keys.copy(), None if values is None else values.copy()
    out_k[start:end] = keys[perm]
    if values is not None:
        out_v[start:end] = values[perm]
    return out_k, out_v


def bin_and_sort(tile_ids, keys, values, num_tiles, descending=False, bits=None, sort=True):
    """Stable by tile, then (sort=True) by the key bits. Returns keys, values,
    offsets and the permutation."""
    tiles = tile_ids.astype(np.int64)
    primary = [tiles]
    if sort:
        k = keys.astype(np.uint64)
        if bits is not None:
            k = (k >> np.uint64(bits[0])) & np.uint64((1 << (bits[1] - bits[0])) - 1)
        primary = [~k if descending else k, tiles]
    perm = np.lexsort(primary)
    offsets = np.zeros(num_tiles + 1, np.int64)
    offsets[1:] = np.cumsum(np.bincount(tiles, minlength=num_tiles))
    return keys[perm], (None if values is None else values[perm]), offsets, perm
