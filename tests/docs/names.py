#!/usr/bin/python3
"""Every path, file and C symbol the documentation names exists.

    names.py [ROOT]

Reads every README.md of the tree (build/ aside) and the comments of the C headers
(reference/include/rlref/*.h and the internal headers under reference/src/ and oracles/), and
checks two kinds of name:
  - a path: a backticked word of a README with a "/" or a file extension (`golden/MANIFEST`,
    `tests/generic/fuzz.c`, `rlref/batch.h`, `families/`), or a path of a header comment with a
    "/" and a C, header, Python, shell, gnuplot, make or JSON extension.  It exists when it
    names a file or folder relative to the root, to the document's folder, or to one of the
    folders a document's paths are relative to (reference/, reference/include/, oracles/,
    tests/, plots/), or when a file or folder of the tree ends in that path (a file named
    without its folder, as a paragraph about the folder does); a
    placeholder word (FAMILY, NAME, ID, N, FORMULA, LIB, SETTING, DTYPE) stands for any name; rlref/families.h is made by
    the build.  A header comment's paths are those beginning with a folder of the tree.
  - a C symbol of the project: a word beginning rlref_, RLREF_, rl_, tu_ or num_ (a backticked
    one in a README, any in a header comment).  It exists when the code of a C or Python source
    of reference/, oracles/, tests/, derivations/ or plots/ (its comments aside) holds it as a
    word, or, for a name of a formula function
    (rlref_X, rlref_X_d, rlref_X_mp), holds FN (X) or RLREF_FN (X).
Absolute paths (/usr/bin/python3) and the names of other projects are not checked.  The table
of files of plots/README.md must also name every file of plots/ and of its family folders
(data/ and figures/ aside).

The last line reads "N passed, M failed"; the exit status is 0 when M = 0 and N > 0, 1
otherwise.
"""
import fnmatch
import glob
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASES = ["", "reference", "reference/include", "reference/include/rlref", "reference/src", "oracles",
         "tests", "plots"]
SYMBOL_RE = re.compile(r"\b(?:rlref|RLREF|rl|tu|num)_[A-Za-z0-9_]*[A-Za-z0-9]\b")
PLACEHOLDERS = ("FAMILY", "NAME", "ID", "N", "FORMULA", "LIB", "SETTING", "DTYPE")
PLACEHOLDER_RE = re.compile(r"(?<![A-Za-z0-9])(?:%s)(?![A-Za-z0-9])" % "|".join(PLACEHOLDERS))
C_PATH_RE = re.compile(r"(?<![\w./-])((?:reference|oracles|tests|plots|golden|derivations|rlref)"
                       r"/(?:[\w.-]+/)*[\w.-]*\.(?:c|h|py|sh|gp|mk|json|md))\b")
# made by the build (the Makefile writes them under build/)
GENERATED = {"rlref/families.h": "build/include/rlref/families.h"}
EXT_RE = re.compile(r"\.(?:c|h|py|sh|gp|mk|json|md|tsv|txt|svg|png)$")


def readmes():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and
                       not (rel == "." and d == "build")]
        if "README.md" in filenames:
            yield os.path.join(dirpath, "README.md")


def headers():
    out = sorted(glob.glob(os.path.join(ROOT, "reference/include/rlref/*.h")))
    out += sorted(glob.glob(os.path.join(ROOT, "reference/include/rlref/tmpl/*.h")))
    for top in ("reference/src", "oracles"):
        for dirpath, _, filenames in os.walk(os.path.join(ROOT, top)):
            out += sorted(os.path.join(dirpath, f) for f in filenames if f.endswith(".h"))
    return out


def comments(text):
    """The text of the /* */ comments of a C file."""
    return "\n".join(m.group(1) for m in re.finditer(r"/\*(.*?)\*/", text, re.S))


def c_sources():
    words = set()
    formula_fns = set()
    for top in ("reference", "oracles", "tests", "derivations", "plots"):
        for dirpath, _, filenames in os.walk(os.path.join(ROOT, top)):
            for f in filenames:
                if f.endswith((".c", ".h", ".py")):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        text = fh.read()
                    # the code, not what its comments say
                    if f.endswith(".py"):
                        text = re.sub(r"#[^\n]*", "", text)
                    else:
                        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
                    words.update(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))
                    formula_fns.update(re.findall(r"\b(?:RLREF_)?FN\s*\(\s*(\w+)\s*\)", text))
    return words, formula_fns


