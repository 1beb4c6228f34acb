/* rlvr.c -- verifiable rewards (RLVR-*), written once for both backends:
 * the binary verifier of seed 000 (13.35, section 7.1) under the
 * answer-matching conventions of the libraries, the aggregation of process
 * reward scores (ORM against PRM, sections 8.3 and 10.2), and Monte-Carlo
 * process-reward labels (Math-Shepherd, section 10.2 Table 3) with their
 * exact expectation on a tree of continuations.
 *
 * Every function computes into temporaries, or element by element from
 * the same element, and writes its outputs last, so an output may share
 * storage with an input (reference/README.md, Aliasing). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/num.h"
#include "rlref/grpo.h"
#include "rlref/rlvr.h"
#include "flow.h"

/* ----- the verifiers (one table, in the binary64 object) ---------------- */

#ifndef RLREF_MP
const rlref_verifier rlref_verifiers[] = {
  { "binary",
    "r = 1 when the final number equals the reference, else 0 (13.35); a response without a "
    "final number (NaN) gets 0",
    "seed 000 (13.35) and its section 7.1 example; verl gsm8k (1.0 on string equality of the "
    "extracted number, else 0: there \"1.0\" fails against \"1\", which a number cannot show)",
    RLREF_MATCH_EQUAL, 1.0, 0.0 },
  { "dapo",
    "r = +1 when the final number equals the reference, else -1 (no final number: -1)",
    "verl math_dapo (DAPO's recipe: score 1.0 when correct, -1.0 otherwise)",
    RLREF_MATCH_EQUAL, 1.0, -1.0 },
  { "prime-math",
    "r = 1 when math.isclose(item, answer, rel_tol=1e-4) for an item of [ref/100, ref, "
    "ref*100], in binary64 as Python computes it (0.01 and 100 match 1 as percentages; "
    "ref*100 may overflow to inf, which then matches an infinite answer), else 0",
    "verl prime_math grader.math_equal, numeric branch (include_percentage=True, "
    "tolerance=1e-4)",
    RLREF_MATCH_PRIME_MATH, 1.0, 0.0 },
};
const size_t rlref_num_verifiers = sizeof rlref_verifiers / sizeof rlref_verifiers[0];

const rlref_verifier *
rlref_verifier_find (const char *name)
{
  for (size_t i = 0; name && i < rlref_num_verifiers; i++)
    if (strcmp (rlref_verifiers[i].name, name) == 0)
      return &rlref_verifiers[i];
  return NULL;
}

/* Python's math.isclose (a, b, rel_tol, abs_tol = 0), as CPython computes
 * it: equal values (also equal infinities) are close, an infinity is close
 * to nothing else, otherwise |b - a| <= rel_tol |b| or <= rel_tol |a|. */
static int
py_isclose (double a, double b, double rel_tol)
{
  double diff;
  if (a == b)
    return 1;
  if (isinf (a) || isinf (b))
    return 0;
  diff = fabs (b - a);
  return diff <= fabs (rel_tol * b) || diff <= fabs (rel_tol * a);
}

int
rlref_answer_matches (double a, double r, enum rlref_answer_match m)
{
  double item[3];
  if (isnan (a))
    return 0;
  if (m == RLREF_MATCH_EQUAL)
    return a == r;
  /* math_equal: gt_result = [reference / 100, reference, reference * 100],
   * each rounded to binary64 */
  item[0] = r / 100;
  item[1] = r;
  item[2] = r * 100;
  for (int k = 0; k < 3; k++)
    if (py_isclose (item[k], a, 1e-4))
      return 1;
  return 0;
}
#endif

/* (13.35)  r(x, y) = 1 if the verifier judges y correct, else 0; in
 * general c->right or c->wrong.  The decision is made on the binary64
 * values (the same in both backends). */
int
FN (verify_reward) (num_ptr reward, num_srcptr answers, size_t n, num_srcptr reference,
                    const rlref_verifier *c)
{
  double ref;
  if (!reward || !answers || !reference || !c || n == 0)
    RLREF_ERROR ("verify_reward: no answers, or a NULL argument", RLREF_EINVAL);
  if (!num_is_finite (reference))
    RLREF_ERROR ("verify_reward: the reference answer must be a finite number", RLREF_ENAN);
  ref = num_get_d (reference);
  for (size_t i = 0; i < n; i++)
    {
      int m = rlref_answer_matches (num_get_d (AT (answers, i)), ref, c->match);
      num_set_d (AT (reward, i), m ? c->right : c->wrong);
    }
  return RLREF_SUCCESS;
}

