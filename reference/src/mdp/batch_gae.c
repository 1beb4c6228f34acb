/* batch_gae.c -- binary64 batch kernel of generalised advantage estimation
 * (MDP-GAE; seed 000 (13.11), seed 003) over B rows of W positions in the
 * conventions of rlref_mdp_gae_d (src/mdp/mdp_gae.c), held to it
 * within the bound of rlref/batch.h.
 *
 * The reference adds each step's eight terms exactly and rounds once, the
 * running advantage carried as hi + lo.  Here the same terms (the products
 * gamma V_next and (gamma lambda) hi split exactly by fma, the two small
 * cross products rounded) are added by error-free transformations (TwoSum)
 * with their errors summed in binary64 (Ogita, Rump and Oishi's Sum2):
 * the pair hi + lo then holds the exact sum within about 8u^2 of the sum
 * of the magnitudes of its terms, and hi is its rounding unless the exact
 * sum lies that close to the midpoint of two doubles.  One pass checks the
 * inputs and the masks; nothing is allocated. */
#include <math.h>
#include <stddef.h>
#include "rlref/batch.h"
#include "num_eft.h"

/* (13.11) one step, A = r + gamma v_next - v + (ch + cl)(ah + al), into
 * (ah, al): the eight terms added by TwoSum, their errors summed. */
static inline void
gae_step (double *ah, double *al, double r, double gamma, double v_next, double v, double ch,
          double cl)
{
  double t[7], s = r, e = 0.0, err;
  eft_two_prod_d (gamma, v_next, &t[0], &t[1]);
  t[2] = -v;
  eft_two_prod_d (ch, *ah, &t[3], &t[4]);
  t[5] = ch * *al;
  t[6] = cl * *ah;
  for (int j = 0; j < 7; j++)
    {
      eft_two_sum_d (s, t[j], &s, &err);
      e += err;
    }
  if (!isfinite (s))
    {
      *ah = s;
      *al = 0.0;
      return;
    }
  eft_two_sum_d (s, e, ah, al);
}

/* o(ah + al + v): TwoSum of ah and v, the small parts added. */
static inline double
sum3 (double ah, double al, double v)
{
  double s, e;
  if (!isfinite (ah))
    return ah + v;
  eft_two_sum_d (ah, v, &s, &e);
  return s + (e + al);
}

/* The reference's checks in its order (EINVAL, ENAN, EDOM), and each
 * row's mask: at least one 1, and for SEED and TRL ones then zeros. */
static int
check_inputs (const double *rewards, const double *values, const unsigned char *mask,
              const double *score, size_t B, size_t W, double gamma, double lambda,
              rlref_gae_rule c)
{
  size_t N = B * W;
  if (!rewards || !values || !mask || B == 0 || W == 0 || N / W != B)
    RLREF_ERROR ("empty or mismatched GAE inputs", RLREF_EINVAL);
  for (size_t i = 0; i < N; i++)
    {
      if (!isfinite (rewards[i]) || !isfinite (values[i]))
        RLREF_ERROR ("non-finite reward or value", RLREF_ENAN);
      if (mask[i] > 1)
        RLREF_ERROR ("the mask holds 0 and 1 only", RLREF_EDOM);
    }
  for (size_t b = 0; score && b < B; b++)
    if (!isfinite (score[b]))
      RLREF_ERROR ("non-finite score", RLREF_ENAN);
  if (!isfinite (gamma) || !isfinite (lambda))
    RLREF_ERROR ("non-finite gamma or lambda", RLREF_ENAN);
  if (!(gamma >= 0.0 && gamma <= 1.0 && lambda >= 0.0 && lambda <= 1.0))
    RLREF_ERROR ("gamma and lambda must lie in [0, 1]", RLREF_EDOM);
  if (c != RLREF_GAE_SEED && c != RLREF_GAE_TRL && c != RLREF_GAE_VERL
      && c != RLREF_GAE_OPENRLHF)
    RLREF_ERROR ("unknown GAE convention", RLREF_EINVAL);
  for (size_t b = 0; b < B; b++)
    {
      const unsigned char *m = mask + b * W;
      size_t n = 0, ones = 0;
      for (size_t t = 0; t < W; t++)
        ones += m[t];
      while (n < W && m[n])
        n++;
      if (ones == 0)
        RLREF_ERROR ("a row without response tokens (mask all 0)", RLREF_EINVAL);
      if (c == RLREF_GAE_SEED && n != ones)
        RLREF_ERROR ("this convention takes a mask of ones then zeros in each row",
                     RLREF_EINVAL);
    }
  return RLREF_SUCCESS;
}

