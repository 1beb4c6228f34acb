/* mdp_json.h -- a finite MDP's model file, as `rlref mdp` reads it.
 *
 * A model file is one JSON object:
 *   {"states": S or ["name", ...], "actions": A or ["name", ...],
 *    "P": [[[P(s'|s,a) for s'] for a] for s],
 *    "R": [[r(s,a) for a] for s]  or  [[[R(s,a,s') for s'] for a] for s],
 *    "gamma": g, "terminal": [states], "policy": [[pi(a|s) for a] for s],
 *    "start": state}
 * Numbers are JSON numbers or strings (decimal, C99 hex); states in
 * "terminal" and "start" are indices or names.  "terminal", "policy" and
 * "start" are optional.  A terminal state's rows of P and R are 0. */
#ifndef RLREF_ORACLES_MDP_JSON_H
#define RLREF_ORACLES_MDP_JSON_H
#include <stddef.h>

/* A model as read. */
typedef struct
{
  size_t S, A;
  char **state_names, **action_names;   /* NULL: indices */
  double *P;                            /* S A S */
  double *R;                            /* S A, or S A S when sas */
  int sas;
  double *pi;                           /* S A, or NULL */
  unsigned char *terminal;              /* S */
  double gamma;
  long start;
  const char *path;                     /* the file, for messages */
} rl_mdp_model;

/* Reads path ("-": standard input) into f and checks it: 0, or -1 with a
 * message in err (-2 where the file cannot be read).  Free with
 * rl_mdp_model_free. */
int rl_mdp_model_read (const char *path, rl_mdp_model *f, char *err, size_t errlen);
void rl_mdp_model_free (rl_mdp_model *f);

#endif
