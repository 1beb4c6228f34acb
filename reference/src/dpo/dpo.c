/* dpo.c -- the DPO family of preference losses on given log-probabilities
 * (DPO-LOSS, DPO-GRAD, DPO-CDPO, DPO-IPO, DPO-KTO, DPO-SIMPO, DPO-ORPO),
 * written once for both backends.  Seed 000 (13.18)-(13.22), seed 003's
 * DPO section, and the conventions of TRL and OpenRLHF (CONVENTIONS.md,
 * "DPO family").
 *
 * Stable forms: -log sigma(x) = softplus(-x) and 1 - sigma(x) = sigma(-x)
 * (primitives.c), log(1 - e^a) = log1mexp(a).  Each function reads every
 * input (into temporaries) before it writes an output, so an output may
 * share storage with an input of the same length.  Binary64 gives ERANGE
 * where an intermediate that the loss needs (D, beta D) overflows; MPFR's
 * exponent range holds every one of them. */
#include <float.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/dpo.h"
#include "flow.h"

/* 1 when x[0..n-1] are all finite. */
static int
finite_vec (num_srcptr x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      return 0;
  return 1;
}

/* A finite parameter x with x > 0 (positive) or x >= 0. */
static int
check_param (num_srcptr x, int positive, const char *what)
{
  if (!x)
    RLREF_ERROR (what, RLREF_EINVAL);
  if (!num_is_finite (x))
    RLREF_ERROR (what, RLREF_ENAN);
  if (num_sgn (x) < 0 || (positive && num_sgn (x) == 0))
    RLREF_ERROR (what, RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* Token counts n[0..B-1] >= 1. */
static int
check_counts (const long *n, size_t B)
{
  if (!n)
    RLREF_ERROR ("token counts missing", RLREF_EINVAL);
  for (size_t i = 0; i < B; i++)
    if (n[i] < 1)
      RLREF_ERROR ("a token count must be at least 1", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* A batch of B >= 1 finite log-probabilities in each of the k arrays. */
static int
check_batch (size_t B, num_srcptr a, num_srcptr b, num_srcptr c, num_srcptr d, int k)
{
  num_srcptr v[4] = { a, b, c, d };
  if (B == 0)
    RLREF_ERROR ("empty batch", RLREF_EINVAL);
  for (int j = 0; j < k; j++)
    {
      if (!v[j])
        RLREF_ERROR ("log-probabilities missing", RLREF_EINVAL);
      if (!finite_vec (v[j], B))
        RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
    }
  return RLREF_SUCCESS;
}

/* B >= 1 pairs of finite log-probabilities, without a reference, with
 * token counts >= 1. */
static int
check_counted (size_t B, num_srcptr logp_w, num_srcptr logp_l, const long *n_w,
               const long *n_l)
{
  int status = check_batch (B, logp_w, logp_l, NULL, NULL, 2);
  if (status == RLREF_SUCCESS)
    status = check_counts (n_w, B);
  if (status == RLREF_SUCCESS)
    status = check_counts (n_l, B);
  return status;
}

/* out[i] = c v[i], i < B (nothing when out is NULL): the implicit rewards. */
static void
scaled (num_ptr out, num_srcptr c, num_srcptr v, size_t B)
{
  for (size_t i = 0; out && i < B; i++)
    num_mul (AT (out, i), c, AT (v, i));
}

/* Token counts n[0..B-1] >= 0 of the per-token pairwise conventions,
 * where a count of 0 is taken as 1 (TRL's mask.sum(dim=1).clamp(min=1.0)). */
static int
check_counts_clamped (const long *n, size_t B)
{
  if (!n)
    RLREF_ERROR ("token counts missing", RLREF_EINVAL);
  for (size_t i = 0; i < B; i++)
    if (n[i] < 0)
      RLREF_ERROR ("a token count must be at least 0", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* The divisor of a count n >= 0 of the per-token pairwise conventions:
 * max(n, 1). */
static long
clamped (long n)
{
  return n < 1 ? 1 : n;
}

/* Per-token means a[i] = logp[i] / n[i]. */
static void
per_token (num_ptr a, num_srcptr logp, const long *n, size_t B)
{
  for (size_t i = 0; i < B; i++)
    num_div_si (AT (a, i), AT (logp, i), n[i]);
}

/* The number of bits of a count n >= 1. */
static long
count_bits (long n)
{
  long k = 0;
  for (; n > 0; n >>= 1)
    k++;
  return k;
}

/* Log-ratios lw = logp_w - ref_w, ll = logp_l - ref_l of pair i (each
 * rounded once: the implicit rewards) and their difference from the four
 * log-probabilities, x4 and c4 four scratch scalars each:
 *   D = logp_w - ref_w - logp_l + ref_l,  a sum of four rounded once, or
 *   D = lw/n - ll/m = (m lw - n ll)/(n m),  n = max(n_w, 1), m = max(n_l, 1)
 *   (per_token), the numerator a dot product of the four with the counts
 *   rounded once (the counts scaled by 2^-k where it overflows binary64),
 *   taken to [1/2, 1) by a power of two before the divisions by n and m so
 *   that neither underflows.
 * lw - ll of the rounded lw, ll loses logp_w beside ref_w = 1e308 (D = 0
 * for logp_w - logp_l = -1e6). */
static int
log_ratios (num_ptr lw, num_ptr ll, num_ptr D, num_ptr x4, num_ptr c4, size_t i,
            num_srcptr logp_w, num_srcptr logp_l, num_srcptr ref_w, num_srcptr ref_l,
            const long *n_w, const long *n_l, int per_token)
{
  long n, m, k = 0, e;
  int status;
  num_sub (lw, AT (logp_w, i), AT (ref_w, i));
  num_sub (ll, AT (logp_l, i), AT (ref_l, i));
  num_set (AT (x4, 0), AT (logp_w, i));
  num_neg (AT (x4, 1), AT (ref_w, i));
  num_neg (AT (x4, 2), AT (logp_l, i));
  num_set (AT (x4, 3), AT (ref_l, i));
  if (!per_token)
    return num_sum (D, x4, 4);
  n = clamped (n_w[i]);
  m = clamped (n_l[i]);
  for (;;)
    {
      num_set_si (AT (c4, 0), m);
      num_mul_2si (AT (c4, 0), AT (c4, 0), -k);
      num_set (AT (c4, 1), AT (c4, 0));
      num_set_si (AT (c4, 2), n);
      num_mul_2si (AT (c4, 2), AT (c4, 2), -k);
      num_set (AT (c4, 3), AT (c4, 2));
      status = num_dot (D, x4, c4, 4);
      if (status || num_is_finite (D) || k > 0)
        break;
      k = count_bits (n) + count_bits (m) + 2;  /* |m lw - n ll| < 2^(k + 1024) */
    }
  if (status || num_is_zero (D) || !num_is_finite (D))
    return status;
  e = num_get_exp (D);
  num_mul_2si (D, D, -e);
  num_div_si (D, D, n);
  num_div_si (D, D, m);
  num_mul_2si (D, D, e + k);
  return RLREF_SUCCESS;
}

/* The loss l and its derivative g = dl/dD of one pair, b the effective
 * beta, e eps, z = b D (not used by IPO), q = 1/(2b):
 *   sigmoid  l = softplus(-z)                      g = -b sigma(-z)
 *   hinge    l = max(0, 1 - z)                     g = -b if 1 - z > 0, else 0
 *   cdpo     l = (1-e) softplus(-z) + e softplus(z) g = b [e sigma(z) - (1-e) sigma(-z)]
 *   robust   l = [(1-e) softplus(-z) - e softplus(z)]/(1 - 2e)
 *                                                  g = -([(1-e) sigma(-z) + e sigma(z)]/(1 - 2e)) b
 *   ipo      l = (D - q)^2                         g = 2 (D - q)
 * (-log sigma(x) = softplus(-x); robust DPO subtracts the flipped term.) */
static int
pair_loss (num_ptr l, num_ptr g, num_srcptr D, num_srcptr z, enum rlref_dpo_form form,
           num_srcptr b, num_srcptr e, num_srcptr q)
{
  num_t a, s, t, w;
  int status = RLREF_SUCCESS;
  num_init (a); num_init (s); num_init (t); num_init (w);
  num_neg (t, z);
  switch (form)
    {
    case RLREF_DPO_SIGMOID:
      KEEP (FN (softplus) (l, t));
      KEEP (FN (sigmoid) (s, t));
      num_mul (g, b, s);
      num_neg (g, g);
      break;
    case RLREF_DPO_HINGE:
      num_d_sub (a, 1.0, z);
      if (num_sgn (a) > 0)
        {
          num_set (l, a);
          num_neg (g, b);
        }
      else
        {
          num_set_zero (l);
          num_set_zero (g);
        }
      break;
    case RLREF_DPO_CDPO:
    case RLREF_DPO_ROBUST:
      num_d_sub (w, 1.0, e);                    /* 1 - e */
      KEEP (FN (softplus) (a, t));              /* -log sigma(z) */
      num_mul (a, a, w);
      KEEP (FN (softplus) (s, z));              /* -log sigma(-z) */
      num_mul (s, s, e);
      KEEP (FN (sigmoid) (t, t));               /* sigma(-z) */
      num_mul (t, t, w);
      KEEP (FN (sigmoid) (w, z));               /* sigma(z) */
      num_mul (w, w, e);
      if (form == RLREF_DPO_CDPO)
        {
          num_add (l, a, s);
          num_sub (g, w, t);
          num_mul (g, g, b);
        }
      else
        {
          num_sub (l, a, s);
          num_add (g, t, w);
          num_mul_2si (a, e, 1);
          num_d_sub (a, 1.0, a);                /* 1 - 2e */
          num_div (l, l, a);
          num_div (g, g, a);
          num_mul (g, g, b);                    /* b last: b/2 may underflow */
          num_neg (g, g);
        }
      break;
    case RLREF_DPO_IPO:
      num_sub (a, D, q);
      num_sqr (l, a);
      num_mul_2si (g, a, 1);
      break;
    default:
      status = RLREF_EINVAL;
      rlref_error ("unknown DPO form", __FILE__, __LINE__, status);
      break;
    }
  num_clear (a); num_clear (s); num_clear (t); num_clear (w);
  return status;
}

/* DPO-LOSS (000 13.21: L = -E log sigma(beta log pi(y_w)/pi_ref(y_w)
 * - beta log pi(y_l)/pi_ref(y_l))), DPO-CDPO, DPO-IPO: the batch mean of
 * pair_loss, with dD/dlogp_w = 1 (or 1/n_w) and dD/dlogp_l = -1 (or
 * -1/n_l); the implicit rewards of 13.18, beta (logp - ref). */
int
FN (dpo_loss) (num_ptr loss, num_ptr losses, num_ptr grad_w, num_ptr grad_l,
               num_ptr reward_w, num_ptr reward_l,
               num_srcptr logp_w, num_srcptr logp_l, num_srcptr ref_w, num_srcptr ref_l,
               const long *n_w, const long *n_l, size_t B,
               const rlref_dpo_convention *c, num_srcptr beta, num_srcptr eps)
{
  num_ptr lw = NULL, ll = NULL, D = NULL, x4 = NULL, c4;
  num_t bt, b, e, q, z, l, g, sum;
  int status, smooth;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  status = check_batch (B, logp_w, logp_l, ref_w, ref_l, 4);
  if (status == RLREF_SUCCESS)
    status = check_param (beta, 1, "beta must be finite and > 0");
  if (status == RLREF_SUCCESS && c->per_token)
    status = check_counts_clamped (n_w, B);
  if (status == RLREF_SUCCESS && c->per_token)
    status = check_counts_clamped (n_l, B);
  if (status)
    return status;
  smooth = c->form == RLREF_DPO_CDPO || c->form == RLREF_DPO_ROBUST;
  if (smooth)
    {
      status = check_param (eps, 0, "label smoothing eps must be finite and >= 0");
      if (status)
        return status;
      if (c->form == RLREF_DPO_CDPO && num_cmp_d (eps, 1.0) > 0)
        RLREF_ERROR ("cDPO needs 0 <= eps <= 1", RLREF_EDOM);
      if (c->form == RLREF_DPO_ROBUST && num_cmp_d (eps, 1.0) > 0)
        RLREF_ERROR ("robust DPO needs 0 <= eps <= 1", RLREF_EDOM);
      if (c->form == RLREF_DPO_ROBUST && num_cmp_d (eps, 0.5) == 0)
        RLREF_ERROR ("robust DPO at eps = 1/2 divides by 1 - 2 eps = 0: the loss is not finite",
                     RLREF_EDOM);
    }
  num_init (bt); num_init (b); num_init (e); num_init (q); num_init (z); num_init (l);
  num_init (g); num_init (sum);
  num_set (bt, beta);
  if (c->beta_squared)
    num_sqr (b, bt);
  else
    num_set (b, bt);
  if (smooth)
    num_set (e, eps);
  num_mul_2si (q, b, 1);
  num_d_div (q, 1.0, q);                        /* 1/(2b) */
  lw = num_vec_new (B);
  ll = num_vec_new (B);
  D = num_vec_new (B);
  x4 = num_vec_new (8);
  if (!lw || !ll || !D || !x4)
    FAIL ("out of memory", RLREF_ENOMEM);
  c4 = AT (x4, 4);
  for (size_t i = 0; i < B; i++)
    {
      TRY (log_ratios (AT (lw, i), AT (ll, i), AT (D, i), x4, c4, i, logp_w, logp_l, ref_w,
                       ref_l, n_w, n_l, c->per_token));
      num_mul (z, b, AT (D, i));
      if (!num_is_finite (AT (lw, i)) || !num_is_finite (AT (ll, i)))
        FAIL ("a log-ratio overflows", RLREF_ERANGE);
      if (!num_is_finite (AT (D, i)) || (c->form != RLREF_DPO_IPO && !num_is_finite (z)))
        FAIL ("the log-ratio difference overflows", RLREF_ERANGE);
    }
  /* every input has been read: outputs may now be written */
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      num_mul (z, b, AT (D, i));
      status = pair_loss (l, g, AT (D, i), z, c->form, b, e, q);
      num_add (sum, sum, l);
      if (losses)
        num_set (AT (losses, i), l);
      num_div_si (g, g, (long) B);
      if (grad_w)
        {
          if (c->per_token)
            num_div_si (AT (grad_w, i), g, clamped (n_w[i]));
          else
            num_set (AT (grad_w, i), g);
        }
      if (grad_l)
        {
          if (c->per_token)
            num_div_si (AT (grad_l, i), g, clamped (n_l[i]));
          else
            num_set (AT (grad_l, i), g);
          num_neg (AT (grad_l, i), AT (grad_l, i));
        }
    }
  scaled (reward_w, bt, lw, B);
  scaled (reward_l, bt, ll, B);
  num_div_si (loss, sum, (long) B);
done:
  num_vec_free (lw, B);
  num_vec_free (ll, B);
  num_vec_free (D, B);
  num_vec_free (x4, 8);
  num_clear (bt); num_clear (b); num_clear (e); num_clear (q); num_clear (z); num_clear (l);
  num_clear (g); num_clear (sum);
  return status;
}

/* DPO-GRAD (000 13.22):
 *   grad L = -beta E[sigma(r_l - r_w) (grad log pi(y_w) - grad log pi(y_l))],
 * r = beta log(pi/pi_ref) (the implicit reward of 13.18), so with respect
 * to the log-probabilities of pair i of a batch mean, -beta w_i/B and
 * beta w_i/B, w_i = sigma(r_l,i - r_w,i) = sigma(-beta D_i).  Seed 003's
 * prose applies beta to r again: w_i = sigma(-beta^2 D_i), factor beta^2. */
int
FN (dpo_grad) (num_ptr weight, num_ptr grad_w, num_ptr grad_l,
               num_srcptr logp_w, num_srcptr logp_l, num_srcptr ref_w, num_srcptr ref_l,
               size_t B, int beta_squared, num_srcptr beta)
{
  num_ptr D = NULL, x4 = NULL, c4;
  num_t b, z, lw, ll, w, g;
  int status;
  status = check_batch (B, logp_w, logp_l, ref_w, ref_l, 4);
  if (status == RLREF_SUCCESS)
    status = check_param (beta, 1, "beta must be finite and > 0");
  if (status)
    return status;
  num_init (b); num_init (z); num_init (lw); num_init (ll); num_init (w); num_init (g);
  if (beta_squared)
    num_sqr (b, beta);
  else
    num_set (b, beta);
  D = num_vec_new (B);
  x4 = num_vec_new (8);
  if (!D || !x4)
    FAIL ("out of memory", RLREF_ENOMEM);
  c4 = AT (x4, 4);
  for (size_t i = 0; i < B; i++)
    {
      TRY (log_ratios (lw, ll, AT (D, i), x4, c4, i, logp_w, logp_l, ref_w, ref_l, NULL, NULL,
                       0));
      num_mul (z, b, AT (D, i));
      if (!num_is_finite (lw) || !num_is_finite (ll))
        FAIL ("a log-ratio overflows", RLREF_ERANGE);
      if (!num_is_finite (AT (D, i)) || !num_is_finite (z))
        FAIL ("the log-ratio difference overflows", RLREF_ERANGE);
    }
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      num_mul (z, b, AT (D, i));
      num_neg (z, z);
      status = FN (sigmoid) (w, z);             /* sigma(r_l - r_w) */
      num_mul (g, b, w);
      num_div_si (g, g, (long) B);
      if (weight)
        num_set (AT (weight, i), w);
      if (grad_w)
        num_neg (AT (grad_w, i), g);
      if (grad_l)
        num_set (AT (grad_l, i), g);
    }
done:
  num_vec_free (D, B);
  num_vec_free (x4, 8);
  num_clear (b); num_clear (z); num_clear (lw); num_clear (ll); num_clear (w); num_clear (g);
  return status;
}

/* DPO-KTO (the KTO paper's eq. 7 as TRL and OpenRLHF compute it):
 *   z0 = max(0, mean_j (kl_logp_j - kl_ref_j)), a constant (detached),
 *   desirable:    l_i = w_d sigma(beta (z0 - r_i)),  dl/dlogp_i = -w_d beta s (1 - s),
 *                 s = sigma(beta (r_i - z0));
 *   undesirable:  l_i = w_u sigma(beta (r_i - z0)),  dl/dlogp_i =  w_u beta s (1 - s),
 * r_i = logp_i - ref_i; loss the mean over the B examples; s (1 - s) as
 * sigma(x) sigma(-x). */
int
FN (kto_loss) (num_ptr loss, num_ptr losses, num_ptr grad, num_ptr reward, num_ptr z0,
               num_srcptr logp, num_srcptr ref, const long *desirable, size_t B,
               num_srcptr kl_logp, num_srcptr kl_ref, size_t M,
               num_srcptr beta, num_srcptr w_d, num_srcptr w_u)
{
  num_ptr r = NULL;
  num_t bt, wd, wu, z, x, s, t, l, g, sum;
  int status;
  if (!loss || !desirable)
    RLREF_ERROR ("loss or labels missing", RLREF_EINVAL);
  status = check_batch (B, logp, ref, NULL, NULL, 2);
  if (status == RLREF_SUCCESS)
    status = check_batch (M, kl_logp, kl_ref, NULL, NULL, 2);
  if (status == RLREF_SUCCESS)
    status = check_param (beta, 1, "beta must be finite and > 0");
  if (status == RLREF_SUCCESS)
    status = check_param (w_d, 0, "desirable weight must be finite and >= 0");
  if (status == RLREF_SUCCESS)
    status = check_param (w_u, 0, "undesirable weight must be finite and >= 0");
  if (status)
    return status;
  for (size_t i = 0; i < B; i++)
    if (desirable[i] != 0 && desirable[i] != 1)
      RLREF_ERROR ("a label must be 1 (desirable) or 0 (undesirable)", RLREF_EDOM);
  num_init (bt); num_init (wd); num_init (wu); num_init (z); num_init (x); num_init (s);
  num_init (t); num_init (l); num_init (g); num_init (sum);
  num_set (bt, beta);
  num_set (wd, w_d);
  num_set (wu, w_u);
  r = num_vec_new (B);
  if (!r)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t j = 0; j < M; j++)
    {
      num_sub (t, AT (kl_logp, j), AT (kl_ref, j));
      num_add (z, z, t);
    }
  num_div_si (z, z, (long) M);
  num_set_zero (t);
  num_max (z, z, t);                            /* clamped at 0 */
  for (size_t i = 0; i < B; i++)
    {
      num_sub (AT (r, i), AT (logp, i), AT (ref, i));
      num_sub (x, AT (r, i), z);
      num_mul (x, x, bt);
      if (!num_is_finite (z) || !num_is_finite (x))
        FAIL ("the KL reference point or a log-ratio overflows", RLREF_ERANGE);
    }
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      num_sub (x, AT (r, i), z);
      num_mul (x, x, bt);                       /* beta (r_i - z0) */
      KEEP (FN (sigmoid) (s, x));
      num_neg (t, x);
      KEEP (FN (sigmoid) (t, t));
      num_mul (g, s, t);
      num_mul (g, g, bt);                       /* beta s (1 - s) */
      if (desirable[i])
        {
          num_mul (l, wd, t);
          num_mul (g, g, wd);
          num_neg (g, g);
        }
      else
        {
          num_mul (l, wu, s);
          num_mul (g, g, wu);
        }
      num_add (sum, sum, l);
      if (losses)
        num_set (AT (losses, i), l);
      if (grad)
        num_div_si (AT (grad, i), g, (long) B);
    }
  scaled (reward, bt, r, B);
  num_div_si (loss, sum, (long) B);
  if (z0)
    num_set (z0, z);
done:
  num_vec_free (r, B);
  num_clear (bt); num_clear (wd); num_clear (wu); num_clear (z); num_clear (x); num_clear (s);
  num_clear (t); num_clear (l); num_clear (g); num_clear (sum);
  return status;
}

/* The SFT term on the chosen completions and its derivative with respect
 * to logp_w,i:
 *   token mean  nll = -sum logp_w / N,  N = sum n_w,  d/dlogp_w,i = -1/N
 *   seq mean    nll = (1/B) sum (-logp_w,i/n_w,i),  d/dlogp_w,i = -1/(B n_w,i)
 * dnll (B values) may be NULL. */
static void
sft_nll (num_ptr nll, num_ptr dnll, num_srcptr logp_w, const long *n_w, size_t B,
         enum rlref_nll_mean mean)
{
  num_t s, N, t;
  num_init (s); num_init (N); num_init (t);
  for (size_t i = 0; i < B; i++)
    if (mean == RLREF_NLL_TOKEN_MEAN)
      {
        num_add (s, s, AT (logp_w, i));
        num_add_d (N, N, (double) n_w[i]);
      }
    else
      {
        num_div_si (t, AT (logp_w, i), n_w[i]);
        num_add (s, s, t);
      }
  if (mean == RLREF_NLL_SEQ_MEAN)
    num_set_si (N, (long) B);
  num_div (nll, s, N);
  num_neg (nll, nll);
  for (size_t i = 0; dnll && i < B; i++)
    {
      if (mean == RLREF_NLL_TOKEN_MEAN)
        num_d_div (AT (dnll, i), -1.0, N);
      else
        {
          num_mul_si (t, N, n_w[i]);
          num_d_div (AT (dnll, i), -1.0, t);
        }
    }
  num_clear (s); num_clear (N); num_clear (t);
}

/* DPO-SIMPO: with a = logp/n and z_i = beta (a_w,i - a_l,i) - gamma,
 *   L = (1/B) sum_i softplus(-z_i) + alpha nll  (token-mean nll),
 *   dL/dlogp_w,i = -sigma(-z_i) beta/(B n_w,i) - alpha/N,
 *   dL/dlogp_l,i =  sigma(-z_i) beta/(B n_l,i). */
int
FN (simpo_loss) (num_ptr loss, num_ptr losses, num_ptr grad_w, num_ptr grad_l,
                 num_ptr reward_w, num_ptr reward_l, num_ptr nll,
                 num_srcptr logp_w, num_srcptr logp_l, const long *n_w, const long *n_l,
                 size_t B, num_srcptr beta, num_srcptr gamma, num_srcptr alpha)
{
  num_ptr aw = NULL, al = NULL, dn = NULL;
  num_t bt, gm, al_, z, l, s, t, sum, m;
  int status;
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_counted (B, logp_w, logp_l, n_w, n_l);
  if (status == RLREF_SUCCESS)
    status = check_param (beta, 1, "beta must be finite and > 0");
  if (status == RLREF_SUCCESS && (!gamma || !num_is_finite (gamma)))
    RLREF_ERROR ("the margin gamma must be finite", gamma ? RLREF_ENAN : RLREF_EINVAL);
  if (status == RLREF_SUCCESS)
    status = check_param (alpha, 0, "the NLL weight alpha must be finite and >= 0");
  if (status)
    return status;
  num_init (bt); num_init (gm); num_init (al_); num_init (z); num_init (l); num_init (s);
  num_init (t); num_init (sum); num_init (m);
  num_set (bt, beta);
  num_set (gm, gamma);
  num_set (al_, alpha);
  aw = num_vec_new (B);
  al = num_vec_new (B);
  dn = num_vec_new (B);
  if (!aw || !al || !dn)
    FAIL ("out of memory", RLREF_ENOMEM);
  per_token (aw, logp_w, n_w, B);
  per_token (al, logp_l, n_l, B);
  for (size_t i = 0; i < B; i++)
    {
      num_sub (z, AT (aw, i), AT (al, i));
      num_mul (z, z, bt);
      num_sub (z, z, gm);
      if (!num_is_finite (z))
        FAIL ("the margin overflows", RLREF_ERANGE);
    }
  sft_nll (m, dn, logp_w, n_w, B, RLREF_NLL_TOKEN_MEAN);
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      num_sub (z, AT (aw, i), AT (al, i));
      num_mul (z, z, bt);
      num_sub (z, z, gm);
      num_neg (z, z);
      KEEP (FN (softplus) (l, z));              /* -log sigma(z) */
      KEEP (FN (sigmoid) (s, z));               /* sigma(-z) */
      num_mul (s, s, bt);
      num_div_si (s, s, (long) B);
      num_add (sum, sum, l);
      if (losses)
        num_set (AT (losses, i), l);
      if (grad_w)
        {
          num_div_si (t, s, n_w[i]);
          num_neg (t, t);
          num_mul (AT (grad_w, i), al_, AT (dn, i));
          num_add (AT (grad_w, i), AT (grad_w, i), t);
        }
      if (grad_l)
        num_div_si (AT (grad_l, i), s, n_l[i]);
    }
  scaled (reward_w, bt, aw, B);
  scaled (reward_l, bt, al, B);
  num_div_si (sum, sum, (long) B);
  num_mul (t, al_, m);
  num_add (loss, sum, t);
  if (nll)
    num_set (nll, m);
done:
  num_vec_free (aw, B);
  num_vec_free (al, B);
  num_vec_free (dn, B);
  num_clear (bt); num_clear (gm); num_clear (al_); num_clear (z); num_clear (l); num_clear (s);
  num_clear (t); num_clear (sum); num_clear (m);
  return status;
}

/* Log odds of a per-token mean log-probability a <= 0:
 *   lo(a) = log(e^a / (1 - e^a)) = a - log1mexp(a),  +inf at a = 0. */
static int
log_odds_of (num_ptr lo, num_srcptr a)
{
  int status;
  if (num_is_zero (a))
    {
      num_set_inf (lo, 1);
      return RLREF_SUCCESS;
    }
  status = FN (log1mexp) (lo, a);
  num_sub (lo, a, lo);
  return status;
}

/* expm1(-a) = e^{-lo(a)} = m 2^k for a per-token mean a = logp/n <= 0;
 * returns 1 where a is tiny: logp != 0 and |a| < 2^-60, where binary64's
 * a may be subnormal (or 0) and m = ((-logp 2^-k)/n) (expm1(-a)/(-a)), k
 * the binary exponent of logp, is not (the factor is 1 in binary64
 * there); elsewhere m = expm1(-a), k = 0 (+0 at a = 0). */
static int
neg_expm1_scaled (num_ptr m, long *k, num_srcptr a, num_srcptr logp, long n)
{
  num_t u, g;
  int tiny;
  NUM_INIT (u, g);
  num_abs (u, a);
  tiny = !num_is_zero (logp) && num_cmp_d (u, 0x1p-60) < 0;
  num_d_sub (u, 0.0, a);                        /* -a, +0 at a = 0 */
  *k = 0;
  if (!tiny)
    num_expm1 (m, u);
  else
    {
      *k = num_get_exp (logp);
      num_mul_2si (m, logp, -*k);
      num_neg (m, m);
      num_div_si (m, m, n);
      if (!num_is_zero (u))
        {
          num_expm1 (g, u);
          num_div (g, g, u);
          num_mul (m, m, g);
        }
    }
  NUM_CLEAR (u, g);
  return tiny;
}

/* lo(a) of a per-token mean, m 2^k = expm1(-a) as neg_expm1_scaled gives
 * it: log_odds_of (a), or where a is tiny lo(a) = -log(expm1(-a)) =
 * -(log m + k log 2). */
static int
log_odds_scaled (num_ptr lo, num_srcptr a, num_srcptr m, long k, int tiny)
{
  num_t t;
  if (!tiny)
    return log_odds_of (lo, a);
  num_init (t);
  num_set_si (t, 2);
  num_log (t, t);
  num_mul_si (t, t, k);
  num_log (lo, m);
  num_add (lo, lo, t);
  num_neg (lo, lo);
  num_clear (t);
  return RLREF_SUCCESS;
}

/* DPO-ORPO (ORPO's odds ratio on per-token means a = logp/n):
 *   L_i = lo(a_w,i) - lo(a_l,i),  l_i = lambda softplus(-L_i),
 *   loss = nll + (1/B) sum_i l_i,
 *   dl/da_w = -lambda sigma(-L)/(1 - e^{a_w}) = -lambda / ((1 - e^{a_w}) + e^{a_w - lo(a_l)}),
 *   dl/da_l =  lambda sigma(-L)/(1 - e^{a_l}),
 * since d lo/da = 1/(1 - e^a) and (1 - e^{a_w}) (1 + e^L) = (1 - e^{a_w})
 * + e^{a_w - lo(a_l)}: the first form is finite at a_w = 0 (the one-sided
 * limit -lambda e^{lo(a_l)}), where sigma(-L) = 0 and 1 - e^{a_w} = 0.
 * e^{-lo(a)} = e^{-a} - 1 = expm1(-a), so for L > 0 (where softplus(-L)
 * and sigma(-L) are about e^{-L}) e^{-L} = r = expm1(-a_w)/expm1(-a_l),
 * softplus(-L) = log1p(r), sigma(-L) = r/(1 + r), and e^{a_w - lo(a_l)}
 * = e^{a_w} expm1(-a_l): a quotient and a product, where exp of the
 * rounded L (L = 310 from a_w = -2^-445) would be 128 ulp off; the forms
 * in L where these overflow (or e^{a_w} is below DBL_MIN).  A tiny mean
 * (neg_expm1_scaled: within 2^-60 of 0, subnormal or 0 in binary64) enters
 * as expm1(-a) = m 2^k: lo(a) = -(log m + k log 2), r = (m_w/m_l)
 * 2^(k_w - k_l), 1 - e^{a_l} = e^{a_l} m_l 2^k_l, and dl/da_w = -lambda
 * e^{-a_w}/(expm1(-a_w) + expm1(-a_l)), each power of two applied last. */
int
FN (orpo_loss) (num_ptr loss, num_ptr losses, num_ptr grad_w, num_ptr grad_l,
                num_ptr log_odds, num_ptr nll, num_ptr reward_w, num_ptr reward_l,
                num_srcptr logp_w, num_srcptr logp_l, const long *n_w, const long *n_l,
                size_t B, enum rlref_nll_mean nll_mean, num_srcptr lambda)
{
  num_ptr aw = NULL, al = NULL, L = NULL, dn = NULL;
  num_t lam, low, lol, l, s, t, sum, m, ew, el, r, q;
  long kw, kl;
  int status, quot, tw, tl;
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  if (nll_mean != RLREF_NLL_TOKEN_MEAN && nll_mean != RLREF_NLL_SEQ_MEAN)
    RLREF_ERROR ("unknown NLL mean", RLREF_EINVAL);
  status = check_counted (B, logp_w, logp_l, n_w, n_l);
  if (status == RLREF_SUCCESS)
    status = check_param (lambda, 0, "lambda must be finite and >= 0");
  if (status)
    return status;
  for (size_t i = 0; i < B; i++)
    {
      if (num_sgn (AT (logp_w, i)) > 0 || num_sgn (AT (logp_l, i)) > 0)
        RLREF_ERROR ("a log-probability must be <= 0", RLREF_EDOM);
      if (num_is_zero (AT (logp_l, i)))
        RLREF_ERROR ("a rejected completion of probability 1 has infinite odds: the loss is +inf",
                     RLREF_EDOM);
    }
  num_init (lam); num_init (low); num_init (lol); num_init (l); num_init (s); num_init (t);
  num_init (sum); num_init (m); num_init (ew); num_init (el); num_init (r); num_init (q);
  num_set (lam, lambda);
  aw = num_vec_new (B);
  al = num_vec_new (B);
  L = num_vec_new (B);
  dn = num_vec_new (B);
  if (!aw || !al || !L || !dn)
    FAIL ("out of memory", RLREF_ENOMEM);
  per_token (aw, logp_w, n_w, B);
  per_token (al, logp_l, n_l, B);
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      tw = neg_expm1_scaled (ew, &kw, AT (aw, i), AT (logp_w, i), n_w[i]);
      tl = neg_expm1_scaled (el, &kl, AT (al, i), AT (logp_l, i), n_l[i]);
      KEEP (log_odds_scaled (low, AT (aw, i), ew, kw, tw));
      KEEP (log_odds_scaled (lol, AT (al, i), el, kl, tl));
      num_sub (AT (L, i), low, lol);
    }
  if (status)
    goto done;
  sft_nll (m, dn, logp_w, n_w, B, nll_mean);
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      tw = neg_expm1_scaled (ew, &kw, AT (aw, i), AT (logp_w, i), n_w[i]);
      tl = neg_expm1_scaled (el, &kl, AT (al, i), AT (logp_l, i), n_l[i]);
      quot = num_sgn (AT (L, i)) > 0 && num_is_finite (ew) && num_is_finite (el);
      num_neg (t, AT (L, i));
      if (quot)
        {
          num_div (q, ew, el);
          num_mul_2si (r, q, kw - kl);          /* e^{-L} */
          num_log1p (l, r);
        }
      else
        KEEP (FN (softplus) (l, t));            /* -log sigma(L) */
      num_mul (l, l, lam);
      num_add (sum, sum, l);
      if (grad_l)
        {
          long x = 0;
          if (quot)
            {
              num_add_d (s, r, 1.0);
              num_div (s, q, s);                /* sigma(-L) 2^-(kw - kl) */
              x = kw - kl;
            }
          else
            KEEP (FN (sigmoid) (s, t));         /* sigma(-L) */
          if (tl)
            {
              num_exp (t, AT (al, i));
              num_mul (t, t, el);               /* (1 - e^{a_l}) 2^-kl */
              x -= kl;
            }
          else
            {
              num_expm1 (t, AT (al, i));
              num_neg (t, t);                   /* 1 - e^{a_l} > 0 */
            }
          num_div (s, s, t);
          num_mul (s, s, lam);
          num_div_si (s, s, (long) B);
          num_div_si (s, s, n_l[i]);
          num_mul_2si (AT (grad_l, i), s, x);
        }
      if (grad_w && (tw || tl) && num_is_finite (ew) && num_is_finite (el))
        {
          /* -lambda e^{-a_w}/(e^{-lo(a_w)} + e^{-lo(a_l)}), the sum 2^x t */
          long x = kw > kl ? kw : kl;
          num_mul_2si (t, ew, kw - x);
          num_mul_2si (s, el, kl - x);
          num_add (t, t, s);
          num_d_sub (s, 0.0, AT (aw, i));
          num_exp (s, s);
          num_div (s, s, t);
          num_mul (s, s, lam);
          num_neg (s, s);
          num_div_si (s, s, (long) B);
          num_div_si (s, s, n_w[i]);
          num_mul_2si (s, s, -x);
          num_add (AT (grad_w, i), s, AT (dn, i));
        }
      else if (grad_w)
        {
          num_exp (t, AT (aw, i));
          if (num_is_finite (el) && num_cmp_d (t, DBL_MIN) >= 0)
            num_mul (t, t, el);                 /* e^{a_w - lo(a_l)} */
          else
            {
              KEEP (log_odds_of (lol, AT (al, i)));
              num_sub (t, AT (aw, i), lol);
              num_exp (t, t);
            }
          num_expm1 (s, AT (aw, i));
          num_sub (t, t, s);                    /* + (1 - e^{a_w}) */
          num_div (s, lam, t);
          num_neg (s, s);
          num_div_si (s, s, (long) B);
          num_div_si (s, s, n_w[i]);
          num_add (AT (grad_w, i), s, AT (dn, i));
        }
      if (losses)
        num_set (AT (losses, i), l);
      if (log_odds)
        num_set (AT (log_odds, i), AT (L, i));
    }
  scaled (reward_w, lam, aw, B);
  scaled (reward_l, lam, al, B);
  num_div_si (sum, sum, (long) B);
  num_add (loss, m, sum);
  if (nll)
    num_set (nll, m);
