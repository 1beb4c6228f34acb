/* golden_args.h -- a golden test's inputs as a formula's arguments. */
#ifndef RLREF_ORACLES_GOLDEN_ARGS_H
#define RLREF_ORACLES_GOLDEN_ARGS_H
#include <jansson.h>
#include "registry.h"

/* Binds the inputs of a golden test (the object "inputs": {"dec", "hex"}
 * objects, arrays of them, integers) to v's inputs and in_x parameters;
 * the other parameters take v's values.  Returns 0, or -1 when they do not
 * fit: an input of v is absent, or the test names an input v does not take
 * (a test of another part), or a value is malformed.  Free with
 * rl_args_free, also after a failure. */
int rl_args_from_golden (const rl_variant *v, json_t *inputs, rl_args *a);

#endif
