/* klopt_conventions.c -- the named conventions of the KLOPT formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/klopt.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/klopt.h"

#define PROB_DESC "pi_ref given as probabilities, normalised by their exact sum"

#define LOGPROB_DESC "pi_ref given as log-probabilities (-inf for 0), normalised by their " \
  "log-sum-exp"

#define USED_PROB "seed 000 (pi_ref written as probabilities)"

#define USED_LOGPROB "code (TRL, verl, OpenRLHF hold log-probabilities)"

static const int kind_prob = RLREF_KLOPT_PROB;
static const int kind_logprob = RLREF_KLOPT_LOGPROB;

const rlref_convention rlref_klopt_conventions[] = {
  { "prob", "KLOPT-Z", "logz",
    PROB_DESC,
    USED_PROB,
    .setting = &kind_prob },
  { "logprob", "KLOPT-Z", "logz",
    LOGPROB_DESC,
    USED_LOGPROB,
    .setting = &kind_logprob },
  { "prob", "KLOPT-PISTAR", "pistar",
    PROB_DESC,
    USED_PROB,
    .setting = &kind_prob },
  { "logprob", "KLOPT-PISTAR", "pistar",
    LOGPROB_DESC,
    USED_LOGPROB,
    .setting = &kind_logprob },
  { "prob", "KLOPT-OBJ", "objective",
    PROB_DESC "; pi likewise",
    USED_PROB,
    .setting = &kind_prob },
  { "logprob", "KLOPT-OBJ", "objective",
    LOGPROB_DESC "; pi likewise",
    USED_LOGPROB,
    .setting = &kind_logprob },
  { "prob", "KLOPT-IDENT", "identity",
    PROB_DESC "; pi likewise",
    USED_PROB,
    .setting = &kind_prob },
  { "logprob", "KLOPT-IDENT", "identity",
    LOGPROB_DESC "; pi likewise",
    USED_LOGPROB,
    .setting = &kind_logprob },
  { "beta-inf", "KLOPT-LIMITS", "beta-inf",
    "the exact limit beta -> infinity: pi* -> pi_ref (pi_ref as probabilities)",
    "seed 000 section 4.1 (beta -> infinity returns to pi_ref)",
    .setting = &kind_prob },
  { "beta-zero", "KLOPT-LIMITS", "beta-zero",
    "the exact limit beta -> 0: pi* -> pi_ref restricted to the argmax set A of r "
      "on the support of pi_ref, renormalised (ties split in proportion to pi_ref)",
    "seed 000 section 4.1 (beta -> 0 is greedy); ties split by pi_ref (issue 7)",
    .setting = &kind_prob },
  { "finite-beta", "KLOPT-LIMITS", "finite-beta",
    "pi* at a finite beta and its total-variation distance to each limit",
    "seed 000 section 4.1",
    .setting = &kind_prob },
  { 0 },
};
