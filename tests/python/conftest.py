"""Shared set-up of the Python suite (tests/python).

The package is imported from the source tree (python/); the library from
TILESORT_LIBRARY (ctest and scripts/device_python_check.sh set it) or the
build tree. Randomised tests draw from one seed, printed in the header and
taken from TILESORT_TEST_SEED when set.
"""
import os
import random
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

SEED = int(os.environ.get("TILESORT_TEST_SEED", random.SystemRandom().randrange(2**31)))


def pytest_report_header(config):
    return "tilesort: TILESORT_TEST_SEED=%d" % SEED


@pytest.fixture
def seed(request):
    """A per-test seed derived from the run's seed (named in failures)."""
    return (SEED * 1000003 + sum(map(ord, request.node.name))) % 2**31


def cuda_device_count():
    """CUDA devices as tilesort's own runtime sees them (0 without a driver)."""
    import ctypes
    from tilesort import _capi
    lib = _capi.library()
    err = _capi.Error()
    if lib.set_device(0, ctypes.byref(err)) != _capi.OK:
        return 0
    return 1
