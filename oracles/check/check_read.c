/* check_read.c -- reading and validating the golden and candidate files of
   "rlref check", in full, before anything is judged.  */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "check_impl.h"
#include "core/jsonio.h"

/* Load the JSON file path ("-": standard input); NULL after a message.
   Read as every file of rlref is (rl_json_load: whole, a byte-order mark
   skipped, a key given twice refused).  */
json_t *
ck_load_json (const char *path)
{
  char err[300];
  json_error_t e;
  json_t *j = rl_json_load (path, err, sizeof err, &e);
  if (j == NULL)
    ck_bad (path, "%s%s", err, strncmp (e.text, "invalid token", 13) == 0
            ? "; write NaN and infinities as the strings \"nan\", \"inf\", \"-inf\"" : "");
  return j;
}

/* Whether the JSON string v holds no NUL byte and no leading space.  */
static int
plain_string (json_t *v)
{
  const char *s = json_string_value (v);
  return s != NULL && strlen (s) == json_string_length (v) && s[0] != '\0'
    && !isspace ((unsigned char) s[0]);
}

/* Read the decimal string v (or "nan", "inf", "-inf") into x; 0 or -1.  */
int
ck_read_decimal (mpfr_t x, json_t *v)
{
  const char *s = json_string_value (v);
  char *end;
  if (!plain_string (v))
    return -1;
  mpfr_clear_flags ();
  mpfr_strtofr (x, s, &end, 10, MPFR_RNDN);
  if (*end != '\0')
    return -1;
  if (mpfr_inf_p (x) && mpfr_overflow_p ())
    return -1;
  return 0;
}

/* Read the candidate's number v (JSON number or string) into *g; 0 or -1.  */
int
ck_cand_number (json_t *v, double *g)
{
  char *end;
  if (json_is_integer (v))
    *g = (double) json_integer_value (v);
  else if (json_is_real (v))
    *g = json_real_value (v);
  else if (!plain_string (v))
    return -1;
  else
    {
      *g = strtod (json_string_value (v), &end);
      if (*end != '\0')
        return -1;
    }
  return 0;
}

/* Check the expected-value object e at where in the golden; 0 or 2.  */
static int
check_expected (ctx *c, json_t *e, const char *where)
{
  json_t *v, *s, *dg;
  if (!json_is_object (e))
    return ck_bad (c->gpath, "%s: an expected value must be an object", where);
  v = json_object_get (e, "value");
  if (!json_is_string (v))
    return ck_bad (c->gpath, "%s: \"value\" must be a decimal string", where);
  if (ck_read_decimal (c->x, v))
    return ck_bad (c->gpath, "%s: \"value\" \"%.40s\" is not a decimal number",
                where, json_string_value (v));
  dg = json_object_get (e, "digits");
  if (dg != NULL && !json_is_integer (dg))
    return ck_bad (c->gpath, "%s: \"digits\" must be an integer", where);
  if (!mpfr_number_p (c->x))
    return 0;
  s = json_object_get (e, "sens");
  if (json_is_string (s))
    {
      if (ck_read_decimal (c->t, s) || !mpfr_number_p (c->t) || mpfr_sgn (c->t) < 0)
        return ck_bad (c->gpath, "%s: \"sens\" must be a finite decimal >= 0", where);
    }
  else if (s == NULL)
    return ck_bad (c->gpath, "%s: \"sens\" is missing", where);
  else if (!json_is_number (s) || !isfinite (json_number_value (s))
           || json_number_value (s) < 0)
    return ck_bad (c->gpath, "%s: \"sens\" must be a decimal string >= 0", where);
  return 0;
}

