/* batch_kto_simpo_orpo.c -- binary64 batch kernels of DPO-KTO, DPO-SIMPO and
 * DPO-ORPO and their gradients, held bit for bit to rlref_kto_loss_d,
 * rlref_simpo_loss_d and rlref_orpo_loss_d (src/dpo/dpo.c).
 *
 * Each reference forms sigma(x) = 1/(1 + e^-x) (x >= 0) or e^x/(e^x + 1)
 * (x < 0) and softplus(x) = max(x, 0) + log1p(e^-|x|) in separate calls,
 * each exponentiating -|x|; here one E = exp(-|x|) per element serves
 * them all, with the reference's operations in its order, and 1 - sigma(x)
 * is taken as sigma(-x).  ORPO's log(1 - e^a) is the reference's
 * log1mexp.  A sum over the elements (the loss, the NLL's numerator) is
 * the reference's left-to-right sum.
 *
 * One pass computes and checks together; a sum the pass needs before it
 * starts (KTO's reference point z0, the token count of the NLL) takes one
 * pass of its own.  When a check fails, the reference itself is called
 * with the same arguments: it names the status (and, were it to succeed,
 * writes every output).  Only that call allocates. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include "rlref/batch.h"

/* sigma(x) from E = exp(-|x|), as rlref_sigmoid_d:
 *   1/(E + 1) for x >= 0,  E/(E + 1) for x < 0. */
static inline double
sigma_e (double x, double E)
{
  return (x >= 0.0 ? 1.0 : E) / (E + 1.0);
}

/* softplus(x) from L = log1p(exp(-|x|)), as rlref_softplus_d:
 *   max(x, 0) + L  (+0 where x <= 0; x = -inf gives +0 as there). */
static inline double
softplus_l (double x, double L)
{
  return (x > 0.0 ? x : 0.0) + L;
}

/* Log odds of a per-token mean a <= 0, as the reference's log_odds_of:
 *   lo(a) = a - log1mexp(a),  +inf at a = 0,
 * log1mexp(a) = log(-expm1(a)) for a > -log 2, else log1p(-e^a). */
static inline double
log_odds_of (double a)
{
  double r;
  if (a == 0.0)
    return INFINITY;
  if (a > -0.693147180559945309417232121458)
    r = log (-expm1 (a));
  else
    r = log1p (-exp (a));
  return a - r;
}

/* DPO-KTO over B examples, z0 from M mismatched pairs (rlref/batch.h):
 *   z0 = max(0, (sum_j (kl_logp_j - kl_ref_j))/M),  x_i = (r_i - z0) beta,
 *   s = sigma(x_i), t = sigma(-x_i) (one E), g = s t beta,
 *   desirable:   l_i = w_d t,  grad_i = -(g w_d)/B,
 *   undesirable: l_i = w_u s,  grad_i = (g w_u)/B,
 *   loss = (sum_i l_i)/B,  reward_i = beta r_i. */
int
rlref_kto_loss_batch (double *loss, double *restrict losses, double *restrict grad,
                      double *restrict reward, double *z0, const double *restrict logp,
                      const double *restrict ref, const long *restrict desirable, size_t B,
                      const double *restrict kl_logp, const double *restrict kl_ref, size_t M,
                      double beta, double w_d, double w_u)
{
  double z = 0.0, sum = 0.0, Bd = (double) B;
  int bad = 0;
  if (!loss || !desirable || !logp || !ref || !kl_logp || !kl_ref || B == 0 || M == 0
      || !isfinite (beta) || !(beta > 0.0) || !isfinite (w_d) || w_d < 0.0
      || !isfinite (w_u) || w_u < 0.0)
    goto reference;
  for (size_t j = 0; j < M; j++)
    {
      bad |= !isfinite (kl_logp[j]) | !isfinite (kl_ref[j]);
      z += kl_logp[j] - kl_ref[j];
    }
  z = z / (double) M;
  /* max(z, +0) of num_max: NaN stays NaN, -0 gives +0; a z that is not
   * finite makes every x below not finite */
  z = isnan (z) ? z : z > 0.0 ? z : 0.0;
  for (size_t i = 0; i < B; i++)
    {
      double r = logp[i] - ref[i], x = (r - z) * beta;
      double E = exp (-fabs (x)), s = sigma_e (x, E), t = sigma_e (-x, E);
      double g = s * t * beta, l;
      long d = desirable[i];
      /* x is not finite where logp[i], ref[i] or z is not */
      bad |= !isfinite (x) | (d != 0 && d != 1);
      if (d)
        {
          l = w_d * t;
          g = -(g * w_d);
        }
      else
        {
          l = w_u * s;
          g = g * w_u;
        }
      sum += l;
      if (losses)
        losses[i] = l;
      if (grad)
        grad[i] = g / Bd;
      if (reward)
        reward[i] = beta * r;
    }
  if (bad)
    goto reference;
  *loss = sum / Bd;
  if (z0)
    *z0 = z;
  return RLREF_SUCCESS;
reference:
  return rlref_kto_loss_d (loss, losses, grad, reward, z0, logp, ref, desirable, B, kl_logp,
                           kl_ref, M, &beta, &w_d, &w_u);
}