/* The seed's example (000 section 7.1): the rewards of one prompt's
 * sampled answers, how many match, their mean (the group baseline) and
 * the group-relative advantages (13.23) under convention a. */
int
FN (verify_group) (num_ptr reward, num_ptr correct, num_ptr mean, num_ptr adv,
                   num_srcptr answers, size_t n, num_srcptr reference, const rlref_verifier *c,
                   const rlref_adv_convention *a)
{
  num_ptr r = NULL, ad = NULL;
  num_t m, s;
  long hits = 0;
  int status = RLREF_SUCCESS;
  if (!reward || !correct || !mean || !adv || !answers || !reference || !c || !a || n == 0)
    RLREF_ERROR ("verify_group: no answers, or a NULL argument", RLREF_EINVAL);
  NUM_INIT (m, s);
  r = num_vec_new (n);
  ad = num_vec_new (n);
  if (!r || !ad)
    FAIL ("verify_group: out of memory", RLREF_ENOMEM);
  TRY (FN (verify_reward) (r, answers, n, reference, c));
  for (size_t i = 0; i < n; i++)
    hits += rlref_answer_matches (num_get_d (AT (answers, i)), num_get_d (reference), c->match);
  TRY (FN (grpo_group_stats) (m, s, r, n, a));
  TRY (FN (grpo_adv) (ad, r, n, n, a));
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (reward, i), AT (r, i));
      num_set (AT (adv, i), AT (ad, i));
    }
  num_set_si (correct, hits);
  num_set (mean, m);
done:
  NUM_CLEAR (m, s);
  num_vec_free (r, n);
  num_vec_free (ad, n);
  return status;
}

/* ORM against PRM (000 sections 8.3, 10.2): a solution's score from its
 * step scores, min_k s_k, prod_k s_k, (1/n) sum_k s_k or s_n.  The
 * product keeps its binary exponent apart (a partial product of scores
 * above 1 may leave the range while the whole does not), each factor
 * scaled to [1/2, 1) first (a subnormal score would round the partial
 * product to its few bits), and the sum is
 * exact, rounded once (on the scores scaled by 2^-2 when it overflows
 * while the mean may not). */
int
FN (prm_aggregate) (num_ptr score, num_srcptr steps, size_t n, enum rlref_prm_aggregation how)
{
  num_ptr sc = NULL;
  num_t t, m;
  long e = 0;
  int status = RLREF_SUCCESS;
  if (!score || !steps || n == 0)
    RLREF_ERROR ("prm_aggregate: no step scores", RLREF_EINVAL);
  for (size_t k = 0; k < n; k++)
    if (!num_is_finite (AT (steps, k)))
      RLREF_ERROR ("prm_aggregate: non-finite step score", RLREF_ENAN);
  num_init (t);
  switch (how)
    {
    case RLREF_PRM_MIN:
      num_set (t, steps);
      for (size_t k = 1; k < n; k++)
        num_min (t, t, AT (steps, k));
      break;
    case RLREF_PRM_PRODUCT:
      num_set_d (t, 1.0);
      num_init (m);
      for (size_t k = 0; k < n; k++)
        {
          long ek = num_get_exp (AT (steps, k));
          num_mul_2si (m, AT (steps, k), -ek);  /* exact, a subnormal too: |m| in [1/2, 1) */
          num_mul (t, t, m);
          e += ek;
          ek = num_get_exp (t);
          num_mul_2si (t, t, -ek);
          e += ek;
        }
      num_mul_2si (t, t, e);                    /* the one rounding to the range's end */
      num_clear (m);
      break;
    case RLREF_PRM_MEAN:
      TRY (num_sum (t, steps, n));
      if (!num_is_finite (t))
        {
          sc = num_vec_new (n);
          if (!sc)
            FAIL ("prm_aggregate: out of memory", RLREF_ENOMEM);
          for (size_t k = 0; k < n; k++)
            num_mul_2si (AT (sc, k), AT (steps, k), -2);
          TRY (num_sum (t, sc, n));
          num_div_si (t, t, (long) n);
          num_mul_2si (t, t, 2);
        }
      else
        num_div_si (t, t, (long) n);
      break;
    case RLREF_PRM_LAST:
      num_set (t, AT (steps, n - 1));
      break;
    default:
      FAIL ("prm_aggregate: unknown aggregation", RLREF_EINVAL);
    }
  num_set (score, t);
  if (!num_is_finite (t))
    FAIL ("prm_aggregate: result beyond the floating-point range (written as +-inf)",
          RLREF_ERANGE);
done:
  num_clear (t);
  num_vec_free (sc, n);
  return status;
}

