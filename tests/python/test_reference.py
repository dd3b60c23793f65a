"""Self-tests of reference.py (CPU): the GPU tests are only as good as it."""
import numpy as np

import reference as ref


def order(keys, descending):
    return keys[np.argsort(ref.sort_key(keys, descending), kind="stable")]


def test_float_order_both_ways():
    k = np.array([1.0, -0.0, 0.0, np.nan, -np.inf, np.inf, -2.5], np.float32)
    assert order(k, False).view(np.uint32).tolist() == np.array(
        [-np.inf, -2.5, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32).view(np.uint32).tolist()
    assert order(k.astype(np.float64), True).view(np.uint64).tolist() == np.array(
        [np.inf, 1.0, 0.0, -0.0, -2.5, -np.inf, np.nan], np.float64).view(np.uint64).tolist()


def test_integer_extremes():
    assert order(np.array([3, -1, 2**31 - 1, -2**31, 0], np.int32), False).tolist() == [-2**31, -1, 0, 3, 2**31 - 1]
    assert order(np.array([3, 2**64 - 1, 0, 2**63], np.uint64), True).tolist() == [2**64 - 1, 2**63, 3, 0]
    assert order(np.array([-2**63, 2**63 - 1, 0], np.int64), False).tolist() == [-2**63, 0, 2**63 - 1]


def test_stability_and_untouched_tail():
    keys = np.array([5, 4, 5, 2, 1, 9, 8], np.uint32)
    k, v = ref.segmented_sort(keys, np.arange(7, dtype=np.int32), np.array([0, 3, 3, 5]))
    assert k.tolist() == [4, 5, 5, 1, 2, 9, 8] and v.tolist() == [1, 0, 2, 4, 3, 5, 6]
    k, v = ref.segmented_sort(keys, None, np.array([0, 3]), descending=True)
    assert k.tolist() == [5, 5, 4, 2, 1, 9, 8] and v is None


def test_bit_range():
    keys = np.array([0x0102, 0x0201, 0x0101], np.uint32)
    k, v = ref.segmented_sort(keys, np.arange(3), np.array([0, 3]), bits=(0, 8))
    assert v.tolist() == [1, 2, 0]  # by the low byte, stable


def test_binning():
    k, v, off, perm = ref.bin_and_sort(np.array([1, 0, 1, 0]), np.array([5, 5, 1, 2], np.uint32), np.arange(4), 3)
    assert k.tolist() == [2, 5, 1, 5] and off.tolist() == [0, 2, 4, 4] and perm.tolist() == [3, 1, 2, 0]
    _, _, _, perm = ref.bin_and_sort(np.array([1, 0, 1, 0]), np.array([5, 5, 1, 2], np.uint32), None, 3, sort=False)
    assert perm.tolist() == [1, 3, 0, 2]


def test_signed_bit_range_uses_the_flipped_sign_bit():
    keys = np.array([-1, 1, -2**31, 2**31 - 1], np.int32)
    # Bits [31, 32) of x ^ 0x80000000: 0 for negatives, 1 for non-negatives.
    _, v = ref.segmented_sort(keys, np.arange(4), np.array([0, 4]), bits=(31, 32))
    assert v.tolist() == [0, 2, 1, 3]
