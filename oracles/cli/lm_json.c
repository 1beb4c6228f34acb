/* lm_json.c -- reading a tiny-LM model file:
 *   {"vocab": V, "eos": E, "max_len": T, "truncated": "keep" | "condition",
 *    "bigram": {"logits": [[V numbers] x (V + 1)]}          row V = start
 *    | "tabular": {"default": [V], "prefixes": {"": [V], "0 1": [V], ...}},
 *    "reward": {"token": [V], "per_length": c, "truncated": c}
 *            | {"table": [{"y": [tokens], "r": x}, ...], "default": x},
 *    "beta": b}
 * Numbers are JSON numbers or strings (decimal, C99 hex). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "core/jsonio.h"
#include "lm_json.h"

static int
fail (char *err, size_t errlen, const char *msg, const char *what)
{
  snprintf (err, errlen, "%s%s%s", msg, what ? ": " : "", what ? what : "");
  return -1;
}

/* An array of exactly n numbers into x. */
static int
numbers (json_t *v, double *x, size_t n)
{
  size_t i;
  json_t *item;
  if (!json_is_array (v) || json_array_size (v) != n)
    return -1;
  json_array_foreach (v, i, item)
    if (rl_json_number (item, &x[i]))
      return -1;
  return 0;
}

/* Refuses a key of object o that is not in known, naming it (where says
 * which object); 0 or -1. */
static int
known_keys (json_t *o, const char *const *known, const char *where, char *err, size_t errlen)
{
  const char *key = rl_json_unknown_key (o, known);
  char what[160];
  if (!key)
    return 0;
  snprintf (what, sizeof what, "\"%.60s\" in %s (it reads:", key, where);
  for (size_t i = 0; known[i]; i++)
    snprintf (what + strlen (what), sizeof what - strlen (what), " %s", known[i]);
  snprintf (what + strlen (what), sizeof what - strlen (what), ")");
  return fail (err, errlen, "unknown key", what);
}

/* Tokens of a prefix written "0 1 2" (or "" for the empty one): decimal
 * tokens without sign or leading zeros, one space between them; -1 for
 * any other spelling, so that a prefix has one key. */
static int
prefix_tokens (const char *s, int V, int eos, int *y, int T)
{
  int t = 0;
  while (*s)
    {
      long a = 0;
      const char *start = s;
      if (t > 0)
        {
          if (*s != ' ')
            return -1;
          start = ++s;
        }
      while (*s >= '0' && *s <= '9' && a < 1000)
        a = 10 * a + (*s++ - '0');
      if (s == start || (s - start > 1 && *start == '0') || (*s && *s != ' '))
        return -1;
      if (a >= V || a == eos || t >= T - 1)
        return -1;
      y[t++] = (int) a;
    }
  return t;
}

static int
read_tabular (json_t *tab, rl_lm_model *m, char *err, size_t errlen)
{
  rlref_lm *lm = &m->lm;
  size_t rows = (size_t) rlref_lm_num_prefixes (lm->V, lm->T), V = (size_t) lm->V;
  json_t *def = json_object_get (tab, "default"), *pre = json_object_get (tab, "prefixes");
  const char *key;
  json_t *val;
  double row[RLREF_LM_MAX_V];
  static const char *const keys[] = { "default", "prefixes", NULL };
  if (!json_is_object (tab))
    return fail (err, errlen, "\"tabular\" must be an object", NULL);
  if (known_keys (tab, keys, "\"tabular\"", err, errlen))
    return -1;
  if (rlref_lm_num_prefixes (lm->V, lm->T) > 1e6)
    return fail (err, errlen, "a tabular model of more than 1e6 prefixes (use a bigram model)",
                 NULL);
  m->logits = calloc (rows * V, sizeof (double));
  if (!m->logits)
    return fail (err, errlen, "out of memory", NULL);
  if (def && numbers (def, row, V))
    return fail (err, errlen, "tabular \"default\" must be V numbers", NULL);
  for (size_t r = 0; def && r < rows; r++)
    memcpy (m->logits + r * V, row, V * sizeof (double));
  if (!json_is_object (pre) && !def)
    return fail (err, errlen, "a tabular model needs \"default\" or \"prefixes\"", NULL);
  json_object_foreach (pre, key, val)
    {
      int y[RLREF_LM_MAX_T], t = prefix_tokens (key, lm->V, lm->eos, y, lm->T);
      if (t < 0)
        return fail (err, errlen, "not a prefix of tokens without EOS, shorter than max_len, "
                     "written as decimal tokens with one space between them", key);
      if (numbers (val, m->logits + rlref_lm_prefix_index (lm->V, lm->eos, y, t) * V, V))
        return fail (err, errlen, "the logits of a prefix must be V numbers", key);
    }
  lm->n_rows = rows;
  return 0;
}

