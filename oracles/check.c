/* check.c -- "rlref check": judge a candidate's results against a golden
   file (schema version 1, described in golden/README.md).

   Both files are read with jansson and validated in full before anything
   is judged, so that a malformed file gives exit status 2 and no partial
   report.  The expected decimal strings are read with MPFR at 256 bits and
   |got - expected| is formed there, so that errors far below the binary64
   unit roundoff are measured right.

   The tolerance is the rule of the README, with one addition: a nonzero
   expected value below the smallest normal number lambda of the dtype is
   taken as lambda in U u (sens + |expected|), so that a result that
   underflows (e^-800 computed as 0 in binary64) is judged by the underflow
   error u lambda of the rounding model rather than by a relative error no
   format can meet.  An exact zero keeps tolerance U u sens.

   Test groups whose tests take the same inputs are alternative variants
   of one convention; the candidate is expected to follow one of them.
   Groups with different inputs (PREF-BT-EX "sigma" and "mle-pair", say)
   are separate parts of the file, and each part is judged on its own.  */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <mpfr.h>

#include "check.h"

#define WORK_PREC 256           /* bits for expected values and errors */
#define DEFAULT_ULPS 32.0       /* U when neither option nor golden gives it */
#define SHOW_DIGITS 20          /* significant digits shown of expected values */
#define SHOW_CHARS 60           /* longest name or error string shown */

enum kind { K_VALID, K_ACCEPTABLE, K_INVALID };
enum status { S_PASS, S_FAIL, S_NOTE };

/* A tcId and the JSON object that carries it, for sorting and lookups.  */
typedef struct
{
  json_int_t tcid;
  json_t *obj;
} tc_ref;

/* One golden test case and the candidate's result for it.  */
typedef struct
{
  json_int_t tcid;
  json_t *test;                 /* golden test object */
  json_t *res;                  /* candidate result object, or NULL */
  size_t var;                   /* index of its variant */
  enum kind kind;
} gcase;

/* A variant: the test groups that carry one variant name.  */
typedef struct
{
  const char *name;
  json_t *inputs;               /* set of the input names of its tests */
  size_t part;                  /* groups with the same inputs share a part */
  size_t ncases, nrun, passed, failed, noted;
} variant;

/* Options, the two files and scratch numbers of one run.  */
typedef struct
{
  double ulps, rtol;
  int have_ulps, have_rtol, verbose;
  int prec;                     /* significand bits of the dtype */
  mpfr_exp_t emin;              /* floor(log2) of its smallest normal */
  const char *dtype, *only;
  const char *gpath, *cpath;
  json_t *golden, *cand;
  gcase *cases;
  size_t ncases;
  variant *vars;
  size_t nvars, nparts;
  size_t unknown;               /* results whose tcId is not in the golden */
  json_int_t first_unknown;
  mpfr_t x, y, d, t, w;
} ctx;

/* Print the usage text to F.  */
static void
usage (FILE *f)
{
  fputs ("Usage: rlref check GOLDEN CANDIDATE [options]\n"
         "\n"
         "Judge CANDIDATE, a JSON file\n"
         "  {\"results\": [{\"tcId\": N,\n"
         "                \"outputs\": {\"name\": value or [values]}}\n"
         "               | {\"tcId\": N, \"error\": \"EDOM\"}]}\n"
         "against the golden file GOLDEN.  Values are JSON numbers or\n"
         "strings (\"nan\", \"inf\", \"-inf\", decimal or C99 hex floats).\n"
         "A file name \"-\" reads standard input.\n"
         "\n"
         "An output passes when\n"
         "  |got - expected| <= U * u * (sens + |expected|),\n"
         "u the unit roundoff of the dtype (|expected| is raised to the\n"
         "smallest normal of the dtype when it is nonzero and below it),\n"
         "or when --rtol R is given and |got - expected| <= R * |expected|.\n"
         "\n"
         "Options:\n"
         "  --ulps U      U of the rule (default: the golden's\n"
         "                \"tolerance\" \"defaultUlps\", else 32)\n"
         "  --rtol R      also pass outputs within relative error R\n"
         "  --dtype T     float64 (u = 2^-53, the default),\n"
         "                float32 (u = 2^-24) or bfloat16 (u = 2^-8)\n"
         "  --variant V   judge only the test group(s) of variant V\n"
         "  --verbose     print passing outputs too, and the details\n"
         "                of every variant\n"
         "  -h, --help    print this text\n"
         "\n"
         "Without --variant, a golden with several variants is judged\n"
         "against each; the report names the variants the candidate\n"
         "follows.  The last line reads \"N passed, M failed\".\n"
         "\n"
         "Exit status: 0 pass (or follows a variant), 1 fail, 2 usage\n"
         "error or unreadable or malformed file.\n", f);
}

