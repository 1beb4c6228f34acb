/* cmd_table.c -- `rlref table ID --sweep NAME=FROM:TO:N ...`: a column
 * table of certified values over a sweep of one scalar input, for plots. */
#include <math.h>
#include <stdio.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "core/numfmt.h"
#include "check/rules.h"
#include "commands.h"
#include "core/options.h"

static const char *usage =
  "usage: rlref table ID [--variant V] --sweep NAME=FROM:TO:N name=value ...\n"
  "\n"
  "Prints a whitespace-separated table for gnuplot: the swept input (the\n"
  "double nearest FROM + i (TO - FROM)/(N - 1), in its shortest decimal), then\n"
  "every output element, each the certified MPFR value rounded to binary64\n"
  "(%.17g).  N points (2 to 10000) from FROM to TO inclusive, evenly\n"
  "spaced; NAME is a real input (an array input becomes one element).  A point\n"
  "the formula rejects is\n"
  "left out with one message on stderr.\n"
  "\n"
  "exit status: 0 every point evaluated; 1 some point rejected; 2 usage\n"
  "error (as rlref eval: an unknown or missing input).\n";

#define MAX_POINTS 10000

/* The i-th of n points from `from` to `to`, both included: the double
 * nearest from + i (to - from)/(n - 1), formed exactly (MPFR, with no
 * overflow of to - from from -1e308 to 1e308) and rounded once, so that
 * -6:6:241 gives -5.95 and not -5.9499999999999993. */
static double
abscissa (double from, double to, long i, long n)
{
  mpfr_t x, d;
  double r;
  mpfr_inits2 (2200, x, d, (mpfr_ptr) 0);
  mpfr_set_d (d, to, MPFR_RNDN);
  mpfr_sub_d (d, d, from, MPFR_RNDN);             /* exact at 2200 bits */
  mpfr_mul_si (d, d, i, MPFR_RNDN);
  mpfr_div_si (d, d, n - 1, MPFR_RNDN);           /* to well below a double's ulp */
  mpfr_add_d (x, d, from, MPFR_RNDN);
  r = mpfr_get_d (x, MPFR_RNDN);
  mpfr_clears (x, d, (mpfr_ptr) 0);
  return r;
}

/* Reads NAME=FROM:TO:N; 0, or -1 after a message. */
static int
parse_sweep (const char *sweep, char *name, double *from, double *to, long *n)
{
  char a[96], b[96], c[32];
  long long whole;
  if (sscanf (sweep, "%63[^=]=%95[^:]:%95[^:]:%31s", name, a, b, c) != 4
      || rl_parse_double (a, from) || rl_parse_double (b, to))
    {
      fprintf (stderr, "rlref table: --sweep '%s' is not NAME=FROM:TO:N\n", sweep);
      return -1;
    }
  if (!isfinite (*from) || !isfinite (*to))
    {
      fprintf (stderr, "rlref table: --sweep '%s': FROM and TO must be finite\n", sweep);
      return -1;
    }
  if (rl_opt_whole ("table", "--sweep N", c, 2, MAX_POINTS, &whole))
    return -1;
  *n = (long) whole;
  return 0;
}

int
rlref_cmd_table (int argc, char **argv)
{
  const rl_formula *f;
  const rl_variant *v;
  const char *variant = NULL, *sweep = NULL;
  char **words = calloc ((size_t) argc + 2, sizeof *words), err[256], name[64], item[96], dec[40];
  double from, to;
  long n;
  int nwords = 0, status = 0, failures = 0, k;
  if (!words)
    return 2;
  if (rl_wants_help (argc, argv) || argc < 2)
    {
      fputs (usage, argc < 2 ? stderr : stdout);
      free (words);
      return argc < 2 ? 2 : 0;
    }
  f = rl_find (argv[1]);
  if (!f)
    {
      fprintf (stderr, "rlref table: unknown formula '%s' (see rlref list)\n", argv[1]);
      free (words);
      return 2;
    }
  {
    const rl_opt opts[] = {
      { .name = "--variant", .kind = RL_OPT_TEXT, .text = &variant },
      { .name = "--sweep", .kind = RL_OPT_TEXT, .text = &sweep },
      { .name = NULL },
    };
    if (rl_parse_options ("table", usage, argc, argv, 2, opts, (const char **) words, argc,
                          &nwords))
      {
        free (words);
        return 2;
      }
  }
  v = rl_find_variant (f, variant);
  if (!v)
    {
      fprintf (stderr, "rlref table: %s has no variant '%s'\n", f->id, variant);
      free (words);
      return 2;
    }
  if (!sweep)
    {
      fprintf (stderr, "rlref table: --sweep NAME=FROM:TO:N is missing\n%s", usage);
      free (words);
      return 2;
    }
  if (parse_sweep (sweep, name, &from, &to, &n))
    {
      free (words);
      return 2;
    }
  k = rl_input_index (v->io, name);
  if (k < 0 || (v->io->in[k].kind != RL_REAL && v->io->in[k].kind != RL_REAL_ARRAY))
    {
      fprintf (stderr, "rlref table: %s [%s] has no real input '%s' to sweep\n", f->id,
               v->name, name);
      free (words);
      return 2;
    }
  words[nwords] = item;
  {
    /* the other inputs are checked before anything is printed */
    rl_args a;
    snprintf (item, sizeof item, "%s=%a", name, from);
    if (rl_args_parse (v, nwords + 1, words, &a, err, sizeof err))
      {
        fprintf (stderr, "rlref table: %s: %s\n", f->id, err);
        free (words);
        return 2;
      }
    rl_args_free (&a);
  }
  printf ("# %s [%s]: %s", f->id, v->name, name);
  for (size_t o = 0; v->io->out[o].name; o++)
    printf (" %s%s", v->io->out[o].name, rl_out_is_array (v->io, o) ? "[]" : "");
  printf ("\n");
  for (long i = 0; i < n; i++)
    {
      double x = abscissa (from, to, i, n);
      rl_args a;
      rl_result r;
      snprintf (item, sizeof item, "%s=%a", name, x);
      status = rl_args_parse (v, nwords + 1, words, &a, err, sizeof err);
      if (status)
        {
          fprintf (stderr, "rlref table: %s: %s\n", f->id, err);
          free (words);
          return 2;
        }
      rlref_clear_error ();
      status = rl_evaluate (v, &a, RL_WORKING_BITS, RL_MIN_DIGITS, 0, &r);
      if (status == 0)
        {
          rl_fmt_dec (x, dec);
          fputs (dec, stdout);
          for (size_t e = 0; e < r.ny; e++)
            printf (" %.17g", mpfr_get_d (r.cert.value + e, MPFR_RNDN));
          printf ("\n");
        }
      else
        {
          fprintf (stderr, "rlref table: %s at %s=%.17g: %s%s%s\n", f->id, name, x,
                   rlref_status_name (status), *rlref_last_error () ? ": " : "",
                   rlref_last_error ());
          failures++;
        }
      rl_result_free (&r);
      rl_args_free (&a);
    }
  free (words);
  return failures ? 1 : 0;
}
