#!/usr/bin/python3
"""Data of the GSPO figure, from `rlref eval` (standard library only).

    gspo_data.py RLREF single    one token's log-ratio d swept from -1.5 to 1.5 (the other
                                 tokens' 0): d, the token ratio e^d (DAPO-CLIPHIGHER
                                 symmetric, its `ratio`), then GSPO's sequence ratio s
                                 (GRPO-GSPO gspo, its `s`) for |y| = 4, 16 and 64
    gspo_data.py RLREF tokens    one response of 16 tokens (LOGRATIOS below): t, the log-ratio,
                                 the token ratio, the token-level gradient under PPO's clip
                                 (A = +1), GSPO's s and GSPO's gradient of that token

Every number is a certified value of rlref rounded once to binary64 (repr of float()).
"""
import json
import subprocess
import sys

LOGRATIOS = [0.12, -0.25, 0.05, 0.4, -0.1, -0.3, 0.2, 0.02,
             -0.15, 0.35, -0.05, 0.1, -0.4, 0.25, 0.0, -0.24]


def evaluate(rlref, formula, variant, **inputs):
    args = [rlref, "eval", formula, "--variant", variant]
    args += ["%s=%s" % (k, v) for k, v in inputs.items()]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("gspo_data.py: %s failed: %s" % (" ".join(args), out.stderr.strip()))
    return json.loads(out.stdout)["outputs"]


def values(output):
    return [repr(float(e["value"])) for e in (output if isinstance(output, list) else [output])]


def joined(xs):
    return ",".join(str(x) for x in xs)


def token(rlref, logratios):
    n = len(logratios)
    return evaluate(rlref, "DAPO-CLIPHIGHER", "symmetric", logp=joined(logratios),
                    old_logp=joined([0] * n), mask=joined([1] * n), adv=joined([1] * n))


def sequence(rlref, logratios):
    n = len(logratios)
    return evaluate(rlref, "GRPO-GSPO", "gspo", logp=joined(logratios),
                    old_logp=joined([0] * n), lens=n, adv=1, mask=joined([1] * n))


def single(rlref):
    print("# d  token_ratio  s_len4  s_len16  s_len64")
    for i in range(61):
        d = repr(-1.5 + i * 0.05)
        row = [d, values(token(rlref, [d])["ratio"])[0]]
        for n in (4, 16, 64):
            row.append(values(sequence(rlref, [d] + [0] * (n - 1))["s"])[0])
        print(" ".join(row))


def tokens(rlref):
    tok = token(rlref, LOGRATIOS)
    seq = sequence(rlref, LOGRATIOS)
    ratio, grad = values(tok["ratio"]), values(tok["grad"])
    s, sgrad = values(seq["s"])[0], values(seq["grad"])
    print("# t  logratio  token_ratio  token_grad  s  gspo_grad")
    for t, l in enumerate(LOGRATIOS):
        print(" ".join([str(t + 1), repr(float(l)), ratio[t], grad[t], s, sgrad[t]]))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("single", "tokens"):
        sys.exit("usage: gspo_data.py RLREF single|tokens")
    {"single": single, "tokens": tokens}[sys.argv[2]](sys.argv[1])
