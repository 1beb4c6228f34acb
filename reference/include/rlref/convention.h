/* convention.h -- a named convention: what one seed's or one library's
 * reading of a catalogue formula computes, the parameter values it sets,
 * who uses it and the setting the formula's functions read.  A family
 * keeps its conventions in one table of these (rlref_FAMILY_conventions,
 * declared in its header with the setting type of each formula), ended by
 * a row of zeros; the oracle makes one golden variant of each row, in the
 * table's order. */
#ifndef RLREF_CONVENTION_H
#define RLREF_CONVENTION_H

#include <stddef.h>

#define RLREF_CONVENTION_MAX_PARAMS 4

/* A parameter value the convention sets (eps 0.2, beta 0.05): by default
 * a real input of the formula, which a caller may override. */
typedef struct
{
  const char *name;             /* NULL ends the list */
  double value;
  int is_int;                   /* an integer the convention fixes (ddof), not an input */
  int shown;                    /* a real the convention fixes, not an input */
} rlref_convention_param;

typedef struct
{
  const char *name;             /* the variant's name; NULL ends a table */
  const char *formula;          /* the catalogue id that carries it */
  const char *part;             /* the computation it reads (the golden's "part") */
  const char *rule;             /* what it computes, in one line */
  const char *used_by;          /* who uses it, with the code it was read from */
  rlref_convention_param params[RLREF_CONVENTION_MAX_PARAMS + 1];
  int binary32;                 /* computed in binary32 in the library's operation order */
  const void *setting;          /* the formula's setting, of the type its header names;
                                   NULL: none */
} rlref_convention;

/* The row of table named name under catalogue id formula, or NULL (also
 * for a NULL argument). */
const rlref_convention *rlref_convention_find (const rlref_convention *table,
                                               const char *formula, const char *name);

/* The number of rows of table under catalogue id formula (0 for a NULL
 * argument). */
size_t rlref_convention_count (const rlref_convention *table, const char *formula);

#endif