done:
  num_vec_free (aw, B);
  num_vec_free (al, B);
  num_vec_free (L, B);
  num_vec_free (dn, B);
  num_clear (lam); num_clear (low); num_clear (lol); num_clear (l); num_clear (s); num_clear (t);
  num_clear (sum); num_clear (m); num_clear (ew); num_clear (el); num_clear (r); num_clear (q);
  return status;
}

/* r = a rounded to binary32. */
static void
f32 (num_ptr r, num_srcptr a)
{
  num_round_f32 (r, a);
}

/* TRL's log1mexp on a binary32 a < 0, each step rounded to binary32:
 *   a < f32(-ln 2):  log1p(-f32(e^a)),  else  log(-f32(expm1(a)))
 * (torch.where evaluates both branches; only the chosen one enters the
 * value).  br receives the branch's intermediate, e^a or expm1(a). */
static int
log1mexp_f32 (num_ptr L, num_ptr br, num_srcptr a, num_srcptr t)
{
  if (num_cmp (a, t) < 0)
    {
      num_exp (br, a);
      f32 (br, br);                             /* e = f32(e^a) < 1 */
      num_neg (L, br);
      num_log1p (L, L);
      f32 (L, L);
    }
  else
    {
      num_expm1 (br, a);
      f32 (br, br);                             /* m = f32(expm1(a)) < 0 */
      num_neg (L, br);
      num_log (L, L);
      f32 (L, L);
    }
  return num_is_finite (L) ? RLREF_SUCCESS : RLREF_ERANGE;
}

