/* rlref/workspace.h -- a per-evaluation workspace: a precision and a
 * reusable pool of temporaries.
 *
 * A kernel called many times takes its temporaries from a workspace
 * instead of allocating them:
 *
 *     size_t mark = rlref_ws_mark (ws);
 *     num_ptr t = num_ws_take (ws, 3);       (3 scalars, set to +0)
 *     ...
 *     rlref_ws_release (ws, mark);           (gives them back)
 *
 * Takes and releases nest like a stack.  The pool only grows: a release
 * keeps the memory, and the next take of the same size reuses it, so once a
 * kernel has run, calling it again with the same sizes allocates nothing.
 * A workspace holds binary64 and MPFR temporaries alike; its MPFR
 * temporaries have the precision given to rlref_ws_new, and nothing here
 * reads the thread's working precision.  A workspace belongs to one thread
 * at a time.  Temporaries taken from it are never cleared one by one
 * (num_clear must not be called on them). */
#ifndef RLREF_WORKSPACE_H
#define RLREF_WORKSPACE_H

#include <stddef.h>
#include <mpfr.h>

typedef struct rlref_ws rlref_ws;

/* A new empty workspace whose MPFR temporaries have prec bits (clamped to
 * [MPFR_PREC_MIN, RLREF_MAX_PREC]); NULL if memory is exhausted. */
rlref_ws *rlref_ws_new (long prec);
/* Frees the workspace and every temporary taken from it (NULL is allowed). */
void rlref_ws_free (rlref_ws *ws);
/* The precision of its MPFR temporaries. */
long rlref_ws_prec (const rlref_ws *ws);

/* The current top of the pool, to be given back to rlref_ws_release. */
size_t rlref_ws_mark (const rlref_ws *ws);
/* Gives back everything taken since mark was read. */
void rlref_ws_release (rlref_ws *ws, size_t mark);

/* n contiguous binary64 temporaries, set to +0; NULL if memory is
 * exhausted (the workspace is then unchanged). */
double *rlref_ws_take_d (rlref_ws *ws, size_t n);
/* n contiguous MPFR temporaries of the workspace's precision, set to +0,
 * their limbs in the pool; NULL if memory is exhausted. */
mpfr_ptr rlref_ws_take_mp (rlref_ws *ws, size_t n);

/* How many blocks the pool has allocated since rlref_ws_new (it never
 * decreases): a kernel that allocates nothing per call leaves it fixed. */
size_t rlref_ws_nalloc (const rlref_ws *ws);
/* Bytes held by the pool. */
size_t rlref_ws_capacity (const rlref_ws *ws);

#endif