/* Check the "outputs" object o of a golden test at where; 0 or 2.  */
static int
check_outputs (ctx *c, json_t *o, const char *where)
{
  const char *name;
  json_t *v, *e;
  size_t i;
  char at[200];
  if (!json_is_object (o))
    return ck_bad (c->gpath, "%s: \"outputs\" must be an object", where);
  json_object_foreach (o, name, v)
    {
      if (!json_is_array (v))
        {
          snprintf (at, sizeof at, "%s output %.40s", where, name);
          if (check_expected (c, v, at))
            return 2;
          continue;
        }
      json_array_foreach (v, i, e)
        {
          snprintf (at, sizeof at, "%s output %.40s[%zu]", where, name, i);
          if (check_expected (c, e, at))
            return 2;
        }
    }
  return 0;
}

/* Find or add the variant name; its index, or (size_t) -1 without memory.  */
static size_t
variant_index (ctx *c, json_t *map, const char *name)
{
  json_t *known = json_object_get (map, name);
  variant *v;
  if (known != NULL)
    return (size_t) json_integer_value (known);
  v = realloc (c->vars, (c->nvars + 1) * sizeof *v);
  if (v == NULL)
    return (size_t) -1;
  c->vars = v;
  memset (&v[c->nvars], 0, sizeof *v);
  v[c->nvars].name = name;
  v[c->nvars].inputs = json_object ();
  if (v[c->nvars].inputs == NULL
      || json_object_set_new (map, name, json_integer ((json_int_t) c->nvars)))
    {
      json_decref (v[c->nvars].inputs);
      return (size_t) -1;
    }
  return c->nvars++;
}

/* Whether an expected value of the outputs o is certified as a binary32
   emulation (its variant models binary32 arithmetic, overflow included).  */
static int
emulates32 (json_t *o)
{
  const char *name, *cert;
  json_t *v, *e;
  size_t i, n;
  json_object_foreach (o, name, v)
    {
      n = json_is_array (v) ? json_array_size (v) : 1;
      for (i = 0; i < n; i++)
        {
          e = json_is_array (v) ? json_array_get (v, i) : v;
          cert = json_string_value (json_object_get (e, "cert"));
          if (cert != NULL && strcmp (cert, "float32-emulation") == 0)
            return 1;
        }
    }
  return 0;
}

/* Check test t (group gi, test ti) of variant var and record it; 0 or 2.  */
static int
read_test (ctx *c, json_t *t, size_t gi, size_t ti, size_t var)
{
  json_t *id, *res, *flags, *in, *err, *f;
  const char *r, *name;
  char where[120];
  gcase *k = &c->cases[c->ncases];
  size_t i;
  snprintf (where, sizeof where, "testGroups[%zu].tests[%zu]", gi, ti);
  if (!json_is_object (t))
    return ck_bad (c->gpath, "%s: a test must be an object", where);
  id = json_object_get (t, "tcId");
  if (!json_is_integer (id))
    return ck_bad (c->gpath, "%s: \"tcId\" must be an integer", where);
  k->tcid = json_integer_value (id);
  snprintf (where, sizeof where, "testGroups[%zu].tests[%zu] (tcId %"
            JSON_INTEGER_FORMAT ")", gi, ti, k->tcid);
  res = json_object_get (t, "result");
  r = json_string_value (res);
  if (r == NULL)
    return ck_bad (c->gpath, "%s: \"result\" must be a string", where);
  if (strcmp (r, "valid") == 0)
    k->kind = K_VALID;
  else if (strcmp (r, "acceptable") == 0)
    k->kind = K_ACCEPTABLE;
  else if (strcmp (r, "invalid") == 0)
    k->kind = K_INVALID;
  else
    return ck_bad (c->gpath, "%s: \"result\" must be valid, acceptable or "
                "invalid, not \"%.20s\"", where, r);
  flags = json_object_get (t, "flags");
  if (flags != NULL && !json_is_array (flags))
    return ck_bad (c->gpath, "%s: \"flags\" must be an array", where);
  json_array_foreach (flags, i, f)
    if (!json_is_string (f))
      return ck_bad (c->gpath, "%s: \"flags\" must hold strings", where);
  /* a case about numerical robustness (overflow, cancellation, float32
     steps), not about a convention: its note says bugType NUMERICAL */
  k->numerical = 0;
  json_array_foreach (flags, i, f)
    {
      json_t *note = json_object_get (json_object_get (c->golden, "notes"),
                                      json_string_value (f));
      const char *bt = json_string_value (json_object_get (note, "bugType"));
      if (bt != NULL && strcmp (bt, "NUMERICAL") == 0)
        k->numerical = 1;
    }
  err = json_object_get (t, "error");
  if (err != NULL && !json_is_string (err))
    return ck_bad (c->gpath, "%s: \"error\" must be a string", where);
  if (k->kind != K_INVALID
      && check_outputs (c, json_object_get (t, "outputs"), where))
    return 2;
  in = json_object_get (t, "inputs");
  if (in != NULL && !json_is_object (in))
    return ck_bad (c->gpath, "%s: \"inputs\" must be an object", where);
  json_object_foreach (in, name, f)
    if (json_object_set_new (c->vars[var].inputs, name, json_true ()))
      return ck_bad (c->gpath, "out of memory");
  k->test = t;
  k->res = NULL;
  k->var = var;
  c->ncases++;
  c->vars[var].ncases++;
  if (k->kind == K_INVALID)
    c->vars[var].ninvalid++;
  else
    c->vars[var].nvalid++;
  if (emulates32 (json_object_get (t, "outputs")))
    c->vars[var].emulates32 = 1;
  return 0;
}

