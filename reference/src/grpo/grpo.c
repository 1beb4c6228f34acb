/* grpo.c -- group-relative advantage (GRPO-ADV), written once for both
 * backends.  Seed 000 (13.23 and its pseudo-code), seed 001
 * (group_advantages), seed 003, and the conventions of TRL, verl and
 * OpenRLHF (grpo_conventions.c).
 *
 * Exact sums.  The exact conventions take the sum S of a group exactly,
 * as words w_0 + w_1 + ... (w_0 = S rounded once, each next word the
 * remainder rounded once, until the remainder is 0: num_sum), the mean
 * S/G as two words mu_0 + mu_1 (with S - G mu_0 one num_dot, rounded
 * once), and each deviation r_i - S/G = (G r_i - S)/G as
 * (r_i - mu_0) - mu_1 (centre).  No small reward is lost beside large
 * ones ([1, 2, 1e-200]: r_0 - mean = -1e-200/3, not 0), in binary64 or at
 * any MPFR precision, so the two precisions of a certification agree
 * because both are right.  The variance is the rounded-once sum of the
 * squared deviations (num_dot) over G - ddof.
 *
 * Scaling.  Means, variances and advantages are computed on the rewards
 * multiplied by 2^k, k = -(binary exponent of max |r|), so that the
 * largest scaled reward lies in [1/2, 1) and no square of a deviation
 * overflows (rewards of 1e154 and beyond) or underflows (1e-200, where no
 * eps hides the std).  eps is scaled with them (eps 2^k added to the std,
 * eps 2^2k under the root), which leaves (r - mean)/(std + eps) unchanged;
 * k is capped so that the scaled eps stays below 2^1000.  Multiplying by
 * 2^k is exact in MPFR, and in binary64 for every reward that stays
 * normal, so the results are those of the unscaled formula wherever that
 * does not overflow or underflow; in binary64 a reward below 2^-1022 times
 * the largest loses its bits under 2^-1074 times the largest.  The
 * binary32 conventions are neither scaled nor summed exactly: they round
 * every operation and sum in index order, as their library does. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/grpo.h"
#include "flow.h"
#include "scale.h"

/* The scaled eps stays at most 2^EPS_EXP_MAX. */
#define EPS_EXP_MAX 1000

/* The scale exponent k of v[0..n-1] (NaN and infinities ignored): max |v|
 * 2^k lies in [1/2, 1); 0 when every finite v is 0.  With eps > 0, k is
 * at most the k' with eps 2^(w k') <= 2^EPS_EXP_MAX (w = 2 when eps goes
 * under the root): a larger k would only magnify rewards that eps already
 * dominates. */
static long
scale_exponent (num_srcptr v, size_t n, double eps, int w)
{
  long e = LONG_MIN, k;
  int ee;
  for (size_t i = 0; i < n; i++)
    if (num_is_finite (AT (v, i)) && !num_is_zero (AT (v, i)) && num_get_exp (AT (v, i)) > e)
      e = num_get_exp (AT (v, i));
  if (e == LONG_MIN)
    return 0;
  k = -e;
  if (eps > 0)
    {
      frexp (eps, &ee);
      if (k > (EPS_EXP_MAX - ee) / w)
        k = (EPS_EXP_MAX - ee) / w;
    }
  return k;
}

/* Whether v[0..n-1] holds +inf (*pinf) and -inf (*ninf). */
static void
find_inf (int *pinf, int *ninf, num_srcptr v, size_t n)
{
  *pinf = *ninf = 0;
  for (size_t i = 0; i < n; i++)
    if (num_is_inf (AT (v, i)))
      {
        if (num_sgn (AT (v, i)) > 0)
          *pinf = 1;
        else
          *ninf = 1;
      }
}

/* Room for the exact sum of up to n values, its words and the mean, in
 * one vector (W words at most, words_bound):
 *   buf[0 .. NTMP-1]           temporaries of centre (TMP);
 *   buf[NTMP + W - t]          the word w_t of the sum, negated (WORD);
 *   buf[NTMP + W - T]          below the T words: mu_0, for S - m mu_0;
 *   buf[NTMP + W + 1 + j]      the values, j < n, then their deviations (VAL);
 *   buf[NTMP + W + 1 + n + t]  the coefficients -m, -1, -1, ... (COEF). */
