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

/* Flushes and closes standard output: 0, or 2 after a message naming cmd
 * when a write failed (a full disk, a closed pipe). */
int rl_close_stdout (const char *cmd);

#endif
