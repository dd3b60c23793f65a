#!/usr/bin/env python3
"""Turns the Nsight Compute CSV of scripts/device_binning_profile.sh into
Markdown: per case, bin_and_sort's time by kernel.

Input: one file of sections, each opened by a line
    ### tilesort-bench-ncu case=NAME bits=B calls=C rc=R
followed by what `ncu --csv --print-units base --log-file` wrote for that
run (==PROF== lines and the like are skipped). Both of ncu's CSV layouts are
read: the details page (one line per kernel and metric: "ID", "Kernel Name",
"Metric Name", "Metric Unit", "Metric Value") and the raw page (one line per
kernel, a column per metric, a line of units under the header).

--plain-json: tilesort-bench --suite binning's JSON of a run without the
profiler, for each row's event-timed call and copy floor.

--sort: the sections of scripts/device_sort_profile.sh instead, each opened by
    ### tilesort-bench-ncu workload=W variant=V method=M calls=C rc=R
(one segmented-sort row and method); --plain-json then takes tilesort-bench's
main JSON (rows of workload, variant, method, ms, x_copy).

Standard library only.
"""
import argparse
import csv
import io
import json
import re
import sys

TIME = "gpu__time_duration.sum"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
SM_THROUGHPUT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
ISSUE_ACTIVE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"

# To seconds, bytes, or as is. ncu's prefixes are decimal (Kbyte = 1000).
UNIT_SCALE = {
    "nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
    "second": 1.0, "s": 1.0,
    "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "kibyte": 1024.0, "mibyte": 1024.0 ** 2, "gibyte": 1024.0 ** 3,
}

HEADER = re.compile(r"^### tilesort-bench-ncu (.*)$")


def number(text, unit=""):
    """A metric value in base units, or None (n/a, empty)."""
    text = (text or "").strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan"):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value * UNIT_SCALE.get((unit or "").strip().lower(), 1.0)


def short_name(name):
    """'void tilesort::detail::k<A, 2>(P)' -> 'k<A, 2>': no return type, no
    parameters, no namespaces; at most 90 characters."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    depth = 0
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0 and not name.startswith("(anonymous", i):
            name = name[:i]
            break
    name = name.replace("(anonymous namespace)::", "")
    name = re.sub(r"\b[A-Za-z_]\w*::", "", name)
    return name if len(name) <= 90 else name[:89] + "…"


def parse_sections(text):
    """[(fields dict, [lines])] in file order."""
    sections = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            fields = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
            sections.append((fields, []))
        elif sections:
            sections[-1][1].append(line)
    return sections


def parse_ncu_csv(lines):
    """(launches in order: [{"id", "name", metric: value...}], messages)."""
    messages = [l for l in lines if l.startswith("==") and ("ERROR" in l or "WARNING" in l)]
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        return [], messages
    body = [l for l in lines[start:] if l.strip() and not l.startswith("==")]
    rows = list(csv.reader(io.StringIO("\n".join(body))))
    header = rows[0]
    col = {h: i for i, h in enumerate(header)}
    launches = {}
    order = []

    def launch(row):
        key = row[col["ID"]]
        if key not in launches:
            launches[key] = {"id": key, "name": row[col["Kernel Name"]]}
            order.append(key)
        return launches[key]

    if "Metric Name" in col:  # details page: one line per (kernel, metric)
        for row in rows[1:]:
            if len(row) < len(header):
                continue
            launch(row)[row[col["Metric Name"]]] = number(row[col["Metric Value"]], row[col["Metric Unit"]])
    else:  # raw page: a column per metric, then a line of units
        units = {}
        for row in rows[1:]:
            if len(row) < len(header):
                continue
            if not row[col["ID"]].strip():
                units = {h: row[i] for i, h in enumerate(header)}
                continue
            entry = launch(row)
            for h, i in col.items():
                if "__" in h:
                    entry[h] = number(row[i], units.get(h, ""))
    return [launches[k] for k in order], messages


def by_kernel(launches):
    """Per short kernel name, in first-launch order: sums and time-weighted means."""
    groups = {}
    for l in launches:
        g = groups.setdefault(short_name(l["name"]), {"launches": 0, "time": 0.0, "read": 0.0, "write": 0.0,
                                                    "wavefronts": 0.0, "sm": 0.0, "issue": 0.0, "weight": 0.0})
        t = l.get(TIME) or 0.0
        g["launches"] += 1
        g["time"] += t
        g["read"] += l.get(DRAM_READ) or 0.0
        g["write"] += l.get(DRAM_WRITE) or 0.0
        g["wavefronts"] += l.get(SHARED_WAVEFRONTS) or 0.0
        if l.get(SM_THROUGHPUT) is not None and l.get(ISSUE_ACTIVE) is not None:
            g["sm"] += t * l[SM_THROUGHPUT]
            g["issue"] += t * l[ISSUE_ACTIVE]
            g["weight"] += t
    return groups


def load_rows(path):
    if not path:
        return []
    try:
        with open(path) as f:
            return json.load(f).get("rows", [])
    except (OSError, ValueError):
        return []


def plain_rows(path):
    """bin_and_sort's event-timed ms and copy ms, by (case, depth bits)."""
    return {(r.get("case"), int(r.get("key_bits", 0))): (r.get("tilesort_ms"), r.get("copy_ms"))
            for r in load_rows(path)}


