/* departure.c -- a variant moved by one departure, evaluated at a golden
   test's inputs (departure.h).  */

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "departure.h"
#include "rules.h"
#include "core/evaluate.h"
#include "core/golden_args.h"
#include "core/numfmt.h"

/* Whether input i of io is documented as a log-probability.  */
int
rl_is_logprob (const rl_io *io, size_t i)
{
  const char *d = io->in[i].doc;
  if (io->in[i].kind != RL_REAL && io->in[i].kind != RL_REAL_ARRAY)
    return 0;
  return d != NULL && (strncmp (d, "log pi", 6) == 0 || strstr (d, "log-probabilit"));
}

/* Bind u to v in a with the departures on the inputs; 0 or -1.  */
int
rl_departure_args (const rl_variant *v, json_t *u, int param, double pvalue, int probs,
                   rl_args *a)
{
  if (rl_args_from_golden (v, u, a))
    return -1;
  if (param >= 0)
    a->param[param] = pvalue;
  if (probs)
    for (size_t i = 0; v->io->in[i].name; i++)
      if (rl_is_logprob (v->io, i))
        for (size_t j = 0; j < a->len[i]; j++)
          a->re[i][j] = exp (a->re[i][j]);
  return 0;
}

/* The scratch an axis may point a moved variant's data into.  */
typedef union
{
  max_align_t align;
  unsigned char bytes[RL_AXIS_SCRATCH];
} axis_scratch;

/* Formula id's variant named exactly variant, or NULL.  */
static const rl_variant *
exact_variant (const char *id, const char *variant, const rl_formula **f)
{
  const rl_variant *v;
  *f = id != NULL ? rl_find (id) : NULL;
  if (*f == NULL || variant == NULL)
    return NULL;
  v = rl_find_variant (*f, variant);
  return v != NULL && strcmp (v->name, variant) == 0 ? v : NULL;
}

/* The dump of o (released), or NULL.  */
static char *
dump (json_t *o)
{
  char *text = o != NULL ? json_dumps (o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref (o);
  return text;
}

char *
rlref_departures_text (const char *id, const char *variant)
{
  const rl_formula *f;
  const rl_variant *v = exact_variant (id, variant, &f);
  json_t *o, *axes, *params;
  int lp = 0;
  if (v == NULL)
    return NULL;
  o = json_object ();
  axes = json_array ();
  params = json_array ();
  for (size_t a = 0; f->axes != NULL && f->axes[a].name; a++)
    {
      axis_scratch scratch;
      rl_variant own;
      char label[200];
      if (f->axes[a].apply (v, &own, scratch.bytes, label, sizeof label) == 0)
        json_array_append_new (axes, json_pack ("{s:i, s:s, s:s}", "axis", (int) a, "label",
                                                label, "variant", own.name));
    }
  for (size_t p = 0; v->params[p].name; p++)
    json_array_append_new (params, json_pack ("{s:s, s:f, s:b, s:b}", "name",
                                              v->params[p].name, "value",
                                              v->params[p].value, "isInt",
                                              v->params[p].is_int, "inX", v->params[p].in_x));
  for (size_t i = 0; v->io->in[i].name; i++)
    lp |= rl_is_logprob (v->io, i);
  json_object_set_new (o, "axes", axes);
  json_object_set_new (o, "params", params);
  json_object_set_new (o, "logprob", json_boolean (lp));
  return dump (o);
}

/* MPFR's exact hex text of x as a JSON string.  */
static json_t *
exact_hex (mpfr_srcptr x)
{
  char *s = NULL;
  json_t *j;
  if (mpfr_nan_p (x))
    return json_string ("nan");
  if (mpfr_inf_p (x))
    return json_string (mpfr_sgn (x) > 0 ? "inf" : "-inf");
  if (mpfr_asprintf (&s, "%Ra", x) < 0)
    return NULL;
  j = json_string (s);
  mpfr_free_str (s);
  return j;
}

/* v at a in binary64 into o; the status.  */
static int
binary64_outputs (const rl_variant *v, const rl_args *a, json_t *o)
{
  size_t len[RL_MAX_OUT], ny = 0, nx, off = 0;
  double *x, *y;
  int s = RLREF_EINVAL;
  if (rl_out_lengths (v, a, len))
    return s;
  for (size_t k = 0; v->io->out[k].name; k++)
    ny += len[k];
  nx = rl_args_nx (v, a);
  x = malloc ((nx ? nx : 1) * sizeof *x);
  y = calloc (ny ? ny : 1, sizeof *y);
  if (x != NULL && y != NULL)
    {
      rl_args_flatten (v, a, x);
      s = rl_call_d (v, a, x, y, len);
    }
  for (size_t k = 0; s == 0 && v->io->out[k].name; off += len[k], k++)
    {
      json_t *ys = json_array ();
      char hex[40];
      for (size_t j = 0; j < len[k]; j++)
        {
          rl_fmt_hex (y[off + j], hex);
          json_array_append_new (ys, json_string (hex));
        }
      json_array_append_new (o, json_pack ("{s:s, s:o}", "name", v->io->out[k].name, "y", ys));
    }
  free (x);
  free (y);
  return s;
}

/* v at a certified, with sensitivities, into o; the status.  */
static int
certified_outputs (const rl_variant *v, const rl_args *a, json_t *o)
{
  rl_result r;
  size_t off = 0;
  int s = rl_evaluate (v, a, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r);
  for (size_t k = 0; s == 0 && v->io->out[k].name; off += r.out_len[k], k++)
    {
      json_t *xs = json_array (), *ss = json_array (), *nd = json_array ();
      for (size_t j = 0; j < r.out_len[k]; j++)
        {
          json_array_append_new (xs, exact_hex (&r.cert.value[off + j]));
          json_array_append_new (ss, exact_hex (&r.cert.sens_mp[off + j]));
          json_array_append_new (nd, json_integer (r.cert.nondiff[off + j] != 0));
        }
      json_array_append_new (o, json_pack ("{s:s, s:o, s:o, s:o}", "name", v->io->out[k].name,
                                           "x", xs, "sens", ss, "nondiff", nd));
    }
  rl_result_free (&r);
  return s;
}

char *
rlref_departure_text (const char *id, const char *variant, int axis, int param,
                      double pvalue, int probs, const char *inputs_json, int certified)
{
  const rl_formula *f;
  const rl_variant *v = exact_variant (id, variant, &f);
  axis_scratch scratch;
  rl_variant own;
  char label[200];
  json_t *u, *o, *outs;
  rl_args a;
  int s;
  size_t np = 0;
  if (v == NULL || inputs_json == NULL)
    return NULL;
  while (v->params[np].name)
    np++;
  if (axis >= 0)
    {
      size_t na = 0;
      while (f->axes != NULL && f->axes[na].name)
        na++;
      if ((size_t) axis >= na || f->axes[axis].apply (v, &own, scratch.bytes, label,
                                                      sizeof label) != 0)
        return NULL;
      v = &own;
    }
  if (param >= (int) np)
    return NULL;
  if ((u = json_loads (inputs_json, 0, NULL)) == NULL)
    return NULL;
  o = json_object ();
  outs = json_array ();
  if (rl_departure_args (v, u, param, pvalue, probs, &a))
    s = RLREF_EINVAL;
  else
    s = certified ? certified_outputs (v, &a, outs) : binary64_outputs (v, &a, outs);
  rl_args_free (&a);
  json_decref (u);
  json_object_set_new (o, "status", json_integer (s));
  json_object_set_new (o, "outputs", s == 0 ? outs : (json_decref (outs), json_array ()));
  return dump (o);
}
