/* rlref/rlvr.h -- verifiable rewards (RLVR-*): the binary verifier of
 * seed 000 (13.35) and the answer-matching conventions of the libraries,
 * process-reward aggregation, and Monte-Carlo process-reward labels
 * (Math-Shepherd), binary64 and MPFR. */
#ifndef RLREF_RLVR_H
#define RLREF_RLVR_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/grpo.h"
#include "rlref/convention.h"

/* How a final answer is matched against the reference.  Answers are the
 * numbers the responses end with, as binary64 (the verifiers parse them
 * into Python floats); NaN stands for a response from which no number
 * could be extracted, and matches nothing. */
enum rlref_answer_match
{
  RLREF_MATCH_EQUAL,            /* equal numbers (13.35: "the answer matches") */
  RLREF_MATCH_PRIME_MATH        /* verl prime_math math_equal on two numbers:
                                   math.isclose (item, answer, rel_tol = 1e-4)
                                   for item in [ref/100, ref, ref*100], in
                                   binary64 as Python computes it */
};

/* A verifier: the matching rule and the rewards it pays. */
typedef struct
{
  const char *name;             /* the variant name used in goldens and the CLI */
  const char *rule;             /* one line, for humans */
  const char *used_by;          /* seeds and libraries */
  enum rlref_answer_match match;
  double right;                 /* reward of a matching answer */
  double wrong;                 /* reward of any other answer */
} rlref_verifier;

/* The named verifiers, in a fixed order. */
extern const rlref_verifier rlref_verifiers[];
extern const size_t rlref_num_verifiers;
/* By name ("binary", "dapo", "prime-math"); NULL if unknown. */
const rlref_verifier *rlref_verifier_find (const char *name);
/* 1 when the answer a matches the reference r under rule m, else 0. */
int rlref_answer_matches (double a, double r, enum rlref_answer_match m);

/* How process-reward step scores make one solution score. */
enum rlref_prm_aggregation
{
  RLREF_PRM_MIN,                /* the lowest step score */
  RLREF_PRM_PRODUCT,            /* the product: every step correct */
  RLREF_PRM_MEAN,               /* the mean */
  RLREF_PRM_LAST                /* the last step's score */
};

/* Math-Shepherd's two labels of a step from N completions. */
enum rlref_prm_label
{
  RLREF_PRM_SOFT,               /* the fraction of completions reaching the answer */
  RLREF_PRM_HARD                /* 1 when at least one does */
};

/* The named conventions of the RLVR formulas, in the order of the golden
 * variants (src/rlvr/rlvr_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   RLVR-PRM-MC: enum rlref_prm_label
 *   RLVR-REWARD: enum rlref_prm_aggregation */
extern const rlref_convention rlref_rlvr_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/rlvr.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/rlvr.h"
#include "rlref/tmpl/end.h"

#endif
