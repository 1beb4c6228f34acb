/* check_json.c -- "rlref check --format json": the record of the run as one
   JSON object on standard output, described by report.schema.json next to
   this file: the options; the outputs judged; every part with the variant
   named first, its class and accuracy, the variants also consistent with
   the candidate, its input validation and its explanation; every variant
   with its counts and class; every case with its comparisons; the closing
   counts and the exit status; and the text report itself.  It renders the
   record; it judges nothing.  */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"

#define REPORT_VERSION 2        /* of the JSON report (report.schema.json) */

/* Append the new reference v to the array a; a failure sets c->oom.  */
static void
push (ctx *c, json_t *a, json_t *v)
{
  if (a == NULL || json_array_append_new (a, v))
    c->oom = 1;
}

/* A new JSON string s (bytes that are not UTF-8, as in a file name, as
   '?'), or null when s is NULL; NULL without memory.  */
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

/* A JSON string of the new text s (freed here), or null when s is NULL.  */
static json_t *
owned_text (char *s)
{
  json_t *j = text_json (s);
  free (s);
  return j;
}

/* A new reference to v, or null when v is NULL.  */
static json_t *
ref_or_null (json_t *v)
{
  return v != NULL ? json_incref (v) : json_null ();
}

/* A new JSON number for x; null when x is not finite.  */
static json_t *
number_or_null (double x)
{
  return isfinite (x) ? json_real (x) : json_null ();
}

/* The names of the set s as a new array.  */
static json_t *
names_of (ctx *c, json_t *s)
{
  json_t *a = json_array (), *v;
  const char *name;
  json_object_foreach (s, name, v)
    push (c, a, json_string (name));
  return a;
}

/* The object of element e at the declared level.  */
static json_t *
element_json (ctx *c, const elem *e)
{
  json_t *o = json_object ();
  int l = c->level;
  double cap = ck_dtypes[l].prec * log10 (2.0), tol;
  ck_put (c, o, "output", json_string (e->output));
  ck_put (c, o, "index", e->index >= 0 ? json_integer (e->index) : json_null ());
  ck_put (c, o, "expected", e->expected != NULL
          ? json_incref (json_object_get (e->expected, "value")) : json_null ());
  if (!e->has_got)
    ck_put (c, o, "got", json_null ());
  else if (isnan (e->got))
    ck_put (c, o, "got", json_string ("nan"));
  else if (isinf (e->got))
    ck_put (c, o, "got", json_string (e->got > 0 ? "inf" : "-inf"));
  else
    ck_put (c, o, "got", json_real (e->got));
  ck_put (c, o, "pass", json_boolean (ck_elem_pass (c, e, l)));
  if (e->kind == E_FINITE)
    {
      tol = c->ulps * e->base_ulps[l];
      if (c->have_rtol && c->rtol * e->x_ulps[l] > tol)
        tol = c->rtol * e->x_ulps[l];
      ck_put (c, o, "errUlps", number_or_null (e->err_ulps[l]));
      ck_put (c, o, "tolUlps", number_or_null (tol));
      ck_put (c, o, "relErr", number_or_null (e->rel));
      ck_put (c, o, "digits", json_real (e->rel == 0 ? cap
                                         : e->digits > cap ? cap : e->digits));
      ck_put (c, o, "q", number_or_null (e->q[l]));
    }
  else
    {
      ck_put (c, o, "errUlps", json_null ());
      ck_put (c, o, "tolUlps", json_null ());
      ck_put (c, o, "relErr", json_null ());
      ck_put (c, o, "digits", json_null ());
      ck_put (c, o, "q", json_null ());
    }
  ck_put (c, o, "problem", e->problem != NULL ? json_string (e->problem) : json_null ());
  return o;
}

/* The status of case k at the declared level, for the report.  */
static const char *
case_status (const ctx *c, const gcase *k)
{
  static const char *const names[] = { "pass", "fail", "note", "skip" };
  if (k->kind == K_INVALID)
    return k->answer == A_ERROR ? "pass" : k->answer == A_SKIP ? "skip" : "fail";
  return names[k->st[c->level]];
}

