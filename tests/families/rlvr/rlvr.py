"""RLVR: verifiable rewards (seed 000 §7.1, eq. 13.35), the aggregation of process-reward step
scores into one solution score (ORM vs PRM, 000 §8.3 and §10.2), the seed's binary-verifier
example (the integral of 2x from 0 to 1 is 1; five sampled answers; "0.5" or "2" get 0), and
Monte-Carlo process-reward step labels (Math-Shepherd, 000 §10.2 Table 3: a step's label is the
empirical probability of reaching the correct answer from it) with their exact expectation on an
enumerable tree of continuations.

Answers are the numbers the sampled responses end with, as binary64; NaN stands for a response
from which no final number could be extracted (the verifier then finds no match).  Matching:
  - binary (13.35): reward 1 when the answer equals the reference, else 0;
  - dapo: +1 when equal, -1 otherwise (verl math_dapo's score);
  - prime-math: verl prime_math math_equal on two numbers, as Python computes it in binary64:
    math.isclose(item, answer, rel_tol=1e-4) for item in [ref / 100, ref, ref * 100].
The example adds the group statistics of seed 000's GRPO advantage (13.23, its worked example's
convention: ddof 0, eps 0, 0 when the std is 0).
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import M, Reject, R, X, get_input


# ----------------------------------------------------------------------------------------------
# Matching an answer against the reference
# ----------------------------------------------------------------------------------------------

def read_answers(params, inputs):
    answers = get_input(inputs, params, "answers")
    ref = get_input(inputs, params, "reference")
    if len(answers) == 0:
        raise Reject("EINVAL", "no answers")
    ref = float(R(ref)) if not isinstance(ref, Fraction) else ref
    if isinstance(ref, float) and (math.isnan(ref) or math.isinf(ref)):
        raise Reject("ENAN", "the reference answer must be a finite number")
    return [float(a) if not isinstance(a, Fraction) else a for a in answers], ref


def match(variant, a, ref):
    """1 when the answer a is judged equal to the reference under the variant."""
    if isinstance(a, float) and math.isnan(a):
        return False                            # no final number: no match
    if variant in ("binary", "dapo"):
        return a == ref
    if variant == "prime-math":
        # verl prime_math grader.math_equal, numeric branch (include_percentage=True,
        # tolerance=1e-4): Python floats, Python's isclose
        a, r = float(a), float(ref)
        for item in (r / 100, r, r * 100):
            if math.isclose(item, a, rel_tol=1e-4):
                return True
        return False
    raise Reject("EINVAL", "unknown matching variant %r" % variant, firm=False)


def rewards_of(variant, answers, ref):
    ok = [match(variant, a, ref) for a in answers]
    if variant == "dapo":
        return [Fraction(1) if m else Fraction(-1) for m in ok]
    return [Fraction(1) if m else Fraction(0) for m in ok]


# ----------------------------------------------------------------------------------------------
# RLVR-REWARD: 13.35 and the PRM aggregations
# ----------------------------------------------------------------------------------------------

def eval_aggregate(variant, params, inputs, ctx):
    xs = get_input(inputs, params, "step_scores")
    if len(xs) == 0:
        raise Reject("EINVAL", "no steps")
    for x in xs:
        if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
            raise Reject("ENAN", "non-finite step score")
    q = [Fraction(x) for x in xs]
    if variant == "prm-min":
        v = min(q)
    elif variant == "prm-product":
        v = Fraction(1)
        for x in q:
            v *= x
    elif variant == "prm-mean":
        v = sum(q, Fraction(0)) / len(q)
    elif variant == "prm-last":
        v = q[-1]
    else:
        raise Reject("EINVAL", "unknown aggregation %r" % variant, firm=False)
    return {"score": M(v)}


def eval_rlvr_reward(variant, params, inputs, ctx):
    if variant.startswith("prm-"):
        return eval_aggregate(variant, params, inputs, ctx)
    answers, ref = read_answers(params, inputs)
    return {"reward": [M(r) for r in rewards_of(variant, answers, ref)]}


# ----------------------------------------------------------------------------------------------
# RLVR-REWARD-EX: the seed's example with its group statistics
# ----------------------------------------------------------------------------------------------

def eval_rlvr_reward_ex(variant, params, inputs, ctx):
    answers, ref = read_answers(params, inputs)
    r = rewards_of(variant, answers, ref)
    G = len(r)
    correct = sum(1 for x in r if x == 1)
    mean = sum(r, Fraction(0)) / G
    var = sum(((x - mean) ** 2 for x in r), Fraction(0)) / G      # ddof 0
    std = mp.sqrt(M(var))
    adv = [M(x - mean) / std if var > 0 else mpf(0) for x in r]
    return {"reward": [M(x) for x in r], "correct": mpf(correct), "mean": M(mean), "adv": adv}


# ----------------------------------------------------------------------------------------------
# RLVR-PRM-MC: Math-Shepherd labels and their expectation on a tree
# ----------------------------------------------------------------------------------------------

def read_tree(params, inputs):
    parent = get_input(inputs, params, "parent")
    weight = get_input(inputs, params, "weight")
    correct = get_input(inputs, params, "correct")
    path = get_input(inputs, params, "path")
    N = get_input(inputs, params, "N")
    n = len(parent)
    if n == 0 or len(weight) != n or len(correct) != n:
        raise Reject("EINVAL", "parent, weight and correct must have one entry per node")
    if parent[0] != -1 or any(not (0 <= parent[i] < i) for i in range(1, n)):
        raise Reject("EINVAL", "node 0 is the root (parent -1), every other node's parent is "
                               "an earlier node")
    for w in weight:
        if isinstance(w, float) and (math.isnan(w) or math.isinf(w)):
            raise Reject("ENAN", "non-finite weight")
        if w < 0:
            raise Reject("EDOM", "negative weight")
    if any(c not in (0, 1) for c in correct):
        raise Reject("EDOM", "correct must be 0 or 1")
    if len(path) == 0:
        raise Reject("EINVAL", "no steps to label")
    prev = 0
    for v in path:
        if not (0 < v < n) or parent[v] != prev:
            raise Reject("EINVAL", "path must run from a child of the root, each step a child "
                                   "of the one before")
        prev = v
    if not isinstance(N, int) or N < 1:
        raise Reject("EDOM", "N must be at least 1")
    return parent, [Fraction(w) for w in weight], correct, path, N


def reach_probabilities(parent, weight, correct):
    """P(a correct final answer | the prefix ending at node i), exactly: a leaf's own outcome;
    an inner node's children weighted by weight, normalised over the siblings."""
    n = len(parent)
    children = [[] for _ in range(n)]
    for i in range(1, n):
        children[parent[i]].append(i)
    p = [None] * n
    for i in reversed(range(n)):
        if not children[i]:
            p[i] = Fraction(correct[i])
        else:
            tot = sum((weight[c] for c in children[i]), Fraction(0))
            if tot == 0:
                raise Reject("EDOM", "a step whose continuations all have weight 0")
            p[i] = sum((weight[c] * p[c] for c in children[i]), Fraction(0)) / tot
    return p


