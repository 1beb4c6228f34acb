/* options.h -- what the subcommands (oracles/cli and rlref check) share:
 * options, help, and the check that everything written to standard output
 * arrived. */
#ifndef RLREF_ORACLES_OPTIONS_H
#define RLREF_ORACLES_OPTIONS_H
#include <stddef.h>

/* 1 when argv holds -h or --help. */
int rl_wants_help (int argc, char **argv);

/* The value of option name at argv[*i], written "name VALUE" or
 * "name=VALUE"; advances *i past it.  NULL when argv[*i] is not name;
 * *missing is set when name stands last without a value. */
const char *rl_option (int argc, char **argv, int *i, const char *name, int *missing);

/* The kinds of option a subcommand takes, each with what it writes. */
typedef enum
{
  RL_OPT_TEXT,      /* --name VALUE: const char *                            */
  RL_OPT_FLAG,      /* --name: int, set to 1                                 */
  RL_OPT_FLAG_TEXT, /* --name or --name=VALUE: int set to 1; text the VALUE  */
  RL_OPT_PAIR,      /* --name A B: text A, text2 B                           */
  RL_OPT_PREC,      /* --name BITS: long, 32 to RLREF_CERTIFY_MAX_PREC       */
  RL_OPT_WHOLE,     /* --name N: long long in [lo, hi]                       */
  RL_OPT_REAL,      /* --name X: double in [lo, hi], lo excluded if open_lo  */
  RL_OPT_WORD       /* --name WORD: int, the index of WORD in words          */
} rl_opt_kind;

/* One option: its name, its kind, where its value goes (the field of its
 * kind), and, when given is not NULL, a flag set when the option appears. */
typedef struct
{
  const char *name;
  rl_opt_kind kind;
  const char **text, **text2;
  int *flag;
  long *prec;
  long long *whole;
  double *real;
  long long lo, hi;
  double rlo, rhi;
  int open_lo;
  const char *const *words;
  int *given;
} rl_opt;

/* Reads argv[from] to argv[argc - 1] of subcommand cmd: each option of
 * opts (ended by a NULL name) is parsed and checked into its place, and
 * every other argument is a word, stored in words (at most max_words:
 * more is an "unexpected argument"); "-" is a word (standard input), any
 * other argument starting with '-' that is not in opts an "unknown
 * option", and every argument after "--" a word.  0, or 2 after a message on stderr and usage. */
int rl_parse_options (const char *cmd, const char *usage, int argc, char **argv, int from,
                      const rl_opt *opts, const char **words, int max_words, int *nwords);

/* A precision in bits from 32 to RLREF_CERTIFY_MAX_PREC; 0, or -1 with a
 * message in err ("not a whole number", "too large", ...). */
int rl_parse_prec (const char *s, long *bits, char *err, size_t errlen);

/* The value s of option name of subcommand cmd as a whole decimal number
 * in [lo, hi]: digits only (a leading '-' where lo < 0), no exponent, no
 * trailing text; 0, or 2 after a message on stderr naming the option and
 * the range. */
int rl_opt_whole (const char *cmd, const char *name, const char *s, long long lo,
                  long long hi, long long *out);

/* The value s of option name as a real number (decimal or C99 hex) in
 * [lo, hi] (the lower end excluded when open_lo); 0, or 2 after a message
 * naming the option and the range. */
int rl_opt_real (const char *cmd, const char *name, const char *s, double lo, double hi,
                 int open_lo, double *out);

/* The value s of option name as one of words (NULL-terminated); its index,
 * or -1 after a message listing them. */
int rl_opt_word (const char *cmd, const char *name, const char *s, const char *const *words);

/* The message of the last library error, or, when the library gave none,
 * the sentence of status (rlref_strerror): never an empty reason. */
const char *rl_error_text (int status);

/* Flushes and closes standard output: 0, or 2 after a message naming cmd
 * when a write failed (a full disk, a closed pipe). */
int rl_close_stdout (const char *cmd);

#endif
