/* dapo_dynsample.c -- dynamic sampling of DAPO (DAPO-DYNSAMPLE, seed 000
 * 13.30): the rules by which verl, OpenRLHF and the seed keep a group,
 * decided exactly, and the refill accounting (the expected number of
 * groups, and of rounds, drawn until B groups are kept); written once for
 * both backends. */
#include <math.h>
#include "rlref/num.h"
#include "rlref/dapo.h"
#include "flow.h"
#include "num_eft.h"

/* Keep rules (13.30: 0 < |{o_i : is_correct(o_i)}| < G):
 *   std    the population std of the group > 0, or G = 1 (verl: np.std > 0
 *          or one sample), i.e. not every reward equal;
 *   mean   0 < mean < 1, strict (OpenRLHF dynamic_filtering_reward_range
 *          (0, 1)), decided by the signs of the exact sums sum r and
 *          sum r - G;
 *   count  0 < #{r_i > 0} < G, a correct answer being a positive reward.
 * The mean and std reported are rlref_grpo_group_stats's, ddof 0. */
int
FN (dapo_keep) (num_ptr keep, num_ptr mean, num_ptr std, size_t *kept, num_srcptr rewards,
                size_t n, long G, enum rlref_dapo_keep rule)
{
  num_ptr w = NULL;
  num_t mu, sd, s;
  const rlref_adv_convention *pop = rlref_adv_convention_find ("seed-000");
  size_t nk = 0, g;
  int status;
  if (!keep)
    RLREF_ERROR ("dapo_keep: keep missing", RLREF_EINVAL);
  if (rule != RLREF_DAPO_KEEP_STD && rule != RLREF_DAPO_KEEP_MEAN && rule != RLREF_DAPO_KEEP_COUNT)
    RLREF_ERROR ("dapo_keep: unknown rule", RLREF_EINVAL);
  if (!rewards || n == 0)
    RLREF_ERROR ("rewards: at least one", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (rewards, i)))
      RLREF_ERROR ("rewards must be finite", RLREF_ENAN);
  if (G < 1)
    RLREF_ERROR ("the group size must be >= 1", RLREF_EDOM);
  if (n % (size_t) G)
    RLREF_ERROR ("the rewards do not make whole groups", RLREF_EINVAL);
  if (!pop)
    RLREF_ERROR ("dapo_keep: no ddof-0 convention", RLREF_EINVAL);
  g = (size_t) G;
  num_init (mu);
  num_init (sd);
  num_init (s);
  w = num_vec_new (g + 1);
  if (!w)
    FAIL ("dapo_keep: out of memory", RLREF_ENOMEM);
  for (size_t b = 0; b < n; b += g)
    {
      int k = 0;
      size_t pos = 0;
      TRY (FN (grpo_group_stats) (mu, sd, AT (rewards, b), g, pop));
      switch (rule)
        {
        case RLREF_DAPO_KEEP_STD:
          k = g == 1;
          for (size_t i = 1; i < g; i++)
            k |= num_cmp (AT (rewards, b + i), AT (rewards, b)) != 0;
          break;
        case RLREF_DAPO_KEEP_MEAN:
          for (size_t i = 0; i < g; i++)
            num_set (AT (w, i), AT (rewards, b + i));
          num_set_si (AT (w, g), -G);
          TRY (num_sum (s, w, g));                       /* sum r */
          k = num_sgn (s) > 0;
          TRY (num_sum (s, w, g + 1));                   /* sum r - G */
          k = k && num_sgn (s) < 0;
          break;
        case RLREF_DAPO_KEEP_COUNT:
          for (size_t i = 0; i < g; i++)
            pos += num_sgn (AT (rewards, b + i)) > 0;
          k = pos > 0 && pos < g;
          break;
        }
      /* the group has been read: its outputs may now be written */
      for (size_t i = 0; i < g; i++)
        {
          num_set_si (AT (keep, b + i), k);
          if (mean)
            num_set (AT (mean, b + i), mu);
          if (std)
            num_set (AT (std, b + i), sd);
        }
      nk += (size_t) k;
    }
  if (kept)
    *kept = nk;
done:
  num_vec_free (w, g + 1);
  num_clear (mu);
  num_clear (sd);
  num_clear (s);
  return status;
}

/* A positive number m 2^e kept with 1/2 <= m < 1 and e a long: the
 * binomial terms below run far under the binary64 range. */
static void
renorm (num_ptr m, long *e)
{
  long k = num_get_exp (m);
  if (!num_is_zero (m))
    {
      num_mul_2si (m, m, -k);
      *e += k;
    }
}

/* m 2^e = e^(n ld) = d^n for ld = log d: e the integer nearest
 * n ld / log 2, m = e^(n ld - e log 2) renormalised.  From the logarithm,
 * not by powering the rounded d: d = 1 - 16 2^-19 rounded moves d^16384 by
 * 16384 ulps, its logarithm formed apart by less than one. */