/* The gradient autograd sends to a through L = log1mexp_f32(a), for an
 * incoming binary32 gradient G on L, br as log1mexp_f32 left it:
 *   branch log1p:  f32(f32(-f32(G/f32(1 - e))) e)   (Log1p, Neg, Exp backward)
 *   branch log:    f32(f32(-f32(G/(-m))) f32(m + 1)) (Log, Neg, Expm1 backward)
 * The unused branch receives 0, which adds nothing unless it is NaN: 0/0
 * where e^a rounds to 1 (checked by the caller). */
static void
log1mexp_f32_grad (num_ptr g, num_srcptr G, num_srcptr a, num_srcptr t, num_srcptr br,
                   num_ptr s)
{
  if (num_cmp (a, t) < 0)
    {
      num_d_sub (s, 1.0, br);
      f32 (s, s);                               /* f32(u + 1), u = -e */
      num_div (g, G, s);
      f32 (g, g);
      num_neg (g, g);
      num_mul (g, g, br);
      f32 (g, g);
    }
  else
    {
      num_neg (s, br);                          /* v = -m */
      num_div (g, G, s);
      f32 (g, g);
      num_neg (g, g);
      num_add_d (s, br, 1.0);
      f32 (s, s);                               /* f32(m + 1) */
      num_mul (g, g, s);
      f32 (g, g);
    }
}