/* Print a message about file PATH to stderr; returns 2.  */
static int
bad (const char *path, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "rlref check: %s: ", path);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return 2;
}

/* Print at most SHOW_CHARS bytes of S, control characters as '?'.  */
static void
print_clean (const char *s)
{
  size_t i;
  for (i = 0; s[i] != '\0'; i++)
    {
      if (i == SHOW_CHARS)
        {
          fputs ("...", stdout);
          return;
        }
      putchar (iscntrl ((unsigned char) s[i]) ? '?' : s[i]);
    }
}

/* Read the finite number S >= 0 given to option OPT into *V; 0 or 2.  */
static int
opt_number (const char *opt, const char *s, double *v)
{
  char *end;
  double r;
  if (*s != '\0' && !isspace ((unsigned char) *s))
    {
      r = strtod (s, &end);
      if (*end == '\0' && isfinite (r) && r >= 0)
        {
          *v = r;
          return 0;
        }
    }
  fprintf (stderr, "rlref check: %s needs a finite number >= 0, not '%s'\n",
           opt, s);
  return 2;
}

/* Set the dtype named S; 0 or 2.  */
static int
opt_dtype (ctx *c, const char *s)
{
  if (strcmp (s, "float64") == 0)
    c->prec = 53, c->emin = -1022;
  else if (strcmp (s, "float32") == 0)
    c->prec = 24, c->emin = -126;
  else if (strcmp (s, "bfloat16") == 0)
    c->prec = 8, c->emin = -126;
  else
    {
      fprintf (stderr, "rlref check: unknown dtype '%s' "
               "(float64, float32 or bfloat16)\n", s);
      return 2;
    }
  c->dtype = s;
  return 0;
}

/* Apply option NAME with value VAL; 0 or 2.  */
static int
set_option (ctx *c, const char *name, const char *val)
{
  if (strcmp (name, "--rtol") == 0)
    {
      c->have_rtol = 1;
      return opt_number (name, val, &c->rtol);
    }
  if (strcmp (name, "--ulps") == 0)
    {
      c->have_ulps = 1;
      return opt_number (name, val, &c->ulps);
    }
  if (strcmp (name, "--dtype") == 0)
    return opt_dtype (c, val);
  c->only = val;
  return 0;
}

/* Parse the command line into C; sets *HELP for --help; 0 or 2.  */
static int
parse_args (ctx *c, int argc, char **argv, int *help)
{
  static const char *const valued[] = { "--rtol", "--ulps", "--dtype",
                                        "--variant" };
  int i, npos = 0, opts_done = 0;
  size_t j;
  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      int known = 0;
      if (opts_done || a[0] != '-' || strcmp (a, "-") == 0)
        {
          if (npos == 0)
            c->gpath = a;
          else if (npos == 1)
            c->cpath = a;
          npos++;
          continue;
        }
      if (strcmp (a, "--") == 0)
        {
          opts_done = 1;
          continue;
        }
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          *help = 1;
          return 0;
        }
      if (strcmp (a, "--verbose") == 0)
        {
          c->verbose = 1;
          continue;
        }
      for (j = 0; j < sizeof valued / sizeof valued[0] && !known; j++)
        {
          size_t n = strlen (valued[j]);
          char name[16];
          if (strncmp (a, valued[j], n) != 0 || (a[n] != '\0' && a[n] != '='))
            continue;
          known = 1;
          strcpy (name, valued[j]);
          if (a[n] == '=')
            {
              if (set_option (c, name, a + n + 1))
                return 2;
            }
          else if (i + 1 < argc)
            {
              if (set_option (c, name, argv[++i]))
                return 2;
            }
          else
            {
              fprintf (stderr, "rlref check: option %s needs a value\n", name);
              return 2;
            }
        }
      if (!known)
        {
          fprintf (stderr, "rlref check: unknown option '%s' "
                   "(try 'rlref check --help')\n", a);
          return 2;
        }
    }
  if (npos != 2)
    {
      fprintf (stderr, "rlref check: expected GOLDEN and CANDIDATE, got %d "
               "file name%s (try 'rlref check --help')\n", npos,
               npos == 1 ? "" : "s");
      return 2;
    }
  if (strcmp (c->gpath, "-") == 0 && strcmp (c->cpath, "-") == 0)
    {
      fprintf (stderr, "rlref check: only one file can be standard input\n");
      return 2;
    }
  return 0;
}

