/* registry.h -- the formulas the rlref command knows: their inputs,
 * outputs, variants (conventions), evaluators in both precisions, and the
 * golden cases.  One rl_formula per catalogue id; one rl_family per module
 * of oracles/families/ (the folder oracles/families/NAME/).
 *
 * A family module defines `const rl_family rl_family_NAME` and nothing
 * else with external linkage; the Makefile lists the modules present and
 * generates the table the registry reads, so adding a family adds files
 * and edits no list.  Records are written with designated initialisers;
 * lists (inputs, outputs, variants, cases, notes) end with an entry whose
 * name is NULL.  The registry checks every record when the command starts
 * (rl_registry_problems) and refuses to run on a defective one. */
#ifndef RLREF_ORACLES_REGISTRY_H
#define RLREF_ORACLES_REGISTRY_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/convention.h"

#define RL_MAX_IN 12            /* inputs of one formula */
#define RL_MAX_OUT 12           /* outputs of one formula */
#define RL_MAX_PARAMS 4         /* parameters of one variant */
#define RL_MAX_LEN 100000       /* elements of one array input or output */

typedef enum { RL_REAL, RL_REAL_ARRAY, RL_INT, RL_INT_ARRAY } rl_kind;

/* An input's domain (oracles/core/domain.h): the values the formula is
 * defined on, each element in an interval ("[0,1]", "(0,inf)", "[1,64]"
 * for an integer; NULL: every finite value), with "sum1" (the elements
 * sum to 1) or "sorted" (non-decreasing) after it.  The generic test
 * holds every valid golden case to it and draws from it (the domain
 * fuzzer); outside it the formula must refuse. */
typedef struct
{
  const char *name;
  rl_kind kind;
  const char *doc;
  const char *same_len_as;      /* an array input whose length this one must have */
  const char *defaults_to_len_of; /* RL_INT: omitted, it is the length of that input */
  const char *domain;           /* NULL: any finite value */
} rl_input;

/* An output's length is declared, not computed: one element, the length of
 * an input, or the value of an RL_INT input. */
