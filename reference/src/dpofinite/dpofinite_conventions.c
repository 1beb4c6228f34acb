/* dpofinite_conventions.c -- the named conventions of the DPOFINITE formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/dpofinite.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/dpofinite.h"

static const int loss_dpo = RLREF_DPOFINITE_DPO;
static const int loss_ipo = RLREF_DPOFINITE_IPO;

const rlref_convention rlref_dpofinite_conventions[] = {
  { "prob", "DPO-IMPLICIT-R", "implicit-reward",
    "pi_ref as probabilities normalised by their exact sum; r^ from pi* and Z as "
      "13.18 writes it",
    "seed 000 (13.18)",
    .setting = NULL },
  { "prob", "DPO-ZCANCEL", "pair",
    "pi_ref as probabilities normalised by their exact sum; h from pi* and pi_ref",
    "seed 000 (13.19, 13.20)",
    .setting = NULL },
  { "dpo-bt", "DPO-EQUIV", "dpo-bt",
    "preferences drawn from Bradley-Terry on r, P_ij = sigma(r_i - r_j); pairs "
      "(i, j), i != j, from pi_ref x pi_ref; the DPO population loss is least at pi* of 13.17 "
      "(closed form)",
    "seed 000 section 4.3 (DPO's minimiser is the RLHF optimum)",
    .setting = NULL },
  { "dpo-pref", "DPO-EQUIV", "dpo-pref",
    "the DPO population loss for a preference matrix P, pairs from pi_ref x "
      "pi_ref: a Bradley-Terry likelihood of the scores beta h, minimised by Newton's method; no "
      "finite minimiser (EDOM) when the graph of P_ij > 0 is not strongly connected",
    "seed 000 (13.21); the IPO paper (DPO on deterministic preferences)",
    .setting = &loss_dpo },
  { "ipo", "DPO-EQUIV", "ipo",
    "the IPO population loss (z - 1/(2 tau))^2 for a preference matrix P, pairs from "
      "pi_ref x pi_ref: a least-squares problem in h, solved as a graph-Laplacian system",
    "the IPO paper (Azar et al.); CONVENTIONS.md DPO family (IPO)",
    .setting = &loss_ipo },
  { 0 },
};
