/* golden.h -- writing golden files, and the JSON pieces the command shares
 * with them (inputs and certified values). */
#ifndef RLREF_ORACLES_GOLDEN_H
#define RLREF_ORACLES_GOLDEN_H
#include <jansson.h>
#include "evaluate.h"

#include "check/rules.h"

#define RL_GENERATOR "rlref 0.1.0"
#define RL_SCHEMA_VERSION 1
/* The expected outputs of an evaluated case: name -> value object(s).
 * Adds the flags the values call for to flags (a JSON array of strings). */
json_t *rl_json_outputs (const rl_variant *v, const rl_result *r, json_t *flags);
/* Writes DIR/ID.json for formula f (whole to DIR/ID.json.tmp, then
 * renamed); returns 0, 1 after a message when a case's outcome is not the
 * declared one, 2 after a message when the file cannot be written (the
 * old file is left as it was). */
int rl_golden_write (const rl_formula *f, const char *dir);

#endif
