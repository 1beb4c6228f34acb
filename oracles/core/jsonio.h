/* jsonio.h -- the JSON spellings that golden files, eval and candidate share. */
#ifndef RLREF_ORACLES_JSONIO_H
#define RLREF_ORACLES_JSONIO_H
#include <jansson.h>
#include "registry.h"

/* {"dec", "hex"} of an exact double. */
json_t *rl_json_real (double d);
/* The inputs of a case, as in the golden files. */
json_t *rl_json_inputs (const rl_variant *v, const rl_args *a);

#endif
