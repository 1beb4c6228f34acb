/* inputs.h -- a formula's inputs from a JSON file, for inputs too large for
 * the command line. */
#ifndef RLREF_ORACLES_INPUTS_H
#define RLREF_ORACLES_INPUTS_H
#include <stddef.h>

/* Reads path ("-": standard input), a JSON object {"name": value, ...}; a
 * value is a number, a string ("nan", "inf", "-inf", decimal or C99 hex),
 * a golden input object {"dec", "hex"}, or an array of those.  Returns a
 * NULL-terminated array of "name=value" words (free with
 * rl_input_words_free) and their number in *n, or NULL with a message. */
char **rl_input_words (const char *path, int *n, char *err, size_t errlen);
void rl_input_words_free (char **words);

#endif
