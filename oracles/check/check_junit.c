/* check_junit.c -- "rlref check --junit FILE": the verdict as a JUnit XML
   file, for continuous-integration systems, rendered from the record.

   One <testsuite> per variant judged (the answer of each part: the one
   named first, or the nearest when none is followed), with the verdict,
   the variants also consistent with the candidate and the explanation as
   <properties>, and one <testcase> per valid or acceptable case (classname
   FORMULA.variant, name "tcId N: comment"): a failing case carries a
   <failure> whose message is its first report line and whose text is all
   of them; an acceptable mismatch and a case not judged (beyond the
   dtype's range, or no output of it given) are <skipped>.  The
   must-reject cases of the variant form a suite of their own, "input
   validation": with --strict a rejected input passes and one the candidate
   accepts is a <failure>; without, each is <skipped> with what the
   candidate did (not counted).  So the failures
   and the passing testcases equal the closing line's "N passed, M
   failed".  With --junit-all the other variants' cases follow, skipped.  */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"
/* How xml_text writes: element text, an attribute value, or the first line
   of the text as an attribute value.  */
enum xml_mode { XML_TEXT, XML_ATTR, XML_ATTR_LINE };

/* Write s to f escaped for XML: & < > " ' as entities; a carriage return,
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

/* Write the attribute name="s" (s escaped) to f, with a leading space.  */
static void
xml_attr (FILE *f, const char *name, const char *s)
{
  fprintf (f, " %s=\"", name);
  xml_text (f, s, XML_ATTR);
  putc ('"', f);
}

/* Write the property name="s" to f (nothing when s is NULL).  */
static void
property (FILE *f, const char *name, const char *s)
{
  if (s == NULL)
    return;
  fputs ("      <property", f);
  xml_attr (f, "name", name);
  xml_attr (f, "value", s);
  fputs ("/>\n", f);
}

/* How case k is reported: 'p' passed, 'f' failure, 's' skipped.  */
static int
disposition (const ctx *c, const gcase *k)
{
  if (!ck_counted (c, k))
    return 's';
  if (k->answer == A_SKIP)
    return 's';
  if (k->kind == K_INVALID)
    return !c->strict ? 's' : k->answer == A_ERROR ? 'p' : 'f';
  return k->st[c->level] == S_PASS ? 'p' : k->st[c->level] == S_FAIL ? 'f' : 's';
}

/* The reason case k is skipped, for its <skipped> message.  */
static void
skip_reason (const ctx *c, const gcase *k, char *buf, size_t size, const char *msg)
{
  const variant *a = ck_answer (c, c->vars[k->var].part);
  if (!ck_counted (c, k))
    snprintf (buf, size, "not judged: the candidate is judged against variant "
              "%.60s of this part", a != NULL ? a->name : "(none)");
  else if (k->answer == A_SKIP)
    snprintf (buf, size, "not answered by the candidate: %.200s", k->cand_error);
  else if (k->kind == K_INVALID)
    snprintf (buf, size, "not counted (--strict counts it): %s",
              k->answer == A_MISSING ? "not answered" : k->answer == A_ERROR
              ? "the candidate rejects it, as the reference does"
              : "the candidate accepts an input the reference rejects");
  else if (k->st[c->level] == S_NOTE)
    {
      size_t n = strcspn (msg, "\n");
      snprintf (buf, size, "acceptable mismatch noted: %.*s", (int) (n > 150 ? 150 : n),
                msg);
    }
  else if (k->njudged == 0)
    snprintf (buf, size, "not judged: the candidate gives none of its outputs");
  else
    snprintf (buf, size, "not judged at %s: an input or value beyond its range",
              c->dtype);
}

