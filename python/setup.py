"""Bundles libtilesort_c.so into the package when one is found, so an
installed tilesort needs no environment variable.

Where the library comes from, in order: TILESORT_LIBRARY (the file or its
directory), then the repository's build*/capi. Without either the package is
pure Python and finds the library at run time (TILESORT_LIBRARY, a build
tree, or the loader's path after `cmake --install`).
"""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: sdists and legacy installs still work
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "libtilesort_c.so.1"


def find_library():
    env = os.environ.get("TILESORT_LIBRARY")
    if env:
        # pip may build from another directory: a relative path is also
        # tried from the repository root.
        for base in ("", os.path.dirname(HERE)):
            for path in (env, os.path.join(env, NAME), os.path.join(env, "capi", NAME)):
                path = os.path.join(base, path)
                if os.path.isfile(path):
                    return os.path.realpath(path)
        raise SystemExit("setup.py: TILESORT_LIBRARY=%s holds no %s" % (env, NAME))
    found = sorted(glob.glob(os.path.join(os.path.dirname(HERE), "build*", "capi", NAME)))
    return os.path.realpath(found[0]) if found else None


class BuildPy(build_py):
    def run(self):
        super().run()
        library = find_library()
        if library:
            target = os.path.join(self.build_lib, "tilesort", "lib")
            os.makedirs(target, exist_ok=True)
            shutil.copyfile(library, os.path.join(target, NAME))
            self.announce("bundled %s" % library, level=2)


commands = {"build_py": BuildPy}
if bdist_wheel is not None:
    class BdistWheel(bdist_wheel):
        """A bundled .so makes the wheel platform-specific (yet any Python 3)."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = find_library() is None

        def get_tag(self):
            python, abi, plat = super().get_tag()
            return ("py3", "none", plat) if not self.root_is_pure else (python, abi, plat)

    commands["bdist_wheel"] = BdistWheel

setup(cmdclass=commands)