def plain_sort_rows(path):
    """A method's event-timed ms and the row's copy ms, by (workload, variant, method)."""
    rows = load_rows(path)
    copy = {(r.get("workload"), r.get("variant")): r.get("ms") for r in rows if r.get("method") == "copy"}
    return {(r.get("workload"), r.get("variant"), r.get("method")):
            (r.get("ms"), copy.get((r.get("workload"), r.get("variant")))) for r in rows}


class Layout:
    """What one profile script's sections are: the header fields that name a
    section (name, column title, type), in table order, and the words around them."""

    def __init__(self, title, call, fields, heading, what, log):
        self.title, self.call, self.fields, self.heading_format = title, call, fields, heading
        self.what, self.log = what, log
        self.columns = "| " + " | ".join(column for _, column, _ in fields) + " |"

    def key(self, header):
        return tuple(kind(header.get(name) or ("0" if kind is int else "?")) for name, _, kind in self.fields)

    def heading(self, key):
        return self.heading_format % key

    @staticmethod
    def cells(key):
        return " | ".join(str(v) for v in key)


BINNING = Layout("# bin_and_sort by kernel (Nsight Compute)",
                 "one timed `bin_and_sort` call (`tilesort-bench --suite binning --methods tilesort "
                 "--reps 1 --warmup 0`",
                 (("case", "case", str), ("bits", "depth bits", int)),
                 "## %s, %d-bit depths", "records", "binning-profile-log.txt")