static int
read_reward (json_t *rw, rl_lm_model *m, char *err, size_t errlen)
{
  rlref_lm *lm = &m->lm;
  json_t *tok = json_object_get (rw, "token"), *table = json_object_get (rw, "table"), *item;
  size_t i;
  static const char *const additive[] = { "token", "per_length", "truncated", NULL };
  static const char *const tabled[] = { "table", "default", NULL };
  static const char *const entry[] = { "y", "r", NULL };
  if (!json_is_object (rw))
    return fail (err, errlen, "\"reward\" must be an object", NULL);
  if (known_keys (rw, tok || !table ? additive : tabled, "\"reward\"", err, errlen))
    return -1;
  if (tok && table)
    return fail (err, errlen, "a reward is additive (\"token\") or a \"table\", not both", NULL);
  if (tok)
    {
      lm->reward = RLREF_REWARD_ADDITIVE;
      if (numbers (tok, m->reward, (size_t) lm->V))
        return fail (err, errlen, "reward \"token\" must be V numbers", NULL);
      if (json_object_get (rw, "per_length")
          && rl_json_number (json_object_get (rw, "per_length"), &m->reward[lm->V]))
        return fail (err, errlen, "reward \"per_length\" must be a number", NULL);
      if (json_object_get (rw, "truncated")
          && rl_json_number (json_object_get (rw, "truncated"), &m->reward[lm->V + 1]))
        return fail (err, errlen, "reward \"truncated\" must be a number", NULL);
      return 0;
    }
  if (!json_is_array (table))
    return fail (err, errlen, "a reward needs \"token\" or \"table\"", NULL);
  lm->reward = RLREF_REWARD_TABLE;
  lm->n_table = json_array_size (table);
  m->table_code = calloc (lm->n_table + 1, sizeof (uint64_t));
  m->table_reward = calloc (lm->n_table + 1, sizeof (double));
  if (!m->table_code || !m->table_reward)
    return fail (err, errlen, "out of memory", NULL);
  json_array_foreach (table, i, item)
    {
      json_t *y = json_object_get (item, "y"), *a;
      int toks[RLREF_LM_MAX_T], L = 0, ok = json_is_array (y);
      size_t j;
      if (json_is_object (item) && known_keys (item, entry, "a reward table entry", err,
                                                errlen))
        return -1;
      if (ok && json_array_size (y) > (size_t) lm->T)
        ok = 0;
      json_array_foreach (y, j, a)
        if (ok)
          {
            json_int_t t = json_is_integer (a) ? json_integer_value (a) : -1;
            /* tokens; EOS only last; ended by EOS or of length T */
            ok = t >= 0 && t < lm->V && (t != lm->eos || j + 1 == json_array_size (y));
            toks[L++] = (int) t;
          }
      if (ok)
        ok = L > 0 && (toks[L - 1] == lm->eos || L == lm->T);
      if (!ok || rl_json_number (json_object_get (item, "r"), &m->table_reward[i]))
        return fail (err, errlen, "each table entry needs \"y\" (a whole sequence: ended by "
                     "EOS, or of max_len tokens) and a number \"r\"", NULL);
      m->table_code[i] = rlref_lm_code (lm->V, lm->T, toks, L);
    }
  /* the table in enumeration order */
  for (i = 1; i < lm->n_table; i++)
    for (size_t j = i; j > 0 && m->table_code[j - 1] > m->table_code[j]; j--)
      {
        uint64_t c = m->table_code[j];
        double r = m->table_reward[j];
        m->table_code[j] = m->table_code[j - 1];
        m->table_reward[j] = m->table_reward[j - 1];
        m->table_code[j - 1] = c;
        m->table_reward[j - 1] = r;
      }
  lm->table_code = m->table_code;
  lm->table_reward = m->table_reward;
  if (json_object_get (rw, "default")
      && rl_json_number (json_object_get (rw, "default"), &lm->table_default))
    return fail (err, errlen, "table \"default\" must be a number", NULL);
  return 0;
}