static void
pow_from_log (num_ptr m, long *e, num_srcptr ld, long n, num_ptr t)
{
  double k;
  num_mul_si (t, ld, n);
  num_set_si (m, 2);
  num_log (m, m);
  k = nearbyint (num_get_d (t) / num_get_d (m));
  *e = (long) k;
  num_mul_d (m, m, -k);
  num_add (m, m, t);                            /* n ld - e log 2 */
  num_exp (m, m);
  renorm (m, e);
}

/* t 2^et += u 2^eu (both renormalised), on the scale of the larger; a
 * part below 2^-(p + 64) of the other is dropped. */
static void
add_scaled (num_ptr t, long *et, num_srcptr u, long eu, num_ptr w, long prec)
{
  if (num_is_zero (u) || eu - *et < -(prec + 64))
    return;
  if (num_is_zero (t) || *et - eu < -(prec + 64))
    {
      num_set (t, u);
      *et = eu;
      return;
    }
  if (eu <= *et)
    {
      num_mul_2si (w, u, eu - *et);
      num_add (t, t, w);
    }
  else
    {
      num_mul_2si (t, t, *et - eu);
      num_add (t, t, u);
      *et = eu;
    }
  renorm (t, et);
}

/* Refill accounting (13.30 with resampling until B groups are kept).  A
 * group of G binary rewards of success rate p is kept with probability
 *   q = 1 - p^G - (1 - p)^G = -expm1(G log1p(-a)) - a^G,  a = min(p, 1 - p),
 * (no cancellation; 1 - p is exact for p >= 1/2) and dropped with d =
 * a^G + (1 - a)^G.  Prompt by prompt the groups drawn until B are kept
 * are negative binomial, E = B/q.  In rounds of M, R = min{r : Bin(rM, q)
 * >= B} and
 *   E[R] = sum_{r >= 0} P(R > r) = sum_{r >= 0} P(Bin(rM, q) <= B - 1),
 * each term sum_{j < B} C(n, j) q^j d^(n - j) from d^n by the ratios
 * (n - j)/(j + 1) q/d, scaled by powers of two.  For n = rM >= B - 1 the
 * ratio of any later term to the one before is at most rho = (1 + M/(n -
 * B + 2))^(B - 1) d^M, which decreases in n: the sum stops when rho < 1
 * and the rest, at most t rho/(1 - rho), is below 2^-(p + 8) of it. */