/* Count the tests of the golden's groups groups into *n; 0 or 2.  */
static int
count_tests (ctx *c, json_t *groups, size_t *n)
{
  json_t *g, *tests;
  size_t gi;
  *n = 0;
  json_array_foreach (groups, gi, g)
    {
      if (!json_is_object (g))
        return ck_bad (c->gpath, "testGroups[%zu] must be an object", gi);
      tests = json_object_get (g, "tests");
      if (!json_is_array (tests))
        return ck_bad (c->gpath, "testGroups[%zu]: \"tests\" must be an array",
                    gi);
      if (!json_is_string (json_object_get (g, "variant")))
        return ck_bad (c->gpath, "testGroups[%zu]: \"variant\" must be a string",
                    gi);
      *n += json_array_size (tests);
    }
  return 0;
}

/* Read U from the golden's "tolerance" unless --ulps was given; 0 or 2.  */
static int
read_tolerance (ctx *c)
{
  json_t *tol = json_object_get (c->golden, "tolerance");
  json_t *u;
  if (c->have_ulps || tol == NULL)
    return 0;
  if (!json_is_object (tol))
    return ck_bad (c->gpath, "\"tolerance\" must be an object");
  u = json_object_get (tol, "defaultUlps");
  if (u == NULL)
    return 0;
  if (!json_is_number (u) || !(json_number_value (u) >= 0))
    return ck_bad (c->gpath,
                "\"tolerance\".\"defaultUlps\" must be a number >= 0");
  c->ulps = json_number_value (u);
  return 0;
}

/* Order tc_refs by tcId.  */
static int
cmp_ref (const void *a, const void *b)
{
  json_int_t x = ((const tc_ref *) a)->tcid, y = ((const tc_ref *) b)->tcid;
  return (x > y) - (x < y);
}

/* Order C strings.  */
static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The key that decides variant v's part: the golden's "part" name when it
   gives one, else the sorted names of its tests' inputs; NULL without
   memory.  */