/* Write the testcase of case k.  */
static void
testcase (FILE *f, const ctx *c, const gcase *k, const char *formula)
{
  const variant *v = &c->vars[k->var];
  const char *comment = json_string_value (json_object_get (k->test, "comment"));
  char *msg = ck_case_text (c, k, 0), name[40], reason[300];
  int d = disposition (c, k);
  if (msg == NULL)
    msg = strdup ("");
  fputs ("    <testcase classname=\"", f);
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
  if (d == 'p' && (msg == NULL || *msg == '\0'))
    {
      fputs ("/>\n", f);
      free (msg);
      return;
    }
  fputs (">\n", f);
  if (d == 'f')
    {
      const char *m = msg != NULL && *msg ? msg : "failed";
      fputs ("      <failure type=\"FAIL\" message=\"", f);
      xml_text (f, m, XML_ATTR_LINE);
      fputs ("\">", f);
      xml_text (f, m, XML_TEXT);
      fputs ("</failure>\n", f);
    }
  else if (d == 's')
    {
      skip_reason (c, k, reason, sizeof reason, msg != NULL ? msg : "");
      fputs ("      <skipped", f);
      xml_attr (f, "message", reason);
      if (msg != NULL && *msg)
        {
          fputs (">", f);
          xml_text (f, msg, XML_TEXT);
          fputs ("</skipped>\n", f);
        }
      else
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
  free (msg);
}

/* Whether case k belongs to suite (v, invalid): the cases of variant v,
   its must-reject ones when invalid.  */
static int
in_suite (const ctx *c, const gcase *k, size_t v, int invalid)
{
  (void) c;
  return k->var == v && (k->kind == K_INVALID) == invalid;
}

/* Count the dispositions of suite (v, invalid), or of every suite written
   when v is (size_t) -1, into n[0] tests, n[1] failures, n[2] skipped.  */
static void
count (const ctx *c, size_t v, int invalid, size_t n[3])
{
  n[0] = n[1] = n[2] = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      int d;
      if (!ck_in_scope (c, &c->vars[k->var]))
        continue;
      if (v == (size_t) -1 ? !(ck_counted (c, k) || c->junit_all)
          : !in_suite (c, k, v, invalid))
        continue;
      d = disposition (c, k);
      n[0]++;
      n[1] += d == 'f';
      n[2] += d == 's';
    }
}

/* Write suite (v, invalid) to f.  */
static void
suite (FILE *f, const ctx *c, size_t v, int invalid, const char *formula)
{
  const variant *var = &c->vars[v];
  size_t n[3], p = var->part;
  char *line;
  count (c, v, invalid, n);
  if (n[0] == 0)
    return;
  fputs ("  <testsuite name=\"", f);
  xml_text (f, formula, XML_ATTR);
  putc (' ', f);
  xml_text (f, var->name, XML_ATTR);
  if (invalid)
    fputs (" input validation", f);
  fprintf (f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
           n[0], n[1], n[2]);
  fputs ("    <properties>\n", f);
  property (f, "golden", c->gpath);
  property (f, "candidate", c->cpath);
  property (f, "dtype", c->dtype);
  property (f, "judged", c->parts[p].answer == v ? "true" : "false");
  property (f, "class", ck_class_name (var->cls));
  if (c->parts[p].answer == v)
    {
      if ((line = ck_verdict_line (c, p)) != NULL)
        property (f, "verdict", line);
      free (line);
      property (f, "explanation", ck_explain_line (c, p));
      if ((line = ck_validation_line (c, p)) != NULL)
        property (f, "validation", line);
      free (line);
    }
  fputs ("    </properties>\n", f);
  for (size_t j = 0; j < c->ncases; j++)
    if (in_suite (c, &c->cases[j], v, invalid))
      testcase (f, c, &c->cases[j], formula);
  fputs ("  </testsuite>\n", f);
}

/* Write the JUnit XML file c->junit; 0, or 2 when it cannot be written.  */
int
ck_write_junit (ctx *c)
{
  const char *formula = json_string_value (json_object_get (c->golden, "formula"));
  FILE *f = fopen (c->junit, "w");
  size_t n[3];
  int bad;
  if (formula == NULL)
    formula = "golden";
  if (f == NULL)
    return ck_bad (c->junit, "cannot write: %s", strerror (errno));
  errno = 0;
  count (c, (size_t) -1, 0, n);
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
  fputs (" name=\"rlref check ", f);
  xml_text (f, formula, XML_ATTR);
  fprintf (f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
           n[0], n[1], n[2]);
  for (size_t p = 0; p < c->nparts; p++)
    if (c->parts[p].answer != (size_t) -1)
      {
        suite (f, c, c->parts[p].answer, 0, formula);
        suite (f, c, c->parts[p].answer, 1, formula);
      }
  if (c->junit_all)
    for (size_t i = 0; i < c->nvars; i++)
      if (ck_in_scope (c, &c->vars[i]) && c->parts[c->vars[i].part].answer != i)
        {
          suite (f, c, i, 0, formula);
          suite (f, c, i, 1, formula);
        }
  fputs ("</testsuites>\n", f);
  bad = ferror (f);
  bad |= fclose (f) != 0;
  if (bad)
    return ck_bad (c->junit, "cannot write: %s", errno ? strerror (errno)
                   : "write error");
  return 0;
}
