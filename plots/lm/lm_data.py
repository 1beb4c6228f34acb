#!/usr/bin/python3
"""Data of the tiny-LM figures, from the rlref command only (standard library).

    lm_data.py RLREF pistar MODEL     pi* of every sequence against beta (rlref lm --table)
    lm_data.py RLREF identity MODEL   r against beta log(pi*/pi_ref) + beta log Z (13.18)

Columns are tab-separated, certified values rounded to double (%.17g)."""
import json, math, subprocess, sys


def lm(rlref, model, beta):
    out = subprocess.run([rlref, "lm", model, "--beta", repr(beta), "--table"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def main(argv):
    rlref, what, model = argv[1], argv[2], argv[3]
    if what == "pistar":
        betas = [10 ** (-2 + 4 * i / 80) for i in range(81)]
        rows = [lm(rlref, model, b) for b in betas]
        seqs = [t["y"] for t in rows[0]["table"]]
        # a header row (gnuplot reads it with columnhead): the sequences
        print("beta\t" + "\t".join('"%s"' % s for s in seqs) + "\t"
              + "\t".join('"ref %s"' % s for s in seqs))
        for b, d in zip(betas, rows):
            print("%.17g\t" % b + "\t".join("%.17g" % float(t["pi_star"]) for t in d["table"])
                  + "\t" + "\t".join("%.17g" % float(t["pi_ref"]) for t in d["table"]))
    elif what == "identity":
        d = lm(rlref, model, 0.5)
        beta, logz = 0.5, float(d["values"]["log_Z"]["value"])
        print("# y\tr\tbeta*log(pi*/pi_ref) + beta*log Z")
        for t in d["table"]:
            rhs = beta * (float(t["log_pi_star"]) - math.log(float(t["pi_ref"]))) + beta * logz
            print('"%s"\t%.17g\t%.17g' % (t["y"], float(t["r"]), rhs))
    else:
        sys.exit("lm_data.py: unknown figure %s" % what)


if __name__ == "__main__":
    main(sys.argv)