/* Load the JSON file PATH ("-": standard input); NULL after a message.  */
static json_t *
load_json (const char *path)
{
  json_error_t e;
  json_t *j;
  if (strcmp (path, "-") == 0)
    j = json_loadf (stdin, JSON_REJECT_DUPLICATES, &e);
  else
    j = json_load_file (path, JSON_REJECT_DUPLICATES, &e);
  if (j == NULL)
    {
      if (e.line > 0)
        bad (path, "not valid JSON: %s (line %d, column %d)%s", e.text, e.line,
             e.column, strncmp (e.text, "invalid token", 13) == 0
             ? "; write NaN and infinities as the strings \"nan\", \"inf\", "
             "\"-inf\"" : "");
      else
        bad (path, "%s", e.text);
    }
  return j;
}

/* Whether the JSON string V holds no NUL byte and no leading space.  */
static int
plain_string (json_t *v)
{
  const char *s = json_string_value (v);
  return s != NULL && strlen (s) == json_string_length (v) && s[0] != '\0'
    && !isspace ((unsigned char) s[0]);
}

/* Read the decimal string V (or "nan", "inf", "-inf") into X; 0 or -1.  */
static int
read_decimal (mpfr_t x, json_t *v)
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

/* Read the candidate's number V (JSON number or string) into *G; 0 or -1.  */
static int
cand_number (json_t *v, double *g)
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

/* Check the expected-value object E at WHERE in the golden; 0 or 2.  */
static int
check_expected (ctx *c, json_t *e, const char *where)
{
  json_t *v, *s, *dg;
  if (!json_is_object (e))
    return bad (c->gpath, "%s: an expected value must be an object", where);
  v = json_object_get (e, "value");
  if (!json_is_string (v))
    return bad (c->gpath, "%s: \"value\" must be a decimal string", where);
  if (read_decimal (c->x, v))
    return bad (c->gpath, "%s: \"value\" \"%.40s\" is not a decimal number",
                where, json_string_value (v));
  dg = json_object_get (e, "digits");
  if (dg != NULL && !json_is_integer (dg))
    return bad (c->gpath, "%s: \"digits\" must be an integer", where);
  if (!mpfr_number_p (c->x))
    return 0;
  s = json_object_get (e, "sens");
  if (json_is_string (s))
    {
      if (read_decimal (c->t, s) || mpfr_sgn (c->t) < 0)
        return bad (c->gpath, "%s: \"sens\" must be a decimal >= 0", where);
    }
  else if (s == NULL)
    return bad (c->gpath, "%s: \"sens\" is missing", where);
  else if (!json_is_number (s) || json_number_value (s) < 0)
    return bad (c->gpath, "%s: \"sens\" must be a decimal string >= 0", where);
  return 0;
}

