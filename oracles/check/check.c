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

   Test groups of the same "part" are alternative conventions of one
   computation; the candidate is expected to follow one of them.  Groups of
   different parts (PREF-BT-EX "sigma" and "mle-pair", say) are judged each
   on its own.  A golden whose groups name no part is split by the names of
   its tests' inputs instead.  */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>
#include "check.h"

#include "check_impl.h"
#include "core/options.h"

/* Print the usage text to f.  */
static void
usage (FILE *f)
{
  fputs ("usage: rlref check GOLDEN CANDIDATE [options]\n"
         "\n"
         "Judge CANDIDATE, a JSON file\n"
         "  {\"results\": [{\"tcId\": N,\n"
         "                \"outputs\": {\"name\": value or [values]}}\n"
         "               | {\"tcId\": N, \"error\": \"EDOM\"}\n"
         "               | {\"tcId\": N, \"skip\": \"why it cannot be answered\"}]}\n"
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
         "  --outputs L   judge only the outputs of the comma list L\n"
         "                (by default: every output the candidate gives)\n"
         "  --strict      count the input validation in the verdict: a\n"
         "                must-reject case the candidate does not reject\n"
         "                fails\n"
         "  --no-explain  do not search what a candidate that follows no\n"
         "                variant follows instead\n"
         "  --verbose     print passing outputs too, and the details\n"
         "                of every variant\n"
         "  --format F    text (the default); json: the whole report as\n"
         "                one JSON object on standard output (every case\n"
         "                with its errors, every variant, each part's\n"
         "                verdict, validation and explanation, the counts,\n"
         "                the exit status and the text report;\n"
         "                oracles/check/report.schema.json); github:\n"
         "                GitHub workflow annotations (::error ...)\n"
         "  --junit FILE  also write FILE, JUnit XML: one testcase per\n"
         "                case of the variant judged in each part, the\n"
         "                verdict and the explanation as properties, the\n"
         "                must-reject cases as a suite of their own\n"
         "  --junit-all   in FILE, the other variants' cases too (skipped)\n"
         "  -h, --help    print this text\n"
         "\n"
         "Each part of the golden (its alternative conventions of one\n"
         "computation) is judged on its valid cases: the report names\n"
         "one variant first -- matched at the dtype, then matched but for\n"
         "numerically demanding cases, then at float32, then at bfloat16\n"
         "accuracy -- and the others that are also consistent with the\n"
         "candidate.  When it follows none, the report says what it\n"
         "follows instead (a variant with another parameter, ddof, sign,\n"
         "scale, or another formula's values), where the formula declares\n"
         "it.  The must-reject cases are judged apart: the input\n"
         "validation line lists the inputs the candidate accepts.  A\n"
         "candidate may give a subset of the outputs; the report says\n"
         "which it judged.  The last line of the text report reads \"N\n"
         "passed, M failed\".\n"
         "\n"
         "Exit status: 0 when every part judged follows its variant at\n"
         "the dtype (and, with --strict, rejects what it rejects), 1\n"
         "otherwise, 2 usage error or unreadable or malformed file.\n", f);
}

/* Read the finite number s >= 0 given to option opt into *v; 0 or 2.  */
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

/* Set the report format named s; 0 or 2.  */
static int
opt_format (ctx *c, const char *s)
{
  if (strcmp (s, "text") == 0)
    c->format = F_TEXT;
  else if (strcmp (s, "json") == 0)
    c->format = F_JSON;
  else if (strcmp (s, "github") == 0)
    c->format = F_GITHUB;
  else
    {
      fprintf (stderr, "rlref check: unknown format '%s' (text, json or github)\n", s);
      return 2;
    }
  return 0;
}

/* Set the dtype named s; 0 or 2.  */
static int
opt_dtype (ctx *c, const char *s)
{
  int l;
  for (l = 0; l < NLEVELS && strcmp (s, ck_dtypes[l].name) != 0; l++)
    ;
  if (l < NLEVELS)
    c->level = l;
  else
    {
      fprintf (stderr, "rlref check: unknown dtype '%s' "
               "(float64, float32 or bfloat16)\n", s);
      return 2;
    }
  c->dtype = s;
  return 0;
}

/* Check the value val of --outputs (a comma list of names) or --junit (a
   file name) into *out; 0 or 2.  */
static int
opt_list (const char *opt, const char *val, const char **out)
{
  int list = strcmp (opt, "--outputs") == 0;
  if (*val == '\0' || (list && (*val == ',' || val[strlen (val) - 1] == ','
                                || strstr (val, ",,") != NULL)))
    {
      fprintf (stderr, "rlref check: %s needs %s, not '%s'\n", opt,
               list ? "a comma list of output names" : "a file name", val);
      return 2;
    }
  *out = val;
  return 0;
}

/* Parse the command line into c (the parser the subcommands share,
   core/options.h); sets *help for --help; 0 or 2.  */
