/* registry.c -- the table of every formula the command knows. */
#include <string.h>
#include "registry.h"
#include "formulas.h"

void rl_grpo_init (void);

static const rl_formula *table[64];
static size_t n_table;

static void
init (void)
{
  if (n_table)
    return;
  rl_grpo_init ();
  for (size_t i = 0; i < rl_n_formula_pref; i++)
    table[n_table++] = &rl_formula_pref[i];
  for (size_t i = 0; i < rl_n_formula_grpo; i++)
    table[n_table++] = &rl_formula_grpo[i];
}

size_t
rl_formula_count (void)
{
  init ();
  return n_table;
}

const rl_formula *
rl_formula_at (size_t i)
{
  init ();
  return i < n_table ? table[i] : NULL;
}

const rl_formula *
rl_find (const char *id)
{
  init ();
  for (size_t i = 0; id && i < n_table; i++)
    if (strcmp (table[i]->id, id) == 0)
      return table[i];
  return NULL;
}

const rl_variant *
rl_find_variant (const rl_formula *f, const char *name)
{
  if (!f || f->n_variants == 0)
    return NULL;
  if (!name)
    return &f->variants[0];
  for (size_t i = 0; i < f->n_variants; i++)
    if (strcmp (f->variants[i].name, name) == 0)
      return &f->variants[i];
  return NULL;
}

static const rl_note common_notes[] = {
  { "ExactZero", "EDGE_CASE",
    "The exact value is 0 (both precisions give exactly 0): value \"0\" with digits 0." },
  { "NonDifferentiable", "EDGE_CASE",
    "The formula is not differentiable (a branch or a jump) at this input: sens is 0, and the "
    "candidate must reproduce the branch exactly." },
  { "LowDigits", "PRECISION",
    "Fewer than 30 digits could be certified at up to 4096 bits (a value that cancels to almost "
    "nothing): digits says how many hold." },
  { "ZeroWithinPrecision", "PRECISION",
    "Both evaluations are below 2^-(p/2) in magnitude at the highest precision tried (4096 "
    "bits) while their digits disagree: the exact value is 0 to within that bound (cert "
    "\"bound\"); value \"0\" with digits 0." },
  { "OverflowsDouble", "EDGE_CASE", "The exact value is beyond the binary64 range." },
  { "UnderflowsDouble", "EDGE_CASE",
    "The exact value is below the binary64 normal range: hex holds 0x0p+0 or a subnormal "
    "though the value is not zero." },
};

const rl_note *
rl_common_notes (size_t *n)
{
  *n = RL_COUNT (common_notes);
  return common_notes;
}
