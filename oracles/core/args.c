/* args.c -- parsing name=value arguments; flattening them to the real
 * vector the evaluators take.  Numbers are read with strtod in the C locale
 * (the command never calls setlocale). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/status.h"
#include "args.h"


/* Whether the number text S has a nonzero digit in its significand.  */
static int
nonzero_significand (const char *s)
{
  int hex = 0;
  if (*s == '+' || *s == '-')
    s++;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    {
      hex = 1;
      s += 2;
    }
  for (; *s; s++)
    {
      if (!hex && (*s == 'e' || *s == 'E'))
        break;
      if (hex && (*s == 'p' || *s == 'P'))
        break;
      if (*s != '0' && *s != '.')
        return 1;
    }
  return 0;
}

int
rl_parse_double (const char *s, double *out)
{
  char *end;
  if (!s || !*s)
    return RL_NUM_SYNTAX;
  errno = 0;
  *out = strtod (s, &end);
  if (*end != '\0' || end == s)
    return RL_NUM_SYNTAX;
  if (errno == ERANGE && isinf (*out))
    return RL_NUM_OVERFLOW;
  if (*out == 0 && nonzero_significand (s))
    return RL_NUM_UNDERFLOW;
  return 0;
}

const char *
rl_parse_problem (int code)
{
  switch (code)
    {
    case RL_NUM_OVERFLOW:
      return "overflows binary64 (its magnitude is beyond 1.7976931348623157e308)";
    case RL_NUM_UNDERFLOW:
      return "underflows binary64 (not zero, but below 2.5e-324: it would read as 0)";
    default:
      return "is not a number";
    }
}

static int
parse_long (const char *s, long *out)
{
  char *end;
  if (!s || !*s)
    return -1;
  errno = 0;
  *out = strtol (s, &end, 10);
  if (*end != '\0')
    return -1;
  if (errno == ERANGE)
    return -3;
  return 0;
}

/* Number of comma-separated items ("" has none). */
static size_t
count_items (const char *s)
{
  size_t n = 1;
  if (!*s)
    return 0;
  for (; *s; s++)
    n += *s == ',';
  return n;
}

/* Parses the comma list s into a real or integer array. */
static int
parse_list (const char *s, int integer, size_t *len, double **re, long **iv)
{
  size_t n = count_items (s);
  char *copy, *item, *save = NULL;
  size_t i = 0;
  int bad = 0;
  if (n > RL_MAX_LEN)
    return -2;
  *len = n;
  if (integer)
    *iv = calloc (n ? n : 1, sizeof **iv);
  else
    *re = calloc (n ? n : 1, sizeof **re);
  copy = strdup (s);
  if ((integer ? (void *) *iv : (void *) *re) == NULL || !copy)
    {
      free (copy);
      return -1;
    }
  /* strtok_r skips empty fields, so check for them first */
  if (n && (s[0] == ',' || s[strlen (s) - 1] == ',' || strstr (s, ",,")))
    bad = 1;
  for (item = strtok_r (copy, ",", &save); item && !bad; item = strtok_r (NULL, ",", &save))
    {
      if (integer)
        bad = parse_long (item, &(*iv)[i++]);
      else
        {
          int code = rl_parse_double (item, &(*re)[i++]);
          bad = code == RL_NUM_OVERFLOW || code == RL_NUM_UNDERFLOW ? code : code != 0;
        }
    }
  free (copy);
  return bad;
}

void
rl_args_free (rl_args *a)
{
  for (size_t i = 0; i < RL_MAX_IN; i++)
    {
      free (a->re[i]);
      free (a->iv[i]);
      a->re[i] = NULL;
      a->iv[i] = NULL;
    }
}

