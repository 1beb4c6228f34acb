/* registry_json.h -- the registry as JSON: every formula (id, what,
 * source, golden) with its variants (name, description, usedBy, inputs,
 * outputs), for `rlref list --json` and for other languages. */
#ifndef RLREF_ORACLES_REGISTRY_JSON_H
#define RLREF_ORACLES_REGISTRY_JSON_H
#include <jansson.h>
#include "registry.h"

/* The array of formulas; an input is its name, or with full an object of
 * its declarations: name, kind ("real", "real[]", "int", "int[]"), doc,
 * and where declared domain, sameLenAs, defaultsToLenOf; and each
 * variant's params, {name: value}, the constants it sets. */
json_t *rl_registry_json (int full);

/* rl_registry_json (1) as compact JSON text, for the Python package (free
 * it with rlref_eval_text_free); NULL without memory. */
char *rlref_registry_text (void);

#endif
