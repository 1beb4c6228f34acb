/* check_judge.c -- judging a candidate's values against the golden's, with
   the tolerance rule of golden/README.md, and the report lines.  */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "check_impl.h"

/* Copy the decimal S to BUF (SIZE bytes), cut after SHOW_DIGITS significant
   digits ("..." marks the cut; an exponent is kept).  */
static void
shorten (const char *s, char *buf, size_t size)
{
  size_t i = 0, o = 0, sig = 0;
  int cut = 0;
  if (s[0] == '+' || s[0] == '-')
    buf[o++] = s[i++];
  for (; isdigit ((unsigned char) s[i]) || s[i] == '.'; i++)
    {
      if (s[i] != '.' && (sig > 0 || s[i] != '0'))
        sig++;
      if (sig > SHOW_DIGITS || o + 4 >= size)
        cut = 1;
      else if (!cut)
        buf[o++] = s[i];
    }
  buf[o] = '\0';
  if (cut)
    strcat (buf, "...");
  strncat (buf, s + i, size - strlen (buf) - 1);
}

/* Write the candidate's value G to BUF as %.17g, specials as nan/inf/-inf.  */
static void
format_got (double g, char *buf, size_t size)
{
  if (isnan (g))
    snprintf (buf, size, "nan");
  else if (isinf (g))
    snprintf (buf, size, g > 0 ? "inf" : "-inf");
  else
    snprintf (buf, size, "%.17g", g);
}

/* Print the head of a report line on case K, output NAME[IDX] (IDX < 0:
   a scalar; NAME NULL: the case as a whole).  */
static void
line_start (const ctx *c, const gcase *k, int pass, const char *name, long idx)
{
  fprintf (c->out, "%s tcId %" JSON_INTEGER_FORMAT " [",
           pass ? "PASS" : k->kind == K_ACCEPTABLE ? "NOTE" : "FAIL", k->tcid);
  ck_print_clean (c->out, c->vars[k->var].name);
  putc (']', c->out);
  if (name != NULL)
    {
      putc (' ', c->out);
      ck_print_clean (c->out, name);
      if (idx >= 0)
        fprintf (c->out, "[%ld]", idx);
    }
  fputs (": ", c->out);
}

/* End a report line on case K: the flags of a noted mismatch, a newline.  */
static void
line_end (const ctx *c, const gcase *k, int pass)
{
  json_t *flags = json_object_get (k->test, "flags"), *f;
  size_t i;
  if (!pass && k->kind == K_ACCEPTABLE)
    {
      fputs (json_array_size (flags) ? " (acceptable: flags " : " (acceptable",
             c->out);
      json_array_foreach (flags, i, f)
        {
          if (i > 0)
            fputs (", ", c->out);
          ck_print_clean (c->out, json_string_value (f));
        }
      putc (')', c->out);
    }
  putc ('\n', c->out);
}

/* Print a whole report line: text MSG, then string Q quoted if not NULL.  */
static void
line (const ctx *c, const gcase *k, int pass, const char *name, long idx,
      const char *msg, const char *q)
{
  line_start (c, k, pass, name, idx);
  fputs (msg, c->out);
  if (q != NULL)
    {
      fputs (" \"", c->out);
      ck_print_clean (c->out, q);
      putc ('"', c->out);
    }
  line_end (c, k, pass);
}

/* The exponent e of the dtype's ulp 2^(e - prec + 1) at c->x: below the
   normal range (and at 0), that of its smallest normal.  */
static mpfr_exp_t
ulp_exp (const ctx *c)
{
  mpfr_exp_t e = mpfr_zero_p (c->x) ? c->emin : mpfr_get_exp (c->x) - 1;
  return e < c->emin ? c->emin : e;
}

/* Print the error measures of a finite comparison: d = |got - x| in C->d,
   tolerance in C->t; for the report line after "got ...".  */
