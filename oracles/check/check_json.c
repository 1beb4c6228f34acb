/* check_json.c -- "rlref check --format json": the whole report as one JSON
   object on standard output, described by report.schema.json next to this
   file.  It holds the options of the run; every golden case (of the variant
   of --variant only, when given) with its status against its own variant
   and the comparisons of its outputs; every variant with its counts and
   verdict; every part with the variants the candidate follows; the
   precision diagnosis; the closing counts and the exit status; and the
   text report itself.  */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"

#define REPORT_VERSION 1        /* of the JSON report (report.schema.json) */

/* Append the new reference V to the array A; a failure sets c->oom.  */
static void
push (ctx *c, json_t *a, json_t *v)
{
  if (a == NULL || json_array_append_new (a, v))
    c->oom = 1;
}

/* A new JSON string S (bytes that are not UTF-8, as in a file name, as
   '?'), or null when S is NULL; NULL without memory.  */
static json_t *
text_json (const char *s)
{
  json_t *j;
  char *t;
  if (s == NULL)
    return json_null ();
  if ((j = json_string (s)) != NULL || (t = strdup (s)) == NULL)
    return j;
  for (size_t i = 0; t[i] != '\0'; i++)
    if ((unsigned char) t[i] >= 0x80)
      t[i] = '?';
  j = json_string (t);
  free (t);
  return j;
}

/* A new reference to V, or null when V is NULL.  */
static json_t *
ref_or_null (json_t *v)
{
  return v != NULL ? json_incref (v) : json_null ();
}

/* The judged variant of part P (counted in the closing line), or NULL.  */
static const variant *
judged_of (const ctx *c, size_t p)
{
  for (size_t i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && c->vars[i].judged)
      return &c->vars[i];
  return NULL;
}

/* Whether part P holds a variant in scope.  */
static int
part_in_scope (const ctx *c, size_t p)
{
  for (size_t i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && ck_in_scope (c, &c->vars[i]))
      return 1;
  return 0;
}

/* The verdict on variant V: not-judged (outside --variant), not-run (no
   result for any of its cases), match, match-but-numerical (fails only
   numerically demanding cases) or no-match.  */
static const char *
variant_verdict (const ctx *c, const variant *v)
{
  if (!ck_in_scope (c, v))
    return "not-judged";
  if (v->nrun == 0)
    return "not-run";
  return ck_matches (v) ? "match" : ck_matches_convention (v)
    ? "match-but-numerical" : "no-match";
}

/* The object of variant V.  */
static json_t *
variant_json (ctx *c, const variant *v)
{
  json_t *o = json_object (), *d = json_null ();
  ck_put (c, o, "variant", json_string (v->name));
  ck_put (c, o, "part", text_json (v->part_name));
  ck_put (c, o, "cases", json_integer ((json_int_t) v->ncases));
  ck_put (c, o, "run", json_integer ((json_int_t) v->nrun));
  ck_put (c, o, "passed", json_integer ((json_int_t) v->passed));
  ck_put (c, o, "failed", json_integer ((json_int_t) v->failed));
  ck_put (c, o, "noted", json_integer ((json_int_t) v->noted));
  ck_put (c, o, "failedNumerical", json_integer ((json_int_t) v->failed_numerical));
  ck_put (c, o, "judged", json_boolean (v->judged));
  ck_put (c, o, "verdict", json_string (variant_verdict (c, v)));
  if (v->diag_dtype != NULL)
    {
      d = json_object ();
      ck_put (c, d, "dtype", json_string (v->diag_dtype));
      ck_put (c, d, "declared", json_string (c->dtype));
      ck_put (c, d, "digits", json_real (v->diag_digits));
      ck_put (c, d, "failed", json_integer ((json_int_t) v->diag_failed));
    }
  ck_put (c, o, "diagnosis", d);
  return o;
}

/* The object of part P; the names of the variants it follows are appended
   to FOLLOWS, those it follows but for numerical cases to CONV.  */
static json_t *
part_json (ctx *c, size_t p, json_t *follows, json_t *conv)
{
  json_t *o = json_object (), *inputs = json_array (), *vars = json_array ();
  json_t *f = json_array (), *fc = json_array (), *val;
  const variant *judged = judged_of (c, p), *first = NULL;
  const char *key, *verdict;
  size_t i;
  for (i = 0; i < c->nvars; i++)
    {
      const variant *v = &c->vars[i];
      if (v->part != p)
        continue;
      if (first == NULL)
        first = v;
      push (c, vars, json_string (v->name));
      if (!ck_in_scope (c, v))
        continue;
      if (ck_matches (v))
        {
          push (c, f, json_string (v->name));
          push (c, follows, json_string (v->name));
        }
      else if (ck_matches_convention (v))
        {
          push (c, fc, json_string (v->name));
          push (c, conv, json_string (v->name));
        }
    }
  if (first != NULL)
    json_object_foreach (first->inputs, key, val)
      push (c, inputs, json_string (key));
  if (!part_in_scope (c, p))
    verdict = "not-judged";
  else if (json_array_size (f) > 0)
    verdict = "follows";
  else if (json_array_size (fc) > 0)
    verdict = "follows-convention";
  else if (judged == NULL || judged->nrun == 0)
    verdict = "not-run";
  else
    verdict = "no-match";
  ck_put (c, o, "part", text_json (first != NULL ? first->part_name : NULL));
  ck_put (c, o, "inputs", inputs);
  ck_put (c, o, "variants", vars);
  ck_put (c, o, "judged", text_json (judged != NULL ? judged->name : NULL));
  ck_put (c, o, "verdict", json_string (verdict));
  ck_put (c, o, "follows", f);
  ck_put (c, o, "followsConvention", fc);
  ck_put (c, o, "closest", strcmp (verdict, "no-match") == 0
          ? json_string (judged->name) : json_null ());
  return o;
}

