/* args.h -- name=value arguments of a formula, and their flat real vector. */
#ifndef RLREF_ORACLES_ARGS_H
#define RLREF_ORACLES_ARGS_H
#include <stddef.h>
#include "registry.h"

/* Parses one number: decimal or C99 hex float, "nan", "inf", "-inf".
 * Returns 0 on success (a subnormal is the nearest double), RL_NUM_SYNTAX
 * when the text is not a whole number, RL_NUM_OVERFLOW when it is finite
 * but beyond the binary64 range, RL_NUM_UNDERFLOW when it is not zero but
 * rounds to 0 (below half the least subnormal). */
#define RL_NUM_SYNTAX (-1)
#define RL_NUM_OVERFLOW (-4)
#define RL_NUM_UNDERFLOW (-5)
int rl_parse_double (const char *s, double *out);

/* Why rl_parse_double refused a number (its code), for messages: "is not
 * a number", "overflows binary64 ...", "underflows binary64 ...". */
const char *rl_parse_problem (int code);

/* Binds "name=value" words to v's inputs (arrays comma-separated) and real
 * parameters (overrides); an omitted integer input declared with
 * defaults_to_len_of takes that input's length.  On failure returns an rlref status and writes a
 * message to err. */
int rl_args_parse (const rl_variant *v, int argc, char *const *argv, rl_args *a,
                   char *err, size_t errlen);
void rl_args_free (rl_args *a);

/* Number of reals: inputs flattened in order, then in_x parameters. */
size_t rl_args_nx (const rl_variant *v, const rl_args *a);
/* Fills x (length rl_args_nx). */
void rl_args_flatten (const rl_variant *v, const rl_args *a, double *x);

#define RL_NO_SLOT ((size_t) -1)
/* offset[i] (i < n_in) and offset[n_in + p]: where input i and in_x
 * parameter p start in the flat vector, or RL_NO_SLOT for integer inputs
 * and parameters that are not inputs. */
void rl_args_slots (const rl_variant *v, const rl_args *a, size_t *offset);

#endif
