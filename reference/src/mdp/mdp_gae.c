/* mdp_gae.c -- generalised advantage estimation (MDP-GAE, seed 000
 * (13.11), seed 003) in the conventions of the libraries (CONVENTIONS.md
 * "GAE, whitening, value loss"), written once for both backends.  The
 * outputs are the advantages and returns as each library has them right
 * after its recursion, before any whitening (PPO-WHITEN). */
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

#ifndef RLREF_MP
/* The conventions are data, not a formula: defined once, in the binary64
 * object. */
const rlref_gae_convention rlref_gae_conventions[] = {
  { "seed-000",
    "13.11 on each response (the mask's leading ones): the score added at its last token, "
    "V after the last token 0, A_t = delta_t + gamma lambda A_{t+1}; 0 at padding; "
    "gamma 1 (000 §1.1), lambda 0.95 (003)",
    "seed 000 (13.11); seed 003 (GAE, lambda = 0.95)", RLREF_GAE_SEED, 1.0, 0.95 },
  { "trl",
    "the response ends at the first 0 of the mask, position n (TRL's sequence_length from the "
    "first pad token: a later 1 is padding too); the reward of every column read, padded ones "
    "included (rewards[:, t] over the whole width), the score added one slot past the last "
    "token (position n) when n < W, else at n - 1; values beyond position n set to 0 (the value "
    "at n kept); the recursion over the whole width, V after the last column 0; returns A + V; "
    "gamma 1, lambda 0.95",
    "TRL PPOTrainer.train (trl.experimental.ppo, 1.10 development line f2cd577; "
    "ppo_trainer.py:727 sequence_length, 768-778 values masked_fill and the score at "
    "actual_end, 787-796 the GAE loop over every column)", RLREF_GAE_TRL, 1.0, 0.95 },
  { "verl",
    "the score at the last position of mask 1; at a masked position the next value and the "
    "advantage are carried unchanged from t + 1 (multi-turn observation tokens); returns "
    "A + V with the values as given; gamma 1, lambda 1.  adv is the recursion's value: the "
    "function returns it whitened (masked_whiten over the mask, PPO-WHITEN verl)",
    "verl (1dda039) core_algos.py compute_gae_advantage_return: the advantages before its "
    "line 262 advantages = verl_F.masked_whiten(advantages, response_mask), the returns as "
    "returned", RLREF_GAE_VERL, 1.0, 1.0 },
  { "openrlhf",
    "the score clamped to [-10, 10] (compute_reward's reward.clip_range, the default -10 10) "
    "at the last position of mask 1; rewards and values multiplied by the mask, then the plain "
    "recursion over the width; returns A + V (masked values); gamma 1, lambda 1",
    "OpenRLHF 0.11 (3c3be62) models/utils.py compute_reward (r.clamp(min=-10, max=10), the "
    "score scattered at the last 1 of the mask) and experience_maker.py "
    "get_advantages_and_returns", RLREF_GAE_OPENRLHF, 1.0, 1.0 },
};
const size_t rlref_gae_num_conventions
  = sizeof rlref_gae_conventions / sizeof rlref_gae_conventions[0];
#endif

/* One step of the recursion, exactly rounded:
 *   A_t = r_t + gamma v_next - v_t + c (ah + al),  c = ch + cl = gamma lambda,
 * from the exact products gamma v_next, ch ah and the rounded small terms
 * ch al + cl ah; the new (ah, al) = the sum rounded, and its remainder.
 * w has room for 9 scalars. */
static int
gae_step (num_ptr ah, num_ptr al, num_srcptr r, num_srcptr gamma, num_srcptr v_next,
          num_srcptr v, num_srcptr ch, num_srcptr cl, num_ptr w)
{
  num_set (AT (w, 0), r);
  num_two_prod (AT (w, 1), gamma, v_next);
  num_neg (AT (w, 3), v);
  num_two_prod (AT (w, 4), ch, ah);
  num_mul (AT (w, 6), ch, al);
  num_mul (AT (w, 7), cl, ah);
  return mdp_sum_hilo (ah, al, w, 8);
}

/* (000 13.11)  delta_t = r_t + gamma V_{t+1} - V_t,
 * A_t = sum_l (gamma lambda)^l delta_{t+l} = delta_t + gamma lambda A_{t+1},
 * per row of W positions under convention c:
 *   SEED      the response is the prefix of ones of the mask (else EINVAL);
 *             the score at its last token; V after it 0; 0 at padding;
 *   TRL       the response ends at the first 0, position n; every reward
 *             read, the score at position n if n < W, else n - 1; V_t = 0
 *             for t > n; the recursion over all W positions, V_W = 0;
 *   VERL      the score at the last position of mask 1; where the mask is 0
 *             the next value and the advantage are carried from t + 1;
 *   OPENRLHF  the score clamped to [-10, 10] at the last position of mask
 *             1; r and V multiplied by the mask; the recursion over all W
 *             positions.
 * ret = A + V (the values the convention uses), rounded once. */
