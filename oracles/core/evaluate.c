/* evaluate.c -- evaluating a registry formula in both precisions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/status.h"
#include "args.h"
#include "evaluate.h"
#include "check/rules.h"

int
rl_call_d (const rl_variant *v, const rl_args *a, const double *x, double *y,
           const size_t *out_len)
{
  size_t off[RL_MAX_IN + RL_MAX_PARAMS], n_in = rl_n_in (v->io), n_slots;
  const double *xp[RL_MAX_IN + RL_MAX_PARAMS];
  double *yp[RL_MAX_OUT];
  rl_args_slots (v, a, off);
  n_slots = n_in + rl_n_params (v);
  for (size_t i = 0; i < n_slots; i++)
    xp[i] = off[i] == RL_NO_SLOT ? NULL : x + off[i];
  for (size_t k = 0, n = 0; v->io->out[k].name; n += out_len[k], k++)
    yp[k] = y + n;
  return v->io->eval_d (v, a, xp, yp);
}

int
rl_call_mp (const rl_variant *v, const rl_args *a, mpfr_srcptr x, mpfr_ptr y,
            const size_t *out_len)
{
  size_t off[RL_MAX_IN + RL_MAX_PARAMS], n_in = rl_n_in (v->io), n_slots;
  mpfr_srcptr xp[RL_MAX_IN + RL_MAX_PARAMS];
  mpfr_ptr yp[RL_MAX_OUT];
  rl_args_slots (v, a, off);
  n_slots = n_in + rl_n_params (v);
  for (size_t i = 0; i < n_slots; i++)
    xp[i] = off[i] == RL_NO_SLOT ? NULL : x + off[i];
  for (size_t k = 0, n = 0; v->io->out[k].name; n += out_len[k], k++)
    yp[k] = y + n;
  return v->io->eval_mp (v, a, xp, yp);
}

struct mp_ctx
{
  const rl_variant *v;
  const rl_args *a;
  const size_t *out_len;
};

/* rlref_certify's callback: the variant's MPFR evaluator. */
static int
eval_mp (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const struct mp_ctx *c = ctx;
  (void) nx;
  (void) ny;
  return rl_call_mp (c->v, c->a, x, y, c->out_len);
}

/* rlref_certify's sensitivity callback: the variant's own, on per-input
 * and per-output pointers as rl_call_mp makes them. */
static int
sens_mp (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y, size_t ny,
         mpfr_ptr sens, int *nondiff)
{
  const struct mp_ctx *c = ctx;
  const rl_variant *v = c->v;
  size_t off[RL_MAX_IN + RL_MAX_PARAMS], n_slots = rl_n_in (v->io) + rl_n_params (v);
  mpfr_srcptr xp[RL_MAX_IN + RL_MAX_PARAMS], yp[RL_MAX_OUT];
  mpfr_ptr sp[RL_MAX_OUT];
  int *np[RL_MAX_OUT];
  (void) nx;
  (void) ny;
  rl_args_slots (v, c->a, off);
  for (size_t i = 0; i < n_slots; i++)
    xp[i] = off[i] == RL_NO_SLOT ? NULL : x + off[i];
  for (size_t k = 0, n = 0; v->io->out[k].name; n += c->out_len[k], k++)
    {
      yp[k] = y + n;
      sp[k] = sens + n;
      np[k] = nondiff + n;
    }
  return v->io->sens_mp (v, c->a, xp, yp, sp, np);
}

/* The sensitivity mode: none without want_sens, else RLREF_SENS from the
 * environment ("auto" or unset, "fd", "both"); -1 for another value. */
static int
sens_mode (int want_sens)
{
  const char *e = getenv ("RLREF_SENS");
  if (!want_sens)
    return RLREF_SENS_NONE;
  if (!e || !*e || strcmp (e, "auto") == 0)
    return RLREF_SENS_AUTO;
  if (strcmp (e, "fd") == 0)
    return RLREF_SENS_FD;
  if (strcmp (e, "both") == 0)
    return RLREF_SENS_BOTH;
  return -1;
}

/* The name of flat output element k, "name" or "name[j]", into buf. */
static void
element_name (const rl_io *io, const size_t *out_len, size_t k, char *buf, size_t size)
{
  for (size_t i = 0; io->out[i].name; k -= out_len[i], i++)
    if (k < out_len[i])
      {
        if (rl_out_is_array (io, i))
          snprintf (buf, size, "%s[%zu]", io->out[i].name, k);
        else
          snprintf (buf, size, "%s", io->out[i].name);
        return;
      }
  snprintf (buf, size, "#%zu", k);
}

