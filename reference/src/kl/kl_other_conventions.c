/* kl_other_conventions.c -- the KL family's named conventions beyond its
 * estimators' table (kl_conventions.c): the readings of KL-EXACT, and
 * the bias-corrected and naive readings of KL-K3 and the exact full KL of
 * KL-VARIANTS, in the order of the golden variants (rlref/kl.h names each
 * row's setting type). */
#include "rlref/convention.h"
#include "rlref/kl.h"

static const int lm_token_sum = 1, lm_sequence = 0;

const rlref_convention rlref_kl_other_conventions[] = {
  { "bias-corrected", "KL-K3", "bias-corrected",
    "k3 times the importance ratio rho = e^{logp - old_logp}, differentiable: "
      "k = k3(l) rho, grad = l rho (on-policy, rho = 1: the value of k3 with the gradient of k2)",
    "TRL GRPOTrainer use_bias_correction_kl (1.10 development line; token-level importance "
      "sampling)",
    .setting = NULL },
  { "naive", "KL-K3", "naive-binary64",
    "the error of k3 written as exp(-l) - 1 + l and as expm1(-l) + l in binary64, in "
      "units of the last place of the exact k3; binary64 emulated step by step, exp and expm1 "
      "correctly rounded (MPFR at 53 bits in binary64 too: glibc's exp(2^-53) is 1, correctly "
      "rounded 1 + 2^-52)",
    "seed 000 (13.26) as printed; what a binary64 program computes",
    .setting = NULL },
  { "full", "KL-VARIANTS", "full",
    "the exact KL over the vocabulary at one position, sum_v p_v (log p_v - log "
      "p_ref,v), and its gradient",
    "TRL's earlier PPOTrainer kl_penalty=\"full\" (F.kl_div over "
      "the vocabulary; TRL 1.10's RL trainers have no such penalty); verl (1dda039) lists "
      "\"full\" (and \"full+\") but raises NotImplementedError at this commit "
      "(verl/trainer/ppo/core_algos.py kl_penalty_forward, lines 2246-2248): no library of these "
      "commits computes it",
    .setting = NULL },
  { "discrete", "KL-EXACT", "discrete",
    "a finite distribution: E, E - KL and Var of k1, k2, k3 under p, each outcome "
      "weighted by its probability",
    "seed 000 section 12.1 and table 5; seed 001",
    .setting = NULL },
  { "lm-token-sum", "KL-EXACT", "tiny-lm",
    "the tiny LM (tabular, cut kept): each estimator summed over a response's "
      "tokens, l_t = log pi(y_t | y_<t) - log pi_ref(y_t | y_<t), the sequence KL against it",
    "what TRL, verl and OpenRLHF sum per response",
    .setting = &lm_token_sum },
  { "lm-sequence", "KL-EXACT", "tiny-lm",
    "the tiny LM: each estimator of the sequence's log-ratio l(y) = sum_t l_t",
    "seed 000 section 12.1 read on whole responses",
    .setting = &lm_sequence },
  { "gaussian", "KL-EXACT", "gaussian",
    "two Gaussians in closed form: x ~ N(mu, sigma^2) against N(mu_ref, "
      "sigma_ref^2); Schulman's q = N(0, 1), p = N(mu, 1) at mu_ref = mu",
    "seed 000 section 12.1 (its Schulman reference); Schulman, \"Approximating KL "
      "divergence\" (2020)",
    .setting = NULL },
  { "monte-carlo", "KL-EXACT", "monte-carlo",
    "the same by a seeded Monte-Carlo run: n draws of gsl_ran_gaussian "
      "(MT19937), sample means and standard deviations (ddof 1)",
    "the note's own experiment (torch samples, ddof-1 std), seeded",
    .setting = NULL },
  { 0 },
};
