#!/usr/bin/python3
"""Every section and formula id a string or comment cites in the catalogue or the conventions
exists in the copies the repository holds (golden/FORMULAS.md, golden/CONVENTIONS.md).

    citations.py [ROOT]

Reads the golden files (golden/*.json) and the sources of reference/, oracles/, tests/,
derivations/ and plots/ (C, headers, Python, shell, gnuplot, make, Markdown), joins a C string
continued on the next line and a comment continued after its " * ", and checks three forms:
  - CONVENTIONS.md "Title" (or FORMULAS.md "Title", with "section" or a comma between): a
    "## " heading of that document begins with Title;
  - FORMULAS.md section NAME: a "## " heading of the catalogue begins with NAME;
  - FORMULAS.md ID (an id, upper case with hyphens): a row of the catalogue's tables.
A cited document that is not in golden/ is a failure, and so is a tree with no citation at all.

The last line reads "N passed, M failed"; the exit status is 0 when M = 0 and N > 0, 1
otherwise.
"""
import glob
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage  # noqa: E402  (the catalogue's rows)

SELF = os.path.abspath(__file__)
DOCUMENTS = ("FORMULAS.md", "CONVENTIONS.md")
FOLDERS = ("reference", "oracles", "tests", "derivations", "plots")
EXTENSIONS = (".c", ".h", ".py", ".sh", ".gp", ".mk", ".md")
CONTINUED_STRING = re.compile(r'"\s*\n\s*"')
CONTINUED_COMMENT = re.compile(r"\s*\n\s*(?:\*|#|//)(?!/)\s*")
TITLE = re.compile(r'\b(FORMULAS|CONVENTIONS)\.md,?\s+(?:section\s+)?"([^"]+)"')
SECTION = re.compile(r'\bFORMULAS\.md,?\s+section\s+([A-Z][A-Z0-9-]*)\b')
ROW = re.compile(r'\bFORMULAS\.md\s+([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}[0-9]*)\b')


def headings(path):
    with open(path, encoding="utf-8") as f:
        return [line[3:].strip() for line in f if line.startswith("## ")]


def joined(text):
    """text with continued strings and comments joined, and \\" read as "."""
    text = CONTINUED_STRING.sub("", text)
    text = CONTINUED_COMMENT.sub(" ", text)
    return text.replace('\\"', '"')


def sources(root):
    root = os.path.abspath(root)
    names = sorted(glob.glob(os.path.join(root, "golden", "*.json")))
    for folder in FOLDERS:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d not in ("build", "__pycache__"))
            names += [os.path.join(base, n) for n in sorted(files)
                      if n.endswith(EXTENSIONS) and os.path.join(base, n) != SELF]
    return names


def main():
    passed = failed = 0

    def fail(text):
        nonlocal failed
        failed += 1
        print("FAIL " + text)

    titles, present = {}, True
    for name in DOCUMENTS:
        path = os.path.join(ROOT, "golden", name)
        if os.path.isfile(path):
            titles[name] = headings(path)
        else:
            fail("golden/%s: missing (make docs copies it)" % name)
            present = False
    if not present:
        print("%d passed, %d failed" % (passed, failed))
        return 1
    rows = {r[0] for r in coverage.catalogue_rows(os.path.join(ROOT, "golden", "FORMULAS.md"))}
    seen = set()
    for path in sources(ROOT):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = joined(f.read())
        where = os.path.relpath(path, ROOT)
        for m in TITLE.finditer(text):
            doc, title = m.group(1) + ".md", " ".join(m.group(2).split())
            key = (where, doc, title)
            if key in seen:
                continue
            seen.add(key)
            if any(h.startswith(title) for h in titles[doc]):
                passed += 1
            else:
                fail('%s cites %s "%s": no section of golden/%s begins so'
                     % (where, doc, title, doc))
        for m in SECTION.finditer(text):
            key = (where, "section", m.group(1))
            if key in seen:
                continue
            seen.add(key)
            if any(h.startswith(m.group(1) + " ") for h in titles["FORMULAS.md"]):
                passed += 1
            else:
                fail("%s cites FORMULAS.md section %s: no such section" % (where, m.group(1)))
        for m in ROW.finditer(text):
            key = (where, "row", m.group(1))
            if key in seen:
                continue
            seen.add(key)
            if m.group(1) in rows:
                passed += 1
            else:
                fail("%s cites FORMULAS.md %s: no such row of the catalogue" % (where, m.group(1)))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