typedef struct
{
  num_ptr buf;
  size_t W, n;
  rlref_ws *pool;               /* buf taken from this workspace, or NULL */
  size_t mark;
} exact_ws;

#define NTMP 2
#define TMP(s, i) AT ((s)->buf, (i))
#define WORD(s, t) AT ((s)->buf, NTMP + (s)->W - (t))
#define VAL(s, j) AT ((s)->buf, NTMP + (s)->W + 1 + (j))
#define COEF(s, t) AT ((s)->buf, NTMP + (s)->W + 1 + (s)->n + (t))
#define WS_LEN(s) (NTMP + 2 * ((s)->W + 1) + (s)->n)

/* A scratch for sums of up to n of the values v[0..N-1] (n <= N), at the
 * working precision: taken from the workspace pool when there is one (its
 * precision must be the working precision), else allocated. */
static int
exact_ws_new (exact_ws *s, num_srcptr v, size_t N, size_t n, rlref_ws *pool)
{
  s->W = FN (words_bound) (v, N);
  s->n = n;
  s->pool = pool;
  if (pool)
    {
      if (num_ws_prec (pool) != num_prec ())
        RLREF_ERROR ("the workspace's precision is not the working precision", RLREF_EINVAL);
      s->mark = rlref_ws_mark (pool);
      s->buf = num_ws_take (pool, WS_LEN (s));
    }
  else
    s->buf = num_vec_new (WS_LEN (s));
  if (!s->buf)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  return RLREF_SUCCESS;
}

static void
exact_ws_free (exact_ws *s)
{
  if (s->buf && s->pool)
    rlref_ws_release (s->pool, s->mark);
  else if (s->buf)
    num_vec_free (s->buf, WS_LEN (s));
  s->buf = NULL;
}

/* The words of S = sum of VAL (s, 0..m-1), exactly: w_0 = o(S) and
 * w_(t+1) = o(S - w_0 - ... - w_t), each one num_sum of the values and the
 * negated words before it, until the remainder is 0; then S = w_0 + ... +
 * w_(T-1) exactly (T = 0 when S = 0).  *T gets the number of words. */
static int
sum_words (size_t *T, exact_ws *s, size_t m)
{
  size_t t = 0;
  int status = RLREF_SUCCESS;
  while (t < s->W)
    {
      status = num_sum (WORD (s, t), AT (s->buf, NTMP + s->W + 1 - t), t + m);
      if (status || num_is_zero (WORD (s, t)))
        break;
      num_neg (WORD (s, t), WORD (s, t));
      t++;
    }
  *T = t;
  return status;
}

/* Centres the m > 0 values x_j = VAL (s, j) in place, d_j = x_j - S/m,
 * S = sum x_j = w_0 + ... + w_(T-1) exactly (sum_words).  The mean S/m is
 * taken as two words, mu_0 = o(w_0/m) and mu_1 = o(o(S - m mu_0)/m), with
 * S - m mu_0 one num_dot; then d_j = o(o(x_j - mu_0) - mu_1).  Where
 * x_j lies within a factor 2 of mu_0, x_j - mu_0 is exact (Sterbenz);
 * elsewhere |x_j - mu_0| >= |mu_0|/2 dwarfs |mu_1| <= ulp(mu_0).  As
 * mu_0 + mu_1 is S/m within 2^(1-p) |mu_1|, d_j is within about one unit
 * in its last place however the x_j cancel, when the x_j have fewer bits
 * than the working precision p (binary64 rewards in MPFR); in binary64,
 * within 2^-104 |S/m| besides.  S = 0 gives d_j = x_j.
 * *mean = o(mu_0 + mu_1) (mean may be NULL); *var (may be NULL) =
 * sum d_j^2 / (m - ddof), the sum rounded once, or 0 when m - ddof <= 0. */
