"""COST: the seeds' memory and rollout arithmetic (seed 004 section 4 "PPO vs GRPO memory list",
its line C "parameter ledger" and section 7 "tokens per update"; seed 000 Table 2), exactly, in
rationals.

Bytes per parameter by role (seed 004): a frozen model (forward only) keeps its bf16 weights,
2 bytes; a model trained with Adam keeps 2 (bf16 weights) + 2 (gradients) + 4 (m) + 4 (v) = 12
(variant adam, the seed's own count "without the FP32 master copy"), or 12 + 4 = 16 with an FP32
master copy of the weights (variant adam-master, the seed's "with master copies" 36 -> 18).

    COST-MEM:    bytes_per_param = trained * t + frozen * 2   (t = 12 or 16)
                 bytes = params * bytes_per_param,  gb = bytes / 10^9,  gib = bytes / 2^30
    COST-MODELS: the inventory of seed 000 Table 2 and seed 004: SFT (1 trained), DPO (policy
                 trained, reference frozen), GRPO+RM (policy trained; reference, reward model
                 frozen), GRPO+RLVR (policy trained, reference frozen), PPO (policy, critic
                 trained; reference, reward model frozen); saved_critic = (PPO - GRPO+RM)/PPO
                 (12/28 = 3/7, 16/36 = 4/9), saved_critic_rm = (PPO - GRPO+RLVR)/PPO (1/2);
                 trained parameters 2P (PPO) and P (GRPO).
    COST-ROLLOUT(-EX): per_prompt = G * mean_len, tokens = prompts * G * mean_len (seed 004
                 section 7: one prompt x G = 64 x 4000 tokens = 256,000).

GB is 10^9 bytes: 7e9 parameters x 28 bytes = 196e9 bytes, the seed's "196 GB" (182.5 GiB).
Counts are integers >= 0 (prompts and G >= 1), params and mean_len finite and >= 0.
"""

import math
from fractions import Fraction

from xcore import M, Reject, get_input

TRAINED = {"adam": 12, "adam-master": 16}
FROZEN = 2


def _real(inputs, params, name):
    v = get_input(inputs, params, name)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        raise Reject("ENAN", "%s is %r" % (name, v))
    q = Fraction(v)
    if q < 0:
        raise Reject("EDOM", "%s < 0" % name)
    return q


def _count(inputs, params, name, least):
    v = get_input(inputs, params, name)
    if not isinstance(v, int) or v < least:
        raise Reject("EDOM", "%s must be an integer >= %d" % (name, least))
    return v


def _per_trained(variant):
    if variant not in TRAINED:
        raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)
    return TRAINED[variant]


def eval_mem(variant, params, inputs, ctx):
    t = _per_trained(variant)
    trained = _count(inputs, params, "trained", 0)
    frozen = _count(inputs, params, "frozen", 0)
    P = _real(inputs, params, "params")
    bpp = trained * t + frozen * FROZEN
    total = P * bpp
    return {"bytes_per_param": M(Fraction(bpp)), "bytes": M(total),
            "gb": M(total / 10 ** 9), "gib": M(total / 2 ** 30)}


def eval_models(variant, params, inputs, ctx):
    t = _per_trained(variant)
    P = _real(inputs, params, "params")
    sft = t
    dpo = t + FROZEN
    grpo_rm = t + 2 * FROZEN
    grpo_rlvr = t + FROZEN
    ppo = 2 * t + 2 * FROZEN
    return {"sft": M(Fraction(sft)), "dpo": M(Fraction(dpo)), "grpo_rm": M(Fraction(grpo_rm)),
            "grpo_rlvr": M(Fraction(grpo_rlvr)), "ppo": M(Fraction(ppo)),
            "saved_critic": M(Fraction(ppo - grpo_rm, ppo)),
            "saved_critic_rm": M(Fraction(ppo - grpo_rlvr, ppo)),
            "trained_ppo": M(2 * P), "trained_grpo": M(P)}


def eval_rollout(variant, params, inputs, ctx):
    if variant != "tokens":
        raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)
    prompts = _count(inputs, params, "prompts", 1)
    G = _count(inputs, params, "G", 1)
    L = _real(inputs, params, "mean_len")
    return {"per_prompt": M(G * L), "tokens": M(prompts * G * L)}


