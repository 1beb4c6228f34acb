/* family_eval.h -- what a family's glue file (oracles/families/NAME_eval.c)
 * includes.  The file is compiled twice, binary64 and MPFR; RL_ENTRY (e)
 * begins the definition of evaluator rl_entry_e_d or rl_entry_e_mp, with
 * x[i] the reals of input i, y[k] the elements of output k (registry.h), and
 * LIB (f) names the library function rlref_f_d or rlref_f_mp. */
#ifndef RLREF_ORACLES_FAMILY_EVAL_H
#define RLREF_ORACLES_FAMILY_EVAL_H
#include "rlref/num.h"
#include "rlref/rlref.h"
#include "registry.h"

#ifdef RLREF_MP
typedef rl_eval_mp_fn rl_eval_num_fn;
#else
typedef rl_eval_d_fn rl_eval_num_fn;
#endif

#define LIB(name) RLREF_CAT (rlref_, name, NUM_SUFFIX)
#define RL_ENTRY_NAME(name) RLREF_CAT (rl_entry_, name, NUM_SUFFIX)
#define RL_ENTRY(name)                                                  \
  rl_eval_num_fn RL_ENTRY_NAME (name);                                  \
  int RL_ENTRY_NAME (name) (const rl_variant *v, const rl_args *a,      \
                            num_srcptr const *x, num_ptr const *y)

#endif
