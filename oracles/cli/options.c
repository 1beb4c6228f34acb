/* options.c -- options, help and output checks shared by the subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/certify.h"
#include "options.h"

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
