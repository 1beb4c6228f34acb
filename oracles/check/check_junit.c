/* check_junit.c -- "rlref check --junit FILE": the verdict as a JUnit XML
   file, for continuous-integration systems.

   One <testsuite> per variant, one <testcase> per golden case (classname
   FORMULA.variant, name "tcId N: comment").  The cases of the variant the
   closing line counts (the one named by --variant, or the best of each
   part) are judged: a failing case carries a <failure> whose message is
   its first report line and whose text is all of them; an acceptable
   mismatch is <skipped>, as the text report notes it rather than failing
   it.  The cases of every other variant are <skipped>, with the reason.
   So failures and the passing testcases equal the closing line's "N
   passed, M failed", and tests = passed + failures + skipped at every
   level.  */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"

/* How xml_text writes: element text, an attribute value, or the first line
   of S as an attribute value.  */
enum xml_mode { XML_TEXT, XML_ATTR, XML_ATTR_LINE };

/* Write S to F escaped for XML: & < > " ' as entities; a carriage return,
   and in an attribute a tab or a newline, as character references (which
   a parser keeps, where it would normalise the characters); the characters
   XML 1.0 does not allow (other controls, U+FFFE, U+FFFF) as '?'.  */
static void
xml_text (FILE *f, const char *s, enum xml_mode mode)
{
  const unsigned char *u = (const unsigned char *) s;
  for (size_t i = 0; u[i] != '\0'; i++)
    {
      if (mode == XML_ATTR_LINE && u[i] == '\n')
        return;
      switch (u[i])
        {
        case '&': fputs ("&amp;", f); break;
        case '<': fputs ("&lt;", f); break;
        case '>': fputs ("&gt;", f); break;
        case '"': fputs ("&quot;", f); break;
        case '\'': fputs ("&apos;", f); break;
        case '\r': fputs ("&#13;", f); break;
        case '\t': fputs (mode == XML_TEXT ? "\t" : "&#9;", f); break;
        case '\n': fputs (mode == XML_TEXT ? "\n" : "&#10;", f); break;
        default:
          if (u[i] < 0x20)
            putc ('?', f);
          else if (u[i] == 0xEF && u[i + 1] == 0xBF
                   && (u[i + 2] == 0xBE || u[i + 2] == 0xBF))
            {
              putc ('?', f);
              i += 2;
            }
          else
            putc (u[i], f);
        }
    }
}

/* Write the attribute NAME="S" (S escaped) to F, with a leading space.  */
static void
xml_attr (FILE *f, const char *name, const char *s)
{
  fprintf (f, " %s=\"", name);
  xml_text (f, s, XML_ATTR);
  putc ('"', f);
}

/* How case K is reported: 'p' passed, 'f' failure, 's' skipped.  */
static int
disposition (const ctx *c, const gcase *k)
{
  if (!c->vars[k->var].judged)
    return 's';
  return k->st == S_PASS ? 'p' : k->st == S_FAIL ? 'f' : 's';
}

/* The judged variant of part P, or NULL.  */
static const variant *
judged_of (const ctx *c, size_t p)
{
  for (size_t i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && c->vars[i].judged)
      return &c->vars[i];
  return NULL;
}

/* Write the reason why case K of variant V, not judged, is skipped.  */
static void
skip_reason (FILE *f, const ctx *c, const variant *v)
{
  const variant *j = judged_of (c, v->part);
  char buf[200];
  if (!ck_in_scope (c, v))
    snprintf (buf, sizeof buf, "not judged: the check is of variant %.60s only "
              "(--variant)", c->only);
  else if (j == NULL)
    snprintf (buf, sizeof buf, "not judged: the candidate answers no case of "
              "this part");
  else
    snprintf (buf, sizeof buf, "not judged: the candidate is judged against "
              "variant %.60s of this part (the one it follows or comes closest "
              "to)", j->name);
  xml_attr (f, "message", buf);
}

