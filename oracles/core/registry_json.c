/* registry_json.c -- the registry as JSON (registry_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include "registry_json.h"

static const char *const kind_names[] = { "real", "real[]", "int", "int[]" };

/* Input j of v: its name, or with full the object of its declarations. */
static json_t *
input_json (const rl_variant *v, size_t j, int full)
{
  const rl_input *in = &v->io->in[j];
  json_t *o;
  if (!full)
    return json_string (in->name);
  o = json_pack ("{s:s, s:s, s:s}", "name", in->name, "kind", kind_names[in->kind], "doc",
                 in->doc ? in->doc : "");
  if (in->domain)
    json_object_set_new (o, "domain", json_string (in->domain));
  if (in->same_len_as)
    json_object_set_new (o, "sameLenAs", json_string (in->same_len_as));
  if (in->defaults_to_len_of)
    json_object_set_new (o, "defaultsToLenOf", json_string (in->defaults_to_len_of));
  return o;
}

json_t *
rl_registry_json (int full)
{
  json_t *arr = json_array ();
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *f = rl_formula_at (i);
      json_t *vars = json_array ();
      char golden[128];
      for (size_t k = 0; f->variants[k].name; k++)
        {
          const rl_variant *v = &f->variants[k];
          json_t *in = json_array (), *out = json_array ();
          for (size_t j = 0; v->io->in[j].name; j++)
            json_array_append_new (in, input_json (v, j, full));
          for (size_t j = 0; v->io->out[j].name; j++)
            json_array_append_new (out, json_string (v->io->out[j].name));
          json_t *o = json_pack ("{s:s, s:s, s:s, s:o, s:o}", "name", v->name,
                                 "description", v->description, "usedBy", v->used_by,
                                 "inputs", in, "outputs", out);
          if (full)
            {
              json_t *params = json_object ();
              for (size_t p = 0; v->params[p].name; p++)
                json_object_set_new (params, v->params[p].name, json_real (v->params[p].value));
              json_object_set_new (o, "params", params);
            }
          json_array_append_new (vars, o);
        }
      snprintf (golden, sizeof golden, "golden/%s.json", f->id);
      json_array_append_new (arr, json_pack ("{s:s, s:s, s:s, s:s, s:o}", "id", f->id,
                                             "what", f->what, "source", f->source,
                                             "golden", golden, "variants", vars));
    }
  return arr;
}

char *
rlref_registry_text (void)
{
  json_t *o = rl_registry_json (1);
  char *text = o ? json_dumps (o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref (o);
  return text;
}
