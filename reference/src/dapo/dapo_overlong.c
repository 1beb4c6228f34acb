/* dapo_overlong.c -- the soft overlong penalty of DAPO (DAPO-OVERLONG,
 * seed 000 13.34) in the three readings of CONVENTIONS.md "DAPO overlong
 * penalty and dynamic sampling", and the overlong filter mask; written
 * once for both backends.  Lengths are integers: e = L - (L_max - L_cache)
 * is exact, and each penalty is one quotient (with the factor, a product
 * and a quotient). */
#include "rlref/num.h"
#include "rlref/dapo.h"
#include "flow.h"

/* Lengths up to 2^53: exact in binary64. */
#define MAX_LENGTH 9007199254740992L

/* 13.34:
 *   r_len(L) = 0                                  for L <= L_max - L_cache,
 *            = ((L_max - L_cache) - L)/L_cache     for L_max - L_cache < L <= L_max,
 *            = -1                                  for L > L_max  (paper, TRL);
 * verl: min(-(L - (L_max - L_cache))/L_cache f, 0), no floor beyond L_max,
 * in binary32 (-exceed_len / overlong_buffer_len on verl's 0-dim int64
 * tensor is a float32 true division, then times f in float32):
 * f32(f32(f32(-e)/f32(L_cache)) f32(f)), exact wherever L_cache is a power
 * of two and the lengths below 2^24;
 * OpenRLHF: exceed = min(L - (L_max - L_cache), L_cache), -exceed/L_cache f
 * when exceed > 0, else 0 (so L_cache = 0 gives no penalty).  The overlong
 * filter (000 section 6.4; no library has it) masks a response that reached
 * L_max tokens: filter = 0 for L >= L_max, else 1. */
int
FN (dapo_overlong) (num_ptr penalty, num_ptr filter, const long *lengths, size_t n, long L_max,
                    long L_cache, enum rlref_dapo_overlong reading, num_srcptr factor)
{
  num_t f, t;
  int status = RLREF_SUCCESS;
  if (!penalty)
    RLREF_ERROR ("dapo_overlong: penalty missing", RLREF_EINVAL);
  if (reading != RLREF_DAPO_OVERLONG_PAPER && reading != RLREF_DAPO_OVERLONG_VERL
      && reading != RLREF_DAPO_OVERLONG_OPENRLHF)
    RLREF_ERROR ("dapo_overlong: unknown reading", RLREF_EINVAL);
  if (!lengths || n == 0)
    RLREF_ERROR ("lengths: at least one response", RLREF_EINVAL);
  if (reading != RLREF_DAPO_OVERLONG_PAPER)
    {
      if (!factor)
        RLREF_ERROR ("dapo_overlong: the penalty factor is missing", RLREF_EINVAL);
      CHECK_FINITE (factor);
      if (num_sgn (factor) < 0)
        RLREF_ERROR ("the penalty factor must be >= 0", RLREF_EDOM);
    }
  if (L_max < 1 || L_max > MAX_LENGTH)
    RLREF_ERROR ("L_max must be 1 to 2^53", RLREF_EDOM);
  if (L_cache < 0 || L_cache > L_max)
    RLREF_ERROR ("L_cache must be 0 to L_max", RLREF_EDOM);
  if (L_cache == 0 && reading == RLREF_DAPO_OVERLONG_VERL)
    RLREF_ERROR ("L_cache = 0: verl asserts overlong_buffer.len > 0", RLREF_EDOM);
  for (size_t i = 0; i < n; i++)
    if (lengths[i] < 0 || lengths[i] > MAX_LENGTH)
      RLREF_ERROR ("a length must be 0 to 2^53", RLREF_EDOM);
  num_init (f);
  num_init_prec (t, 64 + num_prec ());
  if (reading == RLREF_DAPO_OVERLONG_PAPER)
    num_set_si (f, 1);
  else
    num_set (f, factor);
  for (size_t i = 0; i < n; i++)
    {
      long L = lengths[i], e = L - (L_max - L_cache);
      num_ptr p = AT (penalty, i);
      if (reading == RLREF_DAPO_OVERLONG_OPENRLHF && e > L_cache)
        e = L_cache;                                    /* min(exceed, buffer) */
      if (e <= 0 || num_is_zero (f))
        num_set_zero (p);
      else if (reading == RLREF_DAPO_OVERLONG_PAPER && L > L_max)
        num_set_si (p, -1);
      else if (reading == RLREF_DAPO_OVERLONG_VERL)
        {
          /* binary32: f32(f32(-e)/f32(L_cache)) * f32(f), rounded */
          num_set_si (t, -e);
          num_round_f32 (t, t);
          num_set_si (p, L_cache);
          num_round_f32 (p, p);
          num_div (t, t, p);
          num_round_f32 (t, t);
          num_round_f32 (p, f);
          num_mul (p, t, p);
          num_round_f32 (p, p);
        }
      else
        {
          num_set_si (t, -e);                           /* exact */
          if (reading == RLREF_DAPO_OVERLONG_PAPER)
            num_div_si (p, t, L_cache);
          else
            {
              num_mul (t, t, f);                        /* exact in MPFR (64 more bits) */
              num_div_si (p, t, L_cache);
            }
        }
      if (filter)
        num_set_si (AT (filter, i), L >= L_max ? 0 : 1);
    }
  num_clear (f);
  num_clear (t);
  return status;
}
