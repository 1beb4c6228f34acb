/* cmd_table.c -- `rlref table ID --sweep NAME=FROM:TO:N ...`: a column
 * table of certified values over a sweep of one scalar input, for plots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "check/rules.h"
#include "commands.h"

static const char *usage =
  "usage: rlref table ID [--variant V] --sweep NAME=FROM:TO:N name=value ...\n"
  "\n"
  "Prints a whitespace-separated table for gnuplot: the swept input, then\n"
  "every output element, each the certified MPFR value rounded to binary64\n"
  "(%.17g).  N points from FROM to TO inclusive.\n";

int
rlref_cmd_table (int argc, char **argv)
{
  const rl_formula *f;
  const rl_variant *v;
  const char *variant = NULL, *sweep = NULL;
  char **words = calloc ((size_t) argc + 2, sizeof *words), err[256], name[64], item[96];
  double from, to;
  long n;
  int nwords = 0, status = 0;
  if (!words)
    return 2;
  if (rl_wants_help (argc, argv) || argc < 2)
    {
      fputs (usage, argc < 2 ? stderr : stdout);
      free (words);
      return argc < 2 ? 2 : 0;
    }
  f = rl_find (argv[1]);
  for (int i = 2; i < argc; i++)
    {
      if (strcmp (argv[i], "--variant") == 0 && i + 1 < argc)
        variant = argv[++i];
      else if (strcmp (argv[i], "--sweep") == 0 && i + 1 < argc)
        sweep = argv[++i];
      else
        words[nwords++] = argv[i];
    }
  v = rl_find_variant (f, variant);
  if (!f || !v || !sweep
      || sscanf (sweep, "%63[^=]=%lf:%lf:%ld", name, &from, &to, &n) != 4 || n < 2 || n > 100000)
    {
      fprintf (stderr, "rlref table: need a known formula, variant and --sweep NAME=FROM:TO:N\n");
      free (words);
      return 2;
    }
  words[nwords] = item;
  printf ("# %s [%s]: %s", f->id, v->name, name);
  for (size_t k = 0; v->io->out[k].name; k++)
    printf (" %s%s", v->io->out[k].name, rl_out_is_array (v->io, k) ? "[]" : "");
  printf ("\n");
  for (long i = 0; i < n && status == 0; i++)
    {
      double x = from + (to - from) * (double) i / (double) (n - 1);
      rl_args a;
      rl_result r;
      snprintf (item, sizeof item, "%s=%.17g", name, x);
      status = rl_args_parse (v, nwords + 1, words, &a, err, sizeof err);
      if (status)
        {
          fprintf (stderr, "rlref table: %s\n", err);
          break;
        }
      status = rl_evaluate (v, &a, RL_WORKING_BITS, RL_MIN_DIGITS, 0, &r);
      if (status == 0)
        {
          printf ("%.17g", x);
          for (size_t k = 0; k < r.ny; k++)
            printf (" %.17g", mpfr_get_d (r.cert.value + k, MPFR_RNDN));
          printf ("\n");
        }
      else
        fprintf (stderr, "rlref table: %s at %s=%g: %s\n", f->id, name, x,
                 rlref_status_name (status));
      rl_result_free (&r);
      rl_args_free (&a);
    }
  free (words);
  return status ? 1 : 0;
}