/* How the candidate treats must-reject case k, or NULL for another case.  */
static const char *
validation_of (const gcase *k)
{
  if (k->kind != K_INVALID)
    return NULL;
  if (k->answer == A_ERROR)
    return "rejected";
  if (k->answer == A_MISSING)
    return "missing";
  if (k->answer == A_SKIP)
    return "skipped";
  return k->nonfinite_out ? "accepted-nonfinite" : "accepted";
}

/* The object of case k.  */
static json_t *
case_json (ctx *c, const gcase *k)
{
  static const char *const kinds[] = { "valid", "acceptable", "invalid" };
  json_t *o = json_object (), *flags = json_object_get (k->test, "flags");
  json_t *els = json_array ();
  const char *comment = json_string_value (json_object_get (k->test, "comment"));
  ck_put (c, o, "tcId", json_integer (k->tcid));
  ck_put (c, o, "variant", json_string (c->vars[k->var].name));
  ck_put (c, o, "comment", json_string (comment != NULL ? comment : ""));
  ck_put (c, o, "flags", flags != NULL ? json_deep_copy (flags) : json_array ());
  ck_put (c, o, "result", json_string (kinds[k->kind]));
  ck_put (c, o, "numerical", json_boolean (k->numerical));
  ck_put (c, o, "counted", json_boolean (ck_counted (c, k)
                                         && (k->kind != K_INVALID || c->strict)));
  ck_put (c, o, "status", json_string (case_status (c, k)));
  ck_put (c, o, "answer", json_string (k->answer == A_MISSING ? "missing"
                                       : k->answer == A_ERROR ? "error"
                                       : k->answer == A_SKIP ? "skip" : "outputs"));
  ck_put (c, o, "error", k->cand_error != NULL && k->answer == A_ERROR
          ? json_string (k->cand_error) : json_null ());
  ck_put (c, o, "skip", k->answer == A_SKIP ? json_string (k->cand_error) : json_null ());
  ck_put (c, o, "omitted", k->res && json_object_get (k->res, "omitted")
          ? json_deep_copy (json_object_get (k->res, "omitted")) : json_object ());
  ck_put (c, o, "expectedError", ref_or_null (json_object_get (k->test, "error")));
  ck_put (c, o, "validation", validation_of (k) ? json_string (validation_of (k))
          : json_null ());
  ck_put (c, o, "beyondFloat32", json_boolean (k->beyond32));
  for (size_t i = 0; i < k->nel; i++)
    push (c, els, element_json (c, &k->el[i]));
  ck_put (c, o, "outputs", els);
  ck_put (c, o, "message", owned_text (ck_case_text (c, k, c->verbose)));
  return o;
}

/* The object of variant v.  */
static json_t *
variant_json (ctx *c, const variant *v)
{
  json_t *o = json_object (), *levels = json_object ();
  const tally *t = &v->t[c->level];
  ck_put (c, o, "variant", json_string (v->name));
  ck_put (c, o, "part", text_json (v->part_name));
  ck_put (c, o, "cases", json_integer ((json_int_t) v->ncases));
  ck_put (c, o, "valid", json_integer ((json_int_t) v->nvalid));
  ck_put (c, o, "invalid", json_integer ((json_int_t) v->ninvalid));
  ck_put (c, o, "run", json_integer ((json_int_t) t->run));
  ck_put (c, o, "passed", json_integer ((json_int_t) t->passed));
  ck_put (c, o, "failed", json_integer ((json_int_t) t->failed));
  ck_put (c, o, "noted", json_integer ((json_int_t) t->noted));
  ck_put (c, o, "notJudged", json_integer ((json_int_t) t->skipped));
  ck_put (c, o, "failedNumerical", json_integer ((json_int_t) t->failed_numerical));
  ck_put (c, o, "judged", json_boolean (c->parts[v->part].answer
                                        == (size_t) (v - c->vars)));
  ck_put (c, o, "inScope", json_boolean (ck_in_scope (c, v)));
  ck_put (c, o, "class", json_string (ck_class_name (v->cls)));
  ck_put (c, o, "dtype", json_string (ck_dtypes[v->level].name));
  ck_put (c, o, "digits", json_real (v->t[v->level].digits));
  ck_put (c, o, "rank", ck_in_scope (c, v) ? json_integer ((json_int_t) v->rank)
          : json_null ());
  ck_put (c, o, "rejected", json_integer ((json_int_t) v->rejected));
  ck_put (c, o, "accepted", json_integer ((json_int_t) v->accepted));
  ck_put (c, o, "rejectedValid", json_integer ((json_int_t) v->rejected_valid));
  for (int l = c->level; l < NLEVELS; l++)
    {
      json_t *lv = json_object ();
      ck_put (c, lv, "passed", json_integer ((json_int_t) v->t[l].passed));
      ck_put (c, lv, "failed", json_integer ((json_int_t) v->t[l].failed));
      ck_put (c, lv, "failedNumerical",
              json_integer ((json_int_t) v->t[l].failed_numerical));
      ck_put (c, lv, "notJudged", json_integer ((json_int_t) v->t[l].skipped));
      ck_put (c, lv, "worstQ", number_or_null (v->t[l].worst_q));
      ck_put (c, lv, "digits", json_real (v->t[l].digits));
      ck_put (c, levels, ck_dtypes[l].name, lv);
    }
  ck_put (c, o, "levels", levels);
  return o;
}

