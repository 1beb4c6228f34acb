/* lm_json.h -- a tiny-LM model file (README.md, "Model files"). */
#ifndef RLREF_ORACLES_LM_JSON_H
#define RLREF_ORACLES_LM_JSON_H
#include <stddef.h>
#include "rlref/lm.h"

typedef struct
{
  rlref_lm lm;                  /* its table points into the arrays below */
  double *logits;               /* n_rows x V */
  double *reward;               /* V + 2: token[V], per_length, truncated */
  double *table_reward;
  uint64_t *table_code;
  double beta;                  /* the file's beta, if it has one */
  int have_beta;
} rl_lm_model;

/* Reads path ("-": standard input) into m and checks it; 0, or -1 with a
 * message in err.  Free with rl_lm_model_free. */
int rl_lm_model_read (const char *path, rl_lm_model *m, char *err, size_t errlen);
void rl_lm_model_free (rl_lm_model *m);

#endif
