/* cmd_list.c -- `rlref list`: the implemented formula ids, their variants
 * and golden files. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "core/registry.h"
#include "commands.h"
#include "core/options.h"
#include "core/registry_json.h"

static const char *usage =
  "usage: rlref list [--json | --markdown]\n"
  "\n"
  "Lists every implemented formula id of the catalogue with its variants\n"
  "(conventions), inputs, outputs and golden file.  The first variant of a\n"
  "formula is its default (what `rlref eval` uses without --variant).\n"
  "--markdown prints the tables of README.md and golden/README.md.\n";

/* A Markdown table cell: '|' escaped. */
static void
cell (const char *s)
{
  fputs ("| ", stdout);
  for (; *s; s++)
    {
      if (*s == '|')
        putchar ('\\');
      putchar (*s);
    }
  putchar (' ');
}

/* "a, b[], c" of v's inputs and real parameters that are inputs. */
static void
io_names (const rl_variant *v, int outputs, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  if (outputs)
    for (size_t j = 0; v->io->out[j].name && n < size; j++)
      n += (size_t) snprintf (buf + n, size - n, "%s%s%s", j ? ", " : "", v->io->out[j].name,
                              rl_out_is_array (v->io, j) ? "[]" : "");
  else
    {
      for (size_t j = 0; v->io->in[j].name && n < size; j++)
        n += (size_t) snprintf (buf + n, size - n, "%s%s%s", j ? ", " : "", v->io->in[j].name,
                                v->io->in[j].kind == RL_REAL_ARRAY
                                || v->io->in[j].kind == RL_INT_ARRAY ? "[]" : "");
      for (size_t j = 0; v->params[j].name && n < size; j++)
        if (v->params[j].in_x)
          n += (size_t) snprintf (buf + n, size - n, ", %s", v->params[j].name);
    }
}

/* One row per formula and distinct inputs and outputs (the parts of a
 * formula that share both share a row), then one row per variant. */
static void
list_markdown (void)
{
  char in[512], out[512], in_j[512], out_j[512];
  printf ("| id | inputs | outputs | definition | seeds |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      for (size_t k = 0; f->variants[k].name; k++)
        {
          const rl_variant *v = &f->variants[k];
          int seen = 0;
          io_names (v, 0, in, sizeof in);
          io_names (v, 1, out, sizeof out);
          for (size_t j = 0; j < k && !seen; j++)
            {
              io_names (&f->variants[j], 0, in_j, sizeof in_j);
              io_names (&f->variants[j], 1, out_j, sizeof out_j);
              seen = strcmp (in, in_j) == 0 && strcmp (out, out_j) == 0;
            }
          if (seen)
            continue;
          cell (f->id);
          cell (in);
          cell (out);
          cell (f->definition);
          cell (f->source);
          printf ("|\n");
        }
    }
  printf ("\n| formula | variant | part | rule | used by |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      for (size_t k = 0; f->variants[k].name; k++)
        {
          const rl_variant *v = &f->variants[k];
          cell (f->id);
          printf ("| `%s`%s ", v->name, k == 0 ? " (default)" : "");
          cell (v->io->part);
          cell (v->description);
          cell (v->used_by);
          printf ("|\n");
        }
    }
}

static void
list_text (void)
{
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      printf ("%-16s %s  [%s]  golden/%s.json\n", f->id, f->what, f->source, f->id);
      for (size_t k = 0; f->variants[k].name; k++)
        {
          const rl_variant *v = &f->variants[k];
          printf ("    --variant %-20s %s%s\n", v->name, v->description,
                  k == 0 ? " (default)" : "");
          printf ("      inputs:");
          for (size_t j = 0; v->io->in[j].name; j++)
            printf (" %s%s", v->io->in[j].name,
                    v->io->in[j].kind == RL_REAL_ARRAY || v->io->in[j].kind == RL_INT_ARRAY
                    ? "[]" : "");
          for (size_t j = 0; v->params[j].name; j++)
            if (v->params[j].in_x)
              printf (" [%s=%g]", v->params[j].name, v->params[j].value);
          printf ("  outputs:");
          for (size_t j = 0; v->io->out[j].name; j++)
            printf (" %s%s", v->io->out[j].name, rl_out_is_array (v->io, j) ? "[]" : "");
          printf ("\n      used by: %s\n", v->used_by);
        }
    }
}

static void
list_json (void)
{
  json_t *arr = rl_registry_json (0);
  char *text;
  text = json_dumps (arr, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
  if (text)
    puts (text);
  free (text);
  json_decref (arr);
}

int
rlref_cmd_list (int argc, char **argv)
{
  int as_json = 0, as_markdown = 0;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        as_json = 1;
      else if (strcmp (argv[i], "--markdown") == 0)
        as_markdown = 1;
      else
        {
          fprintf (stderr, "rlref list: unknown argument '%s'\n%s", argv[i], usage);
          return 2;
        }
    }
  if (as_json && as_markdown)
    {
      fprintf (stderr, "rlref list: --json and --markdown exclude each other\n");
      return 2;
    }
  if (as_json)
    list_json ();
  else if (as_markdown)
    list_markdown ();
  else
    list_text ();
  return 0;
}