static int
centre (num_ptr mean, num_ptr var, exact_ws *s, size_t m, int ddof)
{
  size_t T = 0;
  num_ptr mu0 = TMP (s, 0), mu1 = TMP (s, 1);
  int status = sum_words (&T, s, m);
  if (status)
    return status;
  num_set_zero (mu0);
  num_set_zero (mu1);
  if (T > 0)
    {
      num_neg (mu0, WORD (s, 0));
      num_div_si (mu0, mu0, (long) m);
      num_set (WORD (s, T), mu0);
      num_set_si (COEF (s, 0), -(long) m);
      for (size_t t = 1; t <= T; t++)
        num_set_si (COEF (s, t), -1);
      status = num_dot (mu1, WORD (s, T), COEF (s, 0), T + 1);
      if (status)
        return status;
      num_div_si (mu1, mu1, (long) m);
    }
  if (mean)
    num_add (mean, mu0, mu1);
  for (size_t j = 0; j < m && T > 0; j++)
    {
      num_sub (VAL (s, j), VAL (s, j), mu0);
      num_sub (VAL (s, j), VAL (s, j), mu1);
    }
  if (!var)
    return RLREF_SUCCESS;
  num_set_zero (var);
  if ((long) m - ddof > 0)
    {
      status = num_dot (var, VAL (s, 0), VAL (s, 0), m);
      num_div_si (var, var, (long) m - ddof);
    }
  return status;
}

/* The finite rewards of r[0..n-1] scaled by 2^k, into VAL (s, 0..m-1),
 * centred there (centre); *m is their number.  None gives mean and
 * variance 0; fewer than ddof + 1 give variance 0 (TRL's rule for a group
 * of one).  mean and var may be NULL. */
static int
scaled_stats (num_ptr mean, num_ptr var, size_t *m, exact_ws *s, num_srcptr r, size_t n,
              int ddof, long k)
{
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (num_is_finite (AT (r, i)))
      num_mul_2si (VAL (s, j++), AT (r, i), k);
  *m = j;
  if (j > 0)
    return centre (mean, var, s, j, ddof);
  if (mean)
    num_set_zero (mean);
  if (var)
    num_set_zero (var);
  return RLREF_SUCCESS;
}

/* The advantages of a group of G rewards r: adv_i = d_j / den for the
 * j-th finite r_i, d_j = VAL (s, j) its centred scaled reward
 * (scaled_stats); 0 for a non-finite r_i, and for all when zero. */
static void
write_adv (num_ptr adv, num_srcptr r, size_t G, int zero, exact_ws *s, num_srcptr den)
{
  size_t j = 0;
  for (size_t i = 0; i < G; i++)
    {
      int finite = num_is_finite (AT (r, i));
      if (zero || !finite)
        num_set_zero (AT (adv, i));
      else
        num_div (AT (adv, i), VAL (s, j), den);
      j += finite;
    }
}

/* One group under a std-scaling convention (13.23):
 *   A_i = (r_i - mean)/(std + eps)  or  (r_i - mean)/sqrt(var + eps),
 * with the convention's guard (std > 0, std > eps, or none) and its
 * group-of-one rule.  A NaN-skipping convention (TRL) leaves NaN rewards
 * out of mean and std and gives them 0, and gives the whole group 0 when
 * fewer than two rewards are scorable or one is infinite: TRL's
 * nan_to_num(nan=0) of the NaN its nanmean and nanstd give there.
 * Computed on the rewards scaled by 2^k, with exact sums (head of this
 * file). */
static int
group_std_adv (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c, exact_ws *s)
{
  num_t var, std, eps, den;
  size_t m = 0;
  long k;
  int status = RLREF_SUCCESS, zero = 0, pinf, ninf, w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1;
  NUM_INIT (var, std, eps, den);
  if (G == 1)
    {
      if (c->single == RLREF_SINGLE_REFUSE)
        FAIL ("this convention refuses a group of one", RLREF_EDOM);
      if (c->single == RLREF_SINGLE_RAW && num_is_finite (AT (r, 0)))
        {
          /* mean 0, std 1: A = (r - 0)/(1 + eps) */
          num_set_d (den, c->eps);
          num_add_d (den, den, 1.0);
          num_div (AT (adv, 0), AT (r, 0), den);
        }
      else
        num_set_zero (AT (adv, 0));
      goto done;
    }
  find_inf (&pinf, &ninf, r, G);
  k = scale_exponent (r, G, c->eps, w);
  TRY (scaled_stats (NULL, var, &m, s, r, G, c->ddof, k));
  num_sqrt (std, var);
  num_set_d (eps, c->eps);
  num_mul_2si (eps, eps, w * k);
  if (m == 0 || pinf || ninf || (c->nan == RLREF_NAN_SKIP && m < 2))
    zero = 1;
  else if (c->guard == RLREF_GUARD_POSITIVE)
    zero = num_sgn (std) <= 0;
  else if (c->guard == RLREF_GUARD_EPS)
    zero = num_cmp (std, eps) <= 0;
  if (c->eps_at == RLREF_EPS_IN_SQRT)
    {
      num_add (den, var, eps);
      num_sqrt (den, den);
    }
  else
    num_add (den, std, eps);
  if (num_is_zero (den))
    zero = 1;                   /* no eps and no spread: every r equals the mean */
  write_adv (adv, r, G, zero, s, den);
done:
  NUM_CLEAR (var, std, eps, den);
  return status;
}

