#!/usr/bin/python3
"""The coverage of the formula catalogue.

    coverage.py RLREF [--golden DIR] [--readme FILE]   check
    coverage.py RLREF --write README [--golden DIR]    rewrite the pending table
    coverage.py --sync                                 refresh the copies

The catalogue of formulas, FORMULAS.md, and the account of the libraries' conventions,
CONVENTIONS.md, are kept beside the repository (../shared/); the goldens and the sources cite
both, so the repository holds a copy of each in golden/.  --sync copies them there byte for byte
(make docs does); without the originals beside the repository it keeps the copies.

The check tests that
  - each copy is present, and equal to its original when the original is beside the repository;
  - every formula id the registry lists (`RLREF list --json`) is a row of the catalogue's tables;
  - every golden file (DIR/*.json but the schema; golden/ by default) names a formula id the
    registry lists, in its "formula" field and its file name;
  - with --readme, that FILE's pending table (between the markers below) is current;
then prints the catalogue ids still pending: those without a golden file, with whether the
registry has them yet.  --write replaces the pending table of README with the current one.

A missing copy, a registry that cannot be listed, or a golden file that cannot be read is a
failure.  The last line reads "N passed, M failed"; the exit status is 0 when M = 0 and N > 0,
1 otherwise, 2 for a usage error.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORIGINALS = os.path.join(os.path.dirname(ROOT), "shared")
COPIES = os.path.join(ROOT, "golden")
DOCUMENTS = ("FORMULAS.md", "CONVENTIONS.md")
CATALOGUE = os.path.join(COPIES, "FORMULAS.md")
BEGIN = "<!-- pending: tests/docs/coverage.py --write; do not edit by hand -->"
END = "<!-- end of pending -->"

ID_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*$")
WHAT_MAX = 90


def catalogue_rows(path):
    """[(id, section, what)] of the catalogue's tables, in order.  A row is "| ID | what |" or
    "| ID | what | source |" (the table's header says which); the what may hold "|" itself."""
    rows = []
    section = ""
    columns = 3
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                section = line[3:].strip().split(" \u2014")[0].split(" (")[0]
            if not line.startswith("|"):
                continue
            body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
            first, _, rest = body.partition("|")
            first = first.strip()
            if first == "id":
                columns = len([c for c in body.split("|")])
                continue
            if not ID_RE.match(first):
                continue
            what = rest.rsplit("|", 1)[0] if columns >= 3 and "|" in rest else rest
            rows.append((first, section, what.strip().replace("\\|", "|")))
    return rows


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def replace_block(text, block):
    """text with the lines between BEGIN and END replaced by block; None without the markers."""
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        return None
    return text[:i + len(BEGIN)] + "\n" + block + "\n" + text[j:]


def registry_ids(rlref):
    out = subprocess.run([rlref, "list", "--json"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return [f["id"] for f in json.loads(out)]


def golden_formulas(directory):
    """{file name: formula field or None when unreadable}."""
    found = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json") or name.endswith(".schema.json"):
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                data = json.load(f)
            found[name] = data.get("formula") if isinstance(data, dict) else None
        except (OSError, ValueError):
            found[name] = None
    return found


def pending_table(rows, implemented, golden_ids):
    lines = ["| id | section | what | registry |", "|---|---|---|---|"]
    for fid, section, what in rows:
        if fid in golden_ids:
            continue
        if len(what) > WHAT_MAX:
            what = what[:WHAT_MAX - 1].rstrip() + "\u2026"
        lines.append("| %s | %s | %s | %s |"
                     % (fid, section, what.replace("|", "\\|"),
                        "implemented, no golden" if fid in implemented else "not yet"))
    if len(lines) == 2:
        return ["None: every id of the catalogue has a golden file."]
    return lines


def main(argv):
    args = argv[1:]
    golden = os.path.join(ROOT, "golden")
    readme = write = None
    sync = False
    rlref = None
    try:
        while args:
            a = args.pop(0)
            if a == "--golden":
                golden = args.pop(0)
            elif a == "--readme":
                readme = args.pop(0)
            elif a == "--write":
                write = args.pop(0)
            elif a == "--sync":
                sync = True
            elif a.startswith("-") or rlref is not None:
                raise IndexError
            else:
                rlref = a
        if (rlref is None) != sync:
            raise IndexError
    except IndexError:
        sys.stderr.write(__doc__)
        print("0 passed, 1 failed")
        return 2
    passed = failed = 0

    def fail(text):
        nonlocal failed
        failed += 1
        print("FAIL " + text)

    def end():
        print("%d passed, %d failed" % (passed, failed))
        return 0 if failed == 0 and passed > 0 else 1

    if sync:
        for name in DOCUMENTS:
            original, copy = os.path.join(ORIGINALS, name), os.path.join(COPIES, name)
            if not os.path.isfile(original):
                if os.path.isfile(copy):
                    print("no %s beside the repository: the copy %s is kept" % (name, copy))
                    passed += 1
                else:
                    fail("%s is neither beside the repository nor copied in %s" % (name, COPIES))
                continue
            text = read_bytes(original)
            if not os.path.isfile(copy) or read_bytes(copy) != text:
                with open(copy + ".tmp", "wb") as f:
                    f.write(text)
                os.replace(copy + ".tmp", copy)
                print("copied %s to %s" % (original, copy))
            passed += 1
        return end()

    for name in DOCUMENTS:
        original, copy = os.path.join(ORIGINALS, name), os.path.join(COPIES, name)
        if not os.path.isfile(copy):
            fail("%s: missing (make docs copies it from %s)" % (copy, original))
        elif os.path.isfile(original) and read_bytes(original) != read_bytes(copy):
            fail("%s is not a copy of %s: make docs" % (copy, original))
        else:
            passed += 1
    try:
        rows = catalogue_rows(CATALOGUE)
    except OSError as ex:
        fail("the catalogue: %s" % ex)
        return end()
    ids = [r[0] for r in rows]
    if not rows:
        fail("%s: no formula id found in its tables" % CATALOGUE)
    try:
        implemented = registry_ids(rlref)
    except (OSError, ValueError, subprocess.CalledProcessError) as ex:
        fail("%s list --json: %s" % (rlref, ex))
        implemented = []
    goldens = golden_formulas(golden) if os.path.isdir(golden) else None
    if goldens is None:
        fail("%s: no golden directory" % golden)
        goldens = {}
    golden_ids = {v for v in goldens.values() if v}
    table = "\n".join(pending_table(rows, set(implemented), golden_ids))

    if write is not None:
        with open(write, encoding="utf-8") as f:
            text = replace_block(f.read(), table)
        if text is None:
            fail("%s: no pending-table markers" % write)
            return end()
        with open(write + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(write + ".tmp", write)
        print("rewrote the pending table of %s" % write)
        passed += 1
        return end()

    for fid in implemented:
        if fid in ids:
            passed += 1
        else:
            fail("the registry lists %s, which is no row of the catalogue" % fid)
    for name, formula in goldens.items():
        if formula is None:
            fail("golden/%s: not a golden file (unreadable, or no \"formula\")" % name)
        elif formula not in implemented:
            fail("golden/%s names formula %s, which the registry does not list" % (name, formula))
        elif name != formula + ".json":
            fail("golden/%s holds formula %s: the file is named for another id" % (name, formula))
        else:
            passed += 1
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        fail("the catalogue lists ids twice: %s" % ", ".join(dup))
    if readme is not None:
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        if replace_block(text, table) is None:
            fail("%s: no pending-table markers" % readme)
        elif replace_block(text, table) != text:
            fail("%s: the pending table is out of date: make docs" % readme)
        else:
            passed += 1

    done = sum(1 for i in ids if i in golden_ids)
    print("catalogue: %d ids, %d with a golden file, %d implemented, %d pending"
          % (len(ids), done, sum(1 for i in ids if i in implemented), len(ids) - done))
    print(table)
    return end()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
