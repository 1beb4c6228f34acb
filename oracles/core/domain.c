/* domain.c -- parsing and testing an input's declared domain. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"

/* One end of an interval: a decimal, inf or -inf; the rest after it in
 * *end.  0 or -1. */
static int
read_end (const char *s, double *x, char **end)
{
  while (*s == ' ')
    s++;
  if (strncmp (s, "-inf", 4) == 0)
    {
      *x = -INFINITY;
      *end = (char *) s + 4;
      return 0;
    }
  if (strncmp (s, "inf", 3) == 0)
    {
      *x = INFINITY;
      *end = (char *) s + 3;
      return 0;
    }
  errno = 0;
  *x = strtod (s, end);
  return *end == s || errno ? -1 : 0;
}

int
rl_domain_parse (const char *s, rl_domain *d, char *err, size_t size)
{
  char *p;
  memset (d, 0, sizeof *d);
  d->lo = -INFINITY;
  d->hi = INFINITY;
  d->lo_open = d->hi_open = 1;
  if (s == NULL)
    {
      d->any = 1;
      return 0;
    }
  while (*s == ' ')
    s++;
  if (*s == '[' || *s == '(')
    {
      d->lo_open = *s == '(';
      if (read_end (s + 1, &d->lo, &p) || *p != ',' || read_end (p + 1, &d->hi, &p))
        {
          snprintf (err, size, "domain '%s': an interval is [a,b], (a,b), [a,b) or (a,b]", s);
          return -1;
        }
      while (*p == ' ')
        p++;
      if (*p != ']' && *p != ')')
        {
          snprintf (err, size, "domain '%s': the interval does not close", s);
          return -1;
        }
      d->hi_open = *p == ')';
      s = p + 1;
      if (!(d->lo <= d->hi) || (isinf (d->lo) && !d->lo_open) || (isinf (d->hi) && !d->hi_open))
        {
          snprintf (err, size, "domain: an empty interval, or a closed infinite end");
          return -1;
        }
    }
  for (;;)
    {
      while (*s == ' ')
        s++;
      if (*s == '\0')
        return 0;
      if (strncmp (s, "sum1", 4) == 0 && (s[4] == ' ' || s[4] == '\0'))
        d->sum1 = 1, s += 4;
      else if (strncmp (s, "sorted", 6) == 0 && (s[6] == ' ' || s[6] == '\0'))
        d->sorted = 1, s += 6;
      else
        {
          snprintf (err, size, "domain: '%s' is neither sum1 nor sorted", s);
          return -1;
        }
    }
}

int
rl_domain_holds (const rl_domain *d, double x)
{
  if (d->any)
    return 1;
  if (!isfinite (x))
    return 0;
  if (d->lo_open ? !(x > d->lo) : !(x >= d->lo))
    return 0;
  return d->hi_open ? x < d->hi : x <= d->hi;
}

int
rl_domain_holds_all (const rl_domain *d, const double *x, const long *iv, size_t n)
{
  double sum = 0.0;
  if (d->any)
    return 1;
  for (size_t i = 0; i < n; i++)
    {
      double v = x ? x[i] : (double) iv[i];
      if (!rl_domain_holds (d, v))
        return 0;
      if (d->sorted && i > 0 && v < (x ? x[i - 1] : (double) iv[i - 1]))
        return 0;
      sum += v;
    }
  return !d->sum1 || fabs (sum - 1.0) <= 0x1p-20;
}
