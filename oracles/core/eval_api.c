/* eval_api.c -- one formula at one input (eval_api.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "core/jsonio.h"
#include "core/numfmt.h"
#include "check/rules.h"
#include "eval_api.h"

/* {"value", "digits", "double", "double_hex"} for output element k, and
 * "sens" when it was formed; the double fields are absent when the binary64
 * evaluation failed. */
static json_t *
element (const void *ctx, size_t k)
{
  const rl_result *r = ctx;
  mpfr_srcptr y = r->cert.value + k;
  int exact, zero = rl_certified_zero (r, k, &exact);
  int digits = mpfr_regular_p (y) && !zero ? r->cert.digits[k] : 0;
  /* a zero as the goldens write it: "0", not the noise of a cancellation */
  char *text = zero ? strdup ("0") : rl_fmt_mpfr (y, digits);
  char dec[40], hex[40];
  json_t *o;
  rl_fmt_dec (r->yd[k], dec);
  rl_fmt_hex (r->yd[k], hex);
  if (r->status_d)
    o = json_pack ("{s:s, s:i}", "value", text ? text : "?", "digits", digits);
  else
    o = json_pack ("{s:s, s:i, s:s, s:s}", "value", text ? text : "?", "digits", digits,
                   "double", dec, "double_hex", hex);
  free (text);
  if (o && r->cert.sens)
    {
      rl_fmt_dec (r->cert.sens[k], dec);
      json_object_set_new (o, "sens", json_string (dec));
    }
  return o;
}

/* The variants of f after its message in err. */
static void
list_variants (const rl_formula *f, const char *variant, char *err, size_t errlen)
{
  size_t n = (size_t) snprintf (err, errlen, "%s has no variant '%s'; it has:", f->id, variant);
  for (size_t k = 0; f->variants[k].name && n < errlen; k++)
    n += (size_t) snprintf (err + n, errlen - n, " %s", f->variants[k].name);
}

json_t *
rl_eval_object (const char *id, const char *variant, long prec, int want_sens, int nwords,
                char **words, int *status, char *err, size_t errlen)
{
  const rl_formula *f = rl_find (id);
  const rl_variant *v;
  rl_args a;
  rl_result r;
  json_t *out;
  char why[512];
  int s;
  *status = RL_EVAL_USAGE;
  *err = '\0';
  if (!f)
    {
      snprintf (err, errlen, "unknown formula '%s' (see rlref list)", id ? id : "(null)");
      return NULL;
    }
  if (prec < 32 || prec > RLREF_CERTIFY_MAX_PREC)
    {
      snprintf (err, errlen, "a precision of %ld bits: 32 to %d", prec, RLREF_CERTIFY_MAX_PREC);
      return NULL;
    }
  v = rl_find_variant (f, variant);
  if (!v)
    {
      list_variants (f, variant, err, errlen);
      return NULL;
    }
  if (rl_args_parse (v, nwords, words, &a, why, sizeof why))
    {
      snprintf (err, errlen, "%s: %s", f->id, why);
      return NULL;
    }
  rlref_clear_error ();
  s = rl_evaluate (v, &a, (mpfr_prec_t) prec, RL_MIN_DIGITS, want_sens, &r);
  if (s)
    {
      snprintf (err, errlen, "%s [%s]: %s: %s%s%s", f->id, v->name, rlref_status_name (s),
                rlref_strerror (s), *rlref_last_error () ? ": " : "", rlref_last_error ());
      rl_result_free (&r);
      rl_args_free (&a);
      *status = RL_EVAL_REJECTED;
      return NULL;
    }
  out = json_pack ("{s:s, s:s, s:i, s:o, s:o}", "formula", f->id, "variant", v->name,
                   "precision", (int) r.cert.prec, "inputs", rl_json_inputs (v, &a),
                   "outputs", rl_outputs_json (v->io, r.out_len, element, &r));
  *status = RL_EVAL_OK;
  if (r.status_d)
    {
      /* the certified values stand; binary64 could not give its own */
      json_object_set_new (out, "binary64",
                           json_pack ("{s:s, s:s}", "error", rlref_status_name (r.status_d),
                                      "message", r.error_d));
      snprintf (err, errlen, "%s [%s]: the binary64 implementation failed: %s%s%s", f->id,
                v->name, rlref_status_name (r.status_d), *r.error_d ? ": " : "", r.error_d);
      *status = RL_EVAL_BINARY64;
    }
  rl_result_free (&r);
  rl_args_free (&a);
  return out;
}

char *
rlref_eval_text (const char *id, const char *variant, long prec, int want_sens, int nwords,
                 const char *const *words, int *status)
{
  char err[1024], *text;
  json_t *o;
  /* rl_args_parse reads the words and keeps nothing of them */
  o = rl_eval_object (id, variant, prec, want_sens, nwords, (char **) words, status, err,
                      sizeof err);
  if (!o)
    o = json_pack ("{s:i, s:s}", "status", *status, "error", err);
  else if (*status == RL_EVAL_BINARY64)
    json_object_set_new (o, "status", json_integer (*status));
  text = o ? json_dumps (o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref (o);
  return text;
}

void
rlref_eval_text_free (char *text)
{
  free (text);
}

const void *
rlref_variant_setting (const char *id, const char *variant)
{
  const rl_formula *f = rl_find (id);
  const rl_variant *v = f ? rl_find_variant (f, variant) : NULL;
  return v ? v->data : NULL;
}
