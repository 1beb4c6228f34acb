/* cmd_list.c -- `rlref list`: the implemented formula ids, their variants
 * and golden files. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "registry.h"
#include "commands.h"

static const char *usage =
  "usage: rlref list [--json]\n"
  "\n"
  "Lists every implemented formula id of the catalogue with its variants\n"
  "(conventions), inputs, outputs and golden file.\n";

static void
list_text (void)
{
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      printf ("%-16s %s  [%s]  golden/%s.json\n", f->id, f->what, f->source, f->id);
      for (size_t k = 0; k < f->n_variants; k++)
        {
          const rl_variant *v = &f->variants[k];
          printf ("    --variant %-20s %s\n", v->name, v->description);
          printf ("      inputs:");
          for (size_t j = 0; j < v->io->n_in; j++)
            printf (" %s%s", v->io->in[j].name,
                    v->io->in[j].kind == RL_REAL_ARRAY || v->io->in[j].kind == RL_INT_ARRAY
                    ? "[]" : "");
          for (size_t j = 0; j < v->n_params; j++)
            if (v->params[j].in_x)
              printf (" [%s=%g]", v->params[j].name, v->params[j].value);
          printf ("  outputs:");
          for (size_t j = 0; j < v->io->n_out; j++)
            printf (" %s%s", v->io->out[j].name, v->io->out[j].array ? "[]" : "");
          printf ("\n      used by: %s\n", v->used_by);
        }
    }
}

static void
list_json (void)
{
  json_t *arr = json_array ();
  char *text;
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      json_t *vars = json_array ();
      char golden[128];
      for (size_t k = 0; k < f->n_variants; k++)
        {
          const rl_variant *v = &f->variants[k];
          json_t *in = json_array (), *out = json_array ();
          for (size_t j = 0; j < v->io->n_in; j++)
            json_array_append_new (in, json_string (v->io->in[j].name));
          for (size_t j = 0; j < v->io->n_out; j++)
            json_array_append_new (out, json_string (v->io->out[j].name));
          json_array_append_new (vars, json_pack ("{s:s, s:s, s:s, s:o, s:o}", "name", v->name,
                                                  "description", v->description,
                                                  "usedBy", v->used_by, "inputs", in,
                                                  "outputs", out));
        }
      snprintf (golden, sizeof golden, "golden/%s.json", f->id);
      json_array_append_new (arr, json_pack ("{s:s, s:s, s:s, s:s, s:o}", "id", f->id,
                                             "what", f->what, "source", f->source,
                                             "golden", golden, "variants", vars));
    }
  text = json_dumps (arr, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
  if (text)
    puts (text);
  free (text);
  json_decref (arr);
}

int
rlref_cmd_list (int argc, char **argv)
{
  int as_json = 0;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        as_json = 1;
      else
        {
          fprintf (stderr, "rlref list: unknown argument '%s'\n%s", argv[i], usage);
          return 2;
        }
    }
  if (as_json)
    list_json ();
  else
    list_text ();
  return 0;
}
