/* options.h -- what the subcommands share: options, help, and the check
 * that everything written to standard output arrived. */
#ifndef RLREF_ORACLES_OPTIONS_H
#define RLREF_ORACLES_OPTIONS_H
#include <stddef.h>

/* 1 when argv holds -h or --help. */
int rl_wants_help (int argc, char **argv);

/* The value of option NAME at argv[*i], written "NAME VALUE" or
 * "NAME=VALUE"; advances *i past it.  NULL when argv[*i] is not NAME;
 * *missing is set when NAME stands last without a value. */
const char *rl_option (int argc, char **argv, int *i, const char *name, int *missing);

/* A precision in bits from 32 to RLREF_CERTIFY_MAX_PREC; 0, or -1 with a
 * message in err ("not a whole number", "too large", ...). */
int rl_parse_prec (const char *s, long *bits, char *err, size_t errlen);

/* The value S of option NAME of subcommand CMD as a whole decimal number
 * in [lo, hi]: digits only (a leading '-' where lo < 0), no exponent, no
 * trailing text; 0, or 2 after a message on stderr naming the option and
 * the range. */
int rl_opt_whole (const char *cmd, const char *name, const char *s, long long lo,
                  long long hi, long long *out);

/* The value S of option NAME as a real number (decimal or C99 hex) in
 * [lo, hi] (the lower end excluded when open_lo); 0, or 2 after a message
 * naming the option and the range. */
int rl_opt_real (const char *cmd, const char *name, const char *s, double lo, double hi,
                 int open_lo, double *out);

/* The value S of option NAME as one of WORDS (NULL-terminated); its index,
 * or -1 after a message listing them. */
int rl_opt_word (const char *cmd, const char *name, const char *s, const char *const *words);

/* The message of the last library error, or, when the library gave none,
 * the sentence of STATUS (rlref_strerror): never an empty reason. */
const char *rl_error_text (int status);

/* Flushes and closes standard output: 0, or 2 after a message naming cmd
 * when a write failed (a full disk, a closed pipe). */
int rl_close_stdout (const char *cmd);

#endif
