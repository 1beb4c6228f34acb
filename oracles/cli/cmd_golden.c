/* cmd_golden.c -- `rlref golden DIR [ID ...]`: writes the golden files. */
#include <stdio.h>
#include <sys/stat.h>
#include "core/registry.h"
#include "core/golden.h"
#include "commands.h"
#include "core/options.h"

static const char *usage =
  "usage: rlref golden DIR [ID ...]\n"
  "\n"
  "Writes DIR/ID.json for every formula (or the ids given): certified\n"
  "expected values, in the format of golden/README.md.  The output is\n"
  "canonical: the same bytes on every run.  Each file is written whole to\n"
  "ID.json.tmp and renamed, so a failed write leaves the old file.\n"
  "\n"
  "exit status: 0; 1 when a case's outcome is not the declared one; 2 for a\n"
  "usage error or a file that cannot be written.\n";

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
  /* 1: a case gave other than its declared outcome; 2: a file could not
     be written (it stops there: the disk is full or the directory gone) */
  if (argc == 2)
    for (size_t i = 0; i < rl_formula_count () && failed < 2; i++)
      {
        int rc = rl_golden_write (rl_formula_at (i), argv[1]);
        failed = rc > failed ? rc : failed;
      }
  for (int i = 2; i < argc && failed < 2; i++)
    {
      int rc = rl_golden_write (rl_find (argv[i]), argv[1]);
      failed = rc > failed ? rc : failed;
    }
  return failed;
}
