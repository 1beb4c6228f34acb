/* check_impl.h -- internal to `rlref check`: the record of one run and the
   functions the files of the checker share.

   The checker judges every case once (check_judge.c) into a record: per
   output element, the error in units of the tolerance at each dtype a
   candidate may have rounded to.  Every verdict is then a reading of that
   record: the counts and the class of each variant (check_verdict.c), the
   one convention named first in each part and those also consistent with
   the candidate, the input validation apart from the convention, and,
   where no variant is followed, the departure that explains the candidate
   (check_explain.c, which evaluates the reference through the registry).
   The text (check_text.c), JSON (check_json.c), JUnit (check_junit.c) and
   GitHub (check_github.c) reports render the record and judge nothing.

   check.c holds the options and the run; check_read.c reads and validates
   the two files.  */
#ifndef RLREF_ORACLES_CHECK_IMPL_H
#define RLREF_ORACLES_CHECK_IMPL_H

#include <stdio.h>
#include <jansson.h>
#include <mpfr.h>

#include "rules.h"
#define SHOW_DIGITS 20          /* significant digits shown of expected values */
#define SHOW_CHARS 60           /* longest name or error string shown */
#define NLEVELS 3               /* float64, float32, bfloat16 */
#define FLOAT32_MAX 0x1.fffffep+127     /* the largest finite binary32 (and bfloat16 below it) */

/* The dtypes a candidate may compute in, widest first: a level.  */
typedef struct
{
  const char *name;
  int prec;                     /* significand bits */
  mpfr_exp_t emin;              /* floor(log2) of the smallest normal */
} dtype_info;
extern const dtype_info ck_dtypes[NLEVELS];

enum kind { K_VALID, K_ACCEPTABLE, K_INVALID };

/* A case at one level: passed, failed, an acceptable mismatch noted, or
   not judged there (no output of it judged, or values beyond the dtype's
   range).  */
enum status { S_PASS, S_FAIL, S_NOTE, S_SKIP };

/* What the candidate gave for a case: nothing, an error (its rejection),
   outputs, or a skip (a case it declares it cannot take, with a reason:
   not judged).  */
enum answer { A_MISSING, A_ERROR, A_OUTPUTS, A_SKIP };

/* How an expected element was compared.  */
enum ekind
{
  E_FINITE,                     /* both finite: measured */
  E_SPECIAL,                    /* expected NaN or an infinity: equal or not */
  E_GOT_NONFINITE,              /* expected finite, got NaN or an infinity */
  E_MISSING,                    /* an output judged elsewhere is absent here */
  E_SHAPE                       /* a scalar for an array, or a wrong length */
};

/* One expected element of a case and the candidate's value for it.  */
typedef struct
{
  const char *output;
  long index;                   /* -1: a scalar output */
  json_t *expected;             /* the golden's expected object; NULL for E_MISSING, E_SHAPE */
  enum ekind kind;
  int has_got;
  double got;
  int special_equal;            /* E_SPECIAL: the candidate gave the same special */
  /* E_FINITE, at each level: q = |got - x| / (2^-p (sens + max(|x|, lambda))),
     rounded up (the case passes where q <= U); the error, the tolerance base
     sens + max(|x|, lambda) and |x| in ulps of the level at x (for display);
     scaled digits -log10(q 2^-p), the correct digits relative to the scale the
     tolerance allows, which decide the level a candidate follows at */
  double q[NLEVELS];
  double err_ulps[NLEVELS], base_ulps[NLEVELS], x_ulps[NLEVELS];
  double rel;                   /* |got - x| / |x| rounded up (inf for x = 0 != got) */
  double digits;                /* -log10 rel within [0, 17] (17: equal) */
  const char *problem;          /* E_MISSING, E_SHAPE: why (static or owned below) */
  char *problem_buf;            /* owned text of problem, or NULL */
} elem;

/* A tcId and the JSON object that carries it, for sorting and lookups.  */
typedef struct
{
  json_int_t tcid;
  json_t *obj;
} tc_ref;

