/* evaluate.h -- one formula at one input: certified MPFR values, the
 * double implementation's values, and the sensitivity. */
#ifndef RLREF_ORACLES_EVALUATE_H
#define RLREF_ORACLES_EVALUATE_H
#include "rlref/certify.h"
#include "registry.h"

typedef struct
{
  size_t out_len[RL_MAX_OUT];
  size_t ny;
  int status;                   /* status of the MPFR evaluation */
  int status_d;                 /* status of the binary64 evaluation */
  rlref_certified cert;         /* valid when status == 0 */
  double *yd;                   /* binary64 results, valid when status_d == 0 */
} rl_result;

/* Evaluates v at a: shape, then the double implementation, then the
 * certified MPFR value at prec (two-precision, >= min_digits).  Returns
 * the MPFR status (also in r->status).  Free with rl_result_free. */
int rl_evaluate (const rl_variant *v, const rl_args *a, mpfr_prec_t prec, int min_digits,
                 int want_sens, rl_result *r);
void rl_result_free (rl_result *r);

#endif
