/* jsonio.c -- the JSON spellings that golden files, eval and candidate
 * share: exact doubles as {"dec", "hex"}, and a case's inputs. */
#include <math.h>
#include <string.h>
#include "numfmt.h"
#include "jsonio.h"

json_t *
rl_json_real (double d)
{
  char dec[40], hex[40];
  rl_fmt_dec (d, dec);
  rl_fmt_hex (d, hex);
  if (isnan (d) || isinf (d))
    strcpy (hex, dec);
  return json_pack ("{s:s, s:s}", "dec", dec, "hex", hex);
}

json_t *
rl_json_inputs (const rl_variant *v, const rl_args *a)
{
  json_t *in = json_object ();
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      const rl_input *s = &v->io->in[i];
      json_t *val;
      switch (s->kind)
        {
        case RL_REAL:
          val = rl_json_real (a->re[i][0]);
          break;
        case RL_INT:
          val = json_integer (a->iv[i][0]);
          break;
        case RL_REAL_ARRAY:
          val = json_array ();
          for (size_t j = 0; j < a->len[i]; j++)
            json_array_append_new (val, rl_json_real (a->re[i][j]));
          break;
        default:
          val = json_array ();
          for (size_t j = 0; j < a->len[i]; j++)
            json_array_append_new (val, json_integer (a->iv[i][j]));
          break;
        }
      json_object_set_new (in, s->name, val);
    }
  for (size_t p = 0; v->params[p].name; p++)
    if (v->params[p].in_x && a->param[p] != v->params[p].value)
      json_object_set_new (in, v->params[p].name, rl_json_real (a->param[p]));
  return in;
}