/* Checks a tree of continuations and a path through it (prm_mc_expect). */
static int
check_tree (const long *parent, num_srcptr weight, const long *correct, size_t n,
            const long *path, size_t L, long N)
{
  if (!parent || !weight || !correct || !path || n == 0 || L == 0)
    RLREF_ERROR ("prm_mc: an empty tree or path", RLREF_EINVAL);
  if (parent[0] != -1)
    RLREF_ERROR ("prm_mc: node 0 is the root (parent -1)", RLREF_EINVAL);
  for (size_t i = 1; i < n; i++)
    if (parent[i] < 0 || (size_t) parent[i] >= i)
      RLREF_ERROR ("prm_mc: the parent of a node must be an earlier node", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    {
      if (!num_is_finite (AT (weight, i)))
        RLREF_ERROR ("prm_mc: non-finite weight", RLREF_ENAN);
      if (num_sgn (AT (weight, i)) < 0)
        RLREF_ERROR ("prm_mc: negative weight", RLREF_EDOM);
      if (correct[i] != 0 && correct[i] != 1)
        RLREF_ERROR ("prm_mc: correct must be 0 or 1", RLREF_EDOM);
    }
  for (size_t k = 0; k < L; k++)
    if (path[k] <= 0 || (size_t) path[k] >= n || parent[path[k]] != (k ? path[k - 1] : 0))
      RLREF_ERROR ("prm_mc: the path must run from a child of the root, each step a child of "
                   "the one before", RLREF_EINVAL);
  if (N < 1)
    RLREF_ERROR ("prm_mc: N must be at least 1", RLREF_EDOM);
  return RLREF_SUCCESS;
}

#ifdef RLREF_MP
/* Math-Shepherd (000 10.2, Table 3): a step's label is the empirical
 * probability, over N completions from the prefix ending at the step, of
 * reaching the correct answer.  Its expectation is
 *   p_i = correct_i at a leaf,  p_i = sum_c w_c p_c / sum_c w_c over the
 * children c of an inner node (children visited after their parent:
 * parent[i] < i), and q_i = 1 - p_i by the same recursion on 1 - correct,
 * so neither is formed by cancellation.  The siblings' weights are scaled
 * by a power of two (their largest exponent) before they are summed.
 * soft: mean p, variance p q / N; hard: E = 1 - q^N = -expm1(N log q),
 * log q = log1p(-p) for p <= 1/2, variance E q^N. */
int
FN (prm_mc_expect) (num_ptr label, num_ptr var, const long *parent, num_srcptr weight,
                    const long *correct, size_t n, const long *path, size_t L, long N,
                    enum rlref_prm_label kind)
{
  long *kids = NULL, *big = NULL;
  num_ptr S = NULL, Q = NULL, W = NULL, p = NULL, q = NULL, lab = NULL, va = NULL;
  num_t t, lq;
  int status;
  if (!label)
    RLREF_ERROR ("prm_mc_expect: NULL output", RLREF_EINVAL);
  if ((status = check_tree (parent, weight, correct, n, path, L, N)))
    return status;
  NUM_INIT (t, lq);
  kids = calloc (n, sizeof *kids);
  big = malloc (n * sizeof *big);
  S = num_vec_new (n);
  Q = num_vec_new (n);
  W = num_vec_new (n);
  p = num_vec_new (n);
  q = num_vec_new (n);
  lab = num_vec_new (L);
  va = num_vec_new (L);
  if (!kids || !big || !S || !Q || !W || !p || !q || !lab || !va)
    FAIL ("prm_mc_expect: out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    big[i] = LONG_MIN;
  for (size_t i = 1; i < n; i++)
    {
      kids[parent[i]]++;
      if (!num_is_zero (AT (weight, i)) && num_get_exp (AT (weight, i)) > big[parent[i]])
        big[parent[i]] = num_get_exp (AT (weight, i));
    }
  for (size_t i = n; i-- > 0;)
    {
      if (kids[i] == 0)
        {
          num_set_si (AT (p, i), correct[i]);
          num_set_si (AT (q, i), 1 - correct[i]);
        }
      else if (num_is_zero (AT (W, i)))
        FAIL ("prm_mc_expect: a step whose continuations all have weight 0", RLREF_EDOM);
      else
        {
          num_div (AT (p, i), AT (S, i), AT (W, i));
          num_div (AT (q, i), AT (Q, i), AT (W, i));
        }
      if (i > 0)
        {
          long k = parent[i];
          num_mul_2si (t, AT (weight, i), big[k] == LONG_MIN ? 0 : -big[k]);
          num_add (AT (W, k), AT (W, k), t);
          num_mul (lq, t, AT (p, i));
          num_add (AT (S, k), AT (S, k), lq);
          num_mul (lq, t, AT (q, i));
          num_add (AT (Q, k), AT (Q, k), lq);
        }
    }
  for (size_t k = 0; k < L; k++)
    {
      num_srcptr pk = AT (p, path[k]), qk = AT (q, path[k]);
      if (kind == RLREF_PRM_SOFT)
        {
          num_set (AT (lab, k), pk);
          num_mul (t, pk, qk);
          num_div_si (AT (va, k), t, N);
        }
      else
        {
          if (num_cmp_d (pk, 0.5) <= 0)
            {
              num_neg (t, pk);
              num_log1p (lq, t);
            }
          else
            num_log (lq, qk);
          num_mul_si (lq, lq, N);               /* log q^N */
          num_expm1 (t, lq);
          num_d_sub (AT (lab, k), 0.0, t);      /* 1 - q^N, +0 when q = 1 */
          num_exp (t, lq);
          num_mul (AT (va, k), AT (lab, k), t);
        }
    }
  for (size_t k = 0; k < L; k++)
    {
      num_set (AT (label, k), AT (lab, k));
      if (var)
        num_set (AT (var, k), AT (va, k));
    }
done:
  NUM_CLEAR (t, lq);
  free (kids);
  free (big);
  num_vec_free (S, n);
  num_vec_free (Q, n);
  num_vec_free (W, n);
  num_vec_free (p, n);
  num_vec_free (q, n);
  num_vec_free (lab, L);
  num_vec_free (va, L);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  A step probability below the normal range keeps few
 * bits in binary64, and the hard label N p carries its error. */
#include "round_once.h"

typedef struct
{
  const long *parent, *correct, *path;
  size_t n, L;
  long N;
  enum rlref_prm_label kind;
  int with_var;
} prm_mc_program;

/* x = the weights; y = (label, var). */
static int
prm_mc_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const prm_mc_program *o = ctx;
  return rlref_prm_mc_expect_mp (y, o->with_var ? y + o->L : NULL, o->parent, x, o->correct,
                                 o->n, o->path, o->L, o->N, o->kind);
}

int
FN (prm_mc_expect) (num_ptr label, num_ptr var, const long *parent, num_srcptr weight,
                    const long *correct, size_t n, const long *path, size_t L, long N,
                    enum rlref_prm_label kind)
{
  prm_mc_program o = { parent, correct, path, n, L, N, kind, var != NULL };
  double *y;
  int status;
  if (!label)
    RLREF_ERROR ("prm_mc_expect: NULL output", RLREF_EINVAL);
  if ((status = check_tree (parent, weight, correct, n, path, L, N)))
    return status;
  y = malloc (2 * L * sizeof *y);
  if (!y)
    RLREF_ERROR ("prm_mc_expect: out of memory", RLREF_ENOMEM);
  status = rlref_round_once (y, var ? 2 * L : L, weight, n, prm_mc_mp, &o,
                             "the expected labels");
  if (status == RLREF_SUCCESS)
    {
      memcpy (label, y, L * sizeof *y);
      if (var)
        memcpy (var, y + L, L * sizeof *y);
    }
  free (y);
  return status;
}
#endif

/* Math-Shepherd's labels from counts: soft hits/N, hard [hits > 0]. */
int
FN (prm_mc_label) (num_ptr label, const long *hits, size_t L, long N, enum rlref_prm_label kind)
{
  if (!label || !hits || L == 0)
    RLREF_ERROR ("prm_mc_label: no steps", RLREF_EINVAL);
  if (N < 1)
    RLREF_ERROR ("prm_mc_label: N must be at least 1", RLREF_EDOM);
  for (size_t k = 0; k < L; k++)
    if (hits[k] < 0 || hits[k] > N)
      RLREF_ERROR ("prm_mc_label: a count of correct completions outside 0..N", RLREF_EDOM);
  for (size_t k = 0; k < L; k++)
    {
      if (kind == RLREF_PRM_SOFT)
        {
          num_set_si (AT (label, k), hits[k]);
          num_div_si (AT (label, k), AT (label, k), N);
        }
      else
        num_set_si (AT (label, k), hits[k] > 0);
    }
  return RLREF_SUCCESS;
}