/* The input validation of answer ai as an object.  */
static json_t *
validation_json (ctx *c, size_t ai)
{
  const variant *a = &c->vars[ai];
  json_t *o = json_object (), *acc = json_array (), *miss = json_array ();
  json_t *by = json_object ();
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      json_t *g, *entry;
      size_t j;
      const char *first = NULL;
      if (k->var != ai || k->kind != K_INVALID || k->answer == A_ERROR
          || k->answer == A_SKIP)
        continue;
      if (k->answer == A_MISSING)
        {
          push (c, miss, json_integer (k->tcid));
          continue;
        }
      push (c, acc, json_integer (k->tcid));
      json_array_foreach (json_object_get (k->test, "flags"), j, g)
        if (first == NULL && ck_invalid_note (c, json_string_value (g)) != NULL)
          first = json_string_value (g);
      if (first == NULL)
        first = "";
      if ((entry = json_object_get (by, first)) == NULL)
        {
          entry = json_object ();
          ck_put (c, entry, "flag", *first ? json_string (first) : json_null ());
          ck_put (c, entry, "description", text_json (ck_invalid_note (c, first)));
          ck_put (c, entry, "tcIds", json_array ());
          ck_put (c, by, first, entry);
        }
      push (c, json_object_get (entry, "tcIds"), json_integer (k->tcid));
    }
  ck_put (c, o, "variant", json_string (a->name));
  ck_put (c, o, "mustReject", json_integer ((json_int_t) a->ninvalid));
  ck_put (c, o, "rejected", json_integer ((json_int_t) a->rejected));
  ck_put (c, o, "accepted", acc);
  ck_put (c, o, "acceptedNonfinite", json_integer ((json_int_t) a->accepted_nonfinite));
  ck_put (c, o, "missing", miss);
  {
    json_t *list = json_array (), *v;
    const char *key;
    json_object_foreach (by, key, v)
      push (c, list, json_incref (v));
    ck_put (c, o, "byReason", list);
  }
  json_decref (by);
  ck_put (c, o, "counted", json_boolean (c->strict));
  ck_put (c, o, "text", owned_text (ck_validation_line (c, c->vars[ai].part)));
  return o;
}

