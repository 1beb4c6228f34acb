/* dapo.c -- the DAPO objective with token-level normalisation (DAPO-OBJ,
 * seed 000 13.29) and the per-token weights of sample- against
 * token-level normalisation (DAPO-TOKLOSS, DAPO-TOKLOSS-EX, 13.32 and
 * 13.33), written once for both backends.  The clipped term is
 * rlref_ppo_clip's (13.12 with the decoupled range of 13.31), the
 * advantage rlref_grpo_adv's (13.23). */
#include "rlref/num.h"
#include "rlref/dapo.h"
#include "flow.h"

/* n >= 1 finite values at x: EINVAL for NULL or none, ENAN otherwise. */
static int
check_array (num_srcptr x, size_t n, const char *what)
{
  if (!x || n == 0)
    RLREF_ERROR (what, RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      RLREF_ERROR (what, RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* G >= 1 lengths, each >= 1; *total = their sum (EDOM on overflow). */
static int
check_lengths (size_t *total, const long *lengths, size_t G)
{
  size_t t = 0;
  if (!lengths || G == 0)
    RLREF_ERROR ("lengths: at least one response", RLREF_EINVAL);
  for (size_t i = 0; i < G; i++)
    {
      if (lengths[i] < 1)
        RLREF_ERROR ("a response must have at least one token", RLREF_EDOM);
      if ((unsigned long) lengths[i] > (size_t) -1 - t)
        RLREF_ERROR ("the lengths overflow", RLREF_EDOM);
      t += (size_t) lengths[i];
    }
  *total = t;
  return RLREF_SUCCESS;
}

/* DAPO-OBJ (13.29, beta = 0):
 *   J = (1/sum_i |o_i|) sum_i sum_t min(rho_{i,t} A_i, clip(rho_{i,t}, 1 - eps_low,
 *       1 + eps_high) A_i),
 * A_i from 13.23.  With every token in the mask, rlref_ppo_clip's loss is
 * -J and its gradient -dJ/dlogp: both negated exactly. */
int
FN (dapo_obj) (num_ptr objective, num_ptr adv, num_ptr grad, num_ptr clipfrac, num_srcptr logp,
               num_srcptr old_logp, size_t n, const long *lengths, num_srcptr rewards, size_t G,
               const rlref_adv_convention *ac, const rlref_ppo_clip_convention *cc,
               num_srcptr eps_low, num_srcptr eps_high, num_srcptr dual_c)
{
  num_ptr a = NULL, at = NULL, g = NULL;
  num_t loss, cf;
  size_t total = 0;
  int status;
  if (!objective || !ac || !cc)
    RLREF_ERROR ("dapo_obj: an output or a convention is missing", RLREF_EINVAL);
  status = check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  if (status == RLREF_SUCCESS)
    status = check_array (old_logp, n, "old_logp: n >= 1 finite log-probabilities");
  if (status == RLREF_SUCCESS)
    status = check_array (rewards, G, "rewards: one finite reward per response");
  if (status == RLREF_SUCCESS)
    status = check_lengths (&total, lengths, G);
  if (status)
    return status;
  if (total != n)
    RLREF_ERROR ("the lengths of the responses do not add up to the tokens", RLREF_EINVAL);
  num_init (loss);
  num_init (cf);
  a = num_vec_new (G);
  at = num_vec_new (n);
  g = num_vec_new (n);
  if (!a || !at || !g)
    FAIL ("dapo_obj: out of memory", RLREF_ENOMEM);
  TRY (FN (grpo_adv) (a, rewards, G, G, ac));
  for (size_t i = 0, t = 0; i < G; i++)
    for (long k = 0; k < lengths[i]; k++, t++)
      num_set (AT (at, t), AT (a, i));
  TRY (FN (ppo_clip) (loss, NULL, NULL, g, cf, logp, old_logp, at, NULL, n, cc, eps_low,
                      eps_high, dual_c));
  /* every input has been read: outputs may now be written */
  num_neg (objective, loss);
  if (num_is_zero (objective))
    num_set_zero (objective);
  for (size_t t = 0; grad && t < n; t++)
    {
      num_neg (AT (grad, t), AT (g, t));
      if (num_is_zero (AT (grad, t)))
        num_set_zero (AT (grad, t));
    }
  for (size_t i = 0; adv && i < G; i++)
    num_set (AT (adv, i), AT (a, i));
  if (clipfrac)
    num_set (clipfrac, cf);
done:
  num_vec_free (a, G);
  num_vec_free (at, n);
  num_vec_free (g, n);
  num_clear (loss);
  num_clear (cf);
  return status;
}

/* DAPO-TOKLOSS (13.32 against 13.33): a token of response i weighs
 * 1/(G |y_i|) under the sample-level mean (13.32) and 1/sum_j |y_j| under
 * the token-level mean (13.33); its response carries 1/G or |y_i|/sum_j
 * |y_j| of the whole.  Each weight is one quotient of integers, rounded
 * once.  An empty response (with EMPTY_COUNT or EMPTY_SKIP) weighs 0 and
 * counts in G or not. */
int
FN (dapo_tokloss_conv) (num_ptr token_weight, num_ptr response_weight, const long *lengths,
                        size_t G, enum rlref_dapo_norm norm, enum rlref_dapo_empty empty)
{
  num_t t;
  size_t total = 0, Gs = 0;
  int status = RLREF_SUCCESS;
  if (!token_weight)
    RLREF_ERROR ("dapo_tokloss: token_weight missing", RLREF_EINVAL);
  if (norm != RLREF_DAPO_SAMPLE_LEVEL && norm != RLREF_DAPO_TOKEN_LEVEL)
    RLREF_ERROR ("dapo_tokloss: unknown normalisation", RLREF_EINVAL);
  if (empty == RLREF_DAPO_EMPTY_REFUSE)
    status = check_lengths (&total, lengths, G);
  else
    {
      if (!lengths || G == 0)
        RLREF_ERROR ("lengths: at least one response", RLREF_EINVAL);
      for (size_t i = 0; i < G; i++)
        {
          if (lengths[i] < 0)
            RLREF_ERROR ("a response length must be >= 0", RLREF_EDOM);
          if ((unsigned long) lengths[i] > (size_t) -1 - total)
            RLREF_ERROR ("the lengths overflow", RLREF_EDOM);
          total += (size_t) lengths[i];
        }
      if (total == 0)
        RLREF_ERROR ("no response has a token", RLREF_EDOM);
    }
  if (status)
    return status;
  for (size_t i = 0; i < G; i++)
    Gs += empty != RLREF_DAPO_EMPTY_SKIP || lengths[i] > 0;
  num_init_prec (t, 64 + num_prec ());
  for (size_t i = 0; i < G; i++)
    {
      if (lengths[i] == 0)
        {
          num_set_zero (AT (token_weight, i));          /* no token, no share */
          if (response_weight)
            num_set_zero (AT (response_weight, i));
        }
      else if (norm == RLREF_DAPO_SAMPLE_LEVEL)
        {
          num_set_si (t, (long) Gs);
          if (response_weight)
            num_d_div (AT (response_weight, i), 1.0, t);
          num_mul_si (t, t, lengths[i]);                /* G |y_i|, exact */
          num_d_div (AT (token_weight, i), 1.0, t);
        }
      else
        {
          num_set_si (t, (long) total);
          num_d_div (AT (token_weight, i), 1.0, t);
          if (response_weight)
            {
              num_set_si (AT (response_weight, i), lengths[i]);
              num_div (AT (response_weight, i), AT (response_weight, i), t);
            }
        }
    }
  num_clear (t);
  return status;
}

/* DAPO-TOKLOSS: every response with a token (EDOM otherwise). */
int
FN (dapo_tokloss) (num_ptr token_weight, num_ptr response_weight, const long *lengths,
                   size_t G, enum rlref_dapo_norm norm)
{
  return FN (dapo_tokloss_conv) (token_weight, response_weight, lengths, G, norm,
                                 RLREF_DAPO_EMPTY_REFUSE);
}