/* The range rule (evaluate.h): the first element whose certified value is
 * beyond the binary64 range, or finite where binary64 gave inf or NaN,
 * turns the binary64 answer into ERANGE. */
static void
range_rule (const rl_variant *v, rl_result *r)
{
  char name[96];
  for (size_t k = 0; k < r->ny; k++)
    {
      mpfr_srcptr y = r->cert.value + k;
      double yd = r->yd[k];
      if (!mpfr_number_p (y))
        continue;
      if (isinf (mpfr_get_d (y, MPFR_RNDN)))
        {
          element_name (v->io, r->out_len, k, name, sizeof name);
          mpfr_snprintf (r->error_d, sizeof r->error_d, "%s = %.6Rg lies beyond the binary64 "
                         "range", name, y);
        }
      else if (!isfinite (yd))
        {
          element_name (v->io, r->out_len, k, name, sizeof name);
          mpfr_snprintf (r->error_d, sizeof r->error_d, "%s = %.6Rg, but binary64 gives %s: an "
                         "intermediate step overflows binary64", name, y,
                         isnan (yd) ? "nan" : yd > 0 ? "inf" : "-inf");
        }
      else
        continue;
      r->status_d = RLREF_ERANGE;
      r->range_refused = 1;
      return;
    }
}

int
rl_evaluate (const rl_variant *v, const rl_args *a, mpfr_prec_t prec, int min_digits,
             int want_sens, rl_result *r)
{
  struct mp_ctx ctx = { v, a, r->out_len };
  size_t nx = rl_args_nx (v, a);
  double *x;
  int mode;
  memset (r, 0, sizeof *r);
  r->status = rl_out_lengths (v, a, r->out_len);
  r->status_d = r->status;
  if (r->status)
    return r->status;
  for (size_t k = 0; v->io->out[k].name; k++)
    r->ny += r->out_len[k];
  x = malloc ((nx ? nx : 1) * sizeof *x);
  r->yd = calloc (r->ny ? r->ny : 1, sizeof *r->yd);
  if (!x || !r->yd)
    {
      free (x);
      free (r->yd);
      r->yd = NULL;
      return r->status = r->status_d = RLREF_ENOMEM;
    }
  rl_args_flatten (v, a, x);
  rlref_clear_error ();
  r->status_d = rl_call_d (v, a, x, r->yd, r->out_len);
  if (r->status_d)
    {
      strncpy (r->error_d, rlref_last_error (), sizeof r->error_d - 1);
      r->error_d[sizeof r->error_d - 1] = '\0';
    }
  rlref_clear_error ();
  mode = sens_mode (want_sens);
  if (mode < 0)
    {
      rlref_error ("RLREF_SENS must be auto, fd or both", __FILE__, __LINE__, RLREF_EINVAL);
      r->status = RLREF_EINVAL;
    }
  else
    r->status = rlref_certify_with (eval_mp, v->io->sens_mp ? sens_mp : NULL, &ctx, x, nx,
                                    r->ny, prec, min_digits, mode, &r->cert);
  if (r->status == RLREF_SUCCESS && r->status_d == RLREF_SUCCESS)
    range_rule (v, r);
  free (x);
  return r->status;
}

int
rl_certified_zero (const rl_result *r, size_t k, int *exact)
{
  mpfr_srcptr y = r->cert.value + k;
  *exact = r->cert.exact_zero[k] != 0;
  if (*exact)
    return 1;
  return mpfr_regular_p (y) && r->cert.digits[k] < RL_MIN_DIGITS
    && mpfr_get_exp (y) < -(mpfr_exp_t) (r->cert.prec / 2);
}

void
rl_result_free (rl_result *r)
{
  if (r->status == RLREF_SUCCESS)
    rlref_certified_clear (&r->cert);
  free (r->yd);
  r->yd = NULL;
}

json_t *
rl_outputs_json (const rl_io *io, const size_t *out_len, rl_element_fn *element,
                 const void *ctx)
{
  json_t *out = json_object ();
  size_t k = 0;
  for (size_t i = 0; io->out[i].name; i++)
    {
      if (rl_out_is_array (io, i))
        {
          json_t *arr = json_array ();
          for (size_t j = 0; j < out_len[i]; j++)
            json_array_append_new (arr, element (ctx, k++));
          json_object_set_new (out, io->out[i].name, arr);
        }
      else
        json_object_set_new (out, io->out[i].name, element (ctx, k++));
    }
  return out;
}
