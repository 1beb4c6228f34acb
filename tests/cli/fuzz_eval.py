#!/usr/bin/python3
"""fuzz_eval.py RLREF [N] -- seeded random `rlref eval` calls with hostile
arguments for every formula and variant: every run must exit 0, 1, 2 or 3
(a signal or a sanitizer report gives another status); an exit 0 must print
JSON whose values are decimal strings, and so must an exit 3 (the certified
values stand where the binary64 implementation could not give its own),
which also says why on stderr.  The seed comes from
RLREF_TEST_SEED (printed)."""
import json
import os
import random
import subprocess
import sys

NUMBERS = ["0", "-0", "1", "-1", "1.5", "1e-4", "1e308", "-1e308", "4.9e-324", "2.2e-308",
           "1e4", "-1e4", "0x1.8p+0", "0x1p-1074", "nan", "-nan", "inf", "-inf", "1e999",
           "3", "0.1", "-3.25", "x", "", "1,", ",", "1e", "--1", "0x", "1e-400", "NaN", "INF"]
INTS = ["0", "1", "2", "3", "4", "-1", "-2", "64", "65", "9223372036854775807",
        "-9223372036854775808", "99999999999999999999", "1.5", "a", ""]


def value(kind, rng):
    """A random text for an input of this kind ('real', 'real[]', 'int', 'int[]')."""
    if kind == "real":
        return rng.choice(NUMBERS)
    if kind == "int":
        return rng.choice(INTS)
    pool = NUMBERS if kind == "real[]" else INTS
    return ",".join(rng.choice(pool) for _ in range(rng.choice([0, 1, 2, 3, 4, 6, 9])))


def main():
    rlref = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(os.environ.get("RLREF_TEST_SEED", "20261130"))
    print("fuzz_eval: seed %d (set RLREF_TEST_SEED to change), %d runs" % (seed, n))
    rng = random.Random(seed)
    listing = json.loads(subprocess.run([rlref, "list", "--json"], capture_output=True,
                                        text=True, check=True).stdout)
    bad = 0
    exits = {0: 0, 1: 0, 2: 0, 3: 0}
    for i in range(n):
        f = rng.choice(listing)
        v = rng.choice(f["variants"])
        golden = json.load(open(os.path.join("golden", f["id"] + ".json")))
        group = next(g for g in golden["testGroups"] if g["variant"] == v["name"])
        kinds = {s["name"]: s["type"] for s in group["io"]["inputs"]}
        args = [rlref, "eval", f["id"], "--variant", v["name"]]
        for name, kind in kinds.items():
            if rng.random() < 0.9:
                args.append("%s=%s" % (name, value(kind, rng)))
        if rng.random() < 0.1:
            args.append(rng.choice(["zz=1", "=", "rw", "--prec", "--prec=64", "-", "lambda=nan"]))
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        ok = r.returncode in (0, 1, 2, 3)
        if ok:
            exits[r.returncode] += 1
        if ok and r.returncode in (0, 3):
            try:
                out = json.loads(r.stdout)
                for o in out["outputs"].values():
                    for x in o if isinstance(o, list) else [o]:
                        ok = ok and isinstance(x["value"], str) and isinstance(x["digits"], int)
            except (ValueError, KeyError, TypeError):
                ok = False
        if ok and r.returncode != 0 and not r.stderr.strip():
            ok = False
        if not ok:
            bad += 1
            print("FAIL (exit %d): %s\n%s" % (r.returncode, " ".join(args[1:]), r.stderr[-2000:]))
    print("fuzz_eval: exit 0 (values) %d, exit 1 (rejected) %d, exit 2 (usage) %d, "
          "exit 3 (values, binary64 failed) %d" % (exits[0], exits[1], exits[2], exits[3]))
    print("fuzz_eval: %d passed, %d failed" % (n - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
