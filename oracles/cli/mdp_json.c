/* mdp_json.c -- reading a finite MDP's model file (mdp_json.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "rlref/mdp.h"
#include "core/jsonio.h"
#include "mdp_json.h"

void
rl_mdp_model_free (rl_mdp_model *f)
{
  for (size_t i = 0; f->state_names && i < f->S; i++)
    free (f->state_names[i]);
  for (size_t i = 0; f->action_names && i < f->A; i++)
    free (f->action_names[i]);
  free (f->state_names);
  free (f->action_names);
  free (f->P);
  free (f->R);
  free (f->pi);
  free (f->terminal);
}

static int
fail (char *err, size_t errlen, const char *msg)
{
  snprintf (err, errlen, "%s", msg);
  return -1;
}

/* A count or a list of names: *n, and *names (NULL for a count). */
static int
sizes (json_t *v, size_t *n, char ***names, size_t max)
{
  *names = NULL;
  if (json_is_integer (v))
    {
      json_int_t k = json_integer_value (v);
      if (k < 1 || (size_t) k > max)
        return -1;
      *n = (size_t) k;
      return 0;
    }
  if (!json_is_array (v) || json_array_size (v) < 1 || json_array_size (v) > max)
    return -1;
  *n = json_array_size (v);
  *names = calloc (*n, sizeof **names);
  if (!*names)
    return -1;
  for (size_t i = 0; i < *n; i++)
    {
      json_t *s = json_array_get (v, i);
      if (!json_is_string (s) || !((*names)[i] = strdup (json_string_value (s))))
        return -1;
    }
  return 0;
}

/* A state given as an index or a name. */
static long
state_of (const rl_mdp_model *f, json_t *v)
{
  if (json_is_integer (v))
    {
      json_int_t k = json_integer_value (v);
      return k >= 0 && (size_t) k < f->S ? (long) k : -1;
    }
  for (size_t i = 0; json_is_string (v) && f->state_names && i < f->S; i++)
    if (strcmp (f->state_names[i], json_string_value (v)) == 0)
      return (long) i;
  return -1;
}

/* n1 x n2 (x n3 when n3 > 0) nested arrays of finite numbers into x; -1
   for another shape, -2 for a NaN or an infinity. */
static int
grid (json_t *v, double *x, size_t n1, size_t n2, size_t n3)
{
  if (!json_is_array (v) || json_array_size (v) != n1)
    return -1;
  for (size_t i = 0; i < n1; i++)
    {
      json_t *row = json_array_get (v, i);
      if (!json_is_array (row) || json_array_size (row) != n2)
        return -1;
      for (size_t j = 0; j < n2; j++)
        {
          json_t *e = json_array_get (row, j);
          if (n3 == 0)
            {
              if (rl_json_number (e, &x[i * n2 + j]))
                return -1;
              if (!isfinite (x[i * n2 + j]))
                return -2;
              continue;
            }
          if (!json_is_array (e) || json_array_size (e) != n3)
            return -1;
          for (size_t k = 0; k < n3; k++)
            {
              if (rl_json_number (json_array_get (e, k), &x[(i * n2 + j) * n3 + k]))
                return -1;
              if (!isfinite (x[(i * n2 + j) * n3 + k]))
                return -2;
            }
        }
    }
  return 0;
}

int
rl_mdp_model_read (const char *path, rl_mdp_model *f, char *err, size_t errlen)
{
  static const char *const keys[] = { "states", "actions", "gamma", "P", "R", "terminal",
                                      "policy", "start", NULL };
  json_t *root, *v;
  const char *unknown;
  int rc = -1, k;
  memset (f, 0, sizeof *f);
  if (!(root = rl_json_load (path, err, errlen, NULL)))
    return -2;
  if (!json_is_object (root))
    {
      fail (err, errlen, "the model must be a JSON object");
      goto done;
    }
  if ((unknown = rl_json_unknown_key (root, keys)))
    {
      snprintf (err, errlen, "unknown key \"%.60s\" (a model reads states, actions, gamma, "
                "P, R, terminal, policy, start)", unknown);
      goto done;
    }
  if (sizes (json_object_get (root, "states"), &f->S, &f->state_names, RLREF_MDP_MAX_S))
    {
      fail (err, errlen, "\"states\" must be a count (1 to 512) or a list of names");
      goto done;
    }
  if (sizes (json_object_get (root, "actions"), &f->A, &f->action_names, RLREF_MDP_MAX_A))
    {
      fail (err, errlen, "\"actions\" must be a count (1 to 64) or a list of names");
      goto done;
    }
  f->P = calloc (f->S * f->A * f->S, sizeof *f->P);
  f->R = calloc (f->S * f->A * f->S, sizeof *f->R);
  f->terminal = calloc (f->S, 1);
  if (!f->P || !f->R || !f->terminal)
    {
      fail (err, errlen, "out of memory");
      goto done;
    }
  if ((k = grid (json_object_get (root, "P"), f->P, f->S, f->A, f->S)))
    {
      fail (err, errlen, k == -2 ? "\"P\" holds a NaN or an infinity"
            : "\"P\" must be S lists of A lists of S numbers, P(s'|s,a)");
      goto done;
    }
  v = json_object_get (root, "R");
  if ((k = grid (v, f->R, f->S, f->A, 0)) == 0)
    f->sas = 0;
  else if (k != -2 && (k = grid (v, f->R, f->S, f->A, f->S)) == 0)
    f->sas = 1;
  else
    {
      fail (err, errlen, k == -2 ? "\"R\" holds a NaN or an infinity"
            : "\"R\" must be S lists of A numbers, r(s,a), or of A lists of S, R(s,a,s')");
      goto done;
    }
  if (!json_object_get (root, "gamma")
      || rl_json_number (json_object_get (root, "gamma"), &f->gamma))
    {
      fail (err, errlen, "\"gamma\" must be a number");
      goto done;
    }
  if ((v = json_object_get (root, "terminal")))
    {
      size_t i;
      json_t *e;
      if (!json_is_array (v))
        {
          fail (err, errlen, "\"terminal\" must be a list of states");
          goto done;
        }
      json_array_foreach (v, i, e)
        {
          long s = state_of (f, e);
          if (s < 0 || f->terminal[s])
            {
              fail (err, errlen, "\"terminal\" must list distinct states");
              goto done;
            }
          f->terminal[s] = 1;
        }
    }
  if ((v = json_object_get (root, "policy")))
    {
      f->pi = calloc (f->S * f->A, sizeof *f->pi);
      if (!f->pi || (k = grid (v, f->pi, f->S, f->A, 0)))
        {
          fail (err, errlen, f->pi && k == -2 ? "\"policy\" holds a NaN or an infinity"
                : "\"policy\" must be S lists of A numbers, pi(a|s)");
          goto done;
        }
    }
  f->start = 0;
  if ((v = json_object_get (root, "start")) && (f->start = state_of (f, v)) < 0)
    {
      fail (err, errlen, "\"start\" must be a state");
      goto done;
    }
  rc = 0;
done:
  json_decref (root);
  return rc;
}
