/* eval_api.h -- one formula at one input, as `rlref eval` answers it: the
 * certified values (decimal strings and their digits) beside the binary64
 * implementation's results, as one JSON object.  The command and the
 * Python package (through the shared library, rlref_eval_text) call it. */
#ifndef RLREF_ORACLES_EVAL_API_H
#define RLREF_ORACLES_EVAL_API_H
#include <stddef.h>
#include <jansson.h>

/* What rl_eval_object's status says. */
enum
{
  RL_EVAL_OK = 0,               /* the object holds the outputs */
  RL_EVAL_REJECTED = 1,         /* the formula refuses the input (err: the status) */
  RL_EVAL_USAGE = 2,            /* an unknown formula, variant or input, a bad value */
  RL_EVAL_BINARY64 = 3          /* the certified values stand; binary64 failed */
};

/* Formula id at the inputs words ("name=value", values decimal or C99 hex,
 * arrays comma-separated) under variant (NULL: the first) at prec bits:
 * {"formula", "variant", "precision", "inputs", "outputs"} with, per output
 * element, {"value", "digits", "double", "double_hex"} (with want_sens
 * also "sens", the tolerance rule's sum_j |df/dx_j| |x_j|; and "binary64":
 * {"error", "message"} when binary64 failed).  *status is one of the above;
 * NULL, with a message in err, unless it is RL_EVAL_OK or RL_EVAL_BINARY64
 * (err then says why binary64 failed). */
json_t *rl_eval_object (const char *id, const char *variant, long prec, int want_sens,
                        int nwords, char **words, int *status, char *err, size_t errlen);

/* The same for a caller in another language: the object as JSON text, or
 * {"status": S, "error": "message"} when there is none; free it with
 * rlref_eval_text_free.  NULL only without memory. */
char *rlref_eval_text (const char *id, const char *variant, long prec, int want_sens,
                       int nwords, const char *const *words, int *status);
void rlref_eval_text_free (char *text);

/* The library setting variant of formula id computes with (its row's
 * setting: a const rlref_dpo_convention * for DPO-LOSS, ...), which a
 * batch kernel of rlref/batch.h takes; NULL for an unknown id or variant
 * or one without a setting. */
const void *rlref_variant_setting (const char *id, const char *variant);

#endif