/* Dr.GRPO (seeds 000 and 003): A_i = r_i - mean, computed on the rewards
 * scaled by 2^k with exact sums and scaled back; binary64 gives ERANGE
 * where r_i - mean exceeds DBL_MAX.  NaN rewards as in group_std_adv. */
static int
group_centred (num_ptr adv, num_srcptr r, size_t G, exact_ws *s)
{
  size_t m = 0, j = 0;
  long k;
  int status = RLREF_SUCCESS, pinf, ninf, zero;
  find_inf (&pinf, &ninf, r, G);
  k = scale_exponent (r, G, 0.0, 1);
  TRY (scaled_stats (NULL, NULL, &m, s, r, G, 0, k));
  zero = m == 0 || pinf || ninf;
  for (size_t i = 0; i < G; i++)
    {
      int finite = num_is_finite (AT (r, i));
      if (zero || !finite)
        num_set_zero (AT (adv, i));
      else
        {
          num_mul_2si (VAL (s, j), VAL (s, j), -k);
          if (!num_is_finite (VAL (s, j)))
            FAIL ("r - mean exceeds the largest double", RLREF_ERANGE);
          num_set (AT (adv, i), VAL (s, j));
        }
      j += finite;
    }
done:
  return status;
}

/* The binary32 advantages of a group, every operation rounded as the
 * library's float32 tensors round it:
 *   A_i = f32(f32(f32(r_i) - mean) / d),  d = f32(std + e);
 * std becomes d, t is scratch.  Where A_i is not finite: with nan_to_num
 * (TRL), NaN -> 0 and +-inf -> +-FLT_MAX; without (verl), ERANGE, and the
 * advantages from A_i on are not written. */
static int
f32_advantages (num_ptr adv, num_srcptr r, size_t G, num_srcptr mean, num_ptr std,
                num_srcptr e, int nan_to_num, num_ptr t)
{
  num_add (std, std, e);
  num_round_f32 (std, std);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      num_sub (t, t, mean);
      num_round_f32 (t, t);
      num_div (t, t, std);
      num_round_f32 (t, t);
      if (!nan_to_num && !num_is_finite (t))
        RLREF_ERROR ("binary32 overflow in the one-pass variance", RLREF_ERANGE);
      if (num_is_nan (t))
        num_set_zero (t);
      else if (num_is_inf (t))
        num_set_d (t, num_sgn (t) > 0 ? FLT_MAX : -FLT_MAX);
      num_set (AT (adv, i), t);
    }
  return RLREF_SUCCESS;
}

/* The group statistics of verl's opt-in vectorised estimator
 * (grpo_vectorized, September 2025 to May 2026; group_mean_std of
 * verl/utils/groupwise.py), every operation rounded to binary32 and every
 * sum taken in index order, whatever the scores' dtype (group_mean_std
 * converts them to float32):
 *   x = f32(r),  n = sum 1,  s1 = sum x,  s2 = sum x*x,
 *   mean = s1/n,  var = (s2 - s1*s1/n)/(n - 1),  std = sqrt(max(var, e)),
 *   a group of one (n <= 1): mean 0, std 1;  e = f32(eps) = f32(1e-6).
 * mean and std (both binary32 values) are written; n, s1, s2, t are
 * scratch.  ERANGE where the binary32 variance is NaN (an overflow). */
