#!/usr/bin/env python3
"""Table of a same-run A/B (scripts/device_ab.sh): per bench row, the median
over passes of each build's tilesort time, and each build's ratio to the
first. Reads RUNS_DIR/NAME-PASS.json of the standard run, the sweep or the
binning suite.

    ab_table.py RUNS_DIR NAME [NAME ...]
"""
import glob
import json
import os
import statistics
import sys


def rows_of(doc):
    """(row label, tilesort ms) of one report."""
    out = []
    for row in doc.get("rows", []):
        if "case" in row:  # binning suite: bin_and_sort, bin alone and the gather
            label = row["label"]
            for key, what in (("tilesort_ms", "bin_and_sort"), ("bin_ms", "bin"), ("gather64_ms", "gather64")):
                if row.get(key, -1) > 0:  # -1 / absent: not run
                    out.append((f"{label} {what}", row[key]))
        elif row.get("method") == "tilesort" and row.get("status") == "ok":
            out.append((f"{row['workload']} {row['variant']}", row["ms"]))
    return out


def main():
    runs, names = sys.argv[1], sys.argv[2:]
    times = {}  # label -> name -> [ms]
    order = []
    for name in names:
        for path in sorted(glob.glob(os.path.join(runs, f"{name}-*.json"))):
            with open(path) as f:
                doc = json.load(f)
            for label, ms in rows_of(doc):
                if label not in times:
                    times[label] = {}
                    order.append(label)
                times[label].setdefault(name, []).append(ms)
    columns = [f"{n} ms" for n in names] + [f"{n} / {names[0]}" for n in names[1:]]
    print("| row | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * (2 * len(names) - 1))
    for label in order:
        med = [statistics.median(times[label][n]) if n in times[label] else None for n in names]
        cells = [f"{m:.3f}" if m is not None else "—" for m in med]
        ratios = [f"{m / med[0]:.3f}" if m is not None and med[0] else "—" for m in med[1:]]
        print(f"| {label} | " + " | ".join(cells + ratios) + " |")
    spread = [max(v) / min(v) for t in times.values() for v in t.values() if len(v) > 1 and min(v) > 0]
    if spread:
        print(f"\npasses per build: {max(len(v) for t in times.values() for v in t.values())}; "
              f"largest max/min of one build's passes on a row: {max(spread):.3f}")


if __name__ == "__main__":
    main()
