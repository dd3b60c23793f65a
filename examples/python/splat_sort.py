#!/usr/bin/env python3
"""A Gaussian-splatting sort step in PyTorch, written the 3DGS way and with
tilesort, checked equal and timed side by side.

Every frame a splat renderer emits one (tile id, depth, splat id) record per
screen tile each splat's footprint touches, then needs, per tile, its splats
sorted by depth. The 3DGS rasteriser (and gsplat and their forks) packs
(tile << 32 | depth bits) into int64 keys, sorts all of them with one radix
sort, gathers the values and finds each tile's range in the sorted keys.
tilesort bins the records by tile and sorts each tile, in one call.

    python3 examples/python/splat_sort.py [--particles 1000000] [--tile 16]

Needs PyTorch with CUDA and libtilesort_c.so (the build tree's, or set
TILESORT_LIBRARY). Exit status: 0 when both results are equal, 1 when they
differ, 2 without PyTorch or a GPU.
"""
import argparse
import os
import sys

try:
    import torch
except ImportError:  # exit 2, as without a GPU: nothing to compare against
    print("splat_sort: PyTorch is not installed; nothing to run")
    sys.exit(2)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tilesort  # noqa: E402

# The scene of the C++ benchmark's tiles16-* workloads (bench/workloads.cpp):
# four Gaussian clusters on 1920x1080, log-normal radii capped at 200 px,
# depths uniform in [1, 100). `scale` stretches it to a larger screen.
CLUSTERS = [(960.0, 540.0, 300.0), (500.0, 300.0, 120.0), (1400.0, 700.0, 200.0), (900.0, 900.0, 80.0)]


def make_records(particles, width=1920, height=1080, tile=16, scale=1.0, seed=1, device="cuda"):
    """Records in random emission order: (tile ids int32, depth keys as
    uint32, splat ids int32) and the tile count. A positive float's bits,
    read as uint32, keep its order, so the depth bits are the sort key."""
    g = torch.Generator(device=device).manual_seed(seed)
    clusters = torch.tensor(CLUSTERS, device=device, dtype=torch.float64) * scale
    c = torch.randint(0, len(CLUSTERS), (particles,), generator=g, device=device)
    x = clusters[c, 0] + clusters[c, 2] * torch.randn(particles, generator=g, device=device, dtype=torch.float64)
    y = clusters[c, 1] + clusters[c, 2] * torch.randn(particles, generator=g, device=device, dtype=torch.float64)
    radius = torch.exp(1.5 + 0.9 * torch.randn(particles, generator=g, device=device, dtype=torch.float64))
    radius = radius.clamp(max=200.0) * scale
    depth = (1.0 + 99.0 * torch.rand(particles, generator=g, device=device)).to(torch.float32)
    tiles_x, tiles_y = (width + tile - 1) // tile, (height + tile - 1) // tile
    left, right = (x - radius).clamp(min=0.0), (x + radius).clamp(max=float(width))
    top, bottom = (y - radius).clamp(min=0.0), (y + radius).clamp(max=float(height))
    visible = (left < width) & (right >= 0) & (top < height) & (bottom >= 0) & (left <= right) & (top <= bottom)
    tx0 = (left / tile).floor().long().clamp(max=tiles_x - 1)
    tx1 = (right / tile).floor().long().clamp(max=tiles_x - 1)
    ty0 = (top / tile).floor().long().clamp(max=tiles_y - 1)
    ty1 = (bottom / tile).floor().long().clamp(max=tiles_y - 1)
    w = tx1 - tx0 + 1
    count = torch.where(visible, w * (ty1 - ty0 + 1), torch.zeros_like(w))
    splat = torch.repeat_interleave(torch.arange(particles, device=device), count)
    first = torch.cumsum(count, 0) - count
    local = torch.arange(len(splat), device=device) - first[splat]
    tile_ids = (ty0[splat] + local // w[splat]) * tiles_x + tx0[splat] + local % w[splat]
    order = torch.randperm(len(splat), generator=g, device=device)  # atomics give no order
    return (tile_ids[order].to(torch.int32), depth[splat[order]].view(torch.int32).view(torch.uint32),
            splat[order].to(torch.int32), tiles_x * tiles_y)


def sort_3dgs(tile_ids, depth_keys, splat_ids, num_tiles):
    """The 3DGS way: composite int64 keys, one sort, a gather, tile ranges."""
    keys = (tile_ids.to(torch.int64) << 32) | (depth_keys.view(torch.int32).to(torch.int64) & 0xFFFFFFFF)
    keys, order = torch.sort(keys, stable=True)
    values = splat_ids[order]
    offsets = torch.searchsorted(keys >> 32, torch.arange(num_tiles + 1, device=keys.device))
    return (keys & 0xFFFFFFFF).to(torch.int32), values, offsets.to(torch.int32)


class TilesortStep:
    """The same step with tilesort: workspace and outputs allocated once."""

    def __init__(self, max_records, num_tiles, device="cuda"):
        self.binner = tilesort.Binner(max_records, num_tiles, torch.int32)
        self.num_tiles = num_tiles
        self.keys = torch.empty(max_records, dtype=torch.int32, device=device)  # handed over as uint32
        self.values = torch.empty(max_records, dtype=torch.int32, device=device)
        self.offsets = torch.empty(num_tiles + 1, dtype=torch.int32, device=device)

    def __call__(self, tile_ids, depth_keys, splat_ids):
        n = len(tile_ids)
        self.binner.bin_and_sort(tile_ids, depth_keys, splat_ids, self.num_tiles, out_keys=self.keys.view(torch.uint32),
                                 out_values=self.values, out_offsets=self.offsets)
        return self.keys[:n], self.values[:n], self.offsets


def time_ms(fn, reps=20, warmup=3):
    """Median of CUDA-event timings of fn() on the current stream."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--particles", type=int, default=1000000)
    parser.add_argument("--tile", type=int, default=16)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("splat_sort: no CUDA device; nothing to run")
        return 2
    tile_ids, depth_keys, splat_ids, num_tiles = make_records(args.particles, tile=args.tile)
    n = len(tile_ids)
    print("splat_sort: %d splats -> %d records over %d tiles (%d px)" % (args.particles, n, num_tiles, args.tile))
    step = TilesortStep(n, num_tiles)
    want = sort_3dgs(tile_ids, depth_keys, splat_ids, num_tiles)
    got = step(tile_ids, depth_keys, splat_ids)
    step.binner.check()
    same = all(torch.equal(a, b) for a, b in zip(got, want))
    print("splat_sort: tilesort %s the 3DGS pipeline (keys, splat ids, tile offsets)"
          % ("matches" if same else "DIFFERS FROM"))
    ms_3dgs = time_ms(lambda: sort_3dgs(tile_ids, depth_keys, splat_ids, num_tiles))
    ms_tilesort = time_ms(lambda: step(tile_ids, depth_keys, splat_ids))
    print("splat_sort: 3DGS-style PyTorch %.3f ms, tilesort %.3f ms (%.2fx)"
          % (ms_3dgs, ms_tilesort, ms_3dgs / ms_tilesort))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