static int
f32_onepass_stats (num_ptr mean, num_ptr std, num_srcptr r, size_t G, num_srcptr e, num_ptr n,
                   num_ptr s1, num_ptr s2, num_ptr t)
{
  num_set_zero (n);
  num_set_zero (s1);
  num_set_zero (s2);
  num_set_zero (mean);
  for (size_t i = 0; i < G; i++)
    {
      num_add_d (n, n, 1.0);
      num_round_f32 (n, n);
      num_round_f32 (t, AT (r, i));
      num_add (s1, s1, t);
      num_round_f32 (s1, s1);
      num_sqr (t, t);
      num_round_f32 (t, t);
      num_add (s2, s2, t);
      num_round_f32 (s2, s2);
    }
  if (num_cmp_d (n, 1.0) <= 0)
    {
      num_set_d (std, 1.0);       /* and mean 0 */
      return RLREF_SUCCESS;
    }
  num_div (mean, s1, n);
  num_round_f32 (mean, mean);
  num_sqr (t, s1);
  num_round_f32 (t, t);
  num_div (t, t, n);
  num_round_f32 (t, t);
  num_sub (t, s2, t);
  num_round_f32 (t, t);
  num_sub_d (std, n, 1.0);
  num_round_f32 (std, std);
  num_div (t, t, std);
  num_round_f32 (t, t);
  if (num_is_nan (t))
    RLREF_ERROR ("binary32 overflow in the one-pass variance (NaN)", RLREF_ERANGE);
  num_max (t, t, e);
  num_sqrt (std, t);
  num_round_f32 (std, std);
  return RLREF_SUCCESS;
}

/* verl's opt-in vectorised estimator on float32 scores (the trainer's):
 * the statistics of f32_onepass_stats, then
 *   A = f32(f32(x - mean)/f32(std + e)),  x = f32(r).
 * Where verl's binary32 overflows to inf or NaN, ERANGE. */
static int
group_f32_onepass (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t n, s1, s2, t, mean, std, e;
  int status = RLREF_SUCCESS;
  NUM_INIT (n, s1, s2, t, mean, std, e);
  num_set_d (e, c->eps);
  num_round_f32 (e, e);
  TRY (f32_onepass_stats (mean, std, r, G, e, n, s1, s2, t));
  TRY (f32_advantages (adv, r, G, mean, std, e, 0, t));
done:
  NUM_CLEAR (n, s1, s2, t, mean, std, e);
  return status;
}

/* The same estimator on float64 scores (verl-vectorized-old-float64):
 * group_mean_std still computes the mean and std in binary32
 * (f32_onepass_stats), but scores - mean_g[g] and the quotient by the
 * binary32 std_g[g] + epsilon are float64 tensor operations:
 *   A = (r - mean)/d,  d = f32(std + e),
 * r itself unrounded, the difference and the quotient in the working
 * precision (binary64 here, as verl).  Equal rewards 0.1, 0.1, 0.1 give
 * (0.1 - f32 mean)/d = -1.49e-6, not 0.  Where the binary32 statistics
 * overflow (a reward beyond the binary32 range, or s2 = inf), ERANGE. */
static int
group_f32_stats (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t n, s1, s2, t, mean, std, e;
  int status = RLREF_SUCCESS;
  NUM_INIT (n, s1, s2, t, mean, std, e);
  num_set_d (e, c->eps);
  num_round_f32 (e, e);
  TRY (f32_onepass_stats (mean, std, r, G, e, n, s1, s2, t));
  num_add (std, std, e);
  num_round_f32 (std, std);
  if (!num_is_finite (mean) || !num_is_finite (std))
    FAIL ("binary32 overflow in the one-pass mean or variance", RLREF_ERANGE);
  /* every statistic is read: adv may be r */
  for (size_t i = 0; i < G; i++)
    {
      num_sub (t, AT (r, i), mean);
      num_div (AT (adv, i), t, std);
      if (!num_is_finite (AT (adv, i)))
        FAIL ("the advantage overflows", RLREF_ERANGE);
    }
done:
  NUM_CLEAR (n, s1, s2, t, mean, std, e);
  return status;
}

/* TRL's group mode as TRL computes it on float32 rewards (trl-float32;
 * grpo_trainer.py _generate_and_score_completions, utils.py nanstd), every
 * operation rounded to binary32 and every sum taken in index order:
 *   x = f32(r); over the n non-NaN x of the group:
 *   mean = nansum(x)/n;  d = x - mean;
 *   var = nansum(d*d)/m * f32(n/(n - 1))  (m the non-NaN d*d; NaN if n <= 1);
 *   a group of one has std 0;
 *   A = d/(sqrt(var) + e),  e = f32(eps) = f32(1e-4);
 * then nan_to_num(nan=0): NaN -> 0, +-inf -> +-FLT_MAX.  NaN and inf
 * propagate as in IEEE binary32, in both backends. */
