#!/usr/bin/python3
"""Validates every golden file against golden/rlref-golden.schema.json and
checks what the schema cannot say: tcIds unique and counted, every flag
explained in notes, digits >= minDigits unless a flag says why not.

Usage: validate.py [GOLDEN_DIR]   (default golden)
The last line is "N passed, M failed" (N, M files); a directory without the
schema or without golden files fails, and the exit status is 0 only when
M = 0 and N > 0."""
import glob
import json
import os
import sys

import jsonschema

EXPLAINED_LOW = {"ExactZero", "ZeroWithinPrecision", "LowDigits"}


def values(outputs):
    for name, v in outputs.items():
        for x in v if isinstance(v, list) else [v]:
            yield name, x


def check_file(path, validator):
    errors = []
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        return ["cannot read: %s" % e]
    for e in validator.iter_errors(doc):
        errors.append("schema: %s at %s" % (e.message, "/".join(map(str, e.path))))
    if errors:
        return errors
    ids = [t["tcId"] for g in doc["testGroups"] for t in g["tests"]]
    if len(ids) != len(set(ids)):
        errors.append("duplicate tcId")
    if len(ids) != doc["numberOfTests"]:
        errors.append("numberOfTests %d but %d tests" % (doc["numberOfTests"], len(ids)))
    for g in doc["testGroups"]:
        for t in g["tests"]:
            for f in t["flags"]:
                if f not in doc["notes"]:
                    errors.append("tcId %d: flag %s has no note" % (t["tcId"], f))
            for name, x in values(t.get("outputs", {})):
                special = x["value"] in ("nan", "inf", "-inf", "0")
                if not special and x["digits"] < doc["precision"]["minDigits"]:
                    if not EXPLAINED_LOW & set(t["flags"]):
                        errors.append("tcId %d %s: %d digits, no flag" % (t["tcId"], name, x["digits"]))
                if x["value"] == "0" and not {"ExactZero", "ZeroWithinPrecision"} & set(t["flags"]):
                    errors.append("tcId %d %s: zero without a flag" % (t["tcId"], name))
                digits = len(x["value"].lstrip("-").split("e")[0].replace(".", "").lstrip("0"))
                if not special and digits != x["digits"]:
                    errors.append("tcId %d %s: %d digits printed, %d claimed"
                                  % (t["tcId"], name, digits, x["digits"]))
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "golden"
    passed = failed = 0
    try:
        with open(os.path.join(root, "rlref-golden.schema.json")) as fh:
            validator = jsonschema.Draft202012Validator(json.load(fh))
    except (OSError, ValueError) as e:
        print("FAIL %s: no schema to validate against: %s" % (root, e))
        print("0 passed, 1 failed")
        return 1
    paths = sorted(glob.glob(os.path.join(root, "[A-Z]*.json")))
    if not paths:
        print("FAIL %s: no golden file ([A-Z]*.json)" % root)
        failed += 1
    for path in paths:
        errors = check_file(path, validator)
        for e in errors[:20]:
            print("FAIL %s: %s" % (os.path.basename(path), e))
        if errors:
            failed += 1
        else:
            passed += 1
    print("schema: %d golden files checked" % len(paths))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
