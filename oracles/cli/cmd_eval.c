/* cmd_eval.c -- `rlref eval ID [--variant V] [--prec BITS] name=value ...`:
 * one formula at one input, certified MPFR digits beside the binary64
 * implementation's result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "core/jsonio.h"
#include "check/rules.h"
#include "core/numfmt.h"
#include "commands.h"
#include "core/options.h"
#include "inputs.h"

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

/* {"value", "digits", "double", "double_hex"} for output element k; the
 * double fields are absent when the binary64 evaluation failed. */
static json_t *
element (const void *ctx, size_t k)
{
  const rl_result *r = ctx;
  mpfr_srcptr y = r->cert.value + k;
  int exact, zero = rl_certified_zero (r, k, &exact);
  int digits = mpfr_regular_p (y) && !zero ? r->cert.digits[k] : 0;
  /* a zero as the goldens write it: "0", not the noise of a cancellation */
  char *text = zero ? strdup ("0") : rl_fmt_mpfr (y, digits);
  char dec[40], hex[40];
  json_t *o;
  rl_fmt_dec (r->yd[k], dec);
  rl_fmt_hex (r->yd[k], hex);
  if (r->status_d)
    o = json_pack ("{s:s, s:i}", "value", text ? text : "?", "digits", digits);
  else
    o = json_pack ("{s:s, s:i, s:s, s:s}", "value", text ? text : "?", "digits", digits,
                   "double", dec, "double_hex", hex);
  free (text);
  return o;
}

int
rlref_cmd_eval (int argc, char **argv)
{
  const rl_formula *f;
  const rl_variant *v;
  const char *variant = NULL, *inputs_path = NULL;
  long prec = RL_WORKING_BITS;
  char **words = calloc ((size_t) argc + 1, sizeof *words), **file_words = NULL, err[256];
  int nwords = 0, status, exit_status = 0;
  rl_args a;
  rl_result r;
  json_t *out, *outputs;
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
  v = rl_find_variant (f, variant);
  if (!v)
    {
      fprintf (stderr, "rlref eval: %s has no variant '%s'; it has:", f->id, variant);
      for (size_t k = 0; f->variants[k].name; k++)
        fprintf (stderr, " %s", f->variants[k].name);
      fprintf (stderr, "\n");
      free (words);
      return 2;
    }
  status = rl_args_parse (v, nwords, words, &a, err, sizeof err);
  free (words);
  rl_input_words_free (file_words);
  if (status)
    {
      fprintf (stderr, "rlref eval: %s: %s\n", f->id, err);
      return 2;
    }
  rlref_clear_error ();
  status = rl_evaluate (v, &a, (mpfr_prec_t) prec, RL_MIN_DIGITS, 0, &r);
  if (status)
    {
      fprintf (stderr, "rlref eval: %s [%s]: %s: %s%s%s\n", f->id, v->name,
               rlref_status_name (status), rlref_strerror (status),
               *rlref_last_error () ? ": " : "", rlref_last_error ());
      rl_result_free (&r);
      rl_args_free (&a);
      return 1;
    }
  outputs = rl_outputs_json (v->io, r.out_len, element, &r);
  out = json_pack ("{s:s, s:s, s:i, s:o, s:o}", "formula", f->id, "variant", v->name,
                   "precision", (int) r.cert.prec, "inputs", rl_json_inputs (v, &a),
                   "outputs", outputs);
  if (r.status_d)
    {
      /* the certified values stand; binary64 could not give its own */
      json_object_set_new (out, "binary64",
                           json_pack ("{s:s, s:s}", "error", rlref_status_name (r.status_d),
                                      "message", r.error_d));
      fprintf (stderr, "rlref eval: %s [%s]: the binary64 implementation failed: %s%s%s\n",
               f->id, v->name, rlref_status_name (r.status_d), *r.error_d ? ": " : "",
               r.error_d);
      exit_status = 3;
    }
  text = json_dumps (out, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
  if (text)
    puts (text);
  free (text);
  json_decref (out);
  rl_result_free (&r);
  rl_args_free (&a);
  return exit_status;
}
