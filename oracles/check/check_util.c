/* check_util.c -- messages, clean printing and JSON helpers shared by the
   files of `rlref check` (the bottom of its call graph: it calls none of
   them).  */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "check_impl.h"

/* Print a message about file path to stderr; returns 2.  */
int
ck_bad (const char *path, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "rlref check: %s: ", path);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return 2;
}

/* Print to f at most SHOW_CHARS bytes of s, control characters as '?'; a
   longer s is cut before the UTF-8 character that would cross the limit,
   and "..." marks the cut.  */
void
ck_print_clean (FILE *f, const char *s)
{
  size_t i, n = strlen (s), cut = n;
  if (n > SHOW_CHARS)
    for (cut = SHOW_CHARS; cut > 0 && ((unsigned char) s[cut] & 0xC0) == 0x80; cut--)
      ;
  for (i = 0; i < cut; i++)
    putc (iscntrl ((unsigned char) s[i]) ? '?' : s[i], f);
  if (cut < n)
    fputs ("...", f);
}

/* Set key of the JSON object o to the new reference v (NULL: none could
   be made); a failure sets c->oom.  */
void
ck_put (ctx *c, json_t *o, const char *key, json_t *v)
{
  if (o == NULL || json_object_set_new (o, key, v))
    c->oom = 1;
}

/* The description of the golden's note flag when its bugType is
   INVALID_INPUT (a reason to reject an input), else NULL.  */
const char *
ck_invalid_note (const ctx *c, const char *flag)
{
  json_t *note = flag != NULL ? json_object_get (json_object_get (c->golden, "notes"), flag)
    : NULL;
  const char *bt = json_string_value (json_object_get (note, "bugType"));
  if (bt == NULL || strcmp (bt, "INVALID_INPUT") != 0)
    return NULL;
  return json_string_value (json_object_get (note, "description"));
}
