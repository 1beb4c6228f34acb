/* cmd_candidate.c -- `rlref candidate GOLDEN --variant V`: runs rlref's own
 * binary64 implementation of variant V on the inputs of every test in a
 * golden file and prints a candidate file for `rlref check`.  `make check`
 * uses it to hold the binary64 implementations to the certified values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/golden_args.h"
#include "core/evaluate.h"
#include "core/numfmt.h"
#include "commands.h"
#include "core/options.h"

static const char *usage =
  "usage: rlref candidate GOLDEN --variant V\n"
  "\n"
  "GOLDEN \"-\" reads the golden file from standard input.\n"
  "Evaluates rlref's binary64 implementation of variant V (of the golden's\n"
  "formula) on the inputs of every test of its part whose inputs it takes,\n"
  "and prints a\n"
  "candidate file: {\"results\": [{\"tcId\": N, \"outputs\": {...}}]}, values\n"
  "as C99 hex strings, or {\"tcId\": N, \"error\": \"EDOM\"} when it rejects\n"
  "the input.\n";

/* One output element as a C99 hex string. */
static json_t *
hex_element (const void *ctx, size_t k)
{
  char hex[40];
  rl_fmt_hex (((const double *) ctx)[k], hex);
  return json_string (hex);
}

/* The result for one test: outputs or the error. */
static json_t *
run (const rl_variant *v, json_int_t tcid, const rl_args *a)
{
  size_t len[RL_MAX_OUT], ny = 0, nx = rl_args_nx (v, a);
  double *x, *y;
  json_t *res;
  int status = rl_out_lengths (v, a, len);
  if (status)
    return json_pack ("{s:I, s:s}", "tcId", tcid, "error", rlref_status_name (status));
  for (size_t i = 0; v->io->out[i].name; i++)
    ny += len[i];
  x = calloc (nx ? nx : 1, sizeof *x);
  y = calloc (ny ? ny : 1, sizeof *y);
  if (!x || !y)
    {
      free (x);
      free (y);
      return json_pack ("{s:I, s:s}", "tcId", tcid, "error", "ENOMEM");
    }
  rl_args_flatten (v, a, x);
  status = rl_call_d (v, a, x, y, len);
  if (status)
    res = json_pack ("{s:I, s:s}", "tcId", tcid, "error", rlref_status_name (status));
  else
    res = json_pack ("{s:I, s:o}", "tcId", tcid, "outputs",
                     rl_outputs_json (v->io, len, hex_element, y));
  free (x);
  free (y);
  return res;
}

int
rlref_cmd_candidate (int argc, char **argv)
{
  const char *path = NULL, *variant = NULL;
  const rl_formula *f;
  const rl_variant *v;
  json_t *golden, *groups, *group, *results = json_array (), *out;
  json_error_t jerr;
  size_t gi;
  char *text;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      json_decref (results);
      return 0;
    }
  {
    const rl_opt opts[] = {
      { .name = "--variant", .kind = RL_OPT_TEXT, .text = &variant },
      { .name = NULL },
    };
    int nwords;
    if (rl_parse_options ("candidate", usage, argc, argv, 1, opts, &path, 1, &nwords))
      {
        json_decref (results);
        return 2;
      }
  }
  if (!path || !variant)
    {
      fprintf (stderr, "rlref candidate: need GOLDEN and --variant\n%s", usage);
      json_decref (results);
      return 2;
    }
  golden = strcmp (path, "-") == 0 ? json_loadf (stdin, 0, &jerr)
                                   : json_load_file (path, 0, &jerr);
  if (!golden)
    {
      fprintf (stderr, "rlref candidate: %s: %s (line %d)\n", path, jerr.text, jerr.line);
      json_decref (results);
      return 2;
    }
  f = rl_find (json_string_value (json_object_get (golden, "formula")));
  v = rl_find_variant (f, variant);
  groups = json_object_get (golden, "testGroups");
  if (!f || !v || !json_is_array (groups))
    {
      fprintf (stderr, "rlref candidate: %s: unknown formula or variant '%s'\n", path, variant);
      json_decref (golden);
      json_decref (results);
      return 2;
    }
  json_array_foreach (groups, gi, group)
    {
      json_t *tests = json_object_get (group, "tests"), *t;
      const char *part = json_string_value (json_object_get (group, "part"));
      size_t ti;
      /* the tests of v's own part: another part is another computation */
      if (part != NULL && v->io->part != NULL && strcmp (part, v->io->part) != 0)
        continue;
      json_array_foreach (tests, ti, t)
        {
          rl_args a;
          json_t *id = json_object_get (t, "tcId");
          if (!json_is_integer (id))
            continue;
          if (rl_args_from_golden (v, json_object_get (t, "inputs"), &a) == 0)
            json_array_append_new (results, run (v, json_integer_value (id), &a));
          rl_args_free (&a);
        }
    }
  out = json_pack ("{s:o}", "results", results);
  text = json_dumps (out, JSON_INDENT (1) | JSON_PRESERVE_ORDER);
  if (text)
    puts (text);
  free (text);
  json_decref (out);
  json_decref (golden);
  return 0;
}