static char *
part_key (const variant *v)
{
  size_t j = 0, n = json_object_size (v->inputs), len = 8;
  const char *key, **names;
  json_t *val;
  char *sig;
  if (v->part_name != NULL)
    {
      sig = malloc (strlen (v->part_name) + 8);
      if (sig != NULL)
        sprintf (sig, "part:%s", v->part_name);
      return sig;
    }
  names = malloc ((n + 1) * sizeof *names);
  if (names == NULL)
    return NULL;
  json_object_foreach (v->inputs, key, val)
    {
      names[j++] = key;
      len += strlen (key) + 1;
    }
  qsort (names, n, sizeof *names, cmp_str);
  sig = malloc (len);
  if (sig != NULL)
    {
      strcpy (sig, "inputs:");
      len = strlen (sig);
      for (j = 0; j < n; j++)
        {
          size_t m = strlen (names[j]);
          memcpy (sig + len, names[j], m);
          len += m;
          sig[len++] = '\n';
        }
      sig[len] = '\0';
    }
  free (names);
  return sig;
}

/* Give each variant a part (one per "part" name, or per set of input names
   in goldens that do not name their parts); 0 or 2.  */
static int
assign_parts (ctx *c)
{
  json_t *parts = json_object (), *known;
  int rc = 0;
  if (parts == NULL)
    return ck_bad (c->gpath, "out of memory");
  for (size_t i = 0; i < c->nvars && rc == 0; i++)
    {
      char *sig = part_key (&c->vars[i]);
      if (sig == NULL)
        rc = ck_bad (c->gpath, "out of memory");
      else if ((known = json_object_get (parts, sig)) != NULL)
        c->vars[i].part = (size_t) json_integer_value (known);
      else if (json_object_set_new (parts, sig, json_integer ((json_int_t) c->nparts)))
        rc = ck_bad (c->gpath, "out of memory");
      else
        c->vars[i].part = c->nparts++;
      free (sig);
    }
  json_decref (parts);
  return rc;
}

/* Check the golden's structure and collect its cases and variants; 0 or 2.  */
int
ck_read_golden (ctx *c)
{
  json_t *groups, *g, *t, *sv, *nt, *map;
  size_t gi, ti, n, var, i;
  tc_ref *refs;
  int rc = 0;
  if (!json_is_object (c->golden))
    return ck_bad (c->gpath, "the golden must be a JSON object");
  sv = json_object_get (c->golden, "schemaVersion");
  if (sv != NULL && !(json_is_integer (sv) && json_integer_value (sv) == 1))
    return ck_bad (c->gpath,
                "unsupported \"schemaVersion\" (this reads version 1)");
  groups = json_object_get (c->golden, "testGroups");
  if (!json_is_array (groups))
    return ck_bad (c->gpath, "%s", groups ? "\"testGroups\" must be an array"
                : "missing \"testGroups\" array");
  if (read_tolerance (c) || count_tests (c, groups, &n))
    return 2;
  if (n == 0)
    return ck_bad (c->gpath, "the golden holds no tests");
  c->cases = calloc (n, sizeof *c->cases);
  map = json_object ();
  if (c->cases == NULL || map == NULL)
    {
      json_decref (map);
      return ck_bad (c->gpath, "out of memory");
    }
  json_array_foreach (groups, gi, g)
    {
      var = variant_index (c, map,
                           json_string_value (json_object_get (g, "variant")));
      if (var == (size_t) -1)
        rc = ck_bad (c->gpath, "out of memory");
      else if (json_is_string (json_object_get (g, "part")))
        c->vars[var].part_name = json_string_value (json_object_get (g, "part"));
      json_array_foreach (json_object_get (g, "tests"), ti, t)
        if (rc == 0)
          rc = read_test (c, t, gi, ti, var);
      if (rc)
        break;
    }
  json_decref (map);
  if (rc)
    return rc;
  nt = json_object_get (c->golden, "numberOfTests");
  if (json_is_integer (nt) && json_integer_value (nt) != (json_int_t) n)
    fprintf (stderr, "rlref check: warning: %s: \"numberOfTests\" is %"
             JSON_INTEGER_FORMAT " but the file holds %zu tests\n", c->gpath,
             json_integer_value (nt), n);
  refs = malloc (n * sizeof *refs);
  if (refs == NULL)
    return ck_bad (c->gpath, "out of memory");
  for (i = 0; i < n; i++)
    refs[i].tcid = c->cases[i].tcid, refs[i].obj = NULL;
  qsort (refs, n, sizeof *refs, cmp_ref);
  for (i = 1; i < n && rc == 0; i++)
    if (refs[i].tcid == refs[i - 1].tcid)
      rc = ck_bad (c->gpath, "duplicate tcId %" JSON_INTEGER_FORMAT,
                refs[i].tcid);
  free (refs);
  return rc ? rc : assign_parts (c);
}

