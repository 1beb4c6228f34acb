/* numfmt.c -- number formatting that does not depend on the locale or on
 * the optimisation level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"

static int
special (double d, char buf[40])
{
  if (isnan (d))
    strcpy (buf, "nan");
  else if (isinf (d))
    strcpy (buf, d > 0 ? "inf" : "-inf");
  else
    return 0;
  return 1;
}

void
rl_fmt_dec (double d, char buf[40])
{
  if (special (d, buf))
    return;
  if (d == 0.0)
    {
      strcpy (buf, signbit (d) ? "-0" : "0");
      return;
    }
  for (int p = 1; p <= 17; p++)
    {
      snprintf (buf, 40, "%.*g", p, d);
      if (strtod (buf, NULL) == d)
        return;
    }
}

void
rl_fmt_hex (double d, char buf[40])
{
  if (special (d, buf))
    return;
  snprintf (buf, 40, "%a", d);
}

void
rl_fmt_3g (double d, char buf[40])
{
  if (special (d, buf))
    return;
  snprintf (buf, 40, "%.3g", d);
}

char *
rl_fmt_mpfr (mpfr_srcptr v, int digits)
{
  mpfr_exp_t e;
  char *m, *out, *p;
  const char *sign = "";
  size_t n;
  long e10;
  if (mpfr_nan_p (v))
    return strdup ("nan");
  if (mpfr_inf_p (v))
    return strdup (mpfr_sgn (v) > 0 ? "inf" : "-inf");
  if (mpfr_zero_p (v))
    return strdup ("0");
  if (digits < 1)
    digits = 1;
  m = mpfr_get_str (NULL, &e, 10, (size_t) digits, v, MPFR_RNDN);
  if (!m)
    return NULL;
  p = m;
  if (*p == '-')
    {
      sign = "-";
      p++;
    }
  n = strlen (p);
  e10 = (long) e - 1;           /* value = d.ddd x 10^e10 */
  out = malloc (n + 64);
  if (out)
    {
      if (e10 < -6 || e10 > 20)
        {
          if (n == 1)
            sprintf (out, "%s%se%+ld", sign, p, e10);
          else
            sprintf (out, "%s%c.%se%+ld", sign, p[0], p + 1, e10);
        }
      else if (e10 < 0)
        {
          /* 0.000ddd */
          char *q = out + sprintf (out, "%s0.", sign);
          for (long z = 0; z < -e10 - 1; z++)
            *q++ = '0';
          strcpy (q, p);
        }
      else if ((size_t) e10 + 1 >= n)
        {
          /* ddd000 */
          char *q = out + sprintf (out, "%s%s", sign, p);
          for (size_t z = n; z < (size_t) e10 + 1; z++)
            *q++ = '0';
          *q = '\0';
        }
      else
        sprintf (out, "%s%.*s.%s", sign, (int) e10 + 1, p, p + e10 + 1);
    }
  mpfr_free_str (m);
  return out;
}