static int
read_model (json_t *root, rl_lm_model *m, char *err, size_t errlen)
{
  rlref_lm *lm = &m->lm;
  json_t *bi = json_object_get (root, "bigram"), *tab = json_object_get (root, "tabular");
  json_t *trunc = json_object_get (root, "truncated"), *rw = json_object_get (root, "reward");
  json_t *beta = json_object_get (root, "beta");
  static const char *const keys[] = { "vocab", "eos", "max_len", "truncated", "bigram",
                                      "tabular", "reward", "beta", NULL };
  static const char *const bikeys[] = { "logits", NULL };
  if (known_keys (root, keys, "the model", err, errlen))
    return -1;
  if (bi && (!json_is_object (bi) || known_keys (bi, bikeys, "\"bigram\"", err, errlen)))
    return json_is_object (bi) ? -1 : fail (err, errlen, "\"bigram\" must be an object", NULL);
  if (!json_is_integer (json_object_get (root, "vocab"))
      || !json_is_integer (json_object_get (root, "eos"))
      || !json_is_integer (json_object_get (root, "max_len")))
    return fail (err, errlen, "a model needs integers \"vocab\", \"eos\" and \"max_len\"", NULL);
  lm->V = (int) json_integer_value (json_object_get (root, "vocab"));
  lm->eos = (int) json_integer_value (json_object_get (root, "eos"));
  lm->T = (int) json_integer_value (json_object_get (root, "max_len"));
  if (lm->V < 2 || lm->V > RLREF_LM_MAX_V || lm->T < 1 || lm->T > RLREF_LM_MAX_T
      || lm->eos < 0 || lm->eos >= lm->V)
    {
      char what[96];
      snprintf (what, sizeof what, "vocab %d, eos %d, max_len %d", lm->V, lm->eos, lm->T);
      return fail (err, errlen, "vocab must be 2 to 64, eos a token, max_len 1 to 32", what);
    }
  if (trunc && !(json_is_string (trunc) && (strcmp (json_string_value (trunc), "keep") == 0
                                             || strcmp (json_string_value (trunc), "condition")
                                             == 0)))
    return fail (err, errlen, "\"truncated\" is \"keep\" or \"condition\"", NULL);
  lm->truncation = trunc && strcmp (json_string_value (trunc), "condition") == 0
    ? RLREF_LM_CONDITION : RLREF_LM_KEEP;
  if (!bi == !tab)
    return fail (err, errlen, "a model is \"bigram\" or \"tabular\"", NULL);
  if (bi)
    {
      json_t *rows = json_object_get (bi, "logits"), *row;
      size_t i, V = (size_t) lm->V;
      lm->kind = RLREF_LM_BIGRAM;
      if (!json_is_array (rows) || json_array_size (rows) != V + 1)
        return fail (err, errlen, "bigram \"logits\" must have vocab + 1 rows (the last for "
                     "the start)", NULL);
      m->logits = calloc ((V + 1) * V, sizeof (double));
      if (!m->logits)
        return fail (err, errlen, "out of memory", NULL);
      json_array_foreach (rows, i, row)
        if (numbers (row, m->logits + i * V, V))
          return fail (err, errlen, "each bigram row must hold vocab numbers", NULL);
      lm->n_rows = V + 1;
    }
  else
    {
      lm->kind = RLREF_LM_TABULAR;
      if (read_tabular (tab, m, err, errlen))
        return -1;
    }
  m->reward = calloc ((size_t) lm->V + 2, sizeof (double));
  if (!m->reward)
    return fail (err, errlen, "out of memory", NULL);
  if (rw && read_reward (rw, m, err, errlen))
    return -1;
  if (beta)
    {
      if (rl_json_number (beta, &m->beta))
        return fail (err, errlen, "\"beta\" must be a number", NULL);
      m->have_beta = 1;
    }
  return 0;
}

int
rl_lm_model_read (const char *path, rl_lm_model *m, char *err, size_t errlen)
{
  json_t *root;
  int rc;
  memset (m, 0, sizeof *m);
  if (!(root = rl_json_load (path, err, errlen, NULL)))
    return -1;
  rc = json_is_object (root) ? read_model (root, m, err, errlen)
    : fail (err, errlen, "a model file holds one JSON object", NULL);
  json_decref (root);
  if (rc == 0 && rlref_lm_check (&m->lm))
    {
      snprintf (err, errlen, "%s", rlref_last_error ());
      rc = -1;
    }
  for (size_t i = 0; rc == 0 && i < m->lm.n_rows * (size_t) m->lm.V; i++)
    if (!isfinite (m->logits[i]))
      rc = fail (err, errlen, "a logit is not finite", NULL);
  for (int i = 0; rc == 0 && i < m->lm.V + 2; i++)
    if (!isfinite (m->reward[i]))
      rc = fail (err, errlen, "a reward term is not finite", NULL);
  if (rc)
    rl_lm_model_free (m);
  return rc;
}

void
rl_lm_model_free (rl_lm_model *m)
{
  free (m->logits);
  free (m->reward);
  free (m->table_reward);
  free (m->table_code);
  memset (m, 0, sizeof *m);
}
