"""The Python examples of README.md ("Validating your implementation"), run as printed: the
three lines, the complete example (under ten lines besides the function under test; rlref
check must name openrlhf), and the pytest example with that function."""

import os
import re
import subprocess
import sys

from conftest import TOP

README = os.path.join(TOP, "README.md")


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def block(marker):
    """The ```python block after the line <!-- example: MARKER -->."""
    text = readme()
    at = text.index("<!-- example: %s -->" % marker)
    m = re.compile(r"```python\n(.*?)```\n", re.S).search(text, at)
    assert m, marker
    return m.group(1)


def in_tree(tmp_path, name, source):
    """Write SOURCE to tmp_path/NAME beside links to the tree's golden/, build/ and oracles/,
    as a user's working directory would have them."""
    for d in ("golden", "build", "oracles"):
        link = tmp_path / d
        if not link.exists():
            link.symlink_to(os.path.join(TOP, d))
    (tmp_path / name).write_text(source, encoding="utf-8")
    return str(tmp_path / name)


def function(source):
    """The def of my_advantage in SOURCE, and SOURCE without it."""
    lines = source.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("def my_advantage"))
    end = next(i for i in range(start + 1, len(lines))
               if lines[i] and not lines[i].startswith(" "))
    return "\n".join(lines[start:end]), "\n".join(lines[:start] + lines[end:])


def test_three_lines():
    text = readme()
    section = text[text.index("### From Python"):text.index("<!-- example: python -->")]
    m = re.search(r"```python\n(.*?)```\n", section, re.S)
    three = [l for l in m.group(1).split("\n") if l.strip()]
    assert len(three) == 3
    full = block("python")
    for line in three:
        assert line.split("#")[0].strip() in full


def test_complete_example(tmp_path):
    source = block("python")
    fn, rest = function(source)
    code = [l for l in rest.split("\n") if l.strip() and not l.lstrip().startswith("#")]
    assert len(code) < 10, code
    path = in_tree(tmp_path, "example.py", source)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, path], cwd=str(tmp_path), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8")
    assert p.returncode == 0, out
    assert re.search(r"^Candidate follows: openrlhf$", out, re.M), out
    assert re.search(r"^24 passed, 0 failed$", out, re.M), out


def test_pytest_example(tmp_path):
    fn, _ = function(block("python"))
    source = "import math\n" + block("pytest") + "\n\n" + fn + "\n"
    path = in_tree(tmp_path, "test_readme_pytest.py", source)
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "oracles", "python"),
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path],
                       cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8")
    assert p.returncode == 0, out
    assert re.search(r"\b34 passed\b", out), out