/* One golden test case and the candidate's result for it.  */
typedef struct
{
  json_int_t tcid;
  json_t *test;                 /* golden test object */
  json_t *res;                  /* candidate result object, or NULL */
  size_t var;                   /* index of its variant */
  enum kind kind;
  int numerical;                /* flagged by a note of bugType NUMERICAL */
  int beyond32;                 /* an input or expected value beyond the binary32 range */
  enum answer answer;
  const char *cand_error;       /* the candidate's error string (or skip reason), or NULL */
  int nonfinite_out;            /* the candidate's outputs hold a NaN or an infinity */
  elem *el;
  size_t nel;
  size_t njudged;               /* elements of judged outputs */
  enum status st[NLEVELS];      /* valid and acceptable cases, from el */
} gcase;

/* How well a candidate follows a variant (its valid and acceptable cases),
   at one level.  */
typedef struct
{
  size_t run, passed, failed, noted, skipped;
  size_t failed_numerical;      /* failures on numerically demanding cases */
  double worst_q;               /* largest q of a non-numerical finite element */
  double digits;                /* scaled digits of that element */
} tally;

/* The classes of a variant, best first: matched at the declared dtype; its
   convention, failing numerically demanding cases only; at float32
   accuracy; at bfloat16 accuracy; not followed; not run.  */
enum vclass { C_MATCH, C_CONVENTION, C_LOWER32, C_LOWER16, C_NONE, C_NOTRUN };

/* A variant: the test groups that carry one variant name.  */
typedef struct
{
  const char *name;
  json_t *inputs;               /* set of the input names of its tests */
  const char *part_name;        /* the groups' "part", when the golden names it */
  size_t part;                  /* groups with the same inputs share a part */
  size_t ncases, nvalid, ninvalid;
  int emulates32;               /* its values model binary32 arithmetic (cert) */
  tally t[NLEVELS];
  enum vclass cls;
  int level;                    /* the level of cls (declared for C_MATCH, C_CONVENTION) */
  /* its must-reject cases: rejected, not rejected (finite values, NaN or
     an infinity), not answered; and its valid cases the candidate rejected */
  size_t rejected, accepted, accepted_nonfinite, invalid_missing, rejected_valid;
  size_t rank;                  /* its place in its part (0: named first) */
  size_t fine;                  /* elements of its non-numerical valid cases that pass
                                   at the finest level (binary64): among variants equally
                                   good at the declared dtype, the one the candidate
                                   reproduces more closely */
} variant;

struct explanation;             /* check_explain.c */

/* A part: variants that are alternative conventions of one computation.  */
typedef struct
{
  size_t answer;                /* the variant named first, or (size_t) -1 (none run) */
  size_t *order;                /* its variants, best first */
  size_t norder;
  struct explanation *why;      /* when the answer is not followed, or NULL */
} part;

enum format { F_TEXT, F_JSON, F_GITHUB };

/* Options, the two files and the record of one run.  */
typedef struct
{
  double ulps, rtol;
  int have_ulps, have_rtol, verbose, strict, explain;
  enum format format;
  const char *junit;            /* --junit FILE, or NULL */
  int junit_all;                /* --junit-all: the other variants' cases too */
  const char *outputs_opt;      /* --outputs, or NULL */
  FILE *out;                    /* where the text report goes */
  int oom;                      /* a record could not be made */
  int level;                    /* the declared dtype */
  const char *dtype, *only;
  const char *gpath, *cpath;
  json_t *golden, *cand;
  json_t *judged_outputs;       /* set of the output names judged */
  json_t *ungiven_outputs;      /* set of the golden's outputs not judged */
  gcase *cases;
  size_t ncases;
  variant *vars;
  size_t nvars, nparts;
  part *parts;
  size_t unknown;               /* results whose tcId is not in the golden */
  json_int_t first_unknown;
  size_t sum_passed, sum_failed, sum_noted;   /* the closing line */
  int rc;                       /* the exit status of the verdict */
  mpfr_t x, y, d, t, w;
} ctx;

/* --- check_util.c ----------------------------------------------------- */

/* Print a message about file path to stderr; returns 2.  */
int ck_bad (const char *path, const char *fmt, ...);

/* Print to f at most SHOW_CHARS bytes of s, control characters as '?'.  */
void ck_print_clean (FILE *f, const char *s);

/* Set key of the JSON object o to the new reference v (NULL: none could
   be made); a failure sets c->oom.  */