/* DPO-ORPO as TRL's ORPOTrainer computes it (trl/experimental/orpo
 * orpo_trainer.py: log1mexp, odds_ratio_loss, get_batch_loss_metrics) on
 * binary64 log-probabilities: a = logp/n in binary64 (get_batch_logps),
 * cast to binary32 (odds_ratio_loss's .float()), then in binary32, each
 * operation rounded:
 *   log_odds = f32(f32(a_w - a_l) - f32(L(a_w) - L(a_l))),  L = log1mexp_f32,
 *   ratio = logsigmoid(log_odds) = f32(min(x, 0) - f32(log1p(z))), z = f32(e^-|x|)
 *   (torch's CPU kernel), losses[i] = -f32(f32(lambda) ratio) (TRL's losses
 *   negated), m = f32(S/B), S the left-to-right binary32 sum of TRL's losses;
 * nll the token mean in binary64 (cross-entropy on the float64 logits);
 * loss = nll - m.  Gradients as autograd forms them: g = f32(f32(-1/B)
 * f32(lambda)) into ratio, g_lo = f32(f32(d - s f32(z/f32(1 + z))) g) (d =
 * 1, s = 1 for x < 0, else d = 0, s = -1: log_sigmoid_backward), then to
 * a_w f32(g_lo + t_w), t_w the log1mexp gradient of -g_lo, to a_l
 * f32(-g_lo + t_l), t_l that of g_lo; grad_w = g_aw/n_w - 1/N, grad_l =
 * g_al/n_l (the cast back to binary64 and the division by n in binary64).
 * rewards f32(f32(lambda) a).  e^x, expm1, log1p and log correctly rounded
 * (torch's scalar loop for a batch below 8 elements calls glibc's; its
 * logsigmoid kernel uses SLEEF's exp and log1p, within 1 ulp).  ERANGE
 * where TRL's value or gradient is not finite: a per-token mean beyond
 * binary32, or e^a rounding to 1 in binary32 (-2^-25 <= a <= 0, a = 0
 * included), where the unused log1p branch's backward is 0/0 = NaN. */
