/* generic.h -- what the generic test's files share. */
#ifndef RLREF_TESTS_GENERIC_H
#define RLREF_TESTS_GENERIC_H

#include "core/registry.h"

/* Parses golden case c of f for variant v into a; 0, or -1 with the
 * parser's message in err. */
int generic_parse_case (const rl_variant *v, const rl_case *c, rl_args *a, char *err,
                        size_t size);

/* A deep copy of a into b (free with rl_args_free). */
void generic_args_copy (const rl_variant *v, const rl_args *a, rl_args *b);

/* The domain fuzzer (fuzz.c): draws inputs of variant vi of formula f
 * around its valid golden cases and from the declared domains, and holds
 * every binary64 answer to the certified value or to a refusal.  Stops
 * after `draws` draws or `seconds` of processor time (0: no limit).
 * Prints each failure as an `rlref eval` command line; returns their
 * number. */
size_t fuzz_variant (const rl_formula *f, const rl_variant *v, unsigned long seed,
                     size_t draws, double seconds, size_t *ran);

#endif