int
FN (mdp_gae) (num_ptr adv, num_ptr ret, num_srcptr rewards, num_srcptr values,
              const unsigned char *mask, num_srcptr score, size_t B, size_t W, num_srcptr gamma,
              num_srcptr lambda, rlref_gae_rule c)
{
  size_t N = B * W;
  num_ptr r = NULL, v = NULL, a = NULL, rt = NULL, w = NULL;
  num_t ah, al, ch, cl, vn, zero;
  int status = RLREF_SUCCESS;
  if (!rewards || !values || !mask || B == 0 || W == 0 || N / W != B)
    RLREF_ERROR ("empty or mismatched GAE inputs", RLREF_EINVAL);
  for (size_t i = 0; i < N; i++)
    {
      if (!num_is_finite (AT (rewards, i)) || !num_is_finite (AT (values, i)))
        RLREF_ERROR ("non-finite reward or value", RLREF_ENAN);
      if (mask[i] > 1)
        RLREF_ERROR ("the mask holds 0 and 1 only", RLREF_EDOM);
    }
  for (size_t b = 0; score && b < B; b++)
    if (!num_is_finite (AT (score, b)))
      RLREF_ERROR ("non-finite score", RLREF_ENAN);
  if (!num_is_finite (gamma) || !num_is_finite (lambda))
    RLREF_ERROR ("non-finite gamma or lambda", RLREF_ENAN);
  if (!mdp_unit (gamma) || !mdp_unit (lambda))
    RLREF_ERROR ("gamma and lambda must lie in [0, 1]", RLREF_EDOM);
  if (c != RLREF_GAE_SEED && c != RLREF_GAE_TRL && c != RLREF_GAE_VERL
      && c != RLREF_GAE_OPENRLHF)
    RLREF_ERROR ("unknown GAE convention", RLREF_EINVAL);
  num_init (ah);
  num_init (al);
  num_init (ch);
  num_init (cl);
  num_init (vn);
  num_init (zero);
  r = num_vec_new (W);
  v = num_vec_new (W);
  a = num_vec_new (N);
  rt = num_vec_new (N);
  w = num_vec_new (9);
  if (!r || !v || !a || !rt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  {
    num_ptr t = w;
    num_two_prod (t, gamma, lambda);
    num_set (ch, AT (t, 0));
    num_set (cl, AT (t, 1));
  }
  for (size_t b = 0; b < B; b++)
    {
      const unsigned char *m = mask + b * W;
      size_t n = 0, last = W, ones = 0;
      for (size_t t = 0; t < W; t++)
        if (m[t])
          {
            last = t;
            ones++;
          }
      while (n < W && m[n])
        n++;
      if (ones == 0)
        FAIL ("a row without response tokens (mask all 0)", RLREF_EINVAL);
      if (c == RLREF_GAE_SEED && n != ones)
        FAIL ("this convention takes a mask of ones then zeros in each row", RLREF_EINVAL);
      /* the row's rewards and values as the convention uses them */
      for (size_t t = 0; t < W; t++)
        {
          int keep_r = c == RLREF_GAE_VERL || c == RLREF_GAE_TRL || m[t];
          int keep_v = c == RLREF_GAE_VERL || (c == RLREF_GAE_TRL ? t <= n : m[t]);
          num_set (AT (r, t), keep_r ? AT (rewards, b * W + t) : zero);
          num_set (AT (v, t), keep_v ? AT (values, b * W + t) : zero);
        }
      if (score)
        {
          size_t at = c == RLREF_GAE_TRL ? (n < W ? n : n - 1) : last;
          if (c == RLREF_GAE_OPENRLHF && num_cmp_d (AT (score, b), RLREF_GAE_SCORE_CLAMP) > 0)
            num_add_d (AT (r, at), AT (r, at), RLREF_GAE_SCORE_CLAMP);
          else if (c == RLREF_GAE_OPENRLHF
                   && num_cmp_d (AT (score, b), -RLREF_GAE_SCORE_CLAMP) < 0)
            num_sub_d (AT (r, at), AT (r, at), RLREF_GAE_SCORE_CLAMP);
          else
            num_add (AT (r, at), AT (r, at), AT (score, b));
        }
      num_set_zero (ah);
      num_set_zero (al);
      num_set_zero (vn);
      for (size_t t = W; t-- > 0;)
        {
          num_ptr ap = AT (a, b * W + t);
          if (c == RLREF_GAE_SEED && t >= n)
            {
              num_set_zero (ap);
              num_set_zero (AT (rt, b * W + t));
              continue;
            }
          if (c == RLREF_GAE_VERL && !m[t])
            {
              /* carried: the advantage and next value of t + 1 */
              num_set (ap, ah);
            }
          else
            {
              if (c != RLREF_GAE_VERL && c != RLREF_GAE_SEED)
                num_set (vn, t + 1 < W ? AT (v, t + 1) : zero);
              TRY (gae_step (ah, al, AT (r, t), gamma, vn, AT (v, t), ch, cl, w));
              num_set (ap, ah);
              if (c == RLREF_GAE_VERL || c == RLREF_GAE_SEED)
                num_set (vn, AT (v, t));
            }
          /* returns = A + V: hi + lo + V rounded once */
          num_set (AT (w, 0), ah);
          num_set (AT (w, 1), al);
          num_set (AT (w, 2), AT (v, t));
          TRY (num_sum (AT (rt, b * W + t), w, 3));
        }
    }
  for (size_t i = 0; i < N; i++)
    {
      num_set (AT (adv, i), AT (a, i));
      num_set (AT (ret, i), AT (rt, i));
    }
done:
  num_vec_free (r, W);
  num_vec_free (v, W);
  num_vec_free (a, N);
  num_vec_free (rt, N);
  num_vec_free (w, 9);
  num_clear (ah);
  num_clear (al);
  num_clear (ch);
  num_clear (cl);
  num_clear (vn);
  num_clear (zero);
  return status;
}