int
rl_args_parse (const rl_variant *v, int argc, char *const *argv, rl_args *a,
               char *err, size_t errlen)
{
  const rl_io *io = v->io;
  size_t n_in = rl_n_in (io), n_params = rl_n_params (v);
  int seen[RL_MAX_IN] = { 0 };
  memset (a, 0, sizeof *a);
  for (size_t p = 0; p < n_params; p++)
    a->param[p] = v->params[p].value;
  for (int k = 0; k < argc; k++)
    {
      const char *eq = strchr (argv[k], '=');
      size_t namelen, i;
      int found = 0;
      if (!eq)
        {
          snprintf (err, errlen, "argument '%s' is not name=value", argv[k]);
          rl_args_free (a);
          return RLREF_EINVAL;
        }
      namelen = (size_t) (eq - argv[k]);
      for (i = 0; i < n_in; i++)
        if (strlen (io->in[i].name) == namelen && !strncmp (io->in[i].name, argv[k], namelen))
          break;
      if (i < n_in)
        {
          rl_kind kind = io->in[i].kind;
          int bad;
          if (seen[i]++)
            {
              snprintf (err, errlen, "input '%s' given twice", io->in[i].name);
              rl_args_free (a);
              return RLREF_EINVAL;
            }
          bad = parse_list (eq + 1, kind == RL_INT || kind == RL_INT_ARRAY,
                            &a->len[i], &a->re[i], &a->iv[i]);
          if (!bad && (kind == RL_REAL || kind == RL_INT) && a->len[i] != 1)
            bad = 1;
          if (bad == -3)
            {
              snprintf (err, errlen, "input '%s': '%s' is too large for an integer",
                        io->in[i].name, eq + 1);
              rl_args_free (a);
              return RLREF_EINVAL;
            }
          if (bad == -2)
            {
              snprintf (err, errlen, "input '%s' has more than %d elements", io->in[i].name,
                        RL_MAX_LEN);
              rl_args_free (a);
              return RLREF_EINVAL;
            }
          if (bad == RL_NUM_OVERFLOW || bad == RL_NUM_UNDERFLOW)
            {
              snprintf (err, errlen, "input '%s': '%s' %s", io->in[i].name, eq + 1,
                        rl_parse_problem (bad));
              rl_args_free (a);
              return RLREF_EINVAL;
            }
          if (bad)
            {
              snprintf (err, errlen, "input '%s': '%s' is not %s", io->in[i].name, eq + 1,
                        kind == RL_REAL ? "a number"
                        : kind == RL_INT ? "an integer"
                        : kind == RL_INT_ARRAY ? "a comma-separated list of integers"
                        : "a comma-separated list of numbers");
              rl_args_free (a);
              return RLREF_EINVAL;
            }
          continue;
        }
      for (size_t p = 0; p < n_params; p++)
        if (v->params[p].in_x && strlen (v->params[p].name) == namelen
            && !strncmp (v->params[p].name, argv[k], namelen))
          {
            int code = rl_parse_double (eq + 1, &a->param[p]);
            if (code)
              {
                snprintf (err, errlen, "parameter '%s': '%s' %s",
                          v->params[p].name, eq + 1, rl_parse_problem (code));
                rl_args_free (a);
                return RLREF_EINVAL;
              }
            found = 1;
          }
      if (!found)
        {
          snprintf (err, errlen, "unknown input '%.*s'", (int) namelen, argv[k]);
          rl_args_free (a);
          return RLREF_EINVAL;
        }
    }
  /* an omitted integer with a default: the length of another input */
  for (size_t i = 0; i < n_in; i++)
    {
      int j = rl_input_index (io, io->in[i].defaults_to_len_of);
      if (!seen[i] && j >= 0 && seen[j])
        {
          a->iv[i] = malloc (sizeof (long));
          if (!a->iv[i])
            {
              snprintf (err, errlen, "out of memory");
              rl_args_free (a);
              return RLREF_ENOMEM;
            }
          a->iv[i][0] = (long) a->len[j];
          a->len[i] = 1;
          seen[i] = 1;
        }
    }
  for (size_t i = 0; i < n_in; i++)
    if (!seen[i])
      {
        snprintf (err, errlen, "missing input '%s' (%s)", io->in[i].name, io->in[i].doc);
        rl_args_free (a);
        return RLREF_EINVAL;
      }
  return RLREF_SUCCESS;
}

static int
is_real (rl_kind k)
{
  return k == RL_REAL || k == RL_REAL_ARRAY;
}

size_t
rl_args_nx (const rl_variant *v, const rl_args *a)
{
  size_t n = 0, n_in = rl_n_in (v->io), n_params = rl_n_params (v);
  for (size_t i = 0; i < n_in; i++)
    if (is_real (v->io->in[i].kind))
      n += a->len[i];
  for (size_t p = 0; p < n_params; p++)
    n += v->params[p].in_x != 0;
  return n;
}

void
rl_args_flatten (const rl_variant *v, const rl_args *a, double *x)
{
  size_t n = 0, n_in = rl_n_in (v->io), n_params = rl_n_params (v);
  for (size_t i = 0; i < n_in; i++)
    if (is_real (v->io->in[i].kind))
      for (size_t j = 0; j < a->len[i]; j++)
        x[n++] = a->re[i][j];
  for (size_t p = 0; p < n_params; p++)
    if (v->params[p].in_x)
      x[n++] = a->param[p];
}

void
rl_args_slots (const rl_variant *v, const rl_args *a, size_t *offset)
{
  size_t n = 0, n_in = rl_n_in (v->io), n_params = rl_n_params (v);
  for (size_t i = 0; i < n_in; i++)
    {
      offset[i] = is_real (v->io->in[i].kind) ? n : RL_NO_SLOT;
      if (is_real (v->io->in[i].kind))
        n += a->len[i];
    }
  for (size_t p = 0; p < n_params; p++)
    {
      offset[n_in + p] = v->params[p].in_x ? n : RL_NO_SLOT;
      n += v->params[p].in_x != 0;
    }
}