typedef struct
{
  const char *name;
  const char *doc;
  const char *len_of;           /* array: as long as this input */
  const char *len_is;           /* array: as long as the value of this RL_INT input */
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

/* y = f(x).  x[i] points at the reals of input i (NULL for an integer
 * input), x[n_in + p] at real parameter p when it is an input of the
 * formula (in_x); y[k] at the elements of output k.  An output may be the
 * very storage of an input of the same length (reference/README.md,
 * "Aliasing"). */
typedef int rl_eval_d_fn (const struct rl_variant *v, const rl_args *a,
                          const double *const *x, double *const *y);
typedef int rl_eval_mp_fn (const struct rl_variant *v, const rl_args *a,
                           const mpfr_srcptr *x, const mpfr_ptr *y);

/* The formula's own sensitivity at x, at the working precision
 * (rlref/certify.h): x as for rl_eval_mp_fn, y[k] the certified elements
 * of output k; sets s[k][i] = sum_j |dy_k[i]/dx_j| |x_j| over every real
 * input and real parameter in x, and nondiff[k][i] = 1 where y_k[i] is not
 * differentiable at x (both arrive set to 0).  A hook that can meet a
 * branch (a max, a guard, a rounding) says so through nondiff; central
 * differences, the default without a hook, test every hook
 * (RLREF_SENS=both, oracles/core/evaluate.h). */
typedef int rl_sens_mp_fn (const struct rl_variant *v, const rl_args *a,
                           const mpfr_srcptr *x, const mpfr_srcptr *y,
                           const mpfr_ptr *s, int *const *nondiff);

typedef struct
{
  const rl_input *in;           /* NULL-name terminated */
  const rl_output *out;         /* NULL-name terminated */
  rl_eval_d_fn *eval_d;
  rl_eval_mp_fn *eval_mp;
  rl_sens_mp_fn *sens_mp;       /* NULL: sensitivity by central differences */
  const char *part;             /* the golden's "part": groups with the same part
                                   are alternative conventions of one computation */
  int binary32;                 /* the evaluators compute a binary32 reading */
  const char *cert;             /* the certificate of its variants built from a table
                                   (rl_variants_of) that are not binary32; NULL:
                                   "two-precision" */
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
  const char *name;             /* NULL ends a list */
  const char *description;
  const char *used_by;
  const rl_io *io;
  rl_param params[RL_MAX_PARAMS + 1]; /* ends at a NULL name */
  const void *data;             /* e.g. the advantage convention */
  const char *cert;             /* certificate name; NULL: "two-precision" */
} rl_variant;

/* What a golden case must give under a variant. */
typedef enum { RL_VALID, RL_ACCEPTABLE, RL_INVALID } rl_outcome;

/* A golden case: args in the command-line syntax ("rw=1.5 rl=0"), for the
 * variants named (comma list, or "*" for all).  By default the outcome is
 * valid; `invalid_in` and `acceptable_in` name the variants (comma list or
 * "*") where it is otherwise, or `expect` decides per variant.  The golden
 * writer refuses a case whose outcome differs from the declared one. */
typedef struct
{
  const char *variants;         /* NULL ends a list */
  const char *args;
  const char *flags;            /* space-separated */
  const char *comment;
  const char *acceptable_in;
  const char *invalid_in;
  rl_outcome (*expect) (const rl_variant *v);
} rl_case;

/* A departure from a convention: a way a candidate may differ from a
 * variant (ddof 0 for 1, eps inside the square root, max for min in the
 * clip).  When a candidate follows no variant, `rlref check` moves each
 * variant of the part along each axis of its formula and names the one
 * the candidate follows ("follows trl with ddof 0 in place of 1").  apply
 * sets *out to base moved along the axis (out->data may point into
 * scratch, RL_AXIS_SCRATCH bytes aligned for any object) and writes the
 * departure into label ("ddof 0 in place of 1"); it returns 0, or -1 when
 * the axis does not apply to base.  A variant's real parameters (beta,
 * eps), the sign and scale of an output, log-probabilities read as
 * probabilities and the formulas that take the same inputs are searched
 * without being declared. */
#define RL_AXIS_SCRATCH 512
typedef struct
{
  const char *name;             /* NULL ends a list */
  int (*apply) (const struct rl_variant *base, struct rl_variant *out, void *scratch,
                char *label, size_t size);
} rl_axis;

typedef struct
{
  const char *flag;             /* NULL ends a list */
  const char *bug_type;
  const char *description;
} rl_note;

typedef struct
{
  const char *id;               /* NULL ends a list */
  const char *what;
  const char *source;
  const char *definition;       /* one line of Markdown for the generated tables */
  const rl_variant *variants;
  const rl_case *cases;
  const rl_note *notes;
  int ulps;                     /* U of the tolerance rule; 0: RL_DEFAULT_ULPS */
  const rl_axis *axes;          /* departures the checker searches; NULL: none */
} rl_formula;

typedef struct
{
  const char *name;             /* the module's file name, without .c */
  const char *title;
  int rank;                     /* its section of the catalogue (FORMULAS.md), for order */
  const rl_formula *formulas;   /* NULL-id terminated */
  void (*init) (void);          /* builds tables from the library's own, if any */
} rl_family;

/* Number of formulas, and the i-th one in catalogue order. */
size_t rl_formula_count (void);
const rl_formula *rl_formula_at (size_t i);
const rl_formula *rl_find (const char *id);
/* NULL name: the first (default) variant. */
const rl_variant *rl_find_variant (const rl_formula *f, const char *name);
/* The family of formula f. */
const rl_family *rl_family_of (const rl_formula *f);
/* Notes shared by every file (flags set by the generator). */
const rl_note *rl_common_notes (void);

/* A list of n variants and its end, all fields zero, for a family's init
 * to fill from the library's table of conventions; the command exits
 * (status 3) when there is no memory. */
rl_variant *rl_variants_new (size_t n);

/* The io of a convention where its part has several forms (the inputs as
 * probabilities or as log-probabilities, say), chosen by the family from
 * the row's setting or name; NULL: the part's one io. */
typedef const rl_io *rl_io_pick (const rlref_convention *c);

/* The variants of formula id from a library table of named conventions
 * (rlref/convention.h), in its order: each row on the io pick gives (pick
 * may be NULL) or else the one io of ios (NULL ended) with the row's part
 * and precision; its parameters real inputs of the formula unless the row
 * marks one an integer or shown, its setting the variant's data; a
 * binary32 row certified as "float32-emulation", another as its io says.
 * A row with no such io, or two, is a defect of the family: reported, and
 * the program exits. */
rl_variant *rl_variants_of (const rlref_convention *table, const char *id,
                            const rl_io *const *ios, rl_io_pick *pick);

/* Counts of the NULL-terminated lists. */
size_t rl_n_in (const rl_io *io);
size_t rl_n_out (const rl_io *io);
size_t rl_n_params (const rl_variant *v);
size_t rl_n_variants (const rl_formula *f);
size_t rl_n_cases (const rl_formula *f);
/* Index of the input named name, or -1. */
int rl_input_index (const rl_io *io, const char *name);
/* 1 when output k is an array. */
int rl_out_is_array (const rl_io *io, size_t k);
/* 1 when the comma list names name, or is "*". */
int rl_list_names (const char *list, const char *name);
/* The outcome case c declares under variant v. */
rl_outcome rl_case_outcome (const rl_case *c, const rl_variant *v);

/* Checks every record of the given families; prints each problem to
 * stderr and returns their number.  The registry runs it on its own table
 * before first use and exits with status 3 if it finds any. */
size_t rl_registry_problems (const rl_family *const *families);

/* The table the Makefile generates from oracles/families/ (NULL-terminated). */
extern const rl_family *const rl_families[];

/* The lengths of v's outputs for arguments a, from their declarations;
 * EINVAL (with a message) when the inputs' lengths do not fit together or
 * a length given by an integer input is outside [0, RL_MAX_LEN]. */
int rl_out_lengths (const rl_variant *v, const rl_args *a, size_t *out_len);

#endif