/* Check the "outputs" object O of a golden test at WHERE; 0 or 2.  */
static int
check_outputs (ctx *c, json_t *o, const char *where)
{
  const char *name;
  json_t *v, *e;
  size_t i;
  char at[200];
  if (!json_is_object (o))
    return bad (c->gpath, "%s: \"outputs\" must be an object", where);
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

/* Find or add the variant NAME; its index, or (size_t) -1 without memory.  */
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

/* Check test T (group GI, test TI) of variant VAR and record it; 0 or 2.  */
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
    return bad (c->gpath, "%s: a test must be an object", where);
  id = json_object_get (t, "tcId");
  if (!json_is_integer (id))
    return bad (c->gpath, "%s: \"tcId\" must be an integer", where);
  k->tcid = json_integer_value (id);
  snprintf (where, sizeof where, "testGroups[%zu].tests[%zu] (tcId %"
            JSON_INTEGER_FORMAT ")", gi, ti, k->tcid);
  res = json_object_get (t, "result");
  r = json_string_value (res);
  if (r == NULL)
    return bad (c->gpath, "%s: \"result\" must be a string", where);
  if (strcmp (r, "valid") == 0)
    k->kind = K_VALID;
  else if (strcmp (r, "acceptable") == 0)
    k->kind = K_ACCEPTABLE;
  else if (strcmp (r, "invalid") == 0)
    k->kind = K_INVALID;
  else
    return bad (c->gpath, "%s: \"result\" must be valid, acceptable or "
                "invalid, not \"%.20s\"", where, r);
  flags = json_object_get (t, "flags");
  if (flags != NULL && !json_is_array (flags))
    return bad (c->gpath, "%s: \"flags\" must be an array", where);
  json_array_foreach (flags, i, f)
    if (!json_is_string (f))
      return bad (c->gpath, "%s: \"flags\" must hold strings", where);
  err = json_object_get (t, "error");
  if (err != NULL && !json_is_string (err))
    return bad (c->gpath, "%s: \"error\" must be a string", where);
  if (k->kind != K_INVALID
      && check_outputs (c, json_object_get (t, "outputs"), where))
    return 2;
  in = json_object_get (t, "inputs");
  if (in != NULL && !json_is_object (in))
    return bad (c->gpath, "%s: \"inputs\" must be an object", where);
  json_object_foreach (in, name, f)
    if (json_object_set_new (c->vars[var].inputs, name, json_true ()))
      return bad (c->gpath, "out of memory");
  k->test = t;
  k->res = NULL;
  k->var = var;
  c->ncases++;
  c->vars[var].ncases++;
  return 0;
}