int
FN (dapo_refill) (num_ptr keep_prob, num_ptr expected_rounds, num_ptr expected_groups,
                  num_srcptr p, long G, long B, long M, enum rlref_dapo_refill kind,
                  int g1_always)
{
  num_ptr w3;
  num_t a, q, d, ld, l, t, m, term, sum, cs, tot, rho, x;
  long work = 0, prec = num_prec ();
  int status = RLREF_SUCCESS;
  if (!keep_prob || !expected_groups)
    RLREF_ERROR ("dapo_refill: an output is missing", RLREF_EINVAL);
  if (kind != RLREF_DAPO_REFILL_BATCH && kind != RLREF_DAPO_REFILL_PROMPT)
    RLREF_ERROR ("dapo_refill: unknown kind", RLREF_EINVAL);
  if (!p)
    RLREF_ERROR ("dapo_refill: p missing", RLREF_EINVAL);
  CHECK_FINITE (p);
  if (num_sgn (p) < 0 || num_cmp_d (p, 1.0) > 0)
    RLREF_ERROR ("p must be a probability, 0 to 1", RLREF_EDOM);
  if (G < 1)
    RLREF_ERROR ("the group size must be >= 1", RLREF_EDOM);
  if (B < 1 || B > RLREF_DAPO_MAX_B)
    RLREF_ERROR ("B must be 1 to 10000 groups", RLREF_EDOM);
  if (kind == RLREF_DAPO_REFILL_BATCH && (M < 1 || M > RLREF_DAPO_MAX_M))
    RLREF_ERROR ("M must be 1 to 1e6 prompts a round", RLREF_EDOM);
  num_init_prec (a, prec + 32); num_init_prec (q, prec + 32); num_init_prec (d, prec + 32);
  num_init_prec (ld, prec + 32); num_init_prec (cs, prec + 32);
  num_init_prec (l, prec + 32); num_init_prec (t, prec + 32); num_init_prec (m, prec + 32);
  num_init_prec (term, prec + 32); num_init_prec (sum, prec + 32);
  num_init_prec (tot, prec + 32); num_init_prec (rho, prec + 32); num_init_prec (x, prec + 32);
  w3 = num_vec_new_prec (3, prec + 32);
  if (!w3)
    FAIL ("dapo_refill: out of memory", RLREF_ENOMEM);
  if (G == 1 && g1_always)
    {
      num_set_si (q, 1);
      num_set_zero (d);
    }
  else
    {
      if (num_cmp_d (p, 0.5) <= 0)
        num_set (a, p);
      else
        num_d_sub (a, 1.0, p);
      if (num_is_zero (a) || G == 1)
        FAIL ("no group is ever kept (p = 0 or 1, or a group of one): the refill never ends",
              RLREF_EDOM);
      num_neg (l, a);
      num_log1p (l, l);
      num_mul_si (l, l, G);                             /* G log(1 - a) */
      num_log (t, a);
      num_mul_si (t, t, G);
      num_exp (t, t);                                   /* a^G */
      num_expm1 (q, l);
      num_neg (q, q);
      num_sub (q, q, t);                                /* 1 - (1 - a)^G - a^G */
      num_exp (d, l);
      num_add (d, d, t);                                /* (1 - a)^G + a^G */
      /* log d = G log(1 - a) + log1p((a/(1 - a))^G), not log of d rounded */
      num_d_sub (ld, 1.0, a);
      num_div (ld, a, ld);
      num_log (ld, ld);
      num_mul_si (ld, ld, G);
      num_exp (ld, ld);
      num_log1p (ld, ld);
      num_add (ld, ld, l);
    }
  if (kind == RLREF_DAPO_REFILL_PROMPT)
    {
      num_set_si (tot, B);
      num_div (tot, tot, q);
    }
  else
    {
      if (!num_is_zero (d))
        num_mul_si (l, ld, M);                          /* M log d, for rho */
      /* about (B + p)/(M q) rounds of B terms each: refuse beforehand what
       * the work limit would stop */
      num_set_si (x, B + prec);
      num_mul_si (x, x, B);
      num_div_si (x, x, M);
      num_div (x, x, q);
      if (num_cmp_d (x, (double) RLREF_DAPO_MAX_WORK) > 0)
        FAIL ("dapo_refill: q is too small for the rounds to be summed within the work limit",
              RLREF_EMAXITER);
      num_set_si (sum, 1);                              /* r = 0: P(R > 0) = 1 */
      for (long r = 1;; r++)
        {
          long n = r * M, e = 0, et = 0;
          if (num_is_zero (d))
            {                                           /* every group kept: Bin(n, 1) = n */
              if (n >= B)
                break;
              num_set_si (t, 1);
              num_comp_add (sum, cs, t, w3);
              continue;
            }
          if (n <= B - 1)
            {                                           /* fewer than B drawn: P = 1 */
              num_set_si (t, 1);
              num_comp_add (sum, cs, t, w3);
              continue;
            }
          /* t = sum_{j < B} C(n, j) q^j d^(n - j), scaled */
          pow_from_log (term, &e, ld, n, x);
          num_set (t, term);
          et = e;
          num_div (x, q, d);
          for (long j = 0; j < B - 1; j++)
            {
              num_mul_si (term, term, n - j);
              num_div_si (term, term, j + 1);
              num_mul (term, term, x);
              renorm (term, &e);
              add_scaled (t, &et, term, e, m, prec);
            }
          /* a term below 2^-(p + 64) is lost in sum >= 1, whose rest it
           * cannot move: at most 2e7 of them */
          if (et > -(prec + 64))
            num_mul_2si (t, t, et);
          else
            num_set_zero (t);
          num_comp_add (sum, cs, t, w3);
          work += B;
          /* rho = (1 + M/(n - B + 2))^(B - 1) d^M */
          num_set_si (rho, M);
          num_div_si (rho, rho, n - B + 2);
          num_log1p (rho, rho);
          num_mul_si (rho, rho, B - 1);
          num_add (rho, rho, l);                        /* + M log d */
          num_exp (rho, rho);
          if (num_cmp_d (rho, 1.0) < 0)
            {
              num_d_sub (x, 1.0, rho);
              num_div (x, rho, x);
              num_mul (x, x, t);                        /* the rest is at most this */
              num_mul_2si (m, sum, -(prec + 8));
              if (num_cmp (x, m) < 0)
                break;
            }
          if (work > RLREF_DAPO_MAX_WORK)
            FAIL ("dapo_refill: the rounds do not converge within the work limit",
                  RLREF_EMAXITER);
        }
      num_add (sum, sum, cs);
      num_mul_si (tot, sum, M);
    }
  num_set (keep_prob, q);
  if (expected_rounds && kind == RLREF_DAPO_REFILL_BATCH)
    num_set (expected_rounds, sum);
  num_set (expected_groups, tot);
done:
  num_clear (a); num_clear (q); num_clear (d); num_clear (ld); num_clear (cs);
  num_vec_free (w3, 3); num_clear (l); num_clear (t); num_clear (m);
  num_clear (term); num_clear (sum); num_clear (tot); num_clear (rho); num_clear (x);
  return status;
}
