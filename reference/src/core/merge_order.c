/* merge_order.c -- a stable order of indices by a comparison callback. */
#include <string.h>
#include "merge_order.h"

int
rlref_merge_order (size_t *idx, size_t *tmp, size_t n, rlref_before_fn *before, void *ctx)
{
  for (size_t i = 0; i < n; i++)
    idx[i] = i;
  for (size_t w = 1; w < n; w *= 2)
    {
      for (size_t lo = 0; lo < n; lo += 2 * w)
        {
          size_t mid = lo + w < n ? lo + w : n;
          size_t hi = mid + w < n ? mid + w : n;
          size_t i = lo, j = mid, o = lo;
          while (i < mid && j < hi)
            {
              int b = 0, status = before (&b, idx[j], idx[i], ctx);
              if (status)
                return status;
              tmp[o++] = b ? idx[j++] : idx[i++];
            }
          while (i < mid)
            tmp[o++] = idx[i++];
          while (j < hi)
            tmp[o++] = idx[j++];
        }
      memcpy (idx, tmp, n * sizeof *idx);
    }
  return 0;
}