/* Check candidate output v: a number, a string or an array; 0 or -1.  */
static int
check_cand_value (json_t *v)
{
  json_t *e;
  size_t i;
  double g;
  if (!json_is_array (v))
    return ck_cand_number (v, &g);
  json_array_foreach (v, i, e)
    if (ck_cand_number (e, &g))
      return -1;
  return 0;
}

/* Check candidate result r (index i) and store its tcId in *ref; 0 or 2.  */
static int
read_result (ctx *c, json_t *r, size_t i, tc_ref *ref)
{
  json_t *id, *out, *err, *skip, *omitted, *v;
  const char *name;
  if (!json_is_object (r))
    return ck_bad (c->cpath, "results[%zu] must be an object", i);
  id = json_object_get (r, "tcId");
  if (!json_is_integer (id))
    return ck_bad (c->cpath, "results[%zu]: \"tcId\" must be an integer", i);
  ref->tcid = json_integer_value (id);
  ref->obj = r;
  out = json_object_get (r, "outputs");
  err = json_object_get (r, "error");
  skip = json_object_get (r, "skip");
  if ((out != NULL) + (err != NULL) + (skip != NULL) != 1)
    return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "needs one of \"outputs\", \"error\" or \"skip\"", i, ref->tcid);
  if (err != NULL && !json_is_string (err))
    return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"error\" must be a string", i, ref->tcid);
  if (skip != NULL && !json_is_string (skip))
    return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"skip\" must be a string (why the case cannot be answered)", i, ref->tcid);
  if (out != NULL && !json_is_object (out))
    return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"outputs\" must be an object", i, ref->tcid);
  omitted = json_object_get (r, "omitted");
  if (omitted != NULL && (out == NULL || !json_is_object (omitted)))
    return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"omitted\" must be an object beside \"outputs\" (output name: why it "
                "has no value here)", i, ref->tcid);
  json_object_foreach (omitted, name, v)
    if (!json_is_string (v) || json_object_get (out, name) != NULL)
      return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                  "omitted output %.40s needs a reason (a string) and no value", i,
                  ref->tcid, name);
  json_object_foreach (out, name, v)
    if (check_cand_value (v))
      return ck_bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                  "output %.40s must be a number, a number string (\"nan\", "
                  "\"inf\", \"-inf\", decimal, hex) or an array of them%s",
                  i, ref->tcid, name,
                  json_is_null (v) ? " (null is not a number)" : "");
  return 0;
}

/* The set of the output names of every golden test; NULL without memory.  */
static json_t *
golden_outputs (const ctx *c)
{
  json_t *all = json_object (), *v;
  const char *name;
  for (size_t i = 0; i < c->ncases && all != NULL; i++)
    json_object_foreach (json_object_get (c->cases[i].test, "outputs"), name, v)
      if (json_object_set_new (all, name, json_true ()))
        {
          json_decref (all);
          return NULL;
        }
  return all;
}

/* Decides the outputs judged: those of the golden the candidate gives in
   some result, within --outputs when given; the golden's other outputs
   are not given.  Warns, once per name, of candidate outputs that no test
   of the golden has (a misspelt name would otherwise go unjudged); 0 or 2.  */
