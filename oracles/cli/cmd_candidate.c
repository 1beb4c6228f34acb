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
#include "core/evaluate.h"
#include "core/numfmt.h"
#include "commands.h"
#include "options.h"

static const char *usage =
  "usage: rlref candidate GOLDEN --variant V\n"
  "\n"
  "GOLDEN \"-\" reads the golden file from standard input.\n"
  "Evaluates rlref's binary64 implementation of variant V (of the golden's\n"
  "formula) on the inputs of every test whose inputs it takes, and prints a\n"
  "candidate file: {\"results\": [{\"tcId\": N, \"outputs\": {...}}]}, values\n"
  "as C99 hex strings, or {\"tcId\": N, \"error\": \"EDOM\"} when it rejects\n"
  "the input.\n";

/* A real from a golden input object {"dec", "hex"}. */
static int
real_of (json_t *o, double *d)
{
  json_t *hex = json_object_get (o, "hex");
  return json_is_string (hex) ? rl_parse_double (json_string_value (hex), d) : -1;
}

/* Binds a golden test's inputs to v's inputs; -1 when they do not fit. */
static int
args_of (const rl_variant *v, json_t *inputs, rl_args *a)
{
  memset (a, 0, sizeof *a);
  for (size_t p = 0; v->params[p].name; p++)
    {
      json_t *o = json_object_get (inputs, v->params[p].name);
      a->param[p] = v->params[p].value;
      if (v->params[p].in_x && o && real_of (o, &a->param[p]))
        return -1;
    }
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      json_t *o = json_object_get (inputs, v->io->in[i].name), *item;
      rl_kind kind = v->io->in[i].kind;
      size_t n, j;
      if (!o)
        return -1;
      n = json_is_array (o) ? json_array_size (o) : 1;
      if ((kind == RL_REAL || kind == RL_INT) && json_is_array (o))
        return -1;
      a->len[i] = n;
      if (kind == RL_REAL || kind == RL_REAL_ARRAY)
        {
          a->re[i] = calloc (n ? n : 1, sizeof (double));
          if (!a->re[i])
            return -1;
          if (kind == RL_REAL)
            {
              if (real_of (o, &a->re[i][0]))
                return -1;
            }
          else
            json_array_foreach (o, j, item)
              if (real_of (item, &a->re[i][j]))
                return -1;
        }
      else
        {
          a->iv[i] = calloc (n ? n : 1, sizeof (long));
          if (!a->iv[i])
            return -1;
          if (kind == RL_INT)
            {
              if (!json_is_integer (o))
                return -1;
              a->iv[i][0] = (long) json_integer_value (o);
            }
          else
            json_array_foreach (o, j, item)
              {
                if (!json_is_integer (item))
                  return -1;
                a->iv[i][j] = (long) json_integer_value (item);
              }
        }
    }
  return 0;
}

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
  for (int i = 1; i < argc; i++)
    {
      const char *val;
      int missing;
      if ((val = rl_option (argc, argv, &i, "--variant", &missing)))
        variant = val;
      else if (!path && !missing && (argv[i][0] != '-' || strcmp (argv[i], "-") == 0))
        path = argv[i];
      else
        {
          fprintf (stderr, "rlref candidate: unexpected argument '%s'\n%s", argv[i], usage);
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
      size_t ti;
      json_array_foreach (tests, ti, t)
        {
          rl_args a;
          json_t *id = json_object_get (t, "tcId");
          if (!json_is_integer (id))
            continue;
          if (args_of (v, json_object_get (t, "inputs"), &a) == 0)
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
