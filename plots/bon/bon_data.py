#!/usr/bin/python3
"""Data of the best-of-n KL figure, from the rlref command only (standard library).

    bon_data.py RLREF kl    KL(best-of-n || base) for a uniform base over K = 2, 8, 64 and
                            512 outcomes with distinct rewards, and the bound
                            log n - (n - 1)/n, for n from 1 to 4096 (rlref eval BON)

Columns are whitespace-separated: certified values rounded to double, written in the shortest
form that reads back to the same double."""
import json, subprocess, sys

KS = (2, 8, 64, 512)


def evaluate(rlref, *args):
    out = subprocess.run([rlref, "eval"] + list(args), check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)["outputs"]


def num(entry):
    return repr(float(entry["value"]))


def main(argv):
    rlref, what = argv[1], argv[2]
    if what != "kl":
        sys.exit("bon_data.py: unknown figure %s" % what)
    ns = sorted({int(round(2 ** (e / 2))) for e in range(0, 25)})
    print("# n  bound  " + "  ".join("kl_K%d" % k for k in KS))
    for n in ns:
        row = [str(n)]
        for i, K in enumerate(KS):
            o = evaluate(rlref, "BON", "p=" + ",".join([repr(1.0 / K)] * K),
                         "r=" + ",".join(str(k) for k in range(K)), "n=%d" % n)
            if i == 0:
                row.append(num(o["bound"]))
            row.append(num(o["kl"]))
        print(" ".join(row))


if __name__ == "__main__":
    main(sys.argv)