static int
group_f32_trl (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t n, m, s, t, mean, std, e;
  int status;
  NUM_INIT (n, m, s, t, mean, std, e);
  num_set_d (e, c->eps);
  num_round_f32 (e, e);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      if (num_is_nan (t))
        continue;
      num_add_d (n, n, 1.0);
      num_round_f32 (n, n);
      num_add (s, s, t);
      num_round_f32 (s, s);
    }
  if (num_is_zero (n))
    num_set_nan (mean);
  else
    {
      num_div (mean, s, n);
      num_round_f32 (mean, mean);
    }
  if (G > 1)
    {
      num_set_zero (s);
      for (size_t i = 0; i < G; i++)
        {
          num_round_f32 (t, AT (r, i));
          num_sub (t, t, mean);
          num_round_f32 (t, t);
          num_sqr (t, t);
          num_round_f32 (t, t);
          if (num_is_nan (t))
            continue;
          num_add_d (m, m, 1.0);
          num_round_f32 (m, m);
          num_add (s, s, t);
          num_round_f32 (s, s);
        }
      if (num_is_zero (m) || num_cmp_d (n, 1.0) <= 0)
        num_set_nan (std);
      else
        {
          num_div (std, s, m);
          num_round_f32 (std, std);
          num_sub_d (t, n, 1.0);
          num_round_f32 (t, t);
          num_div (t, n, t);
          num_round_f32 (t, t);
          num_mul (std, std, t);
          num_round_f32 (std, std);
          num_sqrt (std, std);
          num_round_f32 (std, std);
        }
    }
  status = f32_advantages (adv, r, G, mean, std, e, 1, t);
  NUM_CLEAR (n, m, s, t, mean, std, e);
  return status;
}

/* TRL scale_rewards="batch": A_i = (r_i - mean of r_i's group)/(std of the
 * whole batch + eps), ddof of c, both with exact sums.  NaN rewards as
 * TRL: left out of both means and the std, advantage 0.  A batch of one
 * (TRL's std 0), or fewer than two scorable rewards (nanstd NaN), gives 0.
 * An infinite reward gives its group 0 and makes the batch std +inf, so
 * the finite groups get (r - mean)/inf = +-0, or NaN (both infinities, or
 * no finite reward), so every advantage is 0. */
static int
batch_std_adv (num_ptr adv, num_srcptr r, size_t N, size_t G, const rlref_adv_convention *c,
               exact_ws *s)
{
  num_t var, eps, den;
  size_t m = 0, mg;
  long k;
  int status = RLREF_SUCCESS, zero = 0, pinf, ninf, gz;
  NUM_INIT (var, eps, den);
  find_inf (&pinf, &ninf, r, N);
  k = scale_exponent (r, N, c->eps, 1);
  TRY (scaled_stats (NULL, var, &m, s, r, N, c->ddof, k));
  if (N == 1)
    zero = 1;
  else if (pinf || ninf)
    {
      if ((pinf && ninf) || m == 0)
        zero = 1;               /* the batch mean is NaN, or every deviation */
      else
        num_set_inf (den, 1);
    }
  else if (m < 2)
    zero = 1;
  else
    {
      num_set_d (eps, c->eps);
      num_mul_2si (eps, eps, k);
      num_sqrt (den, var);
      num_add (den, den, eps);
      zero = num_is_zero (den);
    }
  for (size_t g = 0; g < N; g += G)
    {
      find_inf (&pinf, &ninf, AT (r, g), G);
      TRY (scaled_stats (NULL, NULL, &mg, s, AT (r, g), G, 0, k));
      gz = zero || mg == 0 || pinf || ninf;
      write_adv (AT (adv, g), AT (r, g), G, gz, s, den);
    }
done:
  NUM_CLEAR (var, eps, den);
  return status;
}

/* GRPO-ADV (13.23) for N/G contiguous groups under convention c.  Every
 * group's statistics are taken before its advantages are written, so adv
 * may be rewards. */