EVALUATORS = {
    "COST-MEM": eval_mem,
    "COST-MODELS": eval_models,
    "COST-ROLLOUT": eval_rollout,
    "COST-ROLLOUT-EX": eval_rollout,
}


def check_params(variant, params):
    """The golden's bytes per trained and frozen parameter against the seed's counts."""
    if variant not in TRAINED:
        return ["unknown variant %r" % variant]
    bad = []
    if params.get("trained_bytes") != TRAINED[variant]:
        bad.append("trained_bytes %r, the seed counts %d" % (params.get("trained_bytes"),
                                                            TRAINED[variant]))
    if params.get("frozen_bytes") != FROZEN:
        bad.append("frozen_bytes %r, the seed counts %d" % (params.get("frozen_bytes"), FROZEN))
    return bad


PARAM_CHECKS = {"COST-MEM": check_params, "COST-MODELS": check_params}


# The numbers seed 004 prints (its memory list, parameter ledger and rollout slider), and seed
# 000 Table 2's inventory, held to the goldens (detectors.py).
def seed_numbers(run):
    src = "004"
    mem = [("adam", 2, 2, "28", "196", "PPO"), ("adam", 1, 1, "14", "98", "GRPO+RLVR"),
           ("adam-master", 2, 2, "36", "252", "PPO, master copies"),
           ("adam-master", 1, 1, "18", "126", "GRPO+RLVR, master copies")]
    for var, tr, fr, bpp, gb, who in mem:
        want = {"trained": tr, "frozen": fr, "params": 7e9}
        run.printed("COST-MEM", var, want, "bytes_per_param", None, bpp,
                    "%s: %s %s bytes per parameter" % (src, who, bpp))
        run.printed("COST-MEM", var, want, "gb", None, gb, "%s: %s 7B %s GB" % (src, who, gb))
    run.not_printed("COST-MEM", "adam", {"trained": 2, "frozen": 2, "params": 7e9}, "gib", None,
                    "196", "%s: the seed's GB are 10^9 bytes, not GiB" % src)
    run.printed("COST-MEM", "adam", {"trained": 1, "frozen": 2, "params": 7e9},
                "bytes_per_param", None, "16", "%s: only the critic removed, 16 bytes" % src)
    run.printed("COST-MODELS", "adam", {"params": 7e9}, "saved_critic", None, "0.43",
                "%s: only the critic removed saves 43%%" % src)
    run.printed("COST-MODELS", "adam", {"params": 7e9}, "saved_critic_rm", None, "0.5",
                "%s: the critic and the reward model: memory halved" % src)
    run.printed("COST-MODELS", "adam-master", {"params": 7e9}, "saved_critic", None, "0.444",
                "FORMULAS.md: 44.4% with master copies")
    for name, v in (("sft", "12"), ("dpo", "14"), ("ppo", "28")):
        run.printed("COST-MODELS", "adam", {"params": 7e9}, name, None, v,
                    "000 Table 2 / 004: %s %s bytes per parameter" % (name, v))
    run.printed("COST-ROLLOUT-EX", "tokens", {"prompts": 1, "G": 64, "mean_len": 4000.0},
                "tokens", None, "256000", "%s: 1 prompt x 64 x 4000 tokens" % src)


DETECTORS = [seed_numbers]


def selftest(t):
    from xcore import Ctx
    o = eval_mem("adam", {}, {"trained": 2, "frozen": 2, "params": 7e9}, Ctx())
    t.true("PPO 28 bytes, 196 GB", o["bytes_per_param"] == 28 and o["gb"] == 196)
    o = eval_mem("adam-master", {}, {"trained": 1, "frozen": 1, "params": 7e9}, Ctx())
    t.true("GRPO+RLVR with master copies 18 bytes, 126 GB",
           o["bytes_per_param"] == 18 and o["gb"] == 126)
    o = eval_models("adam", {}, {"params": 1.0}, Ctx())
    t.near("removing only the critic saves 3/7", o["saved_critic"], M(Fraction(3, 7)))
    o = eval_models("adam-master", {}, {"params": 1.0}, Ctx())
    t.near("with master copies 4/9", o["saved_critic"], M(Fraction(4, 9)))
    o = eval_rollout("tokens", {}, {"prompts": 1, "G": 64, "mean_len": 4000.0}, Ctx())
    t.true("1 x 64 x 4000 = 256000", o["tokens"] == 256000)


SELFTESTS = [selftest]
