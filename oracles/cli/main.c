/* main.c -- the rlref command: list, eval, check, golden, table, candidate, lm, train, mdp. */
#include <stdio.h>
#include <string.h>
#include "rlref/rlref.h"
#include "commands.h"
#include "core/options.h"

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
  "  lm        exact moments of a tiny language model and its KL-optimal policy\n"
  "  train     exact-gradient training of a tiny-LM policy (DPO, IPO, RLHF, ...)\n"
  "  mdp       a finite MDP: V^pi, Q^pi, V*, Q*, value and policy iteration, Q-learning\n"
  "\n"
  "`rlref COMMAND --help` describes each.  Version " RLREF_VERSION ".\n";

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
    { "lm", rlref_cmd_lm },
    { "train", rlref_cmd_train },
    { "mdp", rlref_cmd_mdp },
  };
  if (argc < 2)
    {
      fputs (usage, stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      fputs (usage, stdout);
      return rl_close_stdout ("help");
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      puts ("rlref " RLREF_VERSION);
      return rl_close_stdout ("--version");
    }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        /* every subcommand's output is checked once it is complete */
        int status = commands[i].run (argc - 1, argv + 1);
        int closed = rl_close_stdout (argv[1]);
        return closed ? closed : status;
      }
  fprintf (stderr, "rlref: unknown command '%s'\n%s", argv[1], usage);
  return 2;
}
