/* golden_args.c -- a golden test's inputs as a formula's arguments. */
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "golden_args.h"

/* A real from a golden input object {"dec", "hex"}; 0 or -1. */
static int
real_of (json_t *o, double *d)
{
  json_t *hex = json_object_get (o, "hex");
  return json_is_string (hex) ? rl_parse_double (json_string_value (hex), d) : -1;
}

/* Whether v takes an input or in_x parameter called name. */
static int
takes (const rl_variant *v, const char *name)
{
  if (rl_input_index (v->io, name) >= 0)
    return 1;
  for (size_t p = 0; v->params[p].name; p++)
    if (v->params[p].in_x && strcmp (v->params[p].name, name) == 0)
      return 1;
  return 0;
}

/* Binds golden input o to input i of v (kind kind) in a; 0 or -1. */
static int
bind_input (json_t *o, rl_kind kind, size_t i, rl_args *a)
{
  size_t n = json_is_array (o) ? json_array_size (o) : 1, j;
  json_t *item;
  if ((kind == RL_REAL || kind == RL_INT) && json_is_array (o))
    return -1;
  a->len[i] = n;
  if (kind == RL_REAL || kind == RL_REAL_ARRAY)
    {
      if (!(a->re[i] = calloc (n ? n : 1, sizeof (double))))
        return -1;
      if (kind == RL_REAL)
        return real_of (o, &a->re[i][0]);
      json_array_foreach (o, j, item)
        if (real_of (item, &a->re[i][j]))
          return -1;
      return 0;
    }
  if (!(a->iv[i] = calloc (n ? n : 1, sizeof (long))))
    return -1;
  if (kind == RL_INT)
    {
      if (!json_is_integer (o))
        return -1;
      a->iv[i][0] = (long) json_integer_value (o);
      return 0;
    }
  json_array_foreach (o, j, item)
    {
      if (!json_is_integer (item))
        return -1;
      a->iv[i][j] = (long) json_integer_value (item);
    }
  return 0;
}

int
rl_args_from_golden (const rl_variant *v, json_t *inputs, rl_args *a)
{
  const char *name;
  json_t *o;
  memset (a, 0, sizeof *a);
  json_object_foreach (inputs, name, o)
    if (!takes (v, name))
      return -1;
  for (size_t p = 0; v->params[p].name; p++)
    {
      o = json_object_get (inputs, v->params[p].name);
      a->param[p] = v->params[p].value;
      if (v->params[p].in_x && o && real_of (o, &a->param[p]))
        return -1;
    }
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      o = json_object_get (inputs, v->io->in[i].name);
      if (!o || bind_input (o, v->io->in[i].kind, i, a))
        return -1;
    }
  return 0;
}
