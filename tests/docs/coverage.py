#!/usr/bin/python3
"""The coverage of the formula catalogue.

    coverage.py RLREF [--catalogue FILE] [--golden DIR] [--markdown]

Checks that
  - every formula id the registry lists (`RLREF list --json`) is a row of the catalogue,
    ../shared/FORMULAS.md beside the repository (the copy CI keeps next to the clone), and
  - every golden file (DIR/*.json but the schema; golden/ by default) names a formula id the
    registry lists, in its "formula" field and its file name;
then prints the catalogue ids still pending: those without a golden file, with whether the
registry has them yet.  --markdown prints that table alone, as Markdown, and checks nothing.

A missing catalogue, a registry that cannot be listed, or a golden file that cannot be read is a
failure.  The last line reads "N passed, M failed"; the exit status is 0 when M = 0 and N > 0,
1 otherwise, 2 for a usage error.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOGUE = os.path.join(os.path.dirname(ROOT), "shared", "FORMULAS.md")

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
            rows.append((first, section, what.strip()))
    return rows


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
        what = what.replace("\\|", "|")
        if len(what) > WHAT_MAX:
            what = what[:WHAT_MAX - 1].rstrip() + "\u2026"
        lines.append("| %s | %s | %s | %s |"
                     % (fid, section, what.replace("|", "\\|"),
                        "implemented, no golden" if fid in implemented else "not yet"))
    return lines


def main(argv):
    args = argv[1:]
    catalogue, golden, markdown = CATALOGUE, os.path.join(ROOT, "golden"), False
    rlref = None
    try:
        while args:
            a = args.pop(0)
            if a == "--catalogue":
                catalogue = args.pop(0)
            elif a == "--golden":
                golden = args.pop(0)
            elif a == "--markdown":
                markdown = True
            elif a.startswith("-") or rlref is not None:
                raise IndexError
            else:
                rlref = a
    except IndexError:
        rlref = None
    if rlref is None:
        sys.stderr.write(__doc__)
        print("0 passed, 1 failed")
        return 2
    passed = failed = 0

    def fail(text):
        nonlocal failed
        failed += 1
        print("FAIL " + text)

    if not os.path.isfile(catalogue):
        fail("the catalogue %s is missing: the formula table lives beside the repository "
             "(../shared/FORMULAS.md from its root); give another with --catalogue FILE"
             % catalogue)
        print("%d passed, %d failed" % (passed, failed))
        return 1
    rows = catalogue_rows(catalogue)
    ids = [r[0] for r in rows]
    if not rows:
        fail("%s: no formula id found in its tables" % catalogue)
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

    if markdown:
        print("\n".join(pending_table(rows, set(implemented), golden_ids)))
        return 0 if not failed else 1

    for fid in implemented:
        if fid in ids:
            passed += 1
        else:
            fail("the registry lists %s, which is no row of %s" % (fid, catalogue))
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
        fail("%s: ids listed twice: %s" % (catalogue, ", ".join(dup)))

    table = pending_table(rows, set(implemented), golden_ids)
    done = sum(1 for i in ids if i in golden_ids)
    print("catalogue: %d ids, %d with a golden file, %d implemented, %d pending"
          % (len(ids), done, sum(1 for i in ids if i in implemented), len(table) - 2))
    print("\n".join(table))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