def hard_expectation(p, N):
    """E[1{at least one of N completions is correct}] = 1 - (1 - p)^N."""
    if N <= 4096:
        return M(1 - (1 - p) ** N)
    if p == 1:
        return mpf(1)
    return -mp.expm1(N * mp.log1p(-M(p)))


def eval_prm_mc(variant, params, inputs, ctx):
    if variant in ("soft-count", "hard-count"):
        hits = get_input(inputs, params, "hits")
        N = get_input(inputs, params, "N")
        if len(hits) == 0:
            raise Reject("EINVAL", "no steps")
        if not isinstance(N, int) or N < 1:
            raise Reject("EDOM", "N must be at least 1")
        if any(h < 0 or h > N for h in hits):
            raise Reject("EDOM", "a count of correct completions outside 0..N")
        if variant == "soft-count":
            return {"label": [M(Fraction(h, N)) for h in hits]}
        return {"label": [mpf(1) if h > 0 else mpf(0) for h in hits]}
    parent, weight, correct, path, N = read_tree(params, inputs)
    p = reach_probabilities(parent, weight, correct)
    if variant == "soft":
        # the label is a Binomial(N, p) count over N: mean p, variance p (1 - p)/N
        return {"label": [M(p[v]) for v in path],
                "var": [M(p[v] * (1 - p[v]) / N) for v in path]}
    if variant == "hard":
        e = [hard_expectation(p[v], N) for v in path]
        return {"label": e, "var": [x * (1 - x) for x in e]}
    raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)


EVALUATORS = {
    "RLVR-REWARD": eval_rlvr_reward,
    "RLVR-REWARD-EX": eval_rlvr_reward_ex,
    "RLVR-PRM-MC": eval_prm_mc,
}


