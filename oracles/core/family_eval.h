/* family_eval.h -- what a family's glue file (oracles/families/NAME/NAME_eval.c)
 * includes.  The file is compiled twice, binary64 and MPFR; RL_ENTRY (NAME)
 * begins the definition of evaluator rl_entry_NAME_d or rl_entry_NAME_mp,
 * with x[i] the reals of input i, read by name as IN ("logp"), y[k] the
 * elements of output k (registry.h), and LIB (NAME) names the library
 * function rlref_NAME_d or rlref_NAME_mp. */
#ifndef RLREF_ORACLES_FAMILY_EVAL_H
#define RLREF_ORACLES_FAMILY_EVAL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The position of the input called name in the variant's io, what IN,
 * INTS and LEN read in an RL_ENTRY or a sensitivity hook: IN (name) the
 * reals of that input, INTS (name) its integers, LEN (name) its length.
 * A name the io does not declare is a defect of the glue: reported, and
 * the program exits (the generic test runs every entry). */
static inline size_t
rl_input_at (const rl_variant *v, const char *name)
{
  for (size_t i = 0; v->io->in[i].name; i++)
    if (strcmp (v->io->in[i].name, name) == 0)
      return i;
  fprintf (stderr, "rlref: variant %s has no input %s\n", v->name, name);
  exit (3);
}
#define IN(name) x[rl_input_at (v, name)]
#define INTS(name) a->iv[rl_input_at (v, name)]
#define LEN(name) a->len[rl_input_at (v, name)]

/* Whether the variant's io declares an input called name (an optional
 * input of one form of a formula, such as GRPO-AGG's micro). */
static inline int
rl_has_input (const rl_variant *v, const char *name)
{
  for (size_t i = 0; v->io->in[i].name; i++)
    if (strcmp (v->io->in[i].name, name) == 0)
      return 1;
  return 0;
}

/* The position of the input called name, or else of the one called other:
 * one entry serving two forms whose inputs differ in name (KLOPT's p_ref
 * and logp_ref, DPO-EQUIV's beta and tau).  IN_OF, LEN_OF read it. */
static inline size_t
rl_input_of (const rl_variant *v, const char *name, const char *other)
{
  return rl_input_at (v, rl_has_input (v, name) ? name : other);
}
#define IN_OF(name, other) x[rl_input_of (v, name, other)]
#define LEN_OF(name, other) a->len[rl_input_of (v, name, other)]

/* The value of the variant's parameter called name (after the inputs in
 * x), or NULL when the variant has none of that name; PARAM (name) in an
 * RL_ENTRY. */
static inline num_srcptr
rl_param_value (const rl_variant *v, num_srcptr const *x, const char *name)
{
  size_t n_in = rl_n_in (v->io);
  for (size_t p = 0; v->params[p].name; p++)
    if (strcmp (v->params[p].name, name) == 0)
      return x[n_in + p];
  return NULL;
}
#define PARAM(name) rl_param_value (v, x, name)

/* The value of the variant's integer parameter called name (ddof), which
 * is not among the reals in x; a name the variant lacks is a defect of
 * the glue, as in rl_input_at. */
static inline int
rl_param_int (const rl_variant *v, const char *name)
{
  for (size_t p = 0; v->params[p].name; p++)
    if (strcmp (v->params[p].name, name) == 0)
      return (int) v->params[p].value;
  fprintf (stderr, "rlref: variant %s has no parameter %s\n", v->name, name);
  exit (3);
}
#define PARAM_INT(name) rl_param_int (v, name)

#endif
