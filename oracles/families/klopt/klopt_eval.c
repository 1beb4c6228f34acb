/* klopt_eval.c -- glue from the registry's inputs and outputs to the
 * KL-optimal-policy formulas.  Compiled twice (binary64 and MPFR).  The
 * variant's data is the kind of distribution (rlref/klopt.h).  Where one
 * entry calls two library functions, the first one's results are held in
 * temporaries until the second has read the inputs (an output may be the
 * storage of an input). */
#include "family_eval.h"

static int
kind_of (const rl_variant *v)
{
  return *(const int *) v->data;
}

/* The reference distribution in either form (p_ref or logp_ref) and its
 * number of outcomes. */
#define REF IN_OF ("p_ref", "logp_ref")
#define NREF LEN_OF ("p_ref", "logp_ref")

/* KLOPT-Z: x = ref[n], r[n], beta; y = logz, z. */
RL_ENTRY (klopt_z)
{
  return LIB (klopt_logz) (y[0], y[1], REF, kind_of (v), IN ("r"), NREF, IN ("beta"));
}

/* KLOPT-PISTAR: x = ref[n], r[n], beta; y = pistar[n], logpistar[n], er,
 * kl_star_ref, kl_ref_star. */
RL_ENTRY (klopt_pistar)
{
  return LIB (klopt_pistar) (y[0], y[1], y[2], y[3], y[4], REF, kind_of (v), IN ("r"), NREF,
                             IN ("beta"));
}

/* KLOPT-OBJ: x = ref[n], r[n], beta, pi[n]; y = obj, er, kl, obj_star,
 * beta_logz. */
RL_ENTRY (klopt_obj)
{
  num_t js, bz;
  int status;
  num_init (js);
  num_init (bz);
  status = LIB (klopt_optimum) (js, bz, REF, kind_of (v), IN ("r"), NREF, IN ("beta"));
  if (status == RLREF_SUCCESS)
    status = LIB (klopt_objective) (y[0], y[1], y[2], IN_OF ("pi", "logpi"), REF, kind_of (v), IN ("r"),
                                    NREF, IN ("beta"));
  if (status == RLREF_SUCCESS)
    {
      num_set (y[3], js);
      num_set (y[4], bz);
    }
  num_clear (js);
  num_clear (bz);
  return status;
}

/* KLOPT-IDENT: x = ref[n], r[n], beta, pi[n]; y = obj, ident, kl_pistar. */
RL_ENTRY (klopt_ident)
{
  return LIB (klopt_identity) (y[0], y[1], y[2], IN_OF ("pi", "logpi"), REF, kind_of (v), IN ("r"), NREF,
                               IN ("beta"));
}

/* KLOPT-LIMITS beta-inf: x = ref[n], r[n]; y = pi[n], er. */
RL_ENTRY (klopt_lim_ref)
{
  return LIB (klopt_limit_ref) (y[0], y[1], IN ("p_ref"), kind_of (v), IN ("r"), LEN ("p_ref"));
}

/* KLOPT-LIMITS beta-zero: x = ref[n], r[n]; y = pi[n], er. */
RL_ENTRY (klopt_lim_argmax)
{
  return LIB (klopt_limit_argmax) (y[0], y[1], IN ("p_ref"), kind_of (v), IN ("r"), LEN ("p_ref"));
}

/* KLOPT-LIMITS finite-beta: x = ref[n], r[n], beta; y = pi[n], er, tv_ref,
 * tv_argmax. */
RL_ENTRY (klopt_lim_finite)
{
  num_t tr, ta;
  int status;
  num_init (tr);
  num_init (ta);
  status = LIB (klopt_approach) (tr, ta, IN ("p_ref"), kind_of (v), IN ("r"), LEN ("p_ref"),
                                 IN ("beta"));
  if (status == RLREF_SUCCESS)
    status = LIB (klopt_pistar) (y[0], NULL, y[1], NULL, NULL, IN ("p_ref"), kind_of (v), IN ("r"),
                                 LEN ("p_ref"), IN ("beta"));
  if (status == RLREF_SUCCESS)
    {
      num_set (y[2], tr);
      num_set (y[3], ta);
    }
  num_clear (tr);
  num_clear (ta);
  return status;
}
