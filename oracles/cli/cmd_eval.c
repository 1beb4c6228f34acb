/* cmd_eval.c -- `rlref eval ID [--variant V] [--prec BITS] name=value ...`:
 * one formula at one input, certified MPFR digits beside the binary64
 * implementation's result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "check/rules.h"
#include "commands.h"
#include "core/options.h"
#include "inputs.h"
#include "core/eval_api.h"

static const char *usage =
  "usage: rlref eval ID [--variant V] [--prec BITS] [--inputs FILE] name=value ...\n"
  "\n"
  "Evaluates formula ID (see `rlref list`) at one input and prints one JSON\n"
  "object: per output, the MPFR value as a decimal string of its certified\n"
  "digits, the digit count, and the binary64 implementation's result.\n"
  "Values are decimal or C99 hex floats (0x1.8p+0), nan, inf; arrays are\n"
  "comma-separated (rewards=1,0,0,0).  --inputs FILE (\"-\": standard input)\n"
  "reads inputs from a JSON object {\"rewards\": [1, 0, 0, 0], ...} whose\n"
  "values are numbers, strings as above, or golden input objects, for\n"
  "inputs too long for a command line (at most 100000 elements each).\n"
  "--prec sets the working precision, 32 to 4096 bits (default 256; the\n"
  "values are certified at BITS and BITS + 64, doubling BITS up to 4096\n"
  "until 30 digits agree; \"precision\" reports the lower of the two).  Without\n"
  "--variant the formula's first variant (its default, named by `rlref list`)\n"
  "is used.  An integer input with an obvious default may be omitted\n"
  "(GRPO-ADV group_size: all rewards form one group).\n"
  "\n"
  "exit status: 0 success; 1 the formula rejects the input; 2 usage error;\n"
  "3 the certified values are printed but the binary64 implementation\n"
  "failed (\"binary64\" in the output says why).\n"
  "\n"
  "examples:\n"
  "  rlref eval PREF-BT rw=1.5 rl=0\n"
  "  rlref eval GRPO-ADV --variant trl rewards=1,0,0,0 group_size=4\n";

int
rlref_cmd_eval (int argc, char **argv)
{
  const rl_formula *f;
  const char *variant = NULL, *inputs_path = NULL;
  long prec = RL_WORKING_BITS;
  char **words = calloc ((size_t) argc + 1, sizeof *words), **file_words = NULL, err[1024];
  int nwords = 0, status;
  json_t *out;
  char *text;
  if (!words)
    return 2;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      free (words);
      return 0;
    }
  if (argc < 2)
    {
      fprintf (stderr, "rlref eval: missing formula id\n%s", usage);
      free (words);
      return 2;
    }
  f = rl_find (argv[1]);
  if (!f)
    {
      fprintf (stderr, "rlref eval: unknown formula '%s' (see rlref list)\n", argv[1]);
      free (words);
      return 2;
    }
  {
    const rl_opt opts[] = {
      { .name = "--variant", .kind = RL_OPT_TEXT, .text = &variant },
      { .name = "--prec", .kind = RL_OPT_PREC, .prec = &prec },
      { .name = "--inputs", .kind = RL_OPT_TEXT, .text = &inputs_path },
      { .name = NULL },
    };
    if (rl_parse_options ("eval", usage, argc, argv, 2, opts, (const char **) words, argc,
                          &nwords))
      {
        free (words);
        return 2;
      }
  }
  if (inputs_path)
    {
      /* the file's inputs, then the command line's (which must not repeat them) */
      int nfile = 0;
      char **more;
      file_words = rl_input_words (inputs_path, &nfile, err, sizeof err);
      more = file_words ? realloc (words, ((size_t) (nwords + nfile) + 1) * sizeof *words) : NULL;
      if (!more)
        {
          fprintf (stderr, "rlref eval: %s\n", file_words ? "out of memory" : err);
          rl_input_words_free (file_words);
          free (words);
          return 2;
        }
      words = more;
      for (int k = 0; k < nfile; k++)
        words[nwords++] = file_words[k];
    }
  out = rl_eval_object (f->id, variant, prec, 0, nwords, words, &status, err, sizeof err);
  free (words);
  rl_input_words_free (file_words);
  if (*err)
    fprintf (stderr, "rlref eval: %s\n", err);
  if (!out)
    return status;
  text = json_dumps (out, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
  if (text)
    puts (text);
  free (text);
  json_decref (out);
  return status;
}
