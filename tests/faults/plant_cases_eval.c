/* plant_cases_eval.c -- the glue of plant_cases.c. */
#include "family_eval.h"

RL_ENTRY (plant_div)
{
  (void) v;
  (void) a;
  if (num_is_zero (x[1]))
    RLREF_ERROR ("division by zero", RLREF_EDOM);
  num_div (y[0], x[0], x[1]);
  return RLREF_SUCCESS;
}

/* The planted bug: twice is written before plus1 reads x. */
RL_ENTRY (plant_alias)
{
  (void) v;
  for (size_t i = 0; i < a->len[0]; i++)
    num_mul_si (AT (y[0], i), AT (x[0], i), 2);
  for (size_t i = 0; i < a->len[0]; i++)
    num_add_d (AT (y[1], i), AT (x[0], i), 1.0);
  return RLREF_SUCCESS;
}
