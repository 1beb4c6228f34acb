/* registry.h -- the formulas the rlref command knows: their inputs,
 * outputs, variants (conventions), evaluators in both precisions, and the
 * golden cases.  One rl_formula per catalogue id. */
#ifndef RLREF_ORACLES_REGISTRY_H
#define RLREF_ORACLES_REGISTRY_H

#include <stddef.h>
#include <mpfr.h>

#define RL_MAX_IN 6
#define RL_MAX_OUT 6
#define RL_MAX_PARAMS 4

typedef enum { RL_REAL, RL_REAL_ARRAY, RL_INT, RL_INT_ARRAY } rl_kind;

typedef struct
{
  const char *name;
  rl_kind kind;
  const char *doc;
} rl_input;

typedef struct
{
  const char *name;
  int array;
  const char *doc;
} rl_output;

/* Values bound to a formula's inputs (and its real parameters). */
typedef struct
{
  size_t len[RL_MAX_IN];
  double *re[RL_MAX_IN];        /* RL_REAL, RL_REAL_ARRAY */
  long *iv[RL_MAX_IN];          /* RL_INT, RL_INT_ARRAY */
  double param[RL_MAX_PARAMS];  /* the variant's parameters, maybe overridden */
} rl_args;

struct rl_variant;

/* y = f(x): x is every real input flattened in order, then the parameters
 * marked in_x; y is every output flattened in order. */
typedef int rl_eval_d_fn (const struct rl_variant *v, const rl_args *a,
                          const double *x, double *y);
typedef int rl_eval_mp_fn (const struct rl_variant *v, const rl_args *a,
                           mpfr_srcptr x, mpfr_ptr y);
/* Lengths of the outputs for these arguments; EINVAL when the inputs'
 * lengths do not fit together. */
typedef int rl_shape_fn (const struct rl_variant *v, const rl_args *a, size_t *out_len);

typedef struct
{
  const rl_input *in;
  size_t n_in;
  const rl_output *out;
  size_t n_out;
  rl_shape_fn *shape;
  rl_eval_d_fn *eval_d;
  rl_eval_mp_fn *eval_mp;
  const char *part;             /* the golden's "part": groups with the same part
                                   are alternative conventions of one computation */
} rl_io;

typedef struct
{
  const char *name;
  double value;
  int is_int;                   /* shown as a JSON integer */
  int in_x;                     /* a real input of the formula (can be overridden) */
} rl_param;

typedef struct rl_variant
{
  const char *name;
  const char *description;
  const char *used_by;
  const rl_io *io;
  rl_param params[RL_MAX_PARAMS];
  size_t n_params;
  const void *data;             /* e.g. the advantage convention */
  const char *cert;             /* certificate name; NULL: "two-precision" */
} rl_variant;

/* A golden case: args in the command-line syntax ("rw=1.5 rl=0"); for the
 * variants named (comma list, or "*" for all).  The library's status
 * decides valid or invalid; expect_invalid asserts the latter. */
typedef struct
{
  const char *variants;
  const char *args;
  const char *flags;            /* space-separated */
  const char *comment;
  const char *acceptable_in;    /* variants where the result is "acceptable" */
  int expect_invalid;
} rl_case;

typedef struct
{
  const char *flag;
  const char *bug_type;
  const char *description;
} rl_note;

typedef struct
{
  const char *id;
  const char *what;
  const char *source;
  const rl_variant *variants;
  size_t n_variants;
  const rl_case *cases;
  size_t n_cases;
  const rl_note *notes;
  size_t n_notes;
} rl_formula;

/* Number of formulas, and the i-th one in catalogue order. */
size_t rl_formula_count (void);
const rl_formula *rl_formula_at (size_t i);
const rl_formula *rl_find (const char *id);
/* NULL name: the first variant. */
const rl_variant *rl_find_variant (const rl_formula *f, const char *name);
/* Notes shared by every file (flags set by the generator). */
const rl_note *rl_common_notes (size_t *n);

#define RL_COUNT(a) (sizeof (a) / sizeof ((a)[0]))

#endif