static void
print_measures (ctx *c)
{
  mpfr_exp_t e = ulp_exp (c);
  char ulps[40], rel[40], tol[40];
  double lre, cap = c->prec * log10 (2.0);
  mpfr_mul_2si (c->w, c->d, (long) (c->prec - 1 - e), MPFR_RNDN);
  mpfr_snprintf (ulps, sizeof ulps, "%.2Rg", c->w);
  mpfr_mul_2si (c->w, c->t, (long) (c->prec - 1 - e), MPFR_RNDN);
  mpfr_snprintf (tol, sizeof tol, "%.2Rg", c->w);
  if (mpfr_zero_p (c->d))
    {
      fprintf (c->out, " err 0 ulps, rel 0, exact; tol %s ulps", tol);
      return;
    }
  if (mpfr_zero_p (c->x))
    {
      fprintf (c->out, " err %s ulps, rel inf, 0.0 correct digits; tol %s ulps",
               ulps, tol);
      return;
    }
  mpfr_div (c->w, c->d, c->x, MPFR_RNDN);
  mpfr_abs (c->w, c->w, MPFR_RNDN);
  mpfr_snprintf (rel, sizeof rel, "%.2Rg", c->w);
  mpfr_log10 (c->w, c->w, MPFR_RNDN);
  lre = -mpfr_get_d (c->w, MPFR_RNDN);
  lre = lre > cap ? cap : lre > 0 ? lre : 0.0;
  fprintf (c->out, " err %s ulps, rel %s, %.1f correct digits; tol %s ulps", ulps,
           rel, lre, tol);
}

/* Lowers c->worst_digits to the correct digits of the comparison in
   C->d (|got - x|) and C->x: -log10 |d/x|, 17 for an exact match; a
   result for an exact zero is left out.  */
static void
note_digits (ctx *c)
{
  double digits;
  if (mpfr_zero_p (c->d))
    digits = 17.0;
  else if (mpfr_zero_p (c->x))
    return;                     /* an exact zero has no relative accuracy to speak of */
  else
    {
      mpfr_div (c->w, c->d, c->x, MPFR_RNDN);
      mpfr_abs (c->w, c->w, MPFR_RNDN);
      mpfr_log10 (c->w, c->w, MPFR_RNDN);
      digits = -mpfr_get_d (c->w, MPFR_RNDN);
      digits = digits < 0 ? 0 : digits > 17 ? 17 : digits;
    }
  if (!(digits > 0))
    digits = 0.0;               /* not -0.0 */
  if (digits < c->worst_digits)
    c->worst_digits = digits;
}

/* A new JSON number for X; null when X is not finite.  */
static json_t *
number_or_null (double x)
{
  return isfinite (x) ? json_real (x) : json_null ();
}

/* Append to c->rec, when recording, the comparison of output NAME[IDX]
   (IDX < 0: a scalar): the golden's expected value E (NULL: none), the
   candidate's value *GOT (NULL: none), whether it passes and PROBLEM (why
   no value was compared, or NULL).  With FINITE, c->d, c->x and c->t hold
   |got - x|, x and the tolerance, and the measures of print_measures are
   kept as numbers: errUlps and tolUlps in ulps of the dtype at x, relErr
   |got - x|/|x| (null for x = 0), digits -log10 relErr within [0, p log10 2]
   (p log10 2 for an exact match, 0 for a nonzero result where x = 0).  */
static void
record (ctx *c, const char *name, long idx, json_t *e, const double *got,
        int pass, int finite, const char *problem)
{
  json_t *o;
  mpfr_exp_t ue;
  double cap = c->prec * log10 (2.0), digits;
  if (c->rec == NULL)
    return;
  o = json_object ();
  ck_put (c, o, "output", json_string (name));
  ck_put (c, o, "index", idx >= 0 ? json_integer (idx) : json_null ());
  ck_put (c, o, "expected", e != NULL ? json_incref (json_object_get (e, "value"))
          : json_null ());
  if (got == NULL)
    ck_put (c, o, "got", json_null ());
  else if (isnan (*got))
    ck_put (c, o, "got", json_string ("nan"));
  else if (isinf (*got))
    ck_put (c, o, "got", json_string (*got > 0 ? "inf" : "-inf"));
  else
    ck_put (c, o, "got", json_real (*got));
  ck_put (c, o, "pass", json_boolean (pass));
  if (finite)
    {
      ue = ulp_exp (c);
      mpfr_mul_2si (c->w, c->d, (long) (c->prec - 1 - ue), MPFR_RNDN);
      ck_put (c, o, "errUlps", number_or_null (mpfr_get_d (c->w, MPFR_RNDN)));
      mpfr_mul_2si (c->w, c->t, (long) (c->prec - 1 - ue), MPFR_RNDN);
      ck_put (c, o, "tolUlps", number_or_null (mpfr_get_d (c->w, MPFR_RNDN)));
      if (mpfr_zero_p (c->d))
        {
          ck_put (c, o, "relErr", json_real (0.0));
          digits = cap;
        }
      else if (mpfr_zero_p (c->x))
        {
          ck_put (c, o, "relErr", json_null ());
          digits = 0.0;
        }
      else
        {
          mpfr_div (c->w, c->d, c->x, MPFR_RNDN);
          mpfr_abs (c->w, c->w, MPFR_RNDN);
          ck_put (c, o, "relErr", number_or_null (mpfr_get_d (c->w, MPFR_RNDN)));
          mpfr_log10 (c->w, c->w, MPFR_RNDN);
          digits = -mpfr_get_d (c->w, MPFR_RNDN);
          digits = digits > cap ? cap : digits > 0 ? digits : 0.0;
        }
      ck_put (c, o, "digits", json_real (digits));
    }
  else
    {
      ck_put (c, o, "errUlps", json_null ());
      ck_put (c, o, "tolUlps", json_null ());
      ck_put (c, o, "relErr", json_null ());
      ck_put (c, o, "digits", json_null ());
    }
  ck_put (c, o, "problem", problem != NULL ? json_string (problem) : json_null ());
  if (o == NULL || json_array_append_new (c->rec, o))
    c->oom = 1;
}

