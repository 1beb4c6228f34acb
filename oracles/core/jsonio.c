/* jsonio.c -- the JSON spellings that golden files, eval and candidate
 * share: exact doubles as {"dec", "hex"}, a case's inputs; and the one way
 * model and golden files are read (whole, a byte-order mark skipped, a key
 * given twice refused). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
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

json_t *
rl_json_load (const char *path, char *err, size_t errlen, json_error_t *jerr)
{
  json_error_t e;
  json_t *j;
  FILE *f = strcmp (path, "-") == 0 ? stdin : fopen (path, "rb");
  char *buf = NULL, *text;
  size_t len = 0, cap = 0, got;
  if (jerr)
    {
      jerr->text[0] = '\0';
      jerr->line = jerr->column = -1;
    }
  if (!f)
    {
      snprintf (err, errlen, "cannot open: %s", strerror (errno));
      return NULL;
    }
  do
    {
      if (len + 65536 > cap)
        {
          char *grown = realloc (buf, cap = 2 * cap + 65536);
          if (!grown)
            {
              free (buf);
              if (f != stdin)
                fclose (f);
              snprintf (err, errlen, "out of memory");
              return NULL;
            }
          buf = grown;
        }
      got = fread (buf + len, 1, cap - len, f);
      len += got;
    }
  while (got > 0);
  if (ferror (f))
    {
      free (buf);
      if (f != stdin)
        fclose (f);
      snprintf (err, errlen, "read error: %s", strerror (errno));
      return NULL;
    }
  if (f != stdin)
    fclose (f);
  text = buf;
  if (len >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0)
    {
      text += 3;
      len -= 3;
    }
  j = json_loadb (text, len, JSON_REJECT_DUPLICATES, &e);
  free (buf);
  if (!j)
    {
      if (e.line > 0)
        snprintf (err, errlen, "not valid JSON: %s (line %d, column %d)", e.text, e.line,
                  e.column);
      else
        snprintf (err, errlen, "%s", e.text);
    }
  if (jerr)
    *jerr = e;
  return j;
}

const char *
rl_json_unknown_key (json_t *o, const char *const *known)
{
  const char *key;
  json_t *v;
  json_object_foreach (o, key, v)
    {
      size_t i;
      for (i = 0; known[i] && strcmp (known[i], key) != 0; i++)
        ;
      if (!known[i])
        return key;
    }
  return NULL;
}

int
rl_json_number (json_t *v, double *x)
{
  if (json_is_number (v))
    {
      *x = json_number_value (v);
      return 0;
    }
  return json_is_string (v) ? rl_parse_double (json_string_value (v), x) : -1;
}
