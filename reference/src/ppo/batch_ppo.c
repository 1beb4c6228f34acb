/* ppo_batch.c -- binary64 batch kernel of the clipped surrogate of PPO
 * (PPO-CLIP, PPO-DUALCLIP; seed 000 (13.12)) over n tokens: one pass
 * checks the inputs and counts the mask, one forms every output; nothing
 * is allocated.  The per-token operations are those of rlref_ppo_clip_d
 * (src/ppo/ppo_clip.c) in the same order, so the per-token outputs
 * agree bit for bit; the loss is a plain left-to-right sum.  Its branches
 * are decided exactly, as there: on the rounded ratio where it lies
 * farther from a bound than its error, else by rlref_ppo_clip_d on the
 * token alone (rare: within about 2^-49 of 1 - eps_low, 1 + eps_high or c,
 * or a log-ratio rounded onto +-20). */
#include <math.h>
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/rlref.h"

/* x, with a zero written +0. */
static inline double
plus_zero (double x)
{
  return x == 0.0 ? 0.0 : x;
}

/* Whether e^lc, rounded to rho, may lie on the other side of the bound b
 * than rho: the margin of rlref_num_cmp_exp_d (src/core/num_cmp_exp.c). */
static inline int
near (double rho, double b, double lc)
{
  return fabs (rho - b) <= (fabs (lc) * 0x1p-52 + 0x1p-49) * fmax (rho, b);
}

/* sgn(x + y + z), exactly. */
static int
sum3_sgn (double x, double y, double z)
{
  double t[3] = { x, y, z }, r = rlref_num_sum_d (t, 3);
  return (r > 0.0) - (r < 0.0);
}

/* 13.12 per token, as ppo_clip: u = rho A, v = clip(rho, lo, hi) A,
 * s = min(u, v) (ds/dl = u where u <= v), the dual bound c A for A < 0,
 * and the log-ratio clamp; loss = -sum mask s / N. */
int
rlref_ppo_clip_batch (double *loss, double *restrict surrogate, double *restrict grad,
                      double *clipfrac, const double *restrict logp,
                      const double *restrict old_logp, const double *restrict adv,
                      const unsigned char *restrict mask, size_t n,
                      const rlref_ppo_clip_convention *c, double eps_low, double eps_high,
                      double dual_c)
{
  const double clo = -RLREF_PPO_LOG_RATIO_CLAMP, chi = RLREF_PPO_LOG_RATIO_CLAMP;
  double lo, hi, nd, sum = 0.0;
  size_t N = 0, nclip = 0;
  int clamp, dual, hi_dc, lo_dc, bad = 0;
  if (!loss || !c || !logp || !old_logp || !adv || n == 0)
    RLREF_ERROR ("loss, convention or inputs missing, or no token", RLREF_EINVAL);
  if (!isfinite (eps_low) || !isfinite (eps_high) || (c->dual_clip && !isfinite (dual_c)))
    RLREF_ERROR ("a clip parameter is not finite", RLREF_ENAN);
  if (!(eps_low >= 0.0 && eps_low < 1.0) || !(eps_high >= 0.0)
      || (c->dual_clip && !(dual_c > 1.0)))
    RLREF_ERROR ("clip range: 0 <= eps_low < 1, eps_high >= 0, c > 1", RLREF_EDOM);
  /* pass 1: finiteness and the mask (no branch that stops vectorising) */
  for (size_t i = 0; i < n; i++)
    {
      unsigned m = mask ? mask[i] : 1u;
      bad |= !isfinite (logp[i]) | !isfinite (old_logp[i]) | !isfinite (adv[i]);
      bad |= (m > 1u) << 1;
      N += m & 1u;
    }
  if (bad & 1)
    RLREF_ERROR ("a log-probability or advantage is not finite", RLREF_ENAN);
  if (bad & 2)
    RLREF_ERROR ("a mask entry must be 0 or 1", RLREF_EDOM);
  if (N == 0)
    RLREF_ERROR ("no token in the mask: a mean over the mask is 0/0", RLREF_EDOM);
  lo = 1.0 - eps_low;
  hi = eps_high + 1.0;
  nd = (double) N;
  clamp = c->clamp_log_ratio;
  dual = c->dual_clip;
  hi_dc = dual && sum3_sgn (1.0, eps_high, -dual_c) > 0;       /* 1 + eps_high > c */
  lo_dc = dual && sum3_sgn (1.0, -eps_low, -dual_c) > 0;
  /* pass 2: every output, the branches written as selects */
  for (size_t i = 0; i < n; i++)
    {
      double l = logp[i] - old_logp[i];
      int bind = clamp & ((l < clo) | (l > chi));
      double lc = bind ? (l < clo ? clo : chi) : l;
      double rho = exp (lc), a = adv[i];
      int below = rho < lo, above = rho > hi, in = mask ? mask[i] : 1;
      int su = ((a > 0.0) - (a < 0.0)) * (above - below), take_u = su <= 0;
      double u = rho * a, v = (below ? lo : above ? hi : rho) * a;   /* = u inside the range */
      double s = take_u ? u : v, d = take_u ? u : 0.0;
      int low = dual & (a < 0.0) & (take_u | !(below | above) ? rho > dual_c : below ? lo_dc : hi_dc);
      int close = (clamp & ((l == clo) | (l == chi))) | near (rho, lo, lc) | near (rho, hi, lc)
                  | (dual & (a < 0.0) & near (rho, dual_c, lc));
      int clipped = su > 0;
      s = low ? dual_c * a : s;
      d = (low | bind) ? 0.0 : d;
      bad |= !isfinite (rho);
      if (close && isfinite (rho))
        {
          double ls, cf;
          if (rlref_ppo_clip_d (&ls, &s, NULL, &d, &cf, logp + i, old_logp + i, adv + i, NULL, 1,
                                c, &eps_low, &eps_high, &dual_c) != RLREF_SUCCESS)
            bad |= 1;
          d = -d;                               /* ds/dl */
          clipped = cf > 0.0;
        }
      s = in ? plus_zero (s) : 0.0;
      d = in ? plus_zero (-(d / nd)) : 0.0;
      nclip += (size_t) (in & clipped);
      sum += s;
      if (surrogate)
        surrogate[i] = s;
      if (grad)
        grad[i] = d;
    }
  if (bad)
    RLREF_ERROR ("the ratio overflows", RLREF_ERANGE);
  *loss = plus_zero (-(sum / nd));
  if (clipfrac)
    *clipfrac = (double) nclip / nd;
  return RLREF_SUCCESS;
}