static int
judged_outputs (ctx *c)
{
  json_t *all = golden_outputs (c), *warned = json_object (), *v, *want = NULL;
  const char *name;
  int rc = 0;
  c->judged_outputs = json_object ();
  c->ungiven_outputs = json_object ();
  if (all == NULL || warned == NULL || c->judged_outputs == NULL
      || c->ungiven_outputs == NULL)
    rc = ck_bad (c->cpath, "out of memory");
  if (rc == 0 && c->outputs_opt != NULL)
    {
      char *list = strdup (c->outputs_opt), *tok, *save = NULL;
      want = json_object ();
      if (list == NULL || want == NULL)
        rc = ck_bad (c->cpath, "out of memory");
      for (tok = list ? strtok_r (list, ",", &save) : NULL; tok != NULL && rc == 0;
           tok = strtok_r (NULL, ",", &save))
        if (json_object_get (all, tok) == NULL)
          {
            fprintf (stderr, "rlref check: --outputs: the golden has no output "
                     "'%.40s'; it has:", tok);
            json_object_foreach (all, name, v)
              fprintf (stderr, " %s", name);
            fputc ('\n', stderr);
            rc = 2;
          }
        else
          json_object_set_new (want, tok, json_true ());
      free (list);
    }
  for (size_t i = 0; i < c->ncases && rc == 0; i++)
    {
      json_t *got = c->cases[i].res ? json_object_get (c->cases[i].res, "outputs") : NULL;
      json_object_foreach (got, name, v)
        if (json_object_get (all, name) == NULL)
          {
            if (!json_object_get (warned, name))
              fprintf (stderr, "rlref check: warning: %s: output \"%.40s\" (tcId %"
                       JSON_INTEGER_FORMAT ") is not an output of the golden; ignored\n",
                       c->cpath, name, c->cases[i].tcid);
            json_object_set_new (warned, name, json_true ());
          }
        else if (want == NULL || json_object_get (want, name) != NULL)
          json_object_set_new (c->judged_outputs, name, json_true ());
    }
  if (rc == 0)
    json_object_foreach (all, name, v)
      if (json_object_get (c->judged_outputs, name) == NULL)
        json_object_set_new (c->ungiven_outputs, name, json_true ());
  json_decref (want);
  json_decref (warned);
  json_decref (all);
  return rc;
}

/* Check the candidate and attach its results to the golden cases; 0 or 2.  */
int
ck_read_candidate (ctx *c)
{
  json_t *results, *r;
  tc_ref *refs, key, *hit;
  size_t i, n;
  int rc = 0;
  if (!json_is_object (c->cand))
    return ck_bad (c->cpath, "the candidate must be a JSON object");
  results = json_object_get (c->cand, "results");
  if (!json_is_array (results))
    return ck_bad (c->cpath, "%s", results ? "\"results\" must be an array"
                : "missing \"results\" array");
  n = json_array_size (results);
  refs = malloc ((n + 1) * sizeof *refs);
  if (refs == NULL)
    return ck_bad (c->cpath, "out of memory");
  json_array_foreach (results, i, r)
    if (rc == 0)
      rc = read_result (c, r, i, &refs[i]);
  if (rc == 0)
    qsort (refs, n, sizeof *refs, cmp_ref);
  for (i = 1; i < n && rc == 0; i++)
    if (refs[i].tcid == refs[i - 1].tcid)
      rc = ck_bad (c->cpath, "duplicate tcId %" JSON_INTEGER_FORMAT,
                refs[i].tcid);
  for (i = 0; i < c->ncases && rc == 0; i++)
    {
      key.tcid = c->cases[i].tcid;
      hit = n ? bsearch (&key, refs, n, sizeof *refs, cmp_ref) : NULL;
      if (hit != NULL)
        {
          c->cases[i].res = hit->obj;
          hit->obj = NULL;
        }
    }
  for (i = 0; i < n && rc == 0; i++)
    if (refs[i].obj != NULL && c->unknown++ == 0)
      c->first_unknown = refs[i].tcid;
  free (refs);
  return rc ? rc : judged_outputs (c);
}
