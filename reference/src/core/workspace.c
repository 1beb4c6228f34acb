/* workspace.c -- a grow-only pool of binary64 and MPFR temporaries.
 *
 * The pool is a list of blocks, each at least twice the size of the one
 * before.  Positions are offsets in the concatenation of the blocks, so a
 * mark is one number: block b covers [start_b, start_b + cap_b) and
 * start_{b+1} = start_b + cap_b.  A take that does not fit in the rest of
 * the current block moves to the next block (allocated on first use).
 * Nothing is freed before rlref_ws_free, except a block found too small
 * for a take, which is replaced together with the blocks after it (all of
 * them free at that moment, since takes nest like a stack). */
#include <stdint.h>
#include <stdlib.h>
#include "rlref/precision.h"
#include "rlref/workspace.h"

#define WS_ALIGN 16             /* every take starts on a multiple of this */
#define WS_FIRST_BLOCK 4096     /* bytes of the first block, at least */
#define WS_MAX_BLOCKS 48

struct ws_block
{
  char *mem;
  size_t start, cap;
};

struct rlref_ws
{
  mpfr_prec_t prec;
  size_t limb_bytes;            /* significand bytes of one MPFR temporary */
  size_t pos;                   /* top of the pool */
  size_t cur;                   /* the block holding pos */
  size_t nblocks, nalloc;
  struct ws_block blk[WS_MAX_BLOCKS];
};

rlref_ws *
rlref_ws_new (long prec)
{
  rlref_ws *ws = calloc (1, sizeof *ws);
  if (!ws)
    return NULL;
  ws->prec = rlref_mp_prec_clamp (prec);
  ws->limb_bytes = mpfr_custom_get_size (ws->prec);
  return ws;
}

void
rlref_ws_free (rlref_ws *ws)
{
  if (!ws)
    return;
  for (size_t b = 0; b < ws->nblocks; b++)
    free (ws->blk[b].mem);
  free (ws);
}

long
rlref_ws_prec (const rlref_ws *ws)
{
  return (long) ws->prec;
}

size_t
rlref_ws_mark (const rlref_ws *ws)
{
  return ws->pos;
}

void
rlref_ws_release (rlref_ws *ws, size_t mark)
{
  size_t b = 0;
  if (mark >= ws->pos)
    return;
  while (b + 1 < ws->nblocks && mark > ws->blk[b].start + ws->blk[b].cap)
    b++;
  ws->pos = mark;
  ws->cur = b;
}

size_t
rlref_ws_nalloc (const rlref_ws *ws)
{
  return ws->nalloc;
}

size_t
rlref_ws_capacity (const rlref_ws *ws)
{
  size_t total = 0;
  for (size_t b = 0; b < ws->nblocks; b++)
    total += ws->blk[b].cap;
  return total;
}

/* bytes from the pool, aligned to WS_ALIGN; NULL if memory is exhausted. */
static void *
take (rlref_ws *ws, size_t bytes)
{
  size_t next, cap;
  struct ws_block *b;
  if (bytes > SIZE_MAX - WS_ALIGN)
    return NULL;
  bytes = bytes ? (bytes + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN : WS_ALIGN;
  if (ws->nblocks > 0)
    {
      b = &ws->blk[ws->cur];
      if (bytes <= b->start + b->cap - ws->pos)
        {
          void *p = b->mem + (ws->pos - b->start);
          ws->pos += bytes;
          return p;
        }
    }
  next = ws->nblocks > 0 ? ws->cur + 1 : 0;
  if (next < ws->nblocks && ws->blk[next].cap < bytes)
    {
      for (size_t k = next; k < ws->nblocks; k++)
        free (ws->blk[k].mem);
      ws->nblocks = next;
    }
  if (next == ws->nblocks)
    {
      size_t start = 0;
      if (next == WS_MAX_BLOCKS)
        return NULL;
      cap = WS_FIRST_BLOCK;
      if (next > 0)
        {
          start = ws->blk[next - 1].start + ws->blk[next - 1].cap;
          if (ws->blk[next - 1].cap > (SIZE_MAX - start) / 2)
            return NULL;
          cap = 2 * ws->blk[next - 1].cap;
        }
      if (cap < bytes)
        cap = bytes;
      if (cap > SIZE_MAX - start)
        return NULL;
      ws->blk[next].mem = malloc (cap);
      if (!ws->blk[next].mem)
        return NULL;
      ws->blk[next].start = start;
      ws->blk[next].cap = cap;
      ws->nblocks++;
      ws->nalloc++;
    }
  ws->cur = next;
  ws->pos = ws->blk[next].start + bytes;
  return ws->blk[next].mem;
}

double *
rlref_ws_take_d (rlref_ws *ws, size_t n)
{
  double *v;
  if (n > SIZE_MAX / sizeof (double))
    return NULL;
  v = take (ws, n * sizeof (double));
  if (v)
    for (size_t i = 0; i < n; i++)
      v[i] = 0.0;
  return v;
}

/* n structs, then their n significands, in one piece of the pool. */
mpfr_ptr
rlref_ws_take_mp (rlref_ws *ws, size_t n)
{
  size_t each = sizeof (__mpfr_struct) + ws->limb_bytes;
  mpfr_ptr v;
  char *limbs;
  if (n > SIZE_MAX / each)
    return NULL;
  v = take (ws, n * each);
  if (!v)
    return NULL;
  limbs = (char *) v + n * sizeof (__mpfr_struct);
  for (size_t i = 0; i < n; i++)
    {
      void *m = limbs + i * ws->limb_bytes;
      mpfr_custom_init (m, ws->prec);
      mpfr_custom_init_set (v + i, MPFR_ZERO_KIND, 0, ws->prec, m);
    }
  return v;
}
