/* batch_threads.c -- the threads of the batch kernels (rlref/batch.h):
 * the number set by rlref_batch_set_threads (1 by default: a library call
 * starts no thread unless asked), and the runner of a kernel's fixed
 * chunks (batch_threads.h).  POSIX threads, started per call. */
#include <pthread.h>
#include <stddef.h>
#include "rlref/batch.h"
#include "batch_threads.h"

static int nthreads = 1;

/* Sets the number of threads of the batch kernels, clamped to [1, 8];
 * returns the previous number.  Not to be called while a kernel runs. */
int
rlref_batch_set_threads (int n)
{
  int old = nthreads;
  nthreads = n < 1 ? 1 : n > RLREF_BATCH_MAX_THREADS ? RLREF_BATCH_MAX_THREADS : n;
  return old;
}

int
rlref_batch_threads (void)
{
  return nthreads;
}

typedef struct
{
  batch_chunk_fn *fn;
  void *arg;
  size_t first, last;
} run_t;

static void *
run_chunks (void *p)
{
  run_t *r = p;
  for (size_t c = r->first; c < r->last; c++)
    r->fn (r->arg, c);
  return NULL;
}

int
rlref_batch_run (batch_chunk_fn *fn, void *arg, size_t nchunks, int parallel)
{
  pthread_t th[RLREF_BATCH_MAX_THREADS];
  run_t run[RLREF_BATCH_MAX_THREADS];
  int T = parallel ? nthreads : 1, started = 0, status = 0;
  if ((size_t) T > nchunks)
    T = (int) nchunks;
  if (T <= 1)
    {
      for (size_t c = 0; c < nchunks; c++)
        fn (arg, c);
      return 0;
    }
  for (int t = 0; t < T; t++)
    {
      run[t].fn = fn;
      run[t].arg = arg;
      run[t].first = nchunks * (size_t) t / (size_t) T;
      run[t].last = nchunks * (size_t) (t + 1) / (size_t) T;
    }
  /* threads 1 .. T-1 take their runs; the calling thread takes run 0 */
  for (int t = 1; t < T; t++)
    {
      if (pthread_create (&th[t], NULL, run_chunks, &run[t]) != 0)
        break;
      started = t;
    }
  run_chunks (&run[0]);
  for (int t = 1; t <= started; t++)
    pthread_join (th[t], NULL);
  for (int t = started + 1; t < T; t++)
    {
      run_chunks (&run[t]);
      status = -1;
    }
  return status;
}