/* The name of status S.  */
static const char *
status_name (enum status s)
{
  return s == S_PASS ? "pass" : s == S_NOTE ? "note" : "fail";
}

/* The object of case K.  */
static json_t *
case_json (ctx *c, const gcase *k)
{
  static const char *const kinds[] = { "valid", "acceptable", "invalid" };
  json_t *o = json_object (), *flags = json_object_get (k->test, "flags");
  json_t *cerr = k->res ? json_object_get (k->res, "error") : NULL;
  const char *comment = json_string_value (json_object_get (k->test, "comment"));
  ck_put (c, o, "tcId", json_integer (k->tcid));
  ck_put (c, o, "variant", json_string (c->vars[k->var].name));
  ck_put (c, o, "comment", json_string (comment != NULL ? comment : ""));
  ck_put (c, o, "flags", flags != NULL ? json_deep_copy (flags) : json_array ());
  ck_put (c, o, "result", json_string (kinds[k->kind]));
  ck_put (c, o, "numerical", json_boolean (k->numerical));
  ck_put (c, o, "counted", json_boolean (c->vars[k->var].judged));
  ck_put (c, o, "status", json_string (status_name (k->st)));
  ck_put (c, o, "answer", json_string (k->res == NULL ? "missing"
                                       : cerr != NULL ? "error" : "outputs"));
  ck_put (c, o, "error", ref_or_null (cerr));
  ck_put (c, o, "expectedError",
          ref_or_null (json_object_get (k->test, "error")));
  ck_put (c, o, "outputs", k->elems != NULL ? json_incref (k->elems) : json_array ());
  ck_put (c, o, "message", text_json (k->msg != NULL ? k->msg : ""));
  return o;
}

/* Write the JSON report of the run (exit status RC, text report TEXT) to
   standard output; 0, or 2 when it cannot be written.  */
int
ck_write_json (ctx *c, int rc, const char *text)
{
  json_t *root = json_object (), *parts = json_array (), *vars = json_array ();
  json_t *cases = json_array (), *follows = json_array (), *conv = json_array ();
  json_t *diag = json_array (), *sum = json_object (), *d;
  const char *formula = json_string_value (json_object_get (c->golden, "formula"));
  size_t i;
  int bad;
  ck_put (c, root, "report", json_string ("rlref check"));
  ck_put (c, root, "reportVersion", json_integer (REPORT_VERSION));
  ck_put (c, root, "golden", text_json (c->gpath));
  ck_put (c, root, "candidate", text_json (c->cpath));
  ck_put (c, root, "formula", text_json (formula));
  ck_put (c, root, "dtype", json_string (c->dtype));
  ck_put (c, root, "ulps", json_real (c->ulps));
  ck_put (c, root, "rtol", c->have_rtol ? json_real (c->rtol) : json_null ());
  ck_put (c, root, "variant", text_json (c->only));
  ck_put (c, root, "unknownResults", json_integer ((json_int_t) c->unknown));
  for (i = 0; i < c->nparts; i++)
    push (c, parts, part_json (c, i, follows, conv));
  for (i = 0; i < c->nvars; i++)
    {
      push (c, vars, variant_json (c, &c->vars[i]));
      if (c->vars[i].diag_dtype == NULL)
        continue;
      d = json_object ();
      ck_put (c, d, "variant", json_string (c->vars[i].name));
      ck_put (c, d, "dtype", json_string (c->vars[i].diag_dtype));
      ck_put (c, d, "declared", json_string (c->dtype));
      ck_put (c, d, "digits", json_real (c->vars[i].diag_digits));
      ck_put (c, d, "failed", json_integer ((json_int_t) c->vars[i].diag_failed));
      push (c, diag, d);
    }
  for (i = 0; i < c->ncases; i++)
    if (ck_in_scope (c, &c->vars[c->cases[i].var]))
      push (c, cases, case_json (c, &c->cases[i]));
  ck_put (c, sum, "passed", json_integer ((json_int_t) c->sum_passed));
  ck_put (c, sum, "failed", json_integer ((json_int_t) c->sum_failed));
  ck_put (c, sum, "noted", json_integer ((json_int_t) c->sum_noted));
  ck_put (c, sum, "exitStatus", json_integer (rc));
  ck_put (c, root, "follows", follows);
  ck_put (c, root, "followsConvention", conv);
  ck_put (c, root, "diagnosis", diag);
  ck_put (c, root, "summary", sum);
  ck_put (c, root, "parts", parts);
  ck_put (c, root, "variants", vars);
  ck_put (c, root, "cases", cases);
  ck_put (c, root, "text", text_json (text != NULL ? text : ""));
  if (c->oom)
    {
      json_decref (root);
      fprintf (stderr, "rlref check: out of memory writing the JSON report\n");
      return 2;
    }
  errno = 0;
  bad = json_dumpf (root, stdout, JSON_INDENT (1)) != 0;
  json_decref (root);
  bad |= putchar ('\n') == EOF;
  bad |= fflush (stdout) != 0 || ferror (stdout);
  if (bad)
    {
      fprintf (stderr, "rlref check: cannot write the JSON report: %s\n",
               errno ? strerror (errno) : "write error");
      return 2;
    }
  return 0;
}