/* Write the testcase of case K.  */
static void
testcase (FILE *f, const ctx *c, const gcase *k, const char *formula)
{
  const variant *v = &c->vars[k->var];
  const char *comment = json_string_value (json_object_get (k->test, "comment"));
  const char *msg = k->msg != NULL ? k->msg : "";
  char name[40];
  int d = disposition (c, k);
  fputs ("    <testcase", f);
  fputs (" classname=\"", f);
  xml_text (f, formula, XML_ATTR);
  putc ('.', f);
  xml_text (f, v->name, XML_ATTR);
  putc ('"', f);
  snprintf (name, sizeof name, "tcId %" JSON_INTEGER_FORMAT, k->tcid);
  fprintf (f, " name=\"%s", name);
  if (comment != NULL && *comment != '\0')
    {
      fputs (": ", f);
      xml_text (f, comment, XML_ATTR);
    }
  putc ('"', f);
  if (d == 'p' && *msg == '\0')
    {
      fputs ("/>\n", f);
      return;
    }
  fputs (">\n", f);
  if (d == 'f')
    {
      fputs ("      <failure type=\"FAIL\" message=\"", f);
      xml_text (f, *msg ? msg : "failed", XML_ATTR_LINE);
      fputs ("\">", f);
      xml_text (f, msg, XML_TEXT);
      fputs ("</failure>\n", f);
    }
  else if (d == 's' && v->judged)
    {
      fputs ("      <skipped message=\"acceptable mismatch noted: ", f);
      xml_text (f, msg, XML_ATTR_LINE);
      fputs ("\">", f);
      xml_text (f, msg, XML_TEXT);
      fputs ("</skipped>\n", f);
    }
  else if (d == 's')
    {
      fputs ("      <skipped", f);
      skip_reason (f, c, v);
      fputs ("/>\n", f);
    }
  else
    {
      /* a pass with a remark (a rejection under another error name) */
      fputs ("      <system-out>", f);
      xml_text (f, msg, XML_TEXT);
      fputs ("</system-out>\n", f);
    }
  fputs ("    </testcase>\n", f);
}

/* Count the dispositions of the cases of variant V (all when V is NULL)
   into N[0] tests, N[1] failures, N[2] skipped.  */
static void
count (const ctx *c, const variant *v, size_t n[3])
{
  n[0] = n[1] = n[2] = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      int d;
      if (v != NULL && &c->vars[k->var] != v)
        continue;
      d = disposition (c, k);
      n[0]++;
      n[1] += d == 'f';
      n[2] += d == 's';
    }
}

/* Write the JUnit XML file c->junit; 0, or 2 when it cannot be written.  */
int
ck_write_junit (ctx *c)
{
  const char *formula = json_string_value (json_object_get (c->golden, "formula"));
  FILE *f = fopen (c->junit, "w");
  size_t n[3], i, j;
  int bad;
  if (formula == NULL)
    formula = "golden";
  if (f == NULL)
    return ck_bad (c->junit, "cannot write: %s", strerror (errno));
  errno = 0;
  count (c, NULL, n);
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
  fputs (" name=\"rlref check ", f);
  xml_text (f, formula, XML_ATTR);
  fprintf (f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
           n[0], n[1], n[2]);
  for (i = 0; i < c->nvars; i++)
    {
      const variant *v = &c->vars[i];
      count (c, v, n);
      fputs ("  <testsuite name=\"", f);
      xml_text (f, formula, XML_ATTR);
      putc (' ', f);
      xml_text (f, v->name, XML_ATTR);
      fprintf (f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
               n[0], n[1], n[2]);
      fputs ("    <properties>\n", f);
      fputs ("      <property name=\"golden\"", f);
      xml_attr (f, "value", c->gpath);
      fputs ("/>\n      <property name=\"candidate\"", f);
      xml_attr (f, "value", c->cpath);
      fputs ("/>\n      <property name=\"dtype\"", f);
      xml_attr (f, "value", c->dtype);
      fputs ("/>\n      <property name=\"judged\"", f);
      xml_attr (f, "value", v->judged ? "true" : "false");
      fputs ("/>\n    </properties>\n", f);
      for (j = 0; j < c->ncases; j++)
        if (c->cases[j].var == i)
          testcase (f, c, &c->cases[j], formula);
      fputs ("  </testsuite>\n", f);
    }
  fputs ("</testsuites>\n", f);
  bad = ferror (f);
  bad |= fclose (f) != 0;
  if (bad)
    return ck_bad (c->junit, "cannot write: %s", errno ? strerror (errno)
                   : "write error");
  return 0;
}