/* Count the tests of the golden's groups GROUPS into *N; 0 or 2.  */
static int
count_tests (ctx *c, json_t *groups, size_t *n)
{
  json_t *g, *tests;
  size_t gi;
  *n = 0;
  json_array_foreach (groups, gi, g)
    {
      if (!json_is_object (g))
        return bad (c->gpath, "testGroups[%zu] must be an object", gi);
      tests = json_object_get (g, "tests");
      if (!json_is_array (tests))
        return bad (c->gpath, "testGroups[%zu]: \"tests\" must be an array",
                    gi);
      if (!json_is_string (json_object_get (g, "variant")))
        return bad (c->gpath, "testGroups[%zu]: \"variant\" must be a string",
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
    return bad (c->gpath, "\"tolerance\" must be an object");
  u = json_object_get (tol, "defaultUlps");
  if (u == NULL)
    return 0;
  if (!json_is_number (u) || !(json_number_value (u) >= 0))
    return bad (c->gpath,
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

/* Give each variant a part (one per set of input names); 0 or 2.  */
static int
assign_parts (ctx *c)
{
  json_t *parts = json_object (), *known;
  size_t i, j, n, len;
  const char *key, **names;
  json_t *val;
  char *sig;
  int rc = 0;
  if (parts == NULL)
    return bad (c->gpath, "out of memory");
  for (i = 0; i < c->nvars && rc == 0; i++)
    {
      n = json_object_size (c->vars[i].inputs);
      names = malloc ((n + 1) * sizeof *names);
      len = 1;
      j = 0;
      if (names == NULL)
        {
          rc = bad (c->gpath, "out of memory");
          break;
        }
      json_object_foreach (c->vars[i].inputs, key, val)
        {
          names[j++] = key;
          len += strlen (key) + 1;
        }
      qsort (names, n, sizeof *names, cmp_str);
      sig = malloc (len);
      if (sig == NULL)
        rc = bad (c->gpath, "out of memory");
      else
        {
          for (len = 0, j = 0; j < n; j++)
            {
              size_t m = strlen (names[j]);
              memcpy (sig + len, names[j], m);
              len += m;
              sig[len++] = '\n';
            }
          sig[len] = '\0';
          known = json_object_get (parts, sig);
          if (known != NULL)
            c->vars[i].part = (size_t) json_integer_value (known);
          else if (json_object_set_new (parts, sig,
                                        json_integer ((json_int_t) c->nparts)))
            rc = bad (c->gpath, "out of memory");
          else
            c->vars[i].part = c->nparts++;
        }
      free (sig);
      free (names);
    }
  json_decref (parts);
  return rc;
}

/* Check the golden's structure and collect its cases and variants; 0 or 2.  */
static int
read_golden (ctx *c)
{
  json_t *groups, *g, *t, *sv, *nt, *map;
  size_t gi, ti, n, var, i;
  tc_ref *refs;
  int rc = 0;
  if (!json_is_object (c->golden))
    return bad (c->gpath, "the golden must be a JSON object");
  sv = json_object_get (c->golden, "schemaVersion");
  if (sv != NULL && !(json_is_integer (sv) && json_integer_value (sv) == 1))
    return bad (c->gpath,
                "unsupported \"schemaVersion\" (this reads version 1)");
  groups = json_object_get (c->golden, "testGroups");
  if (!json_is_array (groups))
    return bad (c->gpath, "%s", groups ? "\"testGroups\" must be an array"
                : "missing \"testGroups\" array");
  if (read_tolerance (c) || count_tests (c, groups, &n))
    return 2;
  if (n == 0)
    return bad (c->gpath, "the golden holds no tests");
  c->cases = calloc (n, sizeof *c->cases);
  map = json_object ();
  if (c->cases == NULL || map == NULL)
    {
      json_decref (map);
      return bad (c->gpath, "out of memory");
    }
  json_array_foreach (groups, gi, g)
    {
      var = variant_index (c, map,
                           json_string_value (json_object_get (g, "variant")));
      if (var == (size_t) -1)
        rc = bad (c->gpath, "out of memory");
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
    return bad (c->gpath, "out of memory");
  for (i = 0; i < n; i++)
    refs[i].tcid = c->cases[i].tcid, refs[i].obj = NULL;
  qsort (refs, n, sizeof *refs, cmp_ref);
  for (i = 1; i < n && rc == 0; i++)
    if (refs[i].tcid == refs[i - 1].tcid)
      rc = bad (c->gpath, "duplicate tcId %" JSON_INTEGER_FORMAT,
                refs[i].tcid);
  free (refs);
  return rc ? rc : assign_parts (c);
}

/* Check candidate output V: a number, a string or an array; 0 or -1.  */
static int
check_cand_value (json_t *v)
{
  json_t *e;
  size_t i;
  double g;
  if (!json_is_array (v))
    return cand_number (v, &g);
  json_array_foreach (v, i, e)
    if (cand_number (e, &g))
      return -1;
  return 0;
}

/* Check candidate result R (index I) and store its tcId in *REF; 0 or 2.  */
static int
read_result (ctx *c, json_t *r, size_t i, tc_ref *ref)
{
  json_t *id, *out, *err, *v;
  const char *name;
  if (!json_is_object (r))
    return bad (c->cpath, "results[%zu] must be an object", i);
  id = json_object_get (r, "tcId");
  if (!json_is_integer (id))
    return bad (c->cpath, "results[%zu]: \"tcId\" must be an integer", i);
  ref->tcid = json_integer_value (id);
  ref->obj = r;
  out = json_object_get (r, "outputs");
  err = json_object_get (r, "error");
  if ((out == NULL) == (err == NULL))
    return bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "needs either \"outputs\" or \"error\"", i, ref->tcid);
  if (err != NULL && !json_is_string (err))
    return bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"error\" must be a string", i, ref->tcid);
  if (out != NULL && !json_is_object (out))
    return bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                "\"outputs\" must be an object", i, ref->tcid);
  json_object_foreach (out, name, v)
    if (check_cand_value (v))
      return bad (c->cpath, "results[%zu] (tcId %" JSON_INTEGER_FORMAT "): "
                  "output %.40s must be a number, a number string (\"nan\", "
                  "\"inf\", \"-inf\", decimal, hex) or an array of them%s",
                  i, ref->tcid, name,
                  json_is_null (v) ? " (null is not a number)" : "");
  return 0;
}

/* Check the candidate and attach its results to the golden cases; 0 or 2.  */
static int
read_candidate (ctx *c)
{
  json_t *results, *r;
  tc_ref *refs, key, *hit;
  size_t i, n;
  int rc = 0;
  if (!json_is_object (c->cand))
    return bad (c->cpath, "the candidate must be a JSON object");
  results = json_object_get (c->cand, "results");
  if (!json_is_array (results))
    return bad (c->cpath, "%s", results ? "\"results\" must be an array"
                : "missing \"results\" array");
  n = json_array_size (results);
  refs = malloc ((n + 1) * sizeof *refs);
  if (refs == NULL)
    return bad (c->cpath, "out of memory");
  json_array_foreach (results, i, r)
    if (rc == 0)
      rc = read_result (c, r, i, &refs[i]);
  if (rc == 0)
    qsort (refs, n, sizeof *refs, cmp_ref);
  for (i = 1; i < n && rc == 0; i++)
    if (refs[i].tcid == refs[i - 1].tcid)
      rc = bad (c->cpath, "duplicate tcId %" JSON_INTEGER_FORMAT,
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
  return rc;
}

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
  printf ("%s tcId %" JSON_INTEGER_FORMAT " [",
          pass ? "PASS" : k->kind == K_ACCEPTABLE ? "NOTE" : "FAIL", k->tcid);
  print_clean (c->vars[k->var].name);
  putchar (']');
  if (name != NULL)
    {
      putchar (' ');
      print_clean (name);
      if (idx >= 0)
        printf ("[%ld]", idx);
    }
  fputs (": ", stdout);
}

/* End a report line on case K: the flags of a noted mismatch, a newline.  */
static void
line_end (const gcase *k, int pass)
{
  json_t *flags = json_object_get (k->test, "flags"), *f;
  size_t i;
  if (!pass && k->kind == K_ACCEPTABLE)
    {
      fputs (json_array_size (flags) ? " (acceptable: flags " : " (acceptable",
             stdout);
      json_array_foreach (flags, i, f)
        {
          if (i > 0)
            fputs (", ", stdout);
          print_clean (json_string_value (f));
        }
      putchar (')');
    }
  putchar ('\n');
}

/* Print a whole report line: text MSG, then string Q quoted if not NULL.  */
static void
line (const ctx *c, const gcase *k, int pass, const char *name, long idx,
      const char *msg, const char *q)
{
  line_start (c, k, pass, name, idx);
  fputs (msg, stdout);
  if (q != NULL)
    {
      fputs (" \"", stdout);
      print_clean (q);
      putchar ('"');
    }
  line_end (k, pass);
}

/* Print the error measures of a finite comparison: d = |got - x| in C->d,
   tolerance in C->t; for the report line after "got ...".  */
static void
print_measures (ctx *c)
{
  mpfr_exp_t e;
  char ulps[40], rel[40], tol[40];
  double lre, cap = c->prec * log10 (2.0);
  /* ulp of the dtype at x; below the normal range (and at 0) the ulp of
     its smallest normal */
  e = mpfr_zero_p (c->x) ? c->emin : mpfr_get_exp (c->x) - 1;
  if (e < c->emin)
    e = c->emin;
  mpfr_mul_2si (c->w, c->d, (long) (c->prec - 1 - e), MPFR_RNDN);
  mpfr_snprintf (ulps, sizeof ulps, "%.2Rg", c->w);
  mpfr_mul_2si (c->w, c->t, (long) (c->prec - 1 - e), MPFR_RNDN);
  mpfr_snprintf (tol, sizeof tol, "%.2Rg", c->w);
  if (mpfr_zero_p (c->d))
    {
      printf (" err 0 ulps, rel 0, exact; tol %s ulps", tol);
      return;
    }
  if (mpfr_zero_p (c->x))
    {
      printf (" err %s ulps, rel inf, 0.0 correct digits; tol %s ulps", ulps,
              tol);
      return;
    }
  mpfr_div (c->w, c->d, c->x, MPFR_RNDN);
  mpfr_abs (c->w, c->w, MPFR_RNDN);
  mpfr_snprintf (rel, sizeof rel, "%.2Rg", c->w);
  mpfr_log10 (c->w, c->w, MPFR_RNDN);
  lre = -mpfr_get_d (c->w, MPFR_RNDN);
  lre = lre > cap ? cap : lre > 0 ? lre : 0.0;
  printf (" err %s ulps, rel %s, %.1f correct digits; tol %s ulps", ulps, rel,
          lre, tol);
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
  read_decimal (c->x, v);
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
        read_decimal (c->t, s);
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
    }
  if (!show || (pass && !c->verbose))
    return pass;
  shorten (json_string_value (v), xs, sizeof xs);
  format_got (got, gs, sizeof gs);
  line_start (c, k, pass, name, idx);
  printf ("expected %s got %s", xs, gs);
  if (finite)
    print_measures (c);
  line_end (k, pass);
  return pass;
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
          ok = 0;
        }
      else if (json_is_array (ev) != json_is_array (cv))
        {
          if (show)
            {
              if (json_is_array (ev))
                snprintf (msg, sizeof msg, "expected an array of %zu values, "
                          "got a single value", json_array_size (ev));
              else
                snprintf (msg, sizeof msg, "expected a single value, got an "
                          "array of %zu", json_array_size (cv));
              line (c, k, 0, name, -1, msg, NULL);
            }
          ok = 0;
        }
      else if (!json_is_array (ev))
        {
          cand_number (cv, &g);
          ok &= judge_element (c, k, name, -1, ev, g, show);
        }
      else if ((n = json_array_size (ev)) != json_array_size (cv))
        {
          if (show)
            {
              snprintf (msg, sizeof msg, "length %zu, expected %zu",
                        json_array_size (cv), n);
              line (c, k, 0, name, -1, msg, NULL);
            }
          ok = 0;
        }
      else
        for (i = 0; i < n; i++)
          {
            cand_number (json_array_get (cv, i), &g);
            p = judge_element (c, k, name, (long) i, json_array_get (ev, i), g,
                               show);
            ok &= p;
          }
    }
  if (ok && show && c->verbose && json_object_size (exp) == 0)
    line (c, k, 1, NULL, -1, "no outputs to compare", NULL);
  return ok;
}

