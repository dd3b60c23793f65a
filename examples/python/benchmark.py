#!/usr/bin/env python3
"""tilesort through Python against the 3DGS-style PyTorch pipeline and a
copy, on tiles16-4M and a 4K screen with 8-pixel tiles; and the Python
layer's cost per call.

    python3 examples/python/benchmark.py --out OUT_PREFIX [--cub-json FILE] [--reps 20]

Rows per case, each verified before it is timed (tilesort's keys, splat ids
and tile offsets must equal the PyTorch pipeline's):
  - copy: torch copy_ of the record bytes (12 B: tile id, key, value), the floor;
  - tilesort: Binner.bin_and_sort through Python (outputs preallocated);
  - PyTorch 3DGS: composite int64 keys + torch.sort(stable) + gather + tile
    ranges (examples/python/splat_sort.py's sort_3dgs);
  - CUB 3DGS (C++): the same pipeline in C++ with cub::DeviceRadixSort over
    32 + bits(tiles) bits, from `tilesort-bench --suite binning` (--cub-json:
    its JSON; same scene recipe, its own random draw). tilesort-bench has no
    4K case, so that row stays empty there.
Times are medians of CUDA-event timings on the current stream. Writes
OUT_PREFIX.md and OUT_PREFIX.json. Exit status: 0 ok, 1 a result differed,
2 no GPU or no PyTorch.
"""
import argparse
import ctypes
import json
import os
import sys
import time

try:
    import torch
except ImportError:
    print("benchmark: PyTorch is not installed")
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splat_sort import TilesortStep, make_records, sort_3dgs, time_ms, tilesort  # noqa: E402

CASES = [
    # name, particles, width, height, tile px, scene scale
    ("tiles16-4M", 4000000, 1920, 1080, 16, 1.0),
    ("4k-tiles8", 2000000, 3840, 2160, 8, 2.0),
]


def per_call_us(fn, calls=2000, batch=200):
    """Host time of one fn() call (enqueue only): `batch` calls timed, then
    the stream drained outside the timed part, so the launch queue never fills."""
    total = 0.0
    done = 0
    while done < calls:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        total += time.perf_counter() - t0
        done += batch
    torch.cuda.synchronize()
    return total / done * 1e6


def overhead(reps_scale=1):
    """Python layer cost per call: a tiny bin_and_sort and sort_ through the
    package, against the same C calls made with prebuilt ctypes structs."""
    from tilesort import _capi
    dev = torch.device("cuda")
    n, tiles = 1024, 16
    tile_ids = torch.randint(0, tiles, (n,), dtype=torch.int32, device=dev)
    keys = torch.randint(0, 1 << 30, (n,), dtype=torch.int32, device=dev).view(torch.uint32)
    values = torch.arange(n, dtype=torch.int32, device=dev)
    out_k = torch.empty(n, dtype=torch.int32, device=dev).view(torch.uint32)
    out_v = torch.empty_like(values)
    out_o = torch.empty(tiles + 1, dtype=torch.int32, device=dev)
    binner = tilesort.Binner(n, tiles, torch.int32)

    def py_bin():
        binner.bin_and_sort(tile_ids, keys, values, tiles, out_keys=out_k, out_values=out_v, out_offsets=out_o)

    py_bin()
    binner.check()
    lib = _capi.library()
    a = _capi.BinArgs(tile_ids=tile_ids.data_ptr(), keys=keys.data_ptr(), values=values.data_ptr(), num_records=n,
                      num_tiles=tiles, out_keys=out_k.data_ptr(), out_values=out_v.data_ptr(),
                      out_offsets=out_o.data_ptr(), end_bit=-1)
    err = _capi.Error()
    stream = torch.cuda.current_stream().cuda_stream
    refs = (binner._ws.ptr, binner._ws.nbytes, ctypes.byref(binner._plan), ctypes.byref(a), stream,
            ctypes.byref(err))
    fn = lib.bin_and_sort

    def c_bin():
        fn(*refs)

    sk = torch.randn(n, device=dev)
    sv = torch.arange(n, dtype=torch.int32, device=dev)
    so = torch.arange(0, n + 1, 64, dtype=torch.int32, device=dev)
    sorter = tilesort.Sorter(n, len(so) - 1, torch.float32, torch.int32)

    def py_sort():
        sorter.sort_(sk, so, sv)

    py_sort()
    sorter.check()
    sa = _capi.SortArgs(keys=sk.data_ptr(), values=sv.data_ptr(), offsets=so.data_ptr(), num_segments=len(so) - 1,
                        num_items=n, end_bit=-1)
    srefs = (sorter._ws.ptr, sorter._ws.nbytes, ctypes.byref(sorter._plan), ctypes.byref(sa), stream,
             ctypes.byref(err))
    sfn = lib.segmented_sort

    def c_sort():
        sfn(*srefs)

    rows = []
    for name, py, c in (("Binner.bin_and_sort", py_bin, c_bin), ("Sorter.sort_", py_sort, c_sort)):
        py_us, c_us = per_call_us(py), per_call_us(c)
        rows.append({"call": name, "python_us": py_us, "c_us": c_us, "overhead_us": py_us - c_us})
    binner.check()
    sorter.check()
    return rows


