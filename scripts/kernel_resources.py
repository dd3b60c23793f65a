#!/usr/bin/env python3
"""Registers, spills and shared memory of every sorter kernel, without a GPU.

Compiles the library's CUDA translation units (the six type instances and
binning) for sm_90 with the build's own flags, reads ptxas's resource usage
and prints one Markdown row per kernel. A policy change that moves a kernel
across a register limit or makes it spill shows up here before any device
time is spent on it (a radix8 path added to the 256-key class took it from
56 to 72 registers and cost its 32-bit rows 3-15%).

  scripts/kernel_resources.py BUILD_DIR [--json OUT.json] [--filter REGEX]
  scripts/kernel_resources.py --compare BEFORE.json AFTER.json

BUILD_DIR is a configured CMake build directory of this source tree (it
holds the generated instance sources and the compile flags). --compare
prints only the kernels whose numbers differ, and those in one file only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

ARCH = "sm_90"
ALGORITHMS = {"0": "bitonic", "1": "radix8", "2": "merge", "3": "none"}


def short_name(demangled):
    """A kernel's demangled name without namespaces, argument list or noise."""
    name = demangled.split("(tilesort::detail::SortData")[0]
    name = re.sub(r"^void ", "", name)
    name = re.sub(r"\(tilesort::detail::BlockAlgorithm\)(\d)", lambda m: ALGORITHMS.get(m.group(1), m.group(1)), name)
    for old, new in (("tilesort::detail::", ""), ("tilesort::", ""), ("unsigned int", "u32"),
                     ("unsigned long long", "u64"), ("unsigned long", "u64"), ("NoValue", "none"),
                     ("Sm90Policy::", ""), ("BlockSortShape", "Shape")):
        name = name.replace(old, new)
    name = re.sub(r"\((.*)\)$", "", name)
    return name.strip()


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))


def parse_ptxas(text):
    """{mangled: {registers, spill_stores, spill_loads, stack, smem}} from ptxas -v output."""
    kernels = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            current["smem"] = int(s.group(1)) if s else 0
    return {k: v for k, v in kernels.items() if "registers" in v}


def build_flags(build_dir):
    flags_make = os.path.join(build_dir, "sorter", "CMakeFiles", "tilesort.dir", "flags.make")
    values = {}
    with open(flags_make) as f:
        for line in f:
            if " = " in line and not line.startswith("#"):
                key, value = line.rstrip("\n").split(" = ", 1)
                values[key] = value
    flags = shlex.split(values.get("CUDA_FLAGS", "")) + shlex.split(values.get("CUDA_DEFINES", ""))
    # One real architecture and no PTX: the numbers are the sm_90 cubin's.
    flags = [f for f in flags if not f.startswith("--generate-code") and not f.startswith("-gencode")]
    flags += [f"-gencode=arch=compute_90,code={ARCH}", "--resource-usage", "-cubin"]
    includes = shlex.split(values.get("CUDA_INCLUDES", ""))
    return flags, includes


def sources(build_dir):
    instances = os.path.join(build_dir, "sorter", "instances")
    found = sorted(os.path.join(instances, f) for f in os.listdir(instances) if f.endswith(".cu"))
    cache = os.path.join(build_dir, "CMakeCache.txt")
    source_dir = None
    with open(cache) as f:
        for line in f:
            if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                source_dir = line.split("=", 1)[1].strip()
    if source_dir:
        found.append(os.path.join(source_dir, "sorter", "src", "binning", "binning.cu"))
    return found


def compile_one(build_dir, flags, includes, source):
    cwd = os.path.join(build_dir, "sorter")
    cmd = ["nvcc"] + flags + includes + [source, "-o", os.devnull]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc failed on {source}:\n{done.stderr[-4000:]}")
    return os.path.basename(source), parse_ptxas(done.stdout + done.stderr)


def collect(build_dir, jobs, pattern):
    flags, includes = build_flags(build_dir)
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(compile_one, build_dir, flags, includes, s) for s in sources(build_dir)]
        for future in concurrent.futures.as_completed(futures):
            unit, kernels = future.result()
            names = demangle(list(kernels))
            for mangled, usage in kernels.items():
                name = short_name(names.get(mangled, mangled))
                if pattern and not re.search(pattern, name):
                    continue
                rows[f"{unit}: {name}"] = usage
    return dict(sorted(rows.items()))


HEADER = ("| unit: kernel | registers | spill stores / loads (bytes) | stack | static smem |\n"
          "|---|---:|---:|---:|---:|")
KEYS = ("registers", "spill_stores", "spill_loads", "stack", "smem")


def row(name, u):
    """One table row; a value may be a string such as '121 -> 80'."""
    return f"| {name} | {u['registers']} | {u['spill_stores']} / {u['spill_loads']} | {u['stack']} | {u['smem']} |"


def print_table(rows):
    print(HEADER)
    for name, usage in rows.items():
        print(row(name, usage))


def compare(before, after):
    names = sorted(set(before) | set(after))
    changed = 0
    print(HEADER)
    for name in names:
        b, a = before.get(name), after.get(name)
        if b and a and all(b[k] == a[k] for k in KEYS):
            continue
        changed += 1
        if not a:
            print(row(f"{name} (before only)", b))
        elif not b:
            print(row(f"{name} (after only)", a))
        else:
            print(row(name, {k: a[k] if a[k] == b[k] else f"{b[k]} -> {a[k]}" for k in KEYS}))
    print(f"\n{changed} of {len(names)} kernels differ")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir", nargs="?")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--filter", help="only kernels whose short name matches this regex")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        with open(args.compare[0]) as f:
            before = json.load(f)
        with open(args.compare[1]) as f:
            after = json.load(f)
        compare(before, after)
        return 0
    if not args.build_dir:
        parser.error("a build directory, or --compare")
    rows = collect(os.path.abspath(args.build_dir), args.jobs, args.filter)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