/* Judge case K; print its lines if SHOW; the status.  */
static enum status
judge_case (ctx *c, const gcase *k, int show)
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
          fputs ("rejected with \"", stdout);
          print_clean (ce);
          fputs ("\" (the golden names \"", stdout);
          print_clean (ge);
          fputs ("\")\n", stdout);
        }
      else if (show && c->verbose)
        line (c, k, 1, NULL, -1, "rejected with", ce);
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
static void
judge_all (ctx *c, const char *sel, int show, int count)
{
  size_t i;
  variant *v;
  enum status s;
  for (i = 0; i < c->ncases; i++)
    {
      v = &c->vars[c->cases[i].var];
      if (sel != NULL && strcmp (sel, v->name) != 0)
        continue;
      s = judge_case (c, &c->cases[i], show);
      if (!count)
        continue;
      v->nrun += c->cases[i].res != NULL;
      v->passed += s == S_PASS;
      v->failed += s == S_FAIL;
      v->noted += s == S_NOTE;
    }
}

/* Print the noted count (if any) and the closing line; the exit status.  */
static int
closing (size_t passed, size_t failed, size_t noted, int ok)
{
  if (noted > 0)
    printf ("%zu acceptable mismatch%s noted\n", noted,
            noted == 1 ? "" : "es");
  printf ("%zu passed, %zu failed\n", passed, failed);
  return ok ? 0 : 1;
}

