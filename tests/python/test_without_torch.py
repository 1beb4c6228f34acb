"""Where python3-torch is missing, the torch examples are skipped with a message saying so,
and the rest runs: shown by running test_library_styles.py in a child process whose torch
cannot be imported."""

import os
import subprocess
import sys

from conftest import HERE, TOP


def test_torch_examples_skip_with_a_message(tmp_path):
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named torch')\n",
                                      encoding="utf-8")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.join(TOP, "oracles",
                                                                        "python")]))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                        os.path.join(HERE, "test_library_styles.py")], cwd=str(tmp_path),
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    assert p.returncode in (0, 5), out         # 5: the module skipped, no test collected
    assert "1 skipped" in out and "passed" not in out, out
    assert "python3-torch is not installed: the torch examples of the library styles are " \
        "skipped" in out, out
