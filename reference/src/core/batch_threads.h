/* batch_threads.h -- internal: the batch kernels' work split into a fixed
 * number of chunks, run on up to rlref_batch_threads () threads
 * (batch_threads.c).  The chunks, and the order in which their results are
 * combined, do not depend on the number of threads: a kernel gives the
 * same bits with 1 thread or more. */
#ifndef RLREF_BATCH_THREADS_H
#define RLREF_BATCH_THREADS_H
#include <stddef.h>

/* The fixed number of chunks of a split kernel. */
#define BATCH_CHUNKS 8

/* Below this many elements a kernel runs in the calling thread. */
#define BATCH_MIN_PARALLEL 65536

typedef void batch_chunk_fn (void *arg, size_t chunk);

/* fn (arg, c) for c = 0 .. nchunks - 1: in the calling thread when
 * parallel is 0 or one thread is set, else the chunks dealt in contiguous
 * runs to the threads.  Returns 0, or -1 when a thread could not be
 * started (the chunks are then all run in the calling thread). */
int rlref_batch_run (batch_chunk_fn *fn, void *arg, size_t nchunks, int parallel);

#endif
