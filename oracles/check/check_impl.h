/* check_impl.h -- internal to `rlref check`: the types of one run and the
   functions the files of the checker share.  check.c holds the options and
   the run, check_read.c reads and validates the two files, check_judge.c
   compares values, check_report.c prints the verdicts, check_record.c keeps
   each case's outcome for the machine-readable reports, check_json.c writes
   the JSON report and check_junit.c the JUnit XML file.  */
#ifndef RLREF_ORACLES_CHECK_IMPL_H
#define RLREF_ORACLES_CHECK_IMPL_H

#include <stdio.h>
#include <jansson.h>
#include <mpfr.h>

#include "rules.h"
#define SHOW_DIGITS 20          /* significant digits shown of expected values */
#define SHOW_CHARS 60           /* longest name or error string shown */

enum kind { K_VALID, K_ACCEPTABLE, K_INVALID };
enum status { S_PASS, S_FAIL, S_NOTE };

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
  enum status st;               /* recorded outcome (check_record.c) */
  json_t *elems;                /* recorded comparisons of its outputs, or NULL */
  char *msg;                    /* the report lines printed for it, or NULL */
} gcase;

/* A variant: the test groups that carry one variant name.  */
typedef struct
{
  const char *name;
  json_t *inputs;               /* set of the input names of its tests */
  const char *part_name;        /* the groups' "part", when the golden names it */
  size_t part;                  /* groups with the same inputs share a part */
  size_t ncases, nrun, passed, failed, noted;
  size_t failed_numerical;      /* failures on numerically demanding cases */
  int judged;                   /* counted in the closing line */
  const char *diag_dtype;       /* the lower dtype it follows at, or NULL */
  double diag_digits;           /* its correct digits there */
  size_t diag_failed;           /* the numerically demanding cases it fails there */
} variant;

/* Options, the two files and scratch numbers of one run.  */
typedef struct
{
  double ulps, rtol;
  int have_ulps, have_rtol, verbose;
  int json;                     /* --format json: the report as JSON on stdout */
  const char *junit;            /* --junit FILE, or NULL */
  FILE *out;                    /* where the text report goes */
  json_t *rec;                  /* the comparisons of the case being recorded, or NULL */
  int oom;                      /* a record could not be made */
  size_t sum_passed, sum_failed, sum_noted;   /* the closing line */
  int prec;                     /* significand bits of the dtype */
  mpfr_exp_t emin;              /* floor(log2) of its smallest normal */
  const char *dtype, *only;
  const char *gpath, *cpath;
  json_t *golden, *cand;
  gcase *cases;
  size_t ncases;
  variant *vars;
  size_t nvars, nparts;
  size_t unknown;               /* results whose tcId is not in the golden */
  json_int_t first_unknown;
  mpfr_t x, y, d, t, w;
  double worst_digits;          /* fewest correct digits of the finite comparisons judged */
} ctx;

/* Print a message about file PATH to stderr; returns 2.  */
int ck_bad (const char *path, const char *fmt, ...);

/* Print to F at most SHOW_CHARS bytes of S, control characters as '?'.  */
void ck_print_clean (FILE *f, const char *s);

/* Set KEY of the JSON object O to the new reference V (NULL: none could
   be made); a failure sets c->oom.  */
void ck_put (ctx *c, json_t *o, const char *key, json_t *v);

/* Load the JSON file PATH ("-": standard input); NULL after a message.  */
json_t *ck_load_json (const char *path);

/* Read the decimal string V (or "nan", "inf", "-inf") into X; 0 or -1.  */
int ck_read_decimal (mpfr_t x, json_t *v);

/* Read the candidate's number V (JSON number or string) into *G; 0 or -1.  */
int ck_cand_number (json_t *v, double *g);

/* Check the golden's structure and collect its cases and variants; 0 or 2.  */
int ck_read_golden (ctx *c);

/* Check the candidate and attach its results to the golden cases; 0 or 2.  */
int ck_read_candidate (ctx *c);

/* Judge every case of the variant named SEL (NULL: of all variants),
   printing as SHOW says; with COUNT, count the results into the variants.  */
void ck_judge_all (ctx *c, const char *sel, int show, int count);

/* Judge case K, printing its lines to c->out if SHOW; the status.  */
enum status ck_judge_case (ctx *c, const gcase *k, int show);

/* Whether variant V was run and all its valid and invalid cases pass.  */
int ck_matches (const variant *v);

/* Whether V was run and fails only numerically demanding cases.  */
int ck_matches_convention (const variant *v);

/* The best run variant of part P (most passes, first on ties), or NULL.  */
variant *ck_best_of (ctx *c, size_t p);

/* Whether variant V is judged at all (every variant, or the one named by
   --variant).  */
int ck_in_scope (const ctx *c, const variant *v);

/* Judge every case of a variant in scope against its own variant once
   more, keeping its status, its comparisons and its report lines; 0, or 2
   without memory.  */
int ck_record_cases (ctx *c);

/* Free what ck_record_cases kept.  */
void ck_record_free (ctx *c);

/* Write the JSON report of the run (exit status RC, text report TEXT) to
   standard output; 0, or 2 when it cannot be written.  */
int ck_write_json (ctx *c, int rc, const char *text);

/* Write the JUnit XML file c->junit; 0, or 2 when it cannot be written.  */
int ck_write_junit (ctx *c);

/* Report on the single variant V; the exit status.  */
int ck_report_one (ctx *c, variant *v);

/* Report on every variant of a golden with several; the exit status.  */
int ck_report_all (ctx *c);

#endif
