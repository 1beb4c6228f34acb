/* options.c -- options, help and output checks shared by the subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>
#include "rlref/certify.h"
#include "rlref/status.h"
#include "core/args.h"
#include "core/options.h"

int
rl_wants_help (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      return 1;
  return 0;
}

const char *
rl_option (int argc, char **argv, int *i, const char *name, int *missing)
{
  size_t n = strlen (name);
  const char *arg = argv[*i];
  *missing = 0;
  if (strncmp (arg, name, n) != 0)
    return NULL;
  if (arg[n] == '=')
    return arg + n + 1;
  if (arg[n] != '\0')
    return NULL;
  if (*i + 1 >= argc)
    {
      *missing = 1;
      return NULL;
    }
  return argv[++*i];
}

int
rl_parse_prec (const char *s, long *bits, char *err, size_t errlen)
{
  char *end;
  long v;
  errno = 0;
  v = strtol (s, &end, 10);
  if (end == s || *end != '\0')
    {
      snprintf (err, errlen, "--prec '%s' is not a whole number of bits", s);
      return -1;
    }
  if (errno == ERANGE || v > RLREF_CERTIFY_MAX_PREC)
    {
      snprintf (err, errlen, "--prec %s is too large: at most %d bits", s,
                RLREF_CERTIFY_MAX_PREC);
      return -1;
    }
  if (v < 32)
    {
      snprintf (err, errlen, "--prec %s is too small: at least 32 bits", s);
      return -1;
    }
  *bits = v;
  return 0;
}

int
rl_opt_whole (const char *cmd, const char *name, const char *s, long long lo, long long hi,
              long long *out)
{
  const char *p = s;
  char *end;
  long long v;
  if (*p == '-' && lo < 0)
    p++;
  if (!isdigit ((unsigned char) *p))
    goto bad;
  for (; *p; p++)
    if (!isdigit ((unsigned char) *p))
      goto bad;
  errno = 0;
  v = strtoll (s, &end, 10);
  if (errno == ERANGE || v < lo || v > hi)
    goto bad;
  *out = v;
  return 0;
bad:
  fprintf (stderr, "rlref %s: %s '%s' is not a whole number from %lld to %lld\n", cmd, name,
           s, lo, hi);
  return 2;
}

int
rl_opt_real (const char *cmd, const char *name, const char *s, double lo, double hi,
             int open_lo, double *out)
{
  double v;
  int code = rl_parse_double (s, &v);
  if (code == RL_NUM_OVERFLOW || code == RL_NUM_UNDERFLOW)
    {
      fprintf (stderr, "rlref %s: %s '%s' %s\n", cmd, name, s, rl_parse_problem (code));
      return 2;
    }
  if (code || isnan (v) || (open_lo ? !(v > lo) : !(v >= lo)) || !(v <= hi))
    {
      fprintf (stderr, "rlref %s: %s '%s' is not a number %s %g and <= %g\n", cmd, name, s,
               open_lo ? ">" : ">=", lo, hi);
      return 2;
    }
  *out = v;
  return 0;
}

int
rl_opt_word (const char *cmd, const char *name, const char *s, const char *const *words)
{
  for (int i = 0; words[i]; i++)
    if (strcmp (s, words[i]) == 0)
      return i;
  fprintf (stderr, "rlref %s: %s '%s' is not one of:", cmd, name, s);
  for (int i = 0; words[i]; i++)
    fprintf (stderr, "%s %s", i ? "," : "", words[i]);
  fputc ('\n', stderr);
  return -1;
}

/* The value val of option o, checked and stored: 0, or 2 after a message. */
static int
store_option (const char *cmd, const rl_opt *o, const char *val)
{
  char err[256];
  int k;
  switch (o->kind)
    {
    case RL_OPT_TEXT:
      *o->text = val;
      return 0;
    case RL_OPT_PREC:
      if (rl_parse_prec (val, o->prec, err, sizeof err))
        {
          fprintf (stderr, "rlref %s: %s\n", cmd, err);
          return 2;
        }
      return 0;
    case RL_OPT_WHOLE:
      return rl_opt_whole (cmd, o->name, val, o->lo, o->hi, o->whole);
    case RL_OPT_REAL:
      return rl_opt_real (cmd, o->name, val, o->rlo, o->rhi, o->open_lo, o->real);
    case RL_OPT_WORD:
      if ((k = rl_opt_word (cmd, o->name, val, o->words)) < 0)
        return 2;
      *o->flag = k;
      return 0;
    default:
      return 2;
    }
}

/* Option o at argv[*i], advancing *i past its values: 0, 1 when argv[*i]
 * is not o, or 2 after a message. */
static int
read_option (const char *cmd, const rl_opt *o, int argc, char **argv, int *i)
{
  const char *arg = argv[*i], *val;
  size_t n = strlen (o->name);
  int missing;
  if (strncmp (arg, o->name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
    return 1;
  if (o->kind == RL_OPT_FLAG || o->kind == RL_OPT_FLAG_TEXT)
    {
      if (arg[n] == '=' && o->kind == RL_OPT_FLAG)
        {
          fprintf (stderr, "rlref %s: option %s takes no value\n", cmd, o->name);
          return 2;
        }
      *o->flag = 1;
      if (arg[n] == '=')
        *o->text = arg + n + 1;
      return 0;
    }
  if (o->kind == RL_OPT_PAIR)
    {
      if (arg[n] != '\0' || *i + 2 >= argc)
        {
          fprintf (stderr, "rlref %s: option %s needs two values\n", cmd, o->name);
          return 2;
        }
      *o->text = argv[++*i];
      *o->text2 = argv[++*i];
      return 0;
    }
  val = rl_option (argc, argv, i, o->name, &missing);
  if (!val)
    {
      fprintf (stderr, "rlref %s: option %s needs a value\n", cmd, o->name);
      return 2;
    }
  return store_option (cmd, o, val);
}

int
rl_parse_options (const char *cmd, const char *usage, int argc, char **argv, int from,
                  const rl_opt *opts, const char **words, int max_words, int *nwords)
{
  int words_only = 0;
  *nwords = 0;
  for (int i = from; i < argc; i++)
    {
      int r = 1;
      if (!words_only && strcmp (argv[i], "--") == 0)
        {
          words_only = 1;
          continue;
        }
      for (const rl_opt *o = opts; !words_only && o->name && r == 1; o++)
        if ((r = read_option (cmd, o, argc, argv, &i)) == 0 && o->given)
          *o->given = 1;
      if (r == 2)
        {
          fputs (usage, stderr);
          return 2;
        }
      if (r == 0)
        continue;
      if (!words_only && argv[i][0] == '-' && argv[i][1] != '\0')
        {
          fprintf (stderr, "rlref %s: unknown option '%s'\n%s", cmd, argv[i], usage);
          return 2;
        }
      if (*nwords >= max_words)
        {
          fprintf (stderr, "rlref %s: unexpected argument '%s'\n%s", cmd, argv[i], usage);
          return 2;
        }
      words[(*nwords)++] = argv[i];
    }
  return 0;
}

const char *
rl_error_text (int status)
{
  const char *e = rlref_last_error ();
  return *e ? e : rlref_strerror (status);
}

int
rl_close_stdout (const char *cmd)
{
  int bad = fflush (stdout) != 0 || ferror (stdout);
  if (fclose (stdout) != 0)
    bad = 1;
  if (bad)
    {
      fprintf (stderr, "rlref %s: writing the output failed: %s\n", cmd, strerror (errno));
      return 2;
    }
  return 0;
}