# ----------------------------------------------------------------------------------------------
# The seed's example (detectors.py)
# ----------------------------------------------------------------------------------------------

# Seed 000 §7.1: the integral of 2x over [0, 1] is 1; answers ending in 1 get reward 1, "0.5"
# or "2" get 0.  The five answers of the golden are ours (three right, one "0.5", one "2").
def seed_example(run):
    five = {"answers": [1.0, 0.5, 1.0, 2.0, 1.0], "reference": 1.0}
    label = "000 §7.1 example"
    for i, want in enumerate((1, 0, 1, 0, 1)):
        run.exact("RLVR-REWARD-EX", "binary", five, "reward", i, lambda w=want: mpf(w), label)
    run.exact("RLVR-REWARD-EX", "binary", five, "mean", None, lambda: mpf(3) / 5,
              label + " mean reward 3/5")
    run.exact("RLVR-REWARD-EX", "dapo", five, "mean", None, lambda: mpf(1) / 5,
              label + " dapo mean reward 3/5 - 2/5")
    run.exact("RLVR-REWARD-EX", "dapo", five, "adv", 0, lambda: mp.sqrt(mpf(2) / 3),
              label + " dapo: the same advantages as 1/0 rewards")
    run.exact("RLVR-REWARD-EX", "binary", five, "adv", 0, lambda: mp.sqrt(mpf(2) / 3),
              label + " advantage of a right answer sqrt((1-p)/p)")
    run.exact("RLVR-REWARD-EX", "binary", five, "adv", 1, lambda: -mp.sqrt(mpf(3) / 2),
              label + " advantage of a wrong answer -sqrt(p/(1-p))")
    run.exact("RLVR-REWARD", "binary", five, "reward", 3, lambda: mpf(0), label + " (13.35)")
    run.exact("RLVR-REWARD", "dapo", five, "reward", 3, lambda: mpf(-1), label + " (dapo)")
    # the tree of the golden's Math-Shepherd case: x^2 (weight 3) then 1 (4) or 0.5 (1);
    # 2x^2 (weight 1) then 2 (3) or a corrected 1 (1)
    tree = {"parent": [-1, 0, 0, 1, 1, 2, 2], "correct": [0, 0, 0, 1, 0, 0, 1],
            "path": [2, 6]}
    t = run.find("RLVR-PRM-MC", "soft", tree)
    if t == "nofile":
        return
    if t is None:
        run.fail("RLVR-PRM-MC soft: the integral tree case is missing")
        return
    run.exact("RLVR-PRM-MC", "soft", tree, "label", 0, lambda: mpf(1) / 4,
              "Math-Shepherd: from 2x^2, 1 in 4 continuations reaches 1")
    run.exact("RLVR-PRM-MC", "hard", dict(tree, N=8), "label", 0,
              lambda: 1 - (mpf(3) / 4) ** 8, "hard label: 1 - (3/4)^8")


DETECTORS = [seed_example]


def selftest(t):
    from xcore import Ctx
    r = eval_rlvr_reward("prime-math", {}, {"answers": [1.0, 1.00005, 100.0, 0.01, 0.5],
                                           "reference": 1.0}, Ctx())
    t.true("prime-math accepts 1.00005, 100 and 0.01 for 1",
           [int(x) for x in r["reward"]] == [1, 1, 1, 1, 0])
    r = eval_rlvr_reward("binary", {}, {"answers": [1.0, -0.0, float("nan")],
                                       "reference": 1.0}, Ctx())
    t.true("binary: NaN is no answer", [int(x) for x in r["reward"]] == [1, 0, 0])
    p = reach_probabilities([-1, 0, 0, 1, 1, 2, 2],
                            [Fraction(1), Fraction(3), Fraction(1), Fraction(4), Fraction(1),
                             Fraction(3), Fraction(1)], [0, 0, 0, 1, 0, 0, 1])
    t.true("tree: root 53/80", p[0] == Fraction(53, 80))
    t.near("hard label, large N", hard_expectation(Fraction(1, 10 ** 6), 10 ** 7),
           1 - mp.exp(10 ** 7 * mp.log(1 - mpf(1) / 10 ** 6)))
    ex = eval_rlvr_reward_ex("binary", {}, {"answers": [1.0, 1.0, 1.0], "reference": 1.0}, Ctx())
    t.true("all right: advantages 0", all(x == 0 for x in ex["adv"]))


SELFTESTS = [selftest]
