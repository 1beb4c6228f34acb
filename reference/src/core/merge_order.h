/* merge_order.h -- a stable order of indices by a comparison that may fail
 * (src/core/merge_order.c; one copy for both precisions: it moves indices only). */
#ifndef RLREF_MERGE_ORDER_H
#define RLREF_MERGE_ORDER_H
#include <stddef.h>

/* *before = 1 when item j comes strictly before item i; a status. */
typedef int rlref_before_fn (int *before, size_t j, size_t i, void *ctx);

/* idx[0..n) = 0..n-1 ordered by before, stable (equal items keep their
 * index order), by a bottom-up merge sort through tmp (n indices): n log n
 * comparisons.  Returns the first failing comparison's status, else 0. */
int rlref_merge_order (size_t *idx, size_t *tmp, size_t n, rlref_before_fn *before,
                       void *ctx);

#endif