def cub_rows(path):
    """{case: gs3d_ms} of the 32-bit-key rows of tilesort-bench's binning suite."""
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        data = json.load(f)
    return {r["case"]: r for r in data.get("rows", []) if r.get("key_bits") == 32}


def run_case(name, particles, width, height, tile, scale, reps):
    tile_ids, depth_keys, splat_ids, num_tiles = make_records(particles, width, height, tile, scale)
    n = len(tile_ids)
    step = TilesortStep(n, num_tiles)
    want = sort_3dgs(tile_ids, depth_keys, splat_ids, num_tiles)
    got = step(tile_ids, depth_keys, splat_ids)
    step.binner.check()
    same = all(torch.equal(a, b) for a, b in zip(got, want))
    del want, got
    src = torch.empty(12 * n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    row = {"case": name, "particles": particles, "records": n, "tiles": num_tiles, "verified": same,
           "copy_ms": time_ms(lambda: dst.copy_(src), reps),
           "tilesort_ms": time_ms(lambda: step(tile_ids, depth_keys, splat_ids), reps),
           "torch_3dgs_ms": time_ms(lambda: sort_3dgs(tile_ids, depth_keys, splat_ids, num_tiles), reps)}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="python-bench")
    parser.add_argument("--cub-json", default=None, help="tilesort-bench --suite binning's JSON")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--cases", default=",".join(c[0] for c in CASES))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("benchmark: no CUDA device")
        return 2
    cub = cub_rows(args.cub_json)
    rows = []
    for case in CASES:
        if case[0] in args.cases.split(","):
            rows.append(run_case(*case, reps=args.reps))
            r = rows[-1]
            print("benchmark: %s: %d records, copy %.3f ms, tilesort %.3f ms, torch 3DGS %.3f ms, verified %s"
                  % (r["case"], r["records"], r["copy_ms"], r["tilesort_ms"], r["torch_3dgs_ms"], r["verified"]),
                  file=sys.stderr)
    calls = overhead()

    md = ["# tilesort through Python: splat binning + sorting", "",
          "- device: %s; torch %s; Python %s" % (torch.cuda.get_device_name(), torch.__version__,
                                                   sys.version.split()[0]),
          "- library: %s" % tilesort.library_path(),
          "- method: median of %d CUDA-event timings after 3 warm-ups; x copy = time / torch copy_ of the 12-byte "
          "records; tilesort = Binner.bin_and_sort from Python, outputs preallocated; PyTorch 3DGS = int64 "
          "(tile << 32 | depth) keys, torch.sort(stable=True), gather, searchsorted tile ranges; every tilesort "
          "result checked equal to the PyTorch one first. CUB 3DGS (C++) = tilesort-bench --suite binning "
          "(same scene recipe, its own draw; not run for 4K)." % args.reps, "",
          "| case | records | tiles | copy ms | tilesort ms (x copy) | PyTorch 3DGS ms (x copy) | speedup vs "
          "PyTorch | CUB 3DGS C++ ms (x its copy) | verified |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        c = cub.get(r["case"])
        cub_cell = "%.3f (%.2fx)" % (c["gs3d_ms"], c["gs3d_ms"] / c["copy_ms"]) if c and c["gs3d_ms"] > 0 else "—"
        r["cub_3dgs_ms"] = c["gs3d_ms"] if c else None
        md.append("| %s | %d | %d | %.3f | %.3f (%.2fx) | %.3f (%.2fx) | %.2fx | %s | %s |"
                  % (r["case"], r["records"], r["tiles"], r["copy_ms"], r["tilesort_ms"],
                     r["tilesort_ms"] / r["copy_ms"], r["torch_3dgs_ms"], r["torch_3dgs_ms"] / r["copy_ms"],
                     r["torch_3dgs_ms"] / r["tilesort_ms"], cub_cell, "yes" if r["verified"] else "NO"))
    md += ["", "Python layer per call (host time of the enqueue, tiny inputs; C = the same C call with prebuilt "
           "ctypes structs):", "", "| call | through the package µs | C call µs | Python overhead µs |",
           "|---|---:|---:|---:|"]
    for c in calls:
        md.append("| %s | %.1f | %.1f | %.1f |" % (c["call"], c["python_us"], c["c_us"], c["overhead_us"]))
    text = "\n".join(md) + "\n"
    print(text)
    with open(args.out + ".md", "w") as f:
        f.write(text)
    with open(args.out + ".json", "w") as f:
        json.dump({"rows": rows, "calls": calls, "device": torch.cuda.get_device_name(),
                   "torch": torch.__version__, "reps": args.reps}, f, indent=2)
    return 0 if all(r["verified"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