/* DPO-SIMPO over B pairs (rlref/batch.h): a = logp/n,
 *   z_i = -((a_w - a_l) beta - gamma),  l_i = softplus(z_i),
 *   s = (sigma(z_i) beta)/B,  N = sum_i n_w,i,  nll = -(sum_i logp_w,i)/N,
 *   grad_w,i = alpha (-1/N) + -(s/n_w,i),  grad_l,i = s/n_l,i,
 *   loss = (sum_i l_i)/B + alpha nll,  rewards beta a_w, beta a_l. */
int
rlref_simpo_loss_batch (double *loss, double *restrict losses, double *restrict grad_w,
                        double *restrict grad_l, double *restrict reward_w,
                        double *restrict reward_l, double *nll, const double *restrict logp_w,
                        const double *restrict logp_l, const long *restrict n_w,
                        const long *restrict n_l, size_t B, double beta, double gamma,
                        double alpha)
{
  double N = 0.0, dn, sw = 0.0, sum = 0.0, m, Bd = (double) B;
  int bad = 0;
  if (!loss || !logp_w || !logp_l || !n_w || !n_l || B == 0 || !isfinite (beta)
      || !(beta > 0.0) || !isfinite (gamma) || !isfinite (alpha) || alpha < 0.0)
    goto reference;
  /* the NLL's token count, needed by every grad_w */
  for (size_t i = 0; i < B; i++)
    {
      bad |= n_w[i] < 1;
      N += (double) n_w[i];
    }
  dn = -1.0 / N;
  for (size_t i = 0; i < B; i++)
    {
      double pw = logp_w[i], pl = logp_l[i];
      double nw = (double) n_w[i], nl = (double) n_l[i];
      double aw = pw / nw, al = pl / nl, z = -((aw - al) * beta - gamma);
      double E = exp (-fabs (z)), l = softplus_l (z, log1p (E));
      double s = sigma_e (z, E) * beta / Bd;
      bad |= !isfinite (pw) | !isfinite (pl) | (n_l[i] < 1) | !isfinite (z);
      sw += pw;
      sum += l;
      if (losses)
        losses[i] = l;
      if (grad_w)
        grad_w[i] = alpha * dn + -(s / nw);
      if (grad_l)
        grad_l[i] = s / nl;
      if (reward_w)
        reward_w[i] = beta * aw;
      if (reward_l)
        reward_l[i] = beta * al;
    }
  if (bad)
    goto reference;
  m = -(sw / N);
  *loss = sum / Bd + alpha * m;
  if (nll)
    *nll = m;
  return RLREF_SUCCESS;
reference:
  return rlref_simpo_loss_d (loss, losses, grad_w, grad_l, reward_w, reward_l, nll, logp_w,
                             logp_l, n_w, n_l, B, &beta, &gamma, &alpha);
}

