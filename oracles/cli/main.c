/* main.c -- the rlref command: list, eval, check, golden, table, candidate. */
#include <stdio.h>
#include <string.h>
#include "rlref/rlref.h"
#include "commands.h"

static const char *usage =
  "usage: rlref COMMAND [ARGS]\n"
  "\n"
  "rlref is a precision-first reference for the mathematics of reinforcement\n"
  "learning for language models: every formula in binary64 and in MPFR with\n"
  "certified digits, golden files, and a checker for your implementation.\n"
  "\n"
  "commands:\n"
  "  list      the implemented formula ids, variants and golden files\n"
  "  eval      evaluate one formula: certified digits and the binary64 result\n"
  "  check     check your implementation's outputs against a golden file\n"
  "  golden    write the golden files\n"
  "  table     a table of values over a sweep, for plots\n"
  "  candidate rlref's own binary64 outputs on a golden's inputs, as a candidate\n"
  "\n"
  "`rlref COMMAND --help` describes each.  Version " RLREF_VERSION ".\n";

int
rl_wants_help (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *name;
    int (*run) (int, char **);
  } commands[] = {
    { "list", rlref_cmd_list },
    { "eval", rlref_cmd_eval },
    { "check", rlref_cmd_check },
    { "golden", rlref_cmd_golden },
    { "table", rlref_cmd_table },
    { "candidate", rlref_cmd_candidate },
  };
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      fputs (usage, argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      puts ("rlref " RLREF_VERSION);
      return 0;
    }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "rlref: unknown command '%s'\n%s", argv[1], usage);
  return 2;
}
