/* check_util.c -- messages and clean printing shared by the files of
   `rlref check` (the bottom of its call graph: it calls none of them).  */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include "check_impl.h"

/* Print a message about file PATH to stderr; returns 2.  */
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

/* Print at most SHOW_CHARS bytes of S, control characters as '?'.  */
void
ck_print_clean (const char *s)
{
  size_t i;
  for (i = 0; s[i] != '\0'; i++)
    {
      if (i == SHOW_CHARS)
        {
          fputs ("...", stdout);
          return;
        }
      putchar (iscntrl ((unsigned char) s[i]) ? '?' : s[i]);
    }
}
