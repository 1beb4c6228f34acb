#!/usr/bin/python3
"""Columns for gnuplot from the JSON printed by `rlref eval` (standard library only).

    evalcols.py scalars FILE NAME...   one line: the named values of FILE
    evalcols.py array NAME FILE...     one row per element of array output NAME:
                                       the 1-based index, then that element from each FILE

A NAME is looked up among the outputs (their certified decimal "value") and then
among the inputs (their exact "dec").  Each value is converted to the nearest
double (Python's float() rounds correctly) and written in the shortest form that
reads back to the same double, so the columns are the certified values rounded
once, and the bytes are the same on every run.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def num(entry):
    if isinstance(entry, (int, float)) and not isinstance(entry, bool):
        return repr(float(entry))
    text = entry["value"] if "value" in entry else entry["dec"]
    return repr(float(text))


def lookup(doc, name, path):
    for part in ("outputs", "inputs"):
        if name in doc.get(part, {}):
            return doc[part][name]
    sys.exit("evalcols.py: %s has no value named %s" % (path, name))


def main(argv):
    if len(argv) >= 3 and argv[0] == "scalars":
        doc = load(argv[1])
        print(" ".join(num(lookup(doc, n, argv[1])) for n in argv[2:]))
    elif len(argv) >= 3 and argv[0] == "array":
        name = argv[1]
        cols = []
        for path in argv[2:]:
            arr = lookup(load(path), name, path)
            if not isinstance(arr, list):
                sys.exit("evalcols.py: %s: %s is not an array" % (path, name))
            cols.append([num(e) for e in arr])
        n = len(cols[0])
        if any(len(c) != n for c in cols):
            sys.exit("evalcols.py: the files disagree on the length of %s" % name)
        for i in range(n):
            print(" ".join([str(i + 1)] + [c[i] for c in cols]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
