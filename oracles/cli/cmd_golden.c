/* cmd_golden.c -- `rlref golden DIR [ID ...]`: writes the golden files. */
#include <stdio.h>
#include <sys/stat.h>
#include "core/registry.h"
#include "core/golden.h"
#include "commands.h"
#include "options.h"

static const char *usage =
  "usage: rlref golden DIR [ID ...]\n"
  "\n"
  "Writes DIR/ID.json for every formula (or the ids given): certified\n"
  "expected values, in the format of golden/README.md.  The output is\n"
  "canonical: the same bytes on every run.\n";

int
rlref_cmd_golden (int argc, char **argv)
{
  int failed = 0;
  struct stat st;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  if (argc < 2)
    {
      fprintf (stderr, "rlref golden: missing directory\n%s", usage);
      return 2;
    }
  if (stat (argv[1], &st) != 0 || !S_ISDIR (st.st_mode))
    {
      fprintf (stderr, "rlref golden: '%s' is not a directory\n", argv[1]);
      return 2;
    }
  /* every id is checked before anything is written */
  for (int i = 2; i < argc; i++)
    if (!rl_find (argv[i]))
      {
        fprintf (stderr, "rlref golden: unknown formula '%s' (see rlref list)\n", argv[i]);
        return 2;
      }
  if (argc == 2)
    for (size_t i = 0; i < rl_formula_count (); i++)
      failed |= rl_golden_write (rl_formula_at (i), argv[1]);
  for (int i = 2; i < argc; i++)
    failed |= rl_golden_write (rl_find (argv[i]), argv[1]);
  return failed ? 1 : 0;
}
