/* inputs.c -- name=value words from a JSON object of inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "inputs.h"

/* Appends text to buf, growing it; 0 or -1. */
static int
append (const char *text, char **buf, size_t *len, size_t *cap)
{
  size_t n = strlen (text);
  if (*len + n + 2 > *cap)
    {
      char *grown;
      *cap = 2 * (*len + n + 2);
      grown = realloc (*buf, *cap);
      if (!grown)
        return -1;
      *buf = grown;
    }
  memcpy (*buf + *len, text, n + 1);
  *len += n;
  return 0;
}

/* Appends the text of one scalar JSON value (exact: reals as C99 hex). */
static int
append_scalar (json_t *v, char **buf, size_t *len, size_t *cap)
{
  char item[64];
  if (json_is_object (v))
    v = json_object_get (v, "hex");
  if (json_is_integer (v))
    snprintf (item, sizeof item, "%" JSON_INTEGER_FORMAT, json_integer_value (v));
  else if (json_is_real (v))
    snprintf (item, sizeof item, "%a", json_real_value (v));
  else if (json_is_string (v))
    return append (json_string_value (v), buf, len, cap);
  else
    return -1;
  return append (item, buf, len, cap);
}

/* "name=" then the value or the comma-separated values of an array. */
static char *
word (const char *name, json_t *v)
{
  size_t len = strlen (name) + 1, cap = len + 64;
  char *buf = malloc (cap);
  if (!buf)
    return NULL;
  snprintf (buf, cap, "%s=", name);
  if (json_is_array (v))
    {
      size_t i;
      json_t *item;
      json_array_foreach (v, i, item)
        {
          if ((i > 0 && append (",", &buf, &len, &cap)) || append_scalar (item, &buf, &len, &cap))
            {
              free (buf);
              return NULL;
            }
        }
      return buf;
    }
  if (append_scalar (v, &buf, &len, &cap))
    {
      free (buf);
      return NULL;
    }
  return buf;
}

void
rl_input_words_free (char **words)
{
  for (size_t i = 0; words && words[i]; i++)
    free (words[i]);
  free (words);
}

char **
rl_input_words (const char *path, int *n, char *err, size_t errlen)
{
  json_error_t jerr;
  json_t *root = strcmp (path, "-") == 0 ? json_loadf (stdin, 0, &jerr)
                                         : json_load_file (path, 0, &jerr);
  const char *name;
  json_t *v;
  char **words;
  int k = 0;
  if (!root)
    {
      snprintf (err, errlen, "%s: %s (line %d)", path, jerr.text, jerr.line);
      return NULL;
    }
  if (!json_is_object (root))
    {
      snprintf (err, errlen, "%s: not a JSON object {\"name\": value, ...}", path);
      json_decref (root);
      return NULL;
    }
  words = calloc (json_object_size (root) + 1, sizeof *words);
  if (!words)
    {
      snprintf (err, errlen, "out of memory");
      json_decref (root);
      return NULL;
    }
  json_object_foreach (root, name, v)
    {
      words[k] = word (name, v);
      if (!words[k])
        {
          snprintf (err, errlen, "%s: input '%s' is not a number, a string or an array of them",
                    path, name);
          rl_input_words_free (words);
          json_decref (root);
          return NULL;
        }
      k++;
    }
  json_decref (root);
  *n = k;
  return words;
}
