/* convention.c -- looking up a family's table of named conventions
 * (rlref/convention.h). */
#include <string.h>
#include "rlref/convention.h"

const rlref_convention *
rlref_convention_find (const rlref_convention *table, const char *formula, const char *name)
{
  if (!table || !formula || !name)
    return NULL;
  for (const rlref_convention *c = table; c->name; c++)
    if (strcmp (c->formula, formula) == 0 && strcmp (c->name, name) == 0)
      return c;
  return NULL;
}

size_t
rlref_convention_count (const rlref_convention *table, const char *formula)
{
  size_t n = 0;
  if (!table || !formula)
    return 0;
  for (const rlref_convention *c = table; c->name; c++)
    n += strcmp (c->formula, formula) == 0;
  return n;
}