static int
parse_args (ctx *c, int argc, char **argv, int *help)
{
  const char *rtol = NULL, *ulps = NULL, *dtype = NULL, *format = NULL, *junit = NULL;
  const char *outputs = NULL, **paths = calloc ((size_t) argc + 1, sizeof *paths);
  int no_explain = 0, npos, rc;
  const rl_opt opts[] = {
    { .name = "--rtol", .kind = RL_OPT_TEXT, .text = &rtol },
    { .name = "--ulps", .kind = RL_OPT_TEXT, .text = &ulps },
    { .name = "--dtype", .kind = RL_OPT_TEXT, .text = &dtype },
    { .name = "--variant", .kind = RL_OPT_TEXT, .text = &c->only },
    { .name = "--format", .kind = RL_OPT_TEXT, .text = &format },
    { .name = "--junit", .kind = RL_OPT_TEXT, .text = &junit },
    { .name = "--outputs", .kind = RL_OPT_TEXT, .text = &outputs },
    { .name = "--verbose", .kind = RL_OPT_FLAG, .flag = &c->verbose },
    { .name = "--strict", .kind = RL_OPT_FLAG, .flag = &c->strict },
    { .name = "--junit-all", .kind = RL_OPT_FLAG, .flag = &c->junit_all },
    { .name = "--no-explain", .kind = RL_OPT_FLAG, .flag = &no_explain },
    { .name = NULL },
  };
  if (!paths)
    return 2;
  if (rl_wants_help (argc, argv))
    {
      free (paths);
      *help = 1;
      return 0;
    }
  rc = rl_parse_options ("check", "(try 'rlref check --help')\n", argc, argv, 1, opts, paths,
                         argc, &npos);
  if (rc == 0 && npos != 2)
    {
      fprintf (stderr, "rlref check: expected GOLDEN and CANDIDATE, got %d "
               "file name%s (try 'rlref check --help')\n", npos,
               npos == 1 ? "" : "s");
      rc = 2;
    }
  if (rc == 0)
    {
      c->gpath = paths[0];
      c->cpath = paths[1];
    }
  free (paths);
  if (rc)
    return rc;
  c->explain = !no_explain;
  c->have_rtol = rtol != NULL;
  c->have_ulps = ulps != NULL;
  if ((rtol && opt_number ("--rtol", rtol, &c->rtol))
      || (ulps && opt_number ("--ulps", ulps, &c->ulps))
      || (dtype && opt_dtype (c, dtype)) || (format && opt_format (c, format))
      || (junit && opt_list ("--junit", junit, &c->junit))
      || (outputs && opt_list ("--outputs", outputs, &c->outputs_opt)))
    return 2;
  if (strcmp (c->gpath, "-") == 0 && strcmp (c->cpath, "-") == 0)
    {
      fprintf (stderr, "rlref check: only one file can be standard input\n");
      return 2;
    }
  return 0;
}

/* Write the text report into memory, then the JSON report with it on
   standard output; 0, or 2 when the report cannot be made or written.  */
static int
report_json (ctx *c)
{
  char *text = NULL;
  size_t len = 0;
  int wrc;
  FILE *m = open_memstream (&text, &len);
  if (m == NULL)
    return ck_bad (c->cpath, "out of memory");
  c->out = m;
  ck_write_text (c);
  c->out = stdout;
  if (fclose (m) != 0)
    return ck_bad (c->cpath, "out of memory");
  wrc = ck_write_json (c, text);
  free (text);
  return wrc;
}

/* Run the check described by the options in c; the exit status.  */
static int
run (ctx *c)
{
  size_t i = 0;
  int wrc = 0;
  if ((c->golden = ck_load_json (c->gpath)) == NULL
      || (c->cand = ck_load_json (c->cpath)) == NULL)
    return 2;
  if (ck_read_golden (c) || ck_read_candidate (c))
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
  /* judge once; every report below renders the record */
  if (ck_judge (c) || ck_verdict (c) || (c->explain && ck_explain (c)))
    return 2;
  if (c->format == F_JSON)
    wrc = report_json (c);
  else if (c->format == F_GITHUB)
    wrc = ck_write_github (c);
  else
    ck_write_text (c);
  if (wrc == 0 && c->junit != NULL)
    wrc = ck_write_junit (c);
  return wrc ? wrc : c->rc;
}

int
rlref_cmd_check (int argc, char **argv)
{
  ctx c;
  int help = 0, rc;
  size_t i;
  memset (&c, 0, sizeof c);
  c.ulps = RL_DEFAULT_ULPS;
  c.level = 0;
  c.explain = 1;
  c.out = stdout;
  rc = parse_args (&c, argc, argv, &help);
  c.dtype = ck_dtypes[c.level].name;
  if (rc != 0)
    return rc;
  if (help)
    {
      usage (stdout);
      return 0;
    }
  mpfr_inits2 (RL_WORKING_BITS, c.x, c.y, c.d, c.t, c.w, (mpfr_ptr) 0);
  rc = run (&c);
  fflush (stdout);
  mpfr_clears (c.x, c.y, c.d, c.t, c.w, (mpfr_ptr) 0);
  mpfr_free_cache ();
  ck_explain_free (&c);
  ck_judge_free (&c);
  for (i = 0; i < c.nparts && c.parts != NULL; i++)
    free (c.parts[i].order);
  free (c.parts);
  for (i = 0; i < c.nvars; i++)
    json_decref (c.vars[i].inputs);
  json_decref (c.judged_outputs);
  json_decref (c.ungiven_outputs);
  free (c.vars);
  free (c.cases);
  json_decref (c.golden);
  json_decref (c.cand);
  return rc;
}