/* (000 13.11)  delta_t = r_t + gamma V_{t+1} - V_t,
 * A_t = delta_t + gamma lambda A_{t+1}, per row as rlref_mdp_gae_d:
 *   SEED      the response is the mask's prefix of n ones; the score at
 *             its last token; V after it 0; 0 at padding;
 *   TRL       the response ends at the first 0 (n); every reward read,
 *             values at t > n are 0, the score at n if n < W, else n - 1;
 *             the recursion over all W positions;
 *   VERL      the score at the last 1 of the mask; at a 0 the advantage
 *             and the next value are carried from t + 1;
 *   OPENRLHF  the score clamped to [-10, 10] at the last 1; r and V
 *             multiplied by the mask.
 * ret = A + V (the values the convention uses). */
int
rlref_gae_batch (double *restrict adv, double *restrict ret, const double *restrict rewards,
                 const double *restrict values, const unsigned char *restrict mask,
                 const double *restrict score, size_t B, size_t W, double gamma, double lambda,
                 rlref_gae_rule c)
{
  double ch, cl;
  int status = check_inputs (rewards, values, mask, score, B, W, gamma, lambda, c);
  if (status)
    return status;
  if (!adv || !ret)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  eft_two_prod_d (gamma, lambda, &ch, &cl);
  for (size_t b = 0; b < B; b++)
    {
      const unsigned char *m = mask + b * W;
      const double *rw = rewards + b * W, *vw = values + b * W;
      double *a = adv + b * W, *rt = ret + b * W, ah = 0.0, al = 0.0, vn = 0.0;
      size_t n = 0, last = 0, at;
      for (size_t t = 0; t < W; t++)
        last = m[t] ? t : last;
      while (n < W && m[n])
        n++;
      at = c == RLREF_GAE_TRL ? (n < W ? n : n - 1) : last;
      for (size_t t = W; t-- > 0;)
        {
          int keep_r = c == RLREF_GAE_VERL || c == RLREF_GAE_TRL || m[t];
          int keep_v = c == RLREF_GAE_VERL || (c == RLREF_GAE_TRL ? t <= n : m[t]);
          double r = keep_r ? rw[t] : 0.0, v = keep_v ? vw[t] : 0.0;
          if (score && t == at)
            {
              double sb = score[b];
              if (c == RLREF_GAE_OPENRLHF)
                sb = sb > RLREF_GAE_SCORE_CLAMP ? RLREF_GAE_SCORE_CLAMP
                  : sb < -RLREF_GAE_SCORE_CLAMP ? -RLREF_GAE_SCORE_CLAMP : sb;
              r = r + sb;
            }
          if (c == RLREF_GAE_SEED && t >= n)
            {
              a[t] = 0.0;
              rt[t] = 0.0;
              continue;
            }
          if (!(c == RLREF_GAE_VERL && !m[t]))
            {
              if (c != RLREF_GAE_VERL && c != RLREF_GAE_SEED)
                {
                  int keep_n = t + 1 < W
                    && (c == RLREF_GAE_TRL ? t + 1 <= n : m[t + 1]);
                  vn = keep_n ? vw[t + 1] : 0.0;
                }
              gae_step (&ah, &al, r, gamma, vn, v, ch, cl);
              if (c == RLREF_GAE_VERL || c == RLREF_GAE_SEED)
                vn = v;
            }
          a[t] = ah;
          rt[t] = sum3 (ah, al, v);
        }
    }
  return RLREF_SUCCESS;
}
