/* flow.h -- internal: the one exit of a formula function, and the checks
 * of its arguments; shared by every formula source.
 *
 * A function that makes temporaries declares `int status', makes them,
 * and leaves through one label `done:' that frees them all and returns
 * status.  FAIL and TRY go there; the argument checks, used before the
 * first temporary is made, return at once. */
#ifndef RLREF_FLOW_H
#define RLREF_FLOW_H
#include "rlref/num.h"
#include "rlref/status.h"

/* Records the error (rlref_error: the message and the handler) and
 * leaves with status = code. */
#define FAIL(reason, code)                                            \
  do {                                                                \
    status = (code);                                                  \
    rlref_error ((reason), __FILE__, __LINE__, status);               \
    goto done;                                                        \
  } while (0)

/* Leaves with the status of a call that failed (the callee recorded it). */
#define TRY(call)                                                     \
  do {                                                                \
    if ((status = (call)) != RLREF_SUCCESS)                           \
      goto done;                                                      \
  } while (0)

/* Runs a check or a call while status holds no error, and goes on: a
 * sequence of steps that stops at the first error without leaving. */
#define THEN(call)                                                    \
  do {                                                                \
    if (status == RLREF_SUCCESS)                                      \
      status = (call);                                                \
  } while (0)

/* Leaves with status = code and the reason in *why, not recorded: for a
 * step of an iteration that the caller may retry from another start, and
 * that records the error itself when it gives up (newton.c). */
#define FAIL_QUIET(reason, code)                                      \
  do {                                                                \
    status = (code);                                                  \
    *why = (reason);                                                  \
    goto done;                                                        \
  } while (0)

/* Keeps the first error: status takes the call's status unless it holds
 * an error already.  For work that goes on after an error (every element
 * of a batch is still written). */
#define KEEP(call)                                                    \
  do {                                                                \
    int keep_s_ = (call);                                             \
    if (status == RLREF_SUCCESS)                                      \
      status = keep_s_;                                               \
  } while (0)

/* ENAN, recorded and returned, when the argument x is not finite. */
#define CHECK_FINITE(x)                                               \
  do {                                                                \
    if (!num_is_finite (x))                                           \
      RLREF_ERROR ("non-finite argument", RLREF_ENAN);                \
  } while (0)

/* ENAN, recorded and returned, when the argument x is NaN. */
#define CHECK_NOT_NAN(x)                                              \
  do {                                                                \
    if (num_is_nan (x))                                               \
      RLREF_ERROR ("NaN argument", RLREF_ENAN);                       \
  } while (0)

/* ERANGE, recorded, for an output whose exact value lies beyond the range
 * of the backend: it is written as +-inf (the rounding IEEE 754 gives
 * it), the other outputs as they are, and the status says so, as GSL's
 * overflow errors do.  An expression: status = RANGE_ERROR (). */
#define RANGE_ERROR() rlref_range_error (__FILE__, __LINE__)

static inline int
rlref_range_error (const char *file, int line)
{
  rlref_error ("result beyond the floating-point range (written as +-inf)", file, line,
               RLREF_ERANGE);
  return RLREF_ERANGE;
}

#endif