int
FN (orpo_loss_f32) (num_ptr loss, num_ptr losses, num_ptr grad_w, num_ptr grad_l,
                    num_ptr log_odds, num_ptr nll, num_ptr reward_w, num_ptr reward_l,
                    num_srcptr logp_w, num_srcptr logp_l, const long *n_w, const long *n_l,
                    size_t B, num_srcptr lambda)
{
  num_ptr aw = NULL, al = NULL, dn = NULL;
  num_ptr a2[2];
  num_t lam, t, lw, ll, bw, bl, x, z, s, r, g, glo, G, h, sum, m;
  int status;
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_counted (B, logp_w, logp_l, n_w, n_l);
  if (status == RLREF_SUCCESS)
    status = check_param (lambda, 0, "lambda must be finite and >= 0");
  if (status)
    return status;
  for (size_t i = 0; i < B; i++)
    {
      if (num_sgn (AT (logp_w, i)) > 0 || num_sgn (AT (logp_l, i)) > 0)
        RLREF_ERROR ("a log-probability must be <= 0", RLREF_EDOM);
      if (num_is_zero (AT (logp_l, i)))
        RLREF_ERROR ("a rejected completion of probability 1 has infinite odds: the loss is +inf",
                     RLREF_EDOM);
    }
  num_init (lam); num_init (t); num_init (lw); num_init (ll); num_init (bw); num_init (bl);
  num_init (x); num_init (z); num_init (s); num_init (r); num_init (g); num_init (glo);
  num_init (G); num_init (h); num_init (sum); num_init (m);
  f32 (lam, lambda);
  num_set_d (t, -0.6931471805599453);
  f32 (t, t);                                   /* log1mexp's branch point in binary32 */
  aw = num_vec_new (B);
  al = num_vec_new (B);
  dn = num_vec_new (B);
  if (!aw || !al || !dn)
    FAIL ("out of memory", RLREF_ENOMEM);
  per_token (aw, logp_w, n_w, B);
  per_token (al, logp_l, n_l, B);
  a2[0] = aw;
  a2[1] = al;
  for (size_t i = 0; i < B; i++)
    for (int k = 0; k < 2; k++)
      {
        num_ptr a = AT (a2[k], i);
        num_set_d (a, num_get_d (a));           /* the binary64 mean */
        f32 (a, a);                             /* .float() */
        if (!num_is_finite (a))
          FAIL ("a per-token log-probability beyond the binary32 range", RLREF_ERANGE);
        num_exp (s, a);
        f32 (s, s);
        if (num_cmp_d (s, 1.0) == 0)
          FAIL ("e^a rounds to 1 in binary32 (a within 2^-25 of 0): TRL's log1mexp gives a "
                "NaN gradient (0/0 in its unused log1p branch) or an infinite log_odds",
                RLREF_ERANGE);
      }
  /* every input has been read */
  sft_nll (m, dn, logp_w, n_w, B, RLREF_NLL_TOKEN_MEAN);
  num_set_si (s, -1);
  num_div_si (g, s, (long) B);
  f32 (g, g);                                   /* MeanBackward: f32(-1/B) */
  num_mul (g, g, lam);
  f32 (g, g);                                   /* into ratio */
  num_set_zero (sum);
  for (size_t i = 0; i < B && status == RLREF_SUCCESS; i++)
    {
      KEEP (log1mexp_f32 (lw, bw, AT (aw, i), t));
      KEEP (log1mexp_f32 (ll, bl, AT (al, i), t));
      if (status)
        break;
      num_sub (x, AT (aw, i), AT (al, i));
      f32 (x, x);
      num_sub (s, lw, ll);
      f32 (s, s);
      num_sub (x, x, s);
      f32 (x, x);                               /* log_odds */
      if (log_odds)
        num_set (AT (log_odds, i), x);
      num_abs (z, x);
      num_neg (z, z);
      num_exp (z, z);
      f32 (z, z);                               /* buffer e^-|x| */
      num_log1p (s, z);
      f32 (s, s);
      num_set_zero (r);
      num_min (r, x, r);
      num_sub (r, r, s);
      f32 (r, r);                               /* ratio = logsigmoid(x) */
      num_mul (r, lam, r);
      f32 (r, r);                               /* TRL's losses[i] */
      num_add (sum, sum, r);
      f32 (sum, sum);
      if (losses)
        num_neg (AT (losses, i), r);
      /* log_sigmoid_backward */
      num_add_d (s, z, 1.0);
      f32 (s, s);
      num_div (s, z, s);
      f32 (s, s);                               /* z/(1 + z) */
      if (num_sgn (x) < 0)
        num_d_sub (s, 1.0, s);                  /* 1 - s */
      f32 (s, s);                               /* (d - sign s), exact for x >= 0 */
      num_mul (glo, s, g);
      f32 (glo, glo);
      /* to a_w: g_lo directly, -g_lo through L(a_w) */
      num_neg (G, glo);
      log1mexp_f32_grad (h, G, AT (aw, i), t, bw, s);
      num_add (h, glo, h);
      f32 (h, h);
      if (grad_w)
        {
          num_div_si (h, h, n_w[i]);
          num_add (AT (grad_w, i), h, AT (dn, i));
        }
      /* to a_l: -g_lo directly, g_lo through L(a_l) */
      log1mexp_f32_grad (h, glo, AT (al, i), t, bl, s);
      num_sub (h, h, glo);
      f32 (h, h);
      if (grad_l)
        num_div_si (AT (grad_l, i), h, n_l[i]);
    }
  if (status)
    goto done;
  num_div_si (sum, sum, (long) B);
  f32 (sum, sum);                               /* losses.mean() */
  for (size_t i = 0; i < B; i++)
    {
      if (reward_w)
        {
          num_mul (AT (reward_w, i), lam, AT (aw, i));
          f32 (AT (reward_w, i), AT (reward_w, i));
        }
      if (reward_l)
        {
          num_mul (AT (reward_l, i), lam, AT (al, i));
          f32 (AT (reward_l, i), AT (reward_l, i));
        }
    }
  num_sub (loss, m, sum);                       /* policy_nll_loss - losses.mean() */
  if (nll)
    num_set (nll, m);
done:
  num_vec_free (aw, B);
  num_vec_free (al, B);
  num_vec_free (dn, B);
  num_clear (lam); num_clear (t); num_clear (lw); num_clear (ll); num_clear (bw); num_clear (bl);
  num_clear (x); num_clear (z); num_clear (s); num_clear (r); num_clear (g); num_clear (glo);
  num_clear (G); num_clear (h); num_clear (sum); num_clear (m);
  return status;
}