/* The object of part p.  */
static json_t *
part_json (ctx *c, size_t p)
{
  const part *pt = &c->parts[p];
  const variant *a = ck_answer (c, p), *first = NULL;
  json_t *o = json_object (), *inputs = json_array (), *vars = json_array ();
  json_t *also = json_array (), *order = json_array (), *val;
  const char *key;
  for (size_t i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p)
      {
        if (first == NULL)
          first = &c->vars[i];
        push (c, vars, json_string (c->vars[i].name));
      }
  if (first != NULL)
    json_object_foreach (first->inputs, key, val)
      push (c, inputs, json_string (key));
  for (size_t r = 0; r < pt->norder; r++)
    {
      const variant *v = &c->vars[pt->order[r]];
      push (c, order, json_string (v->name));
      if (r > 0 && a != NULL && a->cls <= C_LOWER16
          && v->cls <= (a->cls == C_LOWER16 ? C_LOWER16 : C_LOWER32))
        {
          json_t *e = json_object ();
          ck_put (c, e, "variant", json_string (v->name));
          ck_put (c, e, "class", json_string (ck_class_name (v->cls)));
          ck_put (c, e, "dtype", json_string (ck_dtypes[v->level].name));
          push (c, also, e);
        }
    }
  ck_put (c, o, "part", text_json (first != NULL ? first->part_name : NULL));
  ck_put (c, o, "inputs", inputs);
  ck_put (c, o, "variants", vars);
  ck_put (c, o, "order", order);
  ck_put (c, o, "judged", a != NULL ? json_string (a->name) : json_null ());
  if (pt->norder == 0)
    ck_put (c, o, "verdict", json_string ("not-judged"));
  else if (a == NULL)
    ck_put (c, o, "verdict", json_string ("not-run"));
  else
    ck_put (c, o, "verdict", json_string (ck_class_name (a->cls)));
  ck_put (c, o, "answer", a != NULL && a->cls <= C_LOWER16 ? json_string (a->name)
          : json_null ());
  ck_put (c, o, "dtype", a != NULL && a->cls <= C_LOWER16
          ? json_string (ck_dtypes[a->level].name) : json_null ());
  ck_put (c, o, "digits", a != NULL && a->cls <= C_LOWER16
          ? json_real (a->t[a->level].digits) : json_null ());
  ck_put (c, o, "nearest", a != NULL && a->cls == C_NONE ? json_string (a->name)
          : json_null ());
  ck_put (c, o, "alsoConsistent", also);
  ck_put (c, o, "line", pt->norder ? owned_text (ck_verdict_line (c, p)) : json_null ());
  ck_put (c, o, "validation", a != NULL && a->ninvalid > 0
          ? validation_json (c, pt->answer) : json_null ());
  ck_put (c, o, "explanation", ck_explain_json (c, p));
  return o;
}

/* Write the JSON report (text report text) to standard output; 0 or 2.  */
int
ck_write_json (ctx *c, const char *text)
{
  json_t *root = json_object (), *parts = json_array (), *vars = json_array ();
  json_t *cases = json_array (), *follows = json_array (), *conv = json_array ();
  json_t *diag = json_array (), *sum = json_object (), *outs = json_object ();
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
  ck_put (c, root, "strict", json_boolean (c->strict));
  ck_put (c, root, "unknownResults", json_integer ((json_int_t) c->unknown));
  ck_put (c, outs, "judged", names_of (c, c->judged_outputs));
  ck_put (c, outs, "notJudged", names_of (c, c->ungiven_outputs));
  ck_put (c, root, "outputs", outs);
  for (i = 0; i < c->nparts; i++)
    {
      const variant *a = ck_answer (c, i);
      push (c, parts, part_json (c, i));
      if (a == NULL)
        continue;
      if (a->cls == C_MATCH)
        push (c, follows, json_string (a->name));
      else if (a->cls == C_CONVENTION)
        push (c, conv, json_string (a->name));
      else if (a->cls == C_LOWER32 || a->cls == C_LOWER16)
        {
          json_t *d = json_object ();
          ck_put (c, d, "variant", json_string (a->name));
          ck_put (c, d, "dtype", json_string (ck_dtypes[a->level].name));
          ck_put (c, d, "declared", json_string (c->dtype));
          ck_put (c, d, "digits", json_real (a->t[a->level].digits));
          ck_put (c, d, "failed", json_integer ((json_int_t) a->t[a->level].failed));
          push (c, diag, d);
        }
    }
  for (i = 0; i < c->nvars; i++)
    push (c, vars, variant_json (c, &c->vars[i]));
  for (i = 0; i < c->ncases; i++)
    if (ck_in_scope (c, &c->vars[c->cases[i].var]))
      push (c, cases, case_json (c, &c->cases[i]));
  ck_put (c, sum, "passed", json_integer ((json_int_t) c->sum_passed));
  ck_put (c, sum, "failed", json_integer ((json_int_t) c->sum_failed));
  ck_put (c, sum, "noted", json_integer ((json_int_t) c->sum_noted));
  ck_put (c, sum, "exitStatus", json_integer (c->rc));
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
