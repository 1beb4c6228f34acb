/* domain.h -- an input's declared domain (rl_input.domain): an interval
 * for each element, and relations between the elements. */
#ifndef RLREF_ORACLES_DOMAIN_H
#define RLREF_ORACLES_DOMAIN_H

#include <stddef.h>
#include "registry.h"

typedef struct
{
  int any;                      /* none declared: every value the formula decides on */
  double lo, hi;                /* the interval's ends (+-inf for none) */
  int lo_open, hi_open;         /* 1: the end itself is outside */
  int sum1;                     /* the elements sum to 1 (within 2^-20) */
  int sorted;                   /* the elements do not decrease */
} rl_domain;

/* Parses s ("[0,1] sum1", "(0,inf)", NULL for every finite value) into
 * *d; 0, or -1 with why in err. */
int rl_domain_parse (const char *s, rl_domain *d, char *err, size_t size);

/* Whether x lies in d's interval (an undeclared domain holds every x). */
int rl_domain_holds (const rl_domain *d, double x);

/* Whether the n values x (reals) or iv (integers) satisfy d: every element
 * in the interval, and the relations. */
int rl_domain_holds_all (const rl_domain *d, const double *x, const long *iv, size_t n);

#endif
