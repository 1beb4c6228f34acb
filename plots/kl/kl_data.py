#!/usr/bin/python3
"""Data of the KL-estimator figures, from the rlref command only (standard library).

    kl_data.py RLREF naive   the error in ulp of k3 written as exp(-l) - 1 + l and as
                             expm1(-l) + l in binary64, for l = 10^e, e from -12 to 3, and
                             l = -10^e, e from -12 to 2.75, in steps of 1/8 (rlref eval
                             KL-K3 --variant naive)
    kl_data.py RLREF mc      Schulman's bias/true and stdev/true of k1, k2, k3 by the seeded
                             Monte-Carlo run at a few mu (rlref eval KL-EXACT --variant
                             monte-carlo, 10^4 draws, seed 1)

Columns are whitespace-separated: certified values rounded to double, written in the shortest
form that reads back to the same double."""
import json, subprocess, sys


def evaluate(rlref, *args):
    out = subprocess.run([rlref, "eval"] + list(args), check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)["outputs"]


def num(entry):
    return repr(float(entry["value"]))


def main(argv):
    rlref, what = argv[1], argv[2]
    if what == "naive":
        print("# l  k3  ulp_naive  ulp_expm1   (l > 0, then l < 0 after a blank line)")
        for sign in (1, -1):
            top = 25 if sign > 0 else 23          # e^-l overflows binary64 below -709.78
            ls = [repr(sign * 10 ** (e / 8)) for e in range(-96, top)]
            o = evaluate(rlref, "KL-K3", "--variant", "naive", "logp=" + ",".join(ls),
                         "ref_logp=" + ",".join("0" for _ in ls))
            for i, l in enumerate(ls):
                print(l, num(o["k"][i]), num(o["ulp_naive"][i]), num(o["ulp_expm1"][i]))
            if sign == 1:
                print()
                print()
    elif what == "mc":
        names = ["bias_k1_rel", "bias_k2_rel", "bias_k3_rel", "std_k1_rel", "std_k2_rel",
                 "std_k3_rel"]
        print("# mu  " + "  ".join(names))
        for mu in ("0.1", "0.2", "0.5", "1", "2"):
            o = evaluate(rlref, "KL-EXACT", "--variant", "monte-carlo", "mu=0", "sigma=1",
                         "mu_ref=" + mu, "sigma_ref=1", "n=10000", "seed=1")
            print(mu, " ".join(num(o[n]) for n in names))
    else:
        sys.exit("kl_data.py: unknown figure %s" % what)


if __name__ == "__main__":
    main(sys.argv)
