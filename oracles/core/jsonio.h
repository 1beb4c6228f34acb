/* jsonio.h -- the JSON spellings that golden files, eval and candidate share. */
#ifndef RLREF_ORACLES_JSONIO_H
#define RLREF_ORACLES_JSONIO_H
#include <jansson.h>
#include "registry.h"

/* {"dec", "hex"} of an exact double. */
json_t *rl_json_real (double d);
/* The inputs of a case, as in the golden files. */
json_t *rl_json_inputs (const rl_variant *v, const rl_args *a);

/* Loads the JSON file PATH ("-": standard input), read whole: a UTF-8
 * byte-order mark is skipped, a key given twice in an object is refused.
 * NULL with the reason in err ("not valid JSON: ... (line L, column C)",
 * "cannot open: ..."); *jerr (when not NULL) gets jansson's error. */
json_t *rl_json_load (const char *path, char *err, size_t errlen, json_error_t *jerr);

/* A number of a model file: a JSON number, or a string rl_parse_double
 * reads ("1e-3", "nan", "0x1p-3"); 0, or -1 for anything else. */
int rl_json_number (json_t *v, double *x);

/* The first key of the object O that is not in KNOWN (NULL-terminated),
 * or NULL: model files refuse what they do not read. */
const char *rl_json_unknown_key (json_t *o, const char *const *known);

#endif
