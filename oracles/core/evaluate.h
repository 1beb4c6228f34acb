/* evaluate.h -- one formula at one input: certified MPFR values, the
 * binary64 implementation's values, and the sensitivity. */
#ifndef RLREF_ORACLES_EVALUATE_H
#define RLREF_ORACLES_EVALUATE_H
#include <jansson.h>
#include "rlref/certify.h"
#include "registry.h"

typedef struct
{
  size_t out_len[RL_MAX_OUT];
  size_t ny;
  int status;                   /* status of the MPFR evaluation */
  int status_d;                 /* status of the binary64 evaluation */
  char error_d[256];            /* the binary64 evaluation's message, if it failed */
  rlref_certified cert;         /* valid when status == 0 */
  double *yd;                   /* binary64 results, valid when status_d == 0 */
  int range_refused;            /* status_d is ERANGE by rl_evaluate's range rule */
} rl_result;

/* Evaluates v at a: output lengths, then the binary64 implementation, then
 * the certified MPFR value at prec (two-precision, >= min_digits).  With
 * want_sens, also the sensitivity (r->cert.sens, sens_mp, nondiff): the
 * variant's own (rl_io.sens_mp) when it has one, else by central
 * differences; the environment variable RLREF_SENS changes this: "fd"
 * measures every one by central differences, "both" computes the two and
 * fails (EPREC, with a message) where they differ (rlref_sens_agree), and
 * "auto" or unset is the default.  Returns the MPFR status (also in
 * r->status).  Free with rl_result_free.
 *
 * The range rule of binary64 answers: where a certified value lies beyond
 * the binary64 range, or the binary64 implementation gives inf or NaN for a
 * finite certified value (an intermediate overflow), the binary64 answer is
 * refused, status_d = RLREF_ERANGE with a message naming the output, and
 * r->range_refused is set. */
int rl_evaluate (const rl_variant *v, const rl_args *a, mpfr_prec_t prec, int min_digits,
                 int want_sens, rl_result *r);
void rl_result_free (rl_result *r);

/* Whether certified element k of r is a zero, as the goldens write one:
 * both precisions gave exactly 0 (*exact set), or a value below
 * 2^-(p/2) whose digits did not settle at the precision p reached (a zero
 * within the precision: cancellation of equal terms, ZeroWithinPrecision).
 * Such an element is written "0" with 0 digits. */
int rl_certified_zero (const rl_result *r, size_t k, int *exact);

/* The binary64 evaluator on flat vectors: x of rl_args_nx reals, y of
 * sum(out_len) (from rl_out_lengths). */
int rl_call_d (const rl_variant *v, const rl_args *a, const double *x, double *y,
               const size_t *out_len);
/* The MPFR evaluator on flat vectors, likewise. */
int rl_call_mp (const rl_variant *v, const rl_args *a, mpfr_srcptr x, mpfr_ptr y,
                const size_t *out_len);

/* The one walk over a formula's outputs: {"name": value, "name[]": [values]}
 * in declaration order, value = element (ctx, k) for flat element k. */
typedef json_t *rl_element_fn (const void *ctx, size_t k);
json_t *rl_outputs_json (const rl_io *io, const size_t *out_len, rl_element_fn *element,
                         const void *ctx);

#endif