def tree_files():
    """Every file and folder of the tree (build/ and dot-folders aside), as paths from the
    root."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and
                       not (rel == "." and d == "build")]
        for f in filenames + dirnames:
            names.add(f if rel == "." else rel + "/" + f)
    return names


def path_exists(name, doc_dir, basenames):
    name = name.rstrip(".,;:")
    if name in GENERATED:
        return True
    pattern = PLACEHOLDER_RE.sub("*", name) if PLACEHOLDER_RE.search(name) else None
    for base in [doc_dir] + [os.path.join(ROOT, b) for b in BASES]:
        p = os.path.join(base, name)
        if os.path.exists(p):
            return True
        if pattern and glob.glob(os.path.join(base, pattern)):
            return True
    # named from a folder below the document's bases (families/NAME.py in a paragraph
    # about tests/crosscheck/, a file without its folder)
    tail = "/" + (pattern or name).rstrip("/")
    return any(fnmatch.fnmatchcase("/" + f, "*" + tail) for f in basenames)


def symbol_exists(name, words, formula_fns):
    if name in words:
        return True
    if PLACEHOLDER_RE.search(name):
        # rl_family_NAME: a word of that form, or its fixed head pasted by a macro
        head = PLACEHOLDER_RE.split(name)[0]
        pattern = re.compile("^" + PLACEHOLDER_RE.sub("[A-Za-z0-9_]+", re.escape(name)) + "$")
        return head in words or any(pattern.match(w) for w in words)
    m = re.match(r"^rlref_(\w+?)(?:_d|_mp)?$", name)
    if m and m.group(1) in formula_fns:
        return True
    return False


def readme_names(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    paths, symbols = set(), set()
    for m in re.finditer(r"`([^`\n]+)`", text):
        w = m.group(1).strip()
        for s in SYMBOL_RE.findall(w):
            symbols.add(s)
        if " " in w or w.startswith(("/", "http", "-", "~", "$", "../", ".")) or "://" in w:
            continue
        if any(c in w for c in "()[]{}=*<>|,'\"\\"):
            continue
        if "/" in w or EXT_RE.search(w):
            paths.add(w)
    return paths, symbols


def header_names(path):
    with open(path, encoding="utf-8") as fh:
        text = comments(fh.read())
    paths = set(m.group(1) for m in C_PATH_RE.finditer(text))
    symbols = set(SYMBOL_RE.findall(text))
    return paths, symbols


def plots_table_complete():
    """The files of plots/ and of its family folders that its README's table of files does not
    name (data/, figures/ and the README aside)."""
    with open(os.path.join(ROOT, "plots", "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    rows = [l for l in text.splitlines() if l.startswith("| `")]
    named = set(re.findall(r"`([^`]+)`", "\n".join(r.split("|")[1] for r in rows)))
    missing = []
    top = os.path.join(ROOT, "plots")
    for f in sorted(os.listdir(top)):
        if f in ("data", "figures", "README.md") or f.startswith("."):
            continue
        if not os.path.isdir(os.path.join(top, f)):
            if f not in named:
                missing.append(f)
            continue
        # a family's folder: the folder and every file in it
        if f + "/" not in named:
            missing.append(f + "/")
        for g in sorted(os.listdir(os.path.join(top, f))):
            if g not in named and not g.startswith("."):
                missing.append(f + "/" + g)
    return missing


def main():
    words, formula_fns = c_sources()
    basenames = tree_files()
    passed = failed = 0
    docs = [(p, readme_names) for p in readmes()] + [(p, header_names) for p in headers()]
    for doc, reader in docs:
        rel = os.path.relpath(doc, ROOT)
        paths, symbols = reader(doc)
        for p in sorted(paths):
            if path_exists(p, os.path.dirname(doc), basenames):
                passed += 1
            else:
                failed += 1
                print(f"FAIL {rel}: names {p}, which is not a file or folder of the tree")
        for s in sorted(symbols):
            if symbol_exists(s, words, formula_fns):
                passed += 1
            else:
                failed += 1
                print(f"FAIL {rel}: names {s}, which no C source defines or uses")
    for f in plots_table_complete():
        failed += 1
        print(f"FAIL plots/README.md: its table of files does not name plots/{f}")
    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