/* Report on the single variant V; the exit status.  */
static int
report_one (ctx *c, variant *v)
{
  judge_all (c, v->name, 1, 1);
  return closing (v->passed, v->failed, v->noted, v->failed == 0);
}

/* Whether variant V was run and all its valid and invalid cases pass.  */
static int
matches (const variant *v)
{
  return v->nrun > 0 && v->failed == 0;
}

/* The best run variant of part P (most passes, first on ties), or NULL.  */
static variant *
best_of (ctx *c, size_t p)
{
  variant *best = NULL;
  size_t i;
  for (i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && c->vars[i].nrun > 0
        && (best == NULL || c->vars[i].passed > best->passed))
      best = &c->vars[i];
  return best;
}

/* Print the table and the verdict of part P; 1 when a variant matches.  */
static int
print_part (ctx *c, size_t p, variant *best)
{
  size_t i;
  int first = 1;
  const char *ind = c->nparts > 1 ? "  " : "";
  variant *v;
  for (i = 0; i < c->nvars; i++)
    {
      v = &c->vars[i];
      if (v->part != p)
        continue;
      fputs (ind, stdout);
      fputs ("variant ", stdout);
      print_clean (v->name);
      if (v->nrun == 0)
        {
          fputs (": not run\n", stdout);
          continue;
        }
      printf (": %zu passed, %zu failed", v->passed, v->failed);
      if (v->noted > 0)
        printf (", %zu noted", v->noted);
      puts (matches (v) ? "  MATCH" : "  no match");
    }
  for (i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && matches (&c->vars[i]))
      {
        if (first)
          printf ("%sCandidate follows: ", ind);
        else
          fputs (", ", stdout);
        print_clean (c->vars[i].name);
        first = 0;
      }
  if (!first)
    {
      putchar ('\n');
      return 1;
    }
  if (best == NULL)
    printf ("%sCandidate ran none of these cases\n", ind);
  else
    {
      printf ("%sCandidate matches no variant; closest: ", ind);
      print_clean (best->name);
      printf (" (%zu of %zu)\n", best->passed, best->ncases);
    }
  return 0;
}