SORT = Layout("# segmented_sort rows by kernel (Nsight Compute)",
              "one timed call of the method (`tilesort-bench --reps 1 --warmup 0`",
              (("workload", "workload", str), ("variant", "variant", str), ("method", "method", str)),
              "## %s, %s: %s", "row's bytes", "sort-profile-log.txt")


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def render(sections, plain, launch_limit, kind=BINNING):
    out = [kind.title, ""]
    out.append("Per row: " + kind.call + ", profiled between cudaProfilerStart/Stop), every kernel replayed by ncu "
               "with clocks left alone (`--clock-control none`) and caches flushed before each kernel "
               "(`--cache-control all`): a cold-L2 view. Their sum can differ from the event-timed call of a "
               "plain run, given beside it: cold caches add time, launch gaps and memsets are not in it. "
               "DRAM bytes are read + write; "
               "SM throughput and issue active are time-weighted means over the kernel's launches.")
    out.append("")
    summary = [kind.columns + " call ms (events, plain run) | x copy | kernels sum ms (ncu) | launches | "
               "largest kernel (share) |", "|" + "---|" * len(kind.fields) +
               "---:|---:|---:|---:|---|"]
    tables = []
    for fields, lines in sections:
        key = kind.key(fields)
        calls = max(int(fields.get("calls", "1") or 1), 1)
        launches, messages = parse_ncu_csv(lines)
        tables.append(kind.heading(key))
        tables.append("")
        event_ms, copy_ms = plain.get(key, (None, None))
        event_ms = event_ms if event_ms and event_ms > 0 else None
        copy_ms = copy_ms if copy_ms and copy_ms > 0 else None
        if not launches:
            tables.append("ncu gave no kernel rows (exit %s). %s" % (fields.get("rc", "?"),
                          " ".join(messages[:3]) if messages else "See %s." % kind.log))
            tables.append("")
            summary.append("| %s | %s | %s | — | — | no profile |" % (
                kind.cells(key), fmt(event_ms, ".3f"),
                fmt(event_ms / copy_ms if event_ms and copy_ms else None, ".2f")))
            continue
        groups = by_kernel(launches)
        total = sum(g["time"] for g in groups.values())
        tables.append("| kernel | launches per call | total µs | share of the call | DRAM MB (read + write) | "
                      "DRAM GB/s | SM throughput % | issue active % | shared wavefronts (M) |")
        tables.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, g in sorted(groups.items(), key=lambda kv: -kv[1]["time"]):
            t = g["time"] / calls
            dram = (g["read"] + g["write"]) / calls
            tables.append("| `%s` | %s | %.1f | %.1f%% | %.1f (%.1f + %.1f) | %s | %s | %s | %.2f |" % (
                name.replace("|", "\\|"), fmt(g["launches"] / calls, "g"), t * 1e6,
                100.0 * g["time"] / total if total else 0.0, dram / 1e6, g["read"] / calls / 1e6,
                g["write"] / calls / 1e6, fmt(dram / t / 1e9 if t else None, ".0f"),
                fmt(g["sm"] / g["weight"] if g["weight"] else None, ".1f"),
                fmt(g["issue"] / g["weight"] if g["weight"] else None, ".1f"), g["wavefronts"] / calls / 1e6))
        all_dram = sum(g["read"] + g["write"] for g in groups.values()) / calls
        tables.append("| **all kernels** | %s | %.1f | 100%% | %.1f | %s | | | |" % (
            fmt(len(launches) / calls, "g"), total / calls * 1e6, all_dram / 1e6,
            fmt(all_dram / (total / calls) / 1e9 if total else None, ".0f")))
        tables.append("")
        notes = []
        if event_ms:
            notes.append("event-timed call in a plain run: %.3f ms%s" % (
                event_ms, " (%.2fx copy of the %s, copy %.4f ms)" % (event_ms / copy_ms, kind.what, copy_ms)
                if copy_ms else ""))
        if launch_limit and len(launches) >= launch_limit:
            notes.append("**truncated**: ncu stopped at its launch limit (%d); raise NCU_LAUNCH_COUNT" % launch_limit)
        if fields.get("rc", "0") not in ("0", ""):
            notes.append("the profiled run exited %s" % fields["rc"])
        notes.extend(messages[:3])
        for n in notes:
            tables.append("- " + n)
        if notes:
            tables.append("")
        top_name, top = max(groups.items(), key=lambda kv: kv[1]["time"])
        summary.append("| %s | %s | %s | %.3f | %s | `%s` (%.0f%%) |" % (
            kind.cells(key), fmt(event_ms, ".3f"), fmt(event_ms / copy_ms if event_ms and copy_ms else None, ".2f"),
            total / calls * 1e3, fmt(len(launches) / calls, "g"), top_name.replace("|", "\\|"),
            100.0 * top["time"] / total if total else 0.0))
    return "\n".join(out + summary + [""] + tables) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="the sections file of scripts/device_binning_profile.sh (or, with --sort, "
                        "of scripts/device_sort_profile.sh)")
    parser.add_argument("--sort", action="store_true", help="segmented-sort rows (device_sort_profile.sh)")
    parser.add_argument("--plain-json", default=None, help="the JSON of a plain run: tilesort-bench --suite "
                        "binning's, or with --sort tilesort-bench's main report")
    parser.add_argument("--launch-limit", type=int, default=0, help="ncu's --launch-count, to flag truncation")
    args = parser.parse_args(argv)
    with open(args.csv, encoding="utf-8", errors="replace") as f:
        sections = parse_sections(f.read())
    if not sections:
        print("ncu_kernel_table: no '### tilesort-bench-ncu' sections in %s" % args.csv, file=sys.stderr)
        return 1
    if args.sort:
        sys.stdout.write(render(sections, plain_sort_rows(args.plain_json), args.launch_limit, SORT))
    else:
        sys.stdout.write(render(sections, plain_rows(args.plain_json), args.launch_limit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
