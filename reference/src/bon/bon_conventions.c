/* bon_conventions.c -- the named conventions of the BON formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/bon.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/bon.h"

static const int form_bon = RLREF_OVEROPT_BON;
static const int form_rl = RLREF_OVEROPT_RL;

const rlref_convention rlref_bon_conventions[] = {
  { "first-max", "BON", "best-of-n",
    "the first maximum of n i.i.d. draws from p: an outcome at reward level v is "
      "kept with probability Q_v = F(v)^n - F(v^-)^n, and the tied outcomes of a level share Q_v "
      "in proportion to p (the same for any choice among the maxima by draw index or at random, "
      "not by the outcome itself)",
    "best-of-n sampling as seed 000 section 8.4 describes it (draw n, keep the best by the RM "
      "or verifier); its KL bound as Stiennon et al. 2020 state it, Beirami et al. 2024",
    .setting = NULL },
  { "bon", "OVEROPT", "bon",
    "gold reward of best-of-n against d = sqrt(KL): R(d) = d (alpha - beta d)",
    "Gao et al. 2022 (scaling laws for reward model over-optimisation), the form seed 000 "
      "sections 8.2 and 10.4 cite (\"a simple function of sqrt(KL)\")",
    .setting = &form_bon },
  { "rl", "OVEROPT", "rl",
    "gold reward of RL against d = sqrt(KL): R(d) = d (alpha - beta log d)",
    "Gao et al. 2022, the RL form; seed 000 sections 8.2 and 10.4 (RL and best-of-n follow "
      "different functions)",
    .setting = &form_rl },
  { 0 },
};