/* Print the heading of part P: the input names its tests take.  */
static void
part_heading (const ctx *c, size_t p)
{
  size_t i;
  const char *key, *sep = "";
  json_t *val;
  for (i = 0; c->vars[i].part != p; i++)
    ;
  printf ("part %zu, tests with inputs ", p + 1);
  json_object_foreach (c->vars[i].inputs, key, val)
    {
      fputs (sep, stdout);
      print_clean (key);
      sep = ", ";
    }
  puts (*sep ? ":" : "(none):");
}

/* Report on every variant of a golden with several; the exit status.  */
static int
report_all (ctx *c)
{
  size_t p, passed = 0, failed = 0, noted = 0, run = 0, matched = 0;
  variant *best;
  judge_all (c, NULL, c->verbose, 1);
  if (!c->verbose)
    for (p = 0; p < c->nparts; p++)
      if ((best = best_of (c, p)) != NULL)
        judge_all (c, best->name, 1, 0);
  for (p = 0; p < c->nparts; p++)
    {
      if (c->nparts > 1)
        part_heading (c, p);
      best = best_of (c, p);
      matched += print_part (c, p, best) ? 1 : 0;
      if (best != NULL)
        {
          run++;
          passed += best->passed;
          failed += best->failed;
          noted += best->noted;
        }
    }
  return closing (passed, failed, noted, run > 0 && matched == run);
}

/* Print the header line of the report.  */
static void
header (const ctx *c)
{
  const char *f = json_string_value (json_object_get (c->golden, "formula"));
  printf ("Checking %s against ", c->cpath);
  if (f != NULL)
    print_clean (f);
  else
    fputs (c->gpath, stdout);
  printf (": dtype %s, U = %g", c->dtype, c->ulps);
  if (c->have_rtol)
    printf (", rtol %g", c->rtol);
  if (c->only != NULL)
    {
      fputs (", variant ", stdout);
      print_clean (c->only);
    }
  putchar ('\n');
}

/* Run the check described by the options in C; the exit status.  */
static int
run (ctx *c)
{
  size_t i = 0;
  if ((c->golden = load_json (c->gpath)) == NULL
      || (c->cand = load_json (c->cpath)) == NULL)
    return 2;
  if (read_golden (c) || read_candidate (c))
    return 2;
  if (c->only != NULL)
    {
      for (i = 0; i < c->nvars && strcmp (c->vars[i].name, c->only) != 0; i++)
        ;
      if (i == c->nvars)
        {
          fprintf (stderr, "rlref check: %s: no variant '%s'; it has:",
                   c->gpath, c->only);
          for (i = 0; i < c->nvars; i++)
            fprintf (stderr, " %s", c->vars[i].name);
          fputc ('\n', stderr);
          return 2;
        }
    }
  if (c->unknown > 0)
    fprintf (stderr, "rlref check: warning: %s: %zu result%s with a tcId not "
             "in the golden (first: %" JSON_INTEGER_FORMAT ")\n", c->cpath,
             c->unknown, c->unknown == 1 ? "" : "s", c->first_unknown);
  header (c);
  if (c->only != NULL)
    return report_one (c, &c->vars[i]);
  if (c->nvars == 1)
    return report_one (c, &c->vars[0]);
  return report_all (c);
}

int
rlref_cmd_check (int argc, char **argv)
{
  ctx c;
  int help = 0, rc;
  size_t i;
  memset (&c, 0, sizeof c);
  c.ulps = DEFAULT_ULPS;
  c.prec = 53;
  c.emin = -1022;
  c.dtype = "float64";
  rc = parse_args (&c, argc, argv, &help);
  if (rc != 0)
    return rc;
  if (help)
    {
      usage (stdout);
      return 0;
    }
  mpfr_inits2 (WORK_PREC, c.x, c.y, c.d, c.t, c.w, (mpfr_ptr) 0);
  rc = run (&c);
  fflush (stdout);
  mpfr_clears (c.x, c.y, c.d, c.t, c.w, (mpfr_ptr) 0);
  mpfr_free_cache ();
  for (i = 0; i < c.nvars; i++)
    json_decref (c.vars[i].inputs);
  free (c.vars);
  free (c.cases);
  json_decref (c.golden);
  json_decref (c.cand);
  return rc;
}