int
FN (grpo_adv) (num_ptr adv, num_srcptr rewards, size_t N, size_t G,
               const rlref_adv_convention *c)
{
  return FN (grpo_adv_ws) (adv, rewards, N, G, c, NULL);
}

/* The same with the scratch of the exact sums taken from the workspace ws
 * (rlref/workspace.h) when ws is not NULL: called again with rewards of the
 * same sizes and spread, binary64 allocates nothing. */
int
FN (grpo_adv_ws) (num_ptr adv, num_srcptr rewards, size_t N, size_t G,
                  const rlref_adv_convention *c, rlref_ws *ws)
{
  exact_ws s = { NULL, 0, 0, NULL, 0 };
  int status = RLREF_SUCCESS;
  if (!adv || !rewards || !c || N == 0 || G == 0)
    FAIL ("empty rewards, zero group size or NULL argument", RLREF_EINVAL);
  if (N % G != 0)
    FAIL ("number of rewards is not a multiple of the group size", RLREF_EINVAL);
  if (c->nan != RLREF_NAN_SKIP)
    for (size_t i = 0; i < N; i++)
      if (!num_is_finite (AT (rewards, i)))
        FAIL ("non-finite reward", RLREF_ENAN);
  if (c->scale != RLREF_SCALE_F32_ONEPASS && c->scale != RLREF_SCALE_F32_TRL
      && c->scale != RLREF_SCALE_F32_STATS)
    TRY (exact_ws_new (&s, rewards, N, c->scale == RLREF_SCALE_BATCH_STD ? N : G, ws));
  if (c->scale == RLREF_SCALE_BATCH_STD)
    {
      status = batch_std_adv (adv, rewards, N, G, c, &s);
      goto done;
    }
  for (size_t g = 0; g < N && status == RLREF_SUCCESS; g += G)
    switch (c->scale)
      {
      case RLREF_SCALE_GROUP_STD:
        status = group_std_adv (AT (adv, g), AT (rewards, g), G, c, &s);
        break;
      case RLREF_SCALE_NONE:
        status = group_centred (AT (adv, g), AT (rewards, g), G, &s);
        break;
      case RLREF_SCALE_F32_ONEPASS:
        status = group_f32_onepass (AT (adv, g), AT (rewards, g), G, c);
        break;
      case RLREF_SCALE_F32_TRL:
        status = group_f32_trl (AT (adv, g), AT (rewards, g), G, c);
        break;
      case RLREF_SCALE_F32_STATS:
        status = group_f32_stats (AT (adv, g), AT (rewards, g), G, c);
        break;
      default:
        FAIL ("unknown scaling", RLREF_EINVAL);
      }
done:
  exact_ws_free (&s);
  return status;
}

/* Mean and std (ddof of c) of one group of G finite rewards, computed on
 * the rewards scaled by 2^k with exact sums (head of this file) and scaled
 * back.  Fewer than ddof + 1 rewards give std 0. */
int
FN (grpo_group_stats) (num_ptr mean, num_ptr std, num_srcptr rewards, size_t G,
                       const rlref_adv_convention *c)
{
  num_t mu, var;
  exact_ws s = { NULL, 0, 0, NULL, 0 };
  size_t m;
  long k;
  int status = RLREF_SUCCESS;
  NUM_INIT (mu, var);
  if (!mean || !std || !rewards || !c || G == 0)
    FAIL ("empty group or NULL argument", RLREF_EINVAL);
  for (size_t i = 0; i < G; i++)
    if (!num_is_finite (AT (rewards, i)))
      FAIL ("non-finite reward", RLREF_ENAN);
  TRY (exact_ws_new (&s, rewards, G, G, NULL));
  k = scale_exponent (rewards, G, 0.0, 1);
  TRY (scaled_stats (mu, var, &m, &s, rewards, G, c->ddof, k));
  num_sqrt (var, var);
  num_mul_2si (mu, mu, -k);
  num_mul_2si (var, var, -k);
  if (!num_is_finite (var))
    FAIL ("the standard deviation exceeds the largest double", RLREF_ERANGE);
  num_set (mean, mu);
  num_set (std, var);
done:
  exact_ws_free (&s);
  NUM_CLEAR (mu, var);
  return status;
}
