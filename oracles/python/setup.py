"""The build of the rlref package copies the tree's golden files into it (rlref/golden/), so
that an installed package finds them wherever it is, and rlref.eval's shared library beside
them; pyproject.toml holds the rest."""

import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
# the tree's golden/ beside this folder, or $RLREF_GOLDEN_DIR for a copy built elsewhere
GOLDEN = os.environ.get("RLREF_GOLDEN_DIR") or os.path.join(HERE, "..", "..", "golden")
# rlref.eval's shared library, built by make (or $RLREF_ORACLES_LIB)
ORACLES = os.environ.get("RLREF_ORACLES_LIB") or os.path.join(HERE, "..", "..", "build", "lib",
                                                              "librlref_oracles.so")


class build_py_with_goldens(build_py):
    """build_py, then golden/*.json, golden/MANIFEST and librlref_oracles.so into the built
    package."""

    def run(self):
        super().run()
        files = sorted(glob.glob(os.path.join(GOLDEN, "[A-Z]*.json")))
        if not files:
            raise SystemExit("rlref: no golden files in %s: build the package from the rlref "
                             "tree" % os.path.normpath(GOLDEN))
        target = os.path.join(self.build_lib, "rlref", "golden")
        os.makedirs(target, exist_ok=True)
        for f in files + [os.path.join(GOLDEN, "MANIFEST")]:
            shutil.copy(f, target)
        if os.path.isfile(ORACLES):
            shutil.copy(ORACLES, os.path.join(self.build_lib, "rlref"))
        else:
            print("rlref: %s is not built (make): rlref.eval will not be available"
                  % os.path.normpath(ORACLES))


setup(cmdclass={"build_py": build_py_with_goldens})