/* DPO-ORPO over B pairs (rlref/batch.h): a = logp/n, lo the log odds,
 *   L_i = lo(a_w) - lo(a_l),  l_i = softplus(-L_i) lambda,
 *   grad_l,i = (((sigma(-L_i)/(-expm1(a_l))) lambda)/B)/n_l,
 *   grad_w,i = ((-(lambda/(e^(a_w - lo(a_l)) - expm1(a_w))))/B)/n_w + dnll_i,
 * as the reference forms them: for L > 0, e^{-L} = r = expm1(-a_w)/expm1(-a_l),
 * softplus(-L) = log1p(r), sigma(-L) = r/(r + 1) where both are finite, and
 * e^(a_w - lo(a_l)) = e^{a_w} expm1(-a_l) where that is finite and
 * e^{a_w} >= DBL_MIN;
 *   token mean: N = sum_i n_w,i, nll = -(sum_i logp_w,i)/N, dnll_i = -1/N;
 *   seq mean:   N = B, nll = -(sum_i a_w,i)/N, dnll_i = -1/(N n_w,i);
 *   loss = nll + (sum_i l_i)/B,  rewards lambda a_w, lambda a_l.
 * At a_w = 0, L = +inf, l = 0 and grad_w is the one-sided limit. */
int
rlref_orpo_loss_batch (double *loss, double *restrict losses, double *restrict grad_w,
                       double *restrict grad_l, double *restrict log_odds, double *nll,
                       double *restrict reward_w, double *restrict reward_l,
                       const double *restrict logp_w, const double *restrict logp_l,
                       const long *restrict n_w, const long *restrict n_l, size_t B,
                       enum rlref_nll_mean nll_mean, double lambda)
{
  double N = 0.0, sw = 0.0, sum = 0.0, m, Bd = (double) B;
  int bad = 0, tok = nll_mean == RLREF_NLL_TOKEN_MEAN;
  if (!loss || !logp_w || !logp_l || !n_w || !n_l || B == 0
      || (nll_mean != RLREF_NLL_TOKEN_MEAN && nll_mean != RLREF_NLL_SEQ_MEAN)
      || !isfinite (lambda) || lambda < 0.0)
    goto reference;
  if (tok)
    /* the NLL's token count, needed by every grad_w */
    for (size_t i = 0; i < B; i++)
      N += (double) n_w[i];
  else
    N = (double) B;
  for (size_t i = 0; i < B; i++)
    {
      double pw = logp_w[i], pl = logp_l[i];
      double nw = (double) n_w[i], nl = (double) n_l[i];
      double aw = pw / nw, al = pl / nl, lol = log_odds_of (al);
      double Lo = log_odds_of (aw) - lol, t = -Lo, E = exp (-fabs (t));
      double ew = expm1 (0.0 - aw), el = expm1 (0.0 - al), r = ew / el;
      int quot = Lo > 0.0 && isfinite (ew) && isfinite (el);
      double l = (quot ? log1p (r) : softplus_l (t, log1p (E))) * lambda;
      /* al = 0 also where pl = 0; a mean within 2^-60 of 0 (the reference's
         tiny means, taken from logp and n) is left to the reference */
      bad |= !isfinite (pw) | !isfinite (pl) | (n_w[i] < 1) | (n_l[i] < 1) | (pw > 0.0)
        | (pl > 0.0) | (al == 0.0) | (pw != 0.0 && fabs (aw) < 0x1p-60)
        | (fabs (al) < 0x1p-60);
      sw += tok ? pw : aw;
      sum += l;
      if (grad_l)
        grad_l[i] = (quot ? r / (r + 1.0) : sigma_e (t, E)) / -expm1 (al) * lambda / Bd / nl;
      if (grad_w)
        {
          double ea = exp (aw);
          double v = (isfinite (el) && ea >= DBL_MIN ? ea * el : exp (aw - lol)) - expm1 (aw);
          double dn = tok ? -1.0 / N : -1.0 / (N * nw);
          grad_w[i] = -(lambda / v) / Bd / nw + dn;
        }
      if (losses)
        losses[i] = l;
      if (log_odds)
        log_odds[i] = Lo;
      if (reward_w)
        reward_w[i] = lambda * aw;
      if (reward_l)
        reward_l[i] = lambda * al;
    }
  if (bad)
    goto reference;
  m = -(sw / N);
  *loss = m + sum / Bd;
  if (nll)
    *nll = m;
  return RLREF_SUCCESS;
reference:
  return rlref_orpo_loss_d (loss, losses, grad_w, grad_l, log_odds, nll, reward_w, reward_l,
                            logp_w, logp_l, n_w, n_l, B, nll_mean, &lambda);
}
