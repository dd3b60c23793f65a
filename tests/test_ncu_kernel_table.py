#!/usr/bin/env python3
"""scripts/ncu_kernel_table.py (the post-processor of
scripts/device_binning_profile.sh and, with --sort, of
scripts/device_sort_profile.sh) on hand-written ncu CSV of both layouts. Standard library
only: run directly or through ctest (bench_ncu_kernel_table)."""
import importlib.util
import json
import os
import tempfile
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in scripts/

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "scripts", "ncu_kernel_table.py")
spec = importlib.util.spec_from_file_location("ncu_kernel_table", SCRIPT)
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

COLUMNS = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
           '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def detail(launch, kernel, metric, unit, value):
    return ('"%d","1","tilesort-bench","h","%s","1","13","(256, 1, 1)","(528, 1, 1)","0","9.0",'
            '"Command line profiler metrics","%s","%s","%s"' % (launch, kernel, metric, unit, value))


SCATTER = "void tilesort::detail::bin_scatter_kernel<tilesort::detail::BinPolicy<256, 8>>(tilesort::detail::P)"
SORT = "void tilesort::detail::(anonymous namespace)::tile_sort<32>(tilesort::detail::SortData<unsigned int>)"

DETAILS = "\n".join([
    "### tilesort-bench-ncu case=tiles16-4M bits=32 calls=1 rc=0",
    "==PROF== Connected to process 1 (/tmp/tilesort-bench)",
    COLUMNS,
    detail(0, SCATTER, "gpu__time_duration.sum", "nsecond", "100,000"),
    detail(0, SCATTER, "dram__bytes_read.sum", "byte", "200,000,000"),
    detail(0, SCATTER, "dram__bytes_write.sum", "Mbyte", "100"),
    detail(0, SCATTER, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "40"),
    detail(0, SCATTER, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%", "20"),
    detail(1, SORT, "gpu__time_duration.sum", "usecond", "300"),
    detail(1, SORT, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "80"),
    detail(1, SORT, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%", "60"),
    detail(2, SCATTER, "gpu__time_duration.sum", "nsecond", "100,000"),
    detail(2, SCATTER, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "60"),
    detail(2, SCATTER, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%", "40"),
    "==PROF== Disconnected from process 1",
])

RAW = "\n".join([
    "### tilesort-bench-ncu case=4k-tiles8 bits=16 calls=1 rc=0",
    '"ID","Process ID","Process Name","Host Name","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum"',
    '"","","","","","msecond","Gbyte"',
    '"0","1","tilesort-bench","h","%s","0.5","1.5"' % SCATTER,
])

FAILED = "\n".join([
    "### tilesort-bench-ncu case=4k-tiles8 bits=32 calls=1 rc=1",
    "==ERROR== Failed to initialize the profiler: LibraryNotLoaded",
])


class ParseTest(unittest.TestCase):
    def test_short_names_drop_return_type_parameters_and_namespaces(self):
        self.assertEqual(table.short_name(SCATTER), "bin_scatter_kernel<BinPolicy<256, 8>>")
        self.assertEqual(table.short_name(SORT), "tile_sort<32>")
        self.assertLessEqual(len(table.short_name("k<" + "x" * 200 + ">(int)")), 90)

    def test_numbers_are_in_base_units(self):
        self.assertAlmostEqual(table.number("1,234", "nsecond"), 1234e-9)
        self.assertEqual(table.number("2", "Mbyte"), 2e6)
        self.assertEqual(table.number("40.5", "%"), 40.5)
        self.assertIsNone(table.number("n/a", "byte"))

    def test_details_layout(self):
        (fields, lines), = table.parse_sections(DETAILS)
        self.assertEqual(fields, {"case": "tiles16-4M", "bits": "32", "calls": "1", "rc": "0"})
        launches, messages = table.parse_ncu_csv(lines)
        self.assertEqual([l["id"] for l in launches], ["0", "1", "2"])
        self.assertAlmostEqual(launches[0][table.DRAM_WRITE], 1e8)
        self.assertEqual(messages, [])
        groups = table.by_kernel(launches)
        scatter = groups["bin_scatter_kernel<BinPolicy<256, 8>>"]
        self.assertEqual(scatter["launches"], 2)
        self.assertAlmostEqual(scatter["time"], 200e-6)
        self.assertAlmostEqual(scatter["sm"] / scatter["weight"], 50.0)  # time-weighted mean of 40 and 60

    def test_raw_layout(self):
        (_, lines), = table.parse_sections(RAW)
        launches, _ = table.parse_ncu_csv(lines)
        self.assertEqual(len(launches), 1)
        self.assertAlmostEqual(launches[0][table.TIME], 0.5e-3)
        self.assertAlmostEqual(launches[0][table.DRAM_READ], 1.5e9)

    def test_render_shares_event_times_and_failures(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain = os.path.join(tmp, "plain.json")
            with open(plain, "w") as f:
                json.dump({"rows": [{"case": "tiles16-4M", "key_bits": 32, "copy_ms": 0.1, "tilesort_ms": 0.9}]}, f)
            sections = table.parse_sections("\n".join([DETAILS, RAW, FAILED]))
            md = table.render(sections, table.plain_rows(plain), launch_limit=3)
        self.assertIn("| tiles16-4M | 32 | 0.900 | 9.00 | 0.500 | 3 | `tile_sort<32>` (60%) |", md)
        self.assertIn("| `tile_sort<32>` | 1 | 300.0 | 60.0% |", md)
        self.assertIn("| `bin_scatter_kernel<BinPolicy<256, 8>>` | 2 | 200.0 | 40.0% |", md)
        self.assertIn("**truncated**", md)  # 3 launches at a limit of 3
        self.assertIn("## 4k-tiles8, 16-bit depths", md)
        self.assertIn("ncu gave no kernel rows (exit 1). ==ERROR== Failed to initialize", md)

    def test_sort_rows_take_the_main_reports_times_and_copy_floor(self):
        cub = "void cub::CUB_300001_SM_900_NS::DeviceSegmentedRadixSortKernel<cub::P, true>(int)"
        text = "\n".join([
            "### tilesort-bench-ncu workload=fixed-65536 variant=u32-none-16bit method=tilesort calls=1 rc=0",
            COLUMNS,
            detail(0, SORT, "gpu__time_duration.sum", "usecond", "200"),
            detail(1, SCATTER, "gpu__time_duration.sum", "usecond", "50"),
            "### tilesort-bench-ncu workload=fixed-65536 variant=u32-none-16bit "
            "method=cub-segmented-radix-sort calls=1 rc=0",
            COLUMNS,
            detail(0, cub, "gpu__time_duration.sum", "usecond", "280"),
            "### tilesort-bench-ncu workload=fixed:67108864 variant=u32-u32 method=tilesort calls=1 rc=not-run",
        ])
        rows = [{"workload": "fixed-65536", "variant": "u32-none-16bit", "method": m, "ms": ms}
                for m, ms in (("copy", 0.05), ("tilesort", 0.3), ("cub-segmented-radix-sort", 0.25))]
        with tempfile.TemporaryDirectory() as tmp:
            plain = os.path.join(tmp, "bench.json")
            with open(plain, "w") as f:
                json.dump({"rows": rows}, f)
            md = table.render(table.parse_sections(text), table.plain_sort_rows(plain), 64, table.SORT)
        self.assertIn("| fixed-65536 | u32-none-16bit | tilesort | 0.300 | 6.00 | 0.250 | 2 | `tile_sort<32>` (80%) |",
                      md)
        self.assertIn("| fixed-65536 | u32-none-16bit | cub-segmented-radix-sort | 0.250 | 5.00 | 0.280 | 1 | "
                      "`DeviceSegmentedRadixSortKernel<P, true>` (100%) |", md)
        self.assertIn("## fixed:67108864, u32-u32: tilesort", md)
        self.assertIn("| fixed:67108864 | u32-u32 | tilesort | — | — | — | — | no profile |", md)
        self.assertIn("(6.00x copy of the row's bytes, copy 0.0500 ms)", md)
        self.assertIn("|---|---|---|---:|", md)


if __name__ == "__main__":
    unittest.main()
