/* numfmt.h -- locale-independent number text: shortest round-trip decimal
 * and C99 hex for doubles, certified decimal digits for MPFR values. */
#ifndef RLREF_ORACLES_NUMFMT_H
#define RLREF_ORACLES_NUMFMT_H
#include <mpfr.h>

/* Shortest decimal that reads back as d ("nan", "inf", "-inf", "-0"). */
void rl_fmt_dec (double d, char buf[40]);
/* %a ("nan", "inf", "-inf", "-0x0p+0"). */
void rl_fmt_hex (double d, char buf[40]);
/* v rounded to nearest with `digits` significant digits (>= 1): positional
 * for decimal exponents -6..20, else d.ddde+N.  Caller frees. */
char *rl_fmt_mpfr (mpfr_srcptr v, int digits);
/* Three significant digits, as "%.3g" would print (for sens). */
void rl_fmt_3g (double d, char buf[40]);

#endif
