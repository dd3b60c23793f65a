"""tilesort: GPU segmented sort and tile binning for PyTorch, CuPy and any
array with __cuda_array_interface__ or DLPack.

    import tilesort
    sorter = tilesort.Sorter(max_items, max_segments, key_dtype=torch.float32, value_dtype=torch.int32)
    sorter.sort_(depths, offsets, values=ids)      # in place, on the current stream
    sorter.check()                                 # when convenient: raises what the device found

The package loads libtilesort_c.so (the C API, capi/) with ctypes: no code
here is compiled against Python. See docs/python.md.
"""

from ._api import (Binner, Sorter, TilesortArgumentError, TilesortDeviceError, TilesortError, bin_and_sort,
                   segmented_sort_)
from ._capi import LIBRARY_ENV

__version__ = "0.1.0"
__all__ = ["Sorter", "Binner", "segmented_sort_", "bin_and_sort", "TilesortError", "TilesortArgumentError",
           "TilesortDeviceError", "library_path", "LIBRARY_ENV"]


def library_path():
    """The path of the loaded libtilesort_c.so (loading it if needed);
    ImportError with every place tried when it cannot be found."""
    from ._capi import library
    return library().path