/* Judge expected value E of case K, output NAME[IDX], against GOT; print
   the line if SHOW (passing lines only when verbose); 1 when it passes.  */
static int
judge_element (ctx *c, const gcase *k, const char *name, long idx, json_t *e,
               double got, int show)
{
  json_t *v = json_object_get (e, "value"), *s;
  char xs[80], gs[40];
  int pass, finite = 0;
  ck_read_decimal (c->x, v);
  if (mpfr_nan_p (c->x))
    pass = isnan (got);
  else if (mpfr_inf_p (c->x))
    pass = isinf (got) && (got > 0) == (mpfr_sgn (c->x) > 0);
  else if (!isfinite (got))
    pass = 0;
  else
    {
      finite = 1;
      s = json_object_get (e, "sens");
      if (json_is_string (s))
        ck_read_decimal (c->t, s);
      else
        mpfr_set_d (c->t, json_number_value (s), MPFR_RNDN);
      if (mpfr_nan_p (c->t))    /* no sensitivity known: the strictest */
        mpfr_set_zero (c->t, 1);
      mpfr_set_d (c->y, got, MPFR_RNDN);
      mpfr_sub (c->d, c->y, c->x, MPFR_RNDN);
      mpfr_abs (c->d, c->d, MPFR_RNDN);
      /* t = U u (sens + |x|), |x| raised to the smallest normal lambda of
         the dtype when 0 < |x| < lambda (the underflow term of the rounding
         model: a result below lambda is only known to about u lambda);
         then the larger of t and rtol |x| */
      mpfr_abs (c->w, c->x, MPFR_RNDN);
      if (!mpfr_zero_p (c->w) && mpfr_cmp_ui_2exp (c->w, 1, c->emin) < 0)
        mpfr_set_ui_2exp (c->y, 1, c->emin, MPFR_RNDN);
      else
        mpfr_set (c->y, c->w, MPFR_RNDN);
      mpfr_add (c->t, c->t, c->y, MPFR_RNDU);
      mpfr_mul_d (c->t, c->t, c->ulps, MPFR_RNDU);
      mpfr_mul_2si (c->t, c->t, -(long) c->prec, MPFR_RNDU);
      if (c->have_rtol)
        {
          mpfr_mul_d (c->w, c->w, c->rtol, MPFR_RNDU);
          mpfr_max (c->t, c->t, c->w, MPFR_RNDU);
        }
      pass = mpfr_lessequal_p (c->d, c->t);
      if (!k->numerical)
        note_digits (c);
    }
  record (c, name, idx, e, &got, pass, finite, NULL);
  if (!show || (pass && !c->verbose))
    return pass;
  shorten (json_string_value (v), xs, sizeof xs);
  format_got (got, gs, sizeof gs);
  line_start (c, k, pass, name, idx);
  fprintf (c->out, "expected %s got %s", xs, gs);
  if (finite)
    print_measures (c);
  line_end (c, k, pass);
  return pass;
}

/* Whether the candidate outputs OUT hold a NaN anywhere.  */
static int
nan_output (json_t *out)
{
  const char *name;
  json_t *v, *e;
  size_t i;
  double g;
  json_object_foreach (out, name, v)
    {
      if (!json_is_array (v))
        {
          if (ck_cand_number (v, &g) == 0 && isnan (g))
            return 1;
          continue;
        }
      json_array_foreach (v, i, e)
        if (ck_cand_number (e, &g) == 0 && isnan (g))
          return 1;
    }
  return 0;
}

