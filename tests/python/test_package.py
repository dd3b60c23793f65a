"""The package imports and finds its library: from the source tree, through
TILESORT_LIBRARY, and installed as a wheel built offline by pip with
Debian's setuptools (no GPU needed)."""
import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO

PROBE = "import tilesort, sys; sys.stdout.write(tilesort.library_path())"


def run(code, env_changes, cwd, path=None):
    env = {k: v for k, v in os.environ.items() if k not in ("TILESORT_LIBRARY", "PYTHONPATH")}
    env.update(env_changes)
    if path:
        env["PYTHONPATH"] = path
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)


def the_library():
    import tilesort
    return tilesort.library_path()


def test_explicit_library_path(tmp_path):
    lib = the_library()
    for value in (lib, os.path.dirname(lib)):
        r = run(PROBE, {"TILESORT_LIBRARY": value}, tmp_path, os.path.join(REPO, "python"))
        assert r.returncode == 0, r.stderr
        assert os.path.samefile(r.stdout, lib)


def test_a_wrong_library_path_says_what_it_tried(tmp_path):
    r = run(PROBE, {"TILESORT_LIBRARY": str(tmp_path / "nowhere.so")}, tmp_path, os.path.join(REPO, "python"))
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "nowhere.so" in r.stderr and "TILESORT_LIBRARY" in r.stderr


def test_import_needs_no_library():
    # Importing succeeds anywhere; the library loads on first use.
    r = run("import tilesort; print(tilesort.__version__)", {"TILESORT_LIBRARY": "/nonexistent"}, REPO,
            os.path.join(REPO, "python"))
    assert r.returncode == 0 and r.stdout.strip() == "0.1.0", r.stderr


def test_build_tree_is_found_without_environment(tmp_path):
    builds = glob.glob(os.path.join(REPO, "build*", "capi", "libtilesort_c.so.1"))
    if not builds:
        pytest.skip("no build*/capi inside the repository (the library was built elsewhere)")
    r = run(PROBE, {}, tmp_path, os.path.join(REPO, "python"))
    assert r.returncode == 0, r.stderr
    assert any(os.path.samefile(r.stdout, b) for b in builds)


def test_offline_wheel_bundles_the_library(tmp_path):
    lib = the_library()
    # A copy of python/, so the build leaves nothing in the source tree.
    source = tmp_path / "src"
    shutil.copytree(os.path.join(REPO, "python"), source,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
                        str(source), "-w", str(tmp_path / "wheel")],
                       env=dict(os.environ, TILESORT_LIBRARY=lib), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    wheels = glob.glob(str(tmp_path / "wheel" / "tilesort-*.whl"))
    assert len(wheels) == 1 and "py3-none-linux" in wheels[0]
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert any(n.endswith("tilesort/lib/libtilesort_c.so.1") for n in names), names
    # Installed (into a plain directory) it finds its own copy, with no
    # environment variable and no build tree in sight.
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
                        str(tmp_path / "site"), wheels[0]], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(PROBE, {}, tmp_path, str(tmp_path / "site"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(str(tmp_path / "site")), r.stdout