void ck_put (ctx *c, json_t *o, const char *key, json_t *v);

/* The description of the golden's note flag when its bugType is
   INVALID_INPUT (a reason to reject an input), else NULL.  */
const char *ck_invalid_note (const ctx *c, const char *flag);

/* --- check_read.c ----------------------------------------------------- */

/* Load the JSON file path ("-": standard input); NULL after a message.  */
json_t *ck_load_json (const char *path);

/* Read the decimal string v (or "nan", "inf", "-inf") into x; 0 or -1.  */
int ck_read_decimal (mpfr_t x, json_t *v);

/* Read the candidate's number v (JSON number or string) into *g; 0 or -1.  */
int ck_cand_number (json_t *v, double *g);

/* Check the golden's structure and collect its cases and variants; 0 or 2.  */
int ck_read_golden (ctx *c);

/* Check the candidate and attach its results to the golden cases; decide
   the outputs judged (those the candidate gives, within --outputs); 0 or
   2.  */
int ck_read_candidate (ctx *c);

/* --- check_judge.c ---------------------------------------------------- */

/* Judge every case once into its record (elements, answer); 0 or 2
   without memory.  */
int ck_judge (ctx *c);

/* Whether element e passes at level l under the options of c.  */
int ck_elem_pass (const ctx *c, const elem *e, int l);

/* Free the records of ck_judge.  */
void ck_judge_free (ctx *c);

/* --- check_verdict.c -------------------------------------------------- */

/* Read the record into the variants' tallies and classes, order each
   part, name its answer, and set the closing counts and c->rc; 0 or 2
   without memory.  */
int ck_verdict (ctx *c);

/* Whether variant v is judged at all (every variant, or the one named by
   --variant).  */
int ck_in_scope (const ctx *c, const variant *v);

/* The answer of part p, or NULL.  */
const variant *ck_answer (const ctx *c, size_t p);

/* Whether case k's variant is the answer of its part (its cases are
   counted and shown).  */
int ck_counted (const ctx *c, const gcase *k);

/* The names of the classes, for the JSON report: "match", ...  */
const char *ck_class_name (enum vclass cls);

/* --- check_explain.c -------------------------------------------------- */

/* For each part whose answer is not followed, search the departures the
   formula declares (and the generic ones) for what the candidate follows;
   0 or 2 without memory.  A golden whose formula the registry does not
   know, or does not reproduce, is left unexplained with a reason.  */
int ck_explain (ctx *c);

/* Write part p's explanation as text lines (each starting with ind) to f;
   nothing when it has none.  */
void ck_explain_text (const ctx *c, size_t p, FILE *f, const char *ind);

/* The JSON object of part p's explanation, or null.  */
json_t *ck_explain_json (ctx *c, size_t p);

/* One line summing up part p's explanation (for annotations and
   properties), or NULL.  */
const char *ck_explain_line (const ctx *c, size_t p);

/* Free the explanations.  */
void ck_explain_free (ctx *c);

/* --- check_text.c ----------------------------------------------------- */

/* Write the lines of case k at the declared level to f (its failures, or
   with all every element); nothing for a passing case unless all.  */
void ck_case_lines (const ctx *c, const gcase *k, FILE *f, int all);

/* The case lines of k as a new string (NULL without memory).  */
char *ck_case_text (const ctx *c, const gcase *k, int all);

/* The verdict line of part p ("Candidate follows: X", ...) as a new
   string (NULL without memory).  */
char *ck_verdict_line (const ctx *c, size_t p);

/* The input-validation line of part p, or NULL when its answer has no
   must-reject cases.  */
char *ck_validation_line (const ctx *c, size_t p);

/* Write the whole text report to c->out.  */
void ck_write_text (ctx *c);

/* --- check_json.c, check_junit.c, check_github.c ---------------------- */

/* Write the JSON report (text report TEXT) to standard output; 0 or 2.  */
int ck_write_json (ctx *c, const char *text);

/* Write the JUnit XML file c->junit; 0, or 2 when it cannot be written.  */
int ck_write_junit (ctx *c);

/* Write GitHub workflow annotations to standard output; 0 or 2.  */
int ck_write_github (ctx *c);

#endif