/* Judge the outputs of case K against the candidate's OUT; 1: all pass.  */
static int
judge_outputs (ctx *c, const gcase *k, json_t *out, int show)
{
  json_t *exp = json_object_get (k->test, "outputs"), *ev, *cv;
  const char *name;
  char msg[120];
  size_t i, n;
  int ok = 1, p;
  double g;
  json_object_foreach (exp, name, ev)
    {
      cv = json_object_get (out, name);
      if (cv == NULL)
        {
          if (show)
            line (c, k, 0, name, -1, "missing output", NULL);
          record (c, name, -1, NULL, NULL, 0, 0, "missing output");
          ok = 0;
        }
      else if (json_is_array (ev) != json_is_array (cv))
        {
          if (json_is_array (ev))
            snprintf (msg, sizeof msg, "expected an array of %zu values, "
                      "got a single value", json_array_size (ev));
          else
            snprintf (msg, sizeof msg, "expected a single value, got an "
                      "array of %zu", json_array_size (cv));
          if (show)
            line (c, k, 0, name, -1, msg, NULL);
          record (c, name, -1, NULL, NULL, 0, 0, msg);
          ok = 0;
        }
      else if (!json_is_array (ev))
        {
          ck_cand_number (cv, &g);
          ok &= judge_element (c, k, name, -1, ev, g, show);
        }
      else if ((n = json_array_size (ev)) != json_array_size (cv))
        {
          snprintf (msg, sizeof msg, "length %zu, expected %zu",
                    json_array_size (cv), n);
          if (show)
            line (c, k, 0, name, -1, msg, NULL);
          record (c, name, -1, NULL, NULL, 0, 0, msg);
          ok = 0;
        }
      else
        for (i = 0; i < n; i++)
          {
            ck_cand_number (json_array_get (cv, i), &g);
            p = judge_element (c, k, name, (long) i, json_array_get (ev, i), g,
                               show);
            ok &= p;
          }
    }
  if (ok && show && c->verbose && json_object_size (exp) == 0)
    line (c, k, 1, NULL, -1, "no outputs to compare", NULL);
  return ok;
}

/* Judge case K; print its lines to c->out if SHOW; the status.  */
enum status
ck_judge_case (ctx *c, const gcase *k, int show)
{
  json_t *gerr = json_object_get (k->test, "error");
  json_t *cerr = k->res ? json_object_get (k->res, "error") : NULL;
  const char *ge = json_string_value (gerr), *ce = json_string_value (cerr);
  enum status miss = k->kind == K_ACCEPTABLE ? S_NOTE : S_FAIL;
  if (k->res == NULL)
    {
      if (show)
        line (c, k, 0, NULL, -1, "missing", NULL);
      return miss;
    }
  if (k->kind == K_INVALID && ce != NULL)
    {
      if (show && ge != NULL && strcmp (ge, ce) != 0)
        {
          line_start (c, k, 1, NULL, -1);
          fputs ("rejected with \"", c->out);
          ck_print_clean (c->out, ce);
          fputs ("\" (the golden names \"", c->out);
          ck_print_clean (c->out, ge);
          fputs ("\")\n", c->out);
        }
      else if (show && c->verbose)
        line (c, k, 1, NULL, -1, "rejected with", ce);
      return S_PASS;
    }
  if (k->kind == K_INVALID && nan_output (json_object_get (k->res, "outputs")))
    {
      /* library code signals a rejected input by NaN: taken as the
         rejection */
      if (show && c->verbose)
        line (c, k, 1, NULL, -1, "gave NaN, taken as the rejection", ge);
      return S_PASS;
    }
  if (k->kind == K_INVALID)
    {
      if (show)
        line (c, k, 0, NULL, -1, "gave outputs; the golden expects a "
              "rejection with", ge ? ge : "an error");
      return S_FAIL;
    }
  if (ce != NULL)
    {
      if (show)
        line (c, k, 0, NULL, -1, "rejected the input with", ce);
      return miss;
    }
  if (judge_outputs (c, k, json_object_get (k->res, "outputs"), show))
    return S_PASS;
  return miss;
}

/* Judge every case of the variant named SEL (NULL: of all variants),
   printing as SHOW says; with COUNT, count the results into the variants.  */
void
ck_judge_all (ctx *c, const char *sel, int show, int count)
{
  size_t i;
  variant *v;
  enum status s;
  for (i = 0; i < c->ncases; i++)
    {
      v = &c->vars[c->cases[i].var];
      if (sel != NULL && strcmp (sel, v->name) != 0)
        continue;
      s = ck_judge_case (c, &c->cases[i], show);
      if (!count)
        continue;
      v->nrun += c->cases[i].res != NULL;
      v->passed += s == S_PASS;
      v->failed += s == S_FAIL;
      v->failed_numerical += s == S_FAIL && c->cases[i].numerical;
      v->noted += s == S_NOTE;
    }
}
