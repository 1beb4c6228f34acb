/* cmd_mdp.c -- `rlref mdp MODEL.json [--prec BITS] [--vi K] [--qlearn N ...]`:
 * a finite MDP given as data, and its V^pi, Q^pi (when the file has a
 * policy), V*, Q*, the optimal policy and the iteration counts, with
 * certified digits (MDP-VPI, MDP-QPI, MDP-OPT, MDP-QL; seed 003 section 1-2).
 * The model file is read by mdp_json.c (its format in mdp_json.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/jsonio.h"
#include "core/numfmt.h"
#include "check/rules.h"
#include "commands.h"
#include "core/options.h"
#include "mdp_json.h"

/* The value-iteration sweeps to a fixed point are counted only where their
   predicted work, S A S sweeps with sweeps = ((p + 2) ln 2 + ln(1/(1 -
   gamma)))/ln(1/gamma) at p bits, stays below these many multiply-adds:
   beyond, the count is reported as skipped (with gamma near 1 or many
   states it would take minutes). */
#define VI_WORK_D 2e9
#define VI_WORK_MP 2e7
/* --vi K and --qlearn N take at most this many multiply-adds at the
   working precision (K + 1 sweeps of S A S, N steps measured against Q*
   over S A): some seconds. */
#define TABLE_WORK 1e8

static const char *usage =
  "usage: rlref mdp MODEL.json [--prec BITS] [--vi K]\n"
  "                 [--qlearn N [--seed S] [--eps E] [--behaviour B] [--every M]]\n"
  "\n"
  "Reads a finite MDP (\"-\": standard input) and prints, as JSON with certified\n"
  "digits and the binary64 result: V^pi and Q^pi of the file's \"policy\" (if it\n"
  "has one), V*, Q*, the optimal policy (the greedy action of Q*, the lowest\n"
  "index among ties), the policy-iteration steps from action 0 everywhere, and\n"
  "the value-iteration sweeps to a fixed point certified by the contraction\n"
  "bound, in binary64 and at the certified precision.  The model file:\n"
  "\n"
  "  {\"states\": 3, \"actions\": [\"stay\", \"go\"], \"gamma\": 0.9,\n"
  "   \"P\": [[[0.5, 0.5, 0], [0, 0.2, 0.8]], ...],   P(s'|s,a), S x A x S\n"
  "   \"R\": [[1, 0], ...],                            r(s,a), S x A (or R(s,a,s'))\n"
  "   \"terminal\": [2], \"policy\": [[0.5, 0.5], ...], \"start\": 0}\n"
  "\n"
  "states and actions are counts or lists of names; numbers are JSON numbers or\n"
  "strings (decimal, C99 hex); rows of P of non-terminal states and of the\n"
  "policy sum to 1 within n 2^-52; a terminal state has value 0 and rows of 0;\n"
  "0 <= gamma < 1.\n"
  "\n"
  "The value-iteration sweeps are counted where their work stays below 2e9\n"
  "multiply-adds in binary64 and 2e7 at the working precision (else null, with\n"
  "why); --vi K and --qlearn N take at most 1e8 ((K + 1) S A S, (N + 1) S A).\n"
  "\n"
  "--vi K prints instead, tab-separated, k, max |V_k - V*| and the contraction\n"
  "bound gamma^k max |V_0 - V*| for k = 0..K (value iteration from V_0 = 0).\n"
  "--qlearn N prints instead t and max |Q_t - Q*| of N steps of Q-learning from\n"
  "\"start\" (alpha = 1/n(s,a)), every M steps (--every, default 1), with GSL's\n"
  "mt19937 seeded by S (--seed, default 1): --behaviour include (default,\n"
  "epsilon-greedy, the random draw over all actions), exclude (over the others)\n"
  "or uniform; --eps E (default 0.1).  The same seed gives the same run.\n"
  "Values of --vi and --qlearn are computed at --prec bits (default 256) and\n"
  "rounded to double.\n"
  "\n"
  "exit status: 0 success; 1 the model is rejected (a message says why);\n"
  "2 usage error or unreadable file.\n";


/* The predicted multiply-adds of value iteration to its fixed point at p
   bits, for the MDP f: S A S a sweep.  */
static double
vi_work (const rl_mdp_model *f, double p)
{
  double g = f->gamma, sweeps;
  if (g <= 0)
    return (double) f->S * f->A * f->S;
  sweeps = ((p + 2) * log (2.0) + log (1 / (1 - g))) / -log (g);
  return (double) f->S * f->A * f->S * (sweeps + 1);
}


/* What the certified evaluation computes. */
struct ctx
{
  const rl_mdp_model *f;
  rlref_mdp m;
  size_t *policy;               /* S: the greedy actions of the last call */
  long steps;
};

/* x = gamma, P (S A S), R (S A or S A S), pi (S A, if any); y = V^pi, Q^pi
 * (if a policy), V*, Q*. */
static int
eval_mp (const void *vc, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const struct ctx *c = vc;
  struct ctx *cw = (struct ctx *) c;
  size_t S = c->f->S, A = c->f->A, SAS = S * A * S, nR = c->f->sas ? SAS : S * A;
  mpfr_srcptr P = x + 1, R = x + 1 + SAS, pi = x + 1 + SAS + nR;
  mpfr_ptr r = malloc (S * A * sizeof *r), out = y;
  int status = r ? RLREF_SUCCESS : RLREF_ENOMEM;
  (void) nx;
  (void) ny;
  for (size_t i = 0; r && i < S * A; i++)
    mpfr_init2 (r + i, rlref_mp_prec ());
  if (status == RLREF_SUCCESS && c->f->sas)
    status = rlref_mdp_expected_reward_mp (r, P, R, S, A);
  for (size_t i = 0; status == RLREF_SUCCESS && !c->f->sas && i < S * A; i++)
    mpfr_set (r + i, R + i, MPFR_RNDN);
  if (status == RLREF_SUCCESS && c->f->pi)
    {
      status = rlref_mdp_vpi_mp (out, &c->m, P, r, pi, x);
      if (status == RLREF_SUCCESS)
        status = rlref_mdp_qpi_mp (out + S, &c->m, P, r, pi, x);
      out += S + S * A;
    }
  if (status == RLREF_SUCCESS)
    status = rlref_mdp_policy_iteration_mp (out, out + S, cw->policy, &cw->steps, &c->m, P, r,
                                            x);
  for (size_t i = 0; r && i < S * A; i++)
    mpfr_clear (r + i);
  free (r);
  return status;
}

/* r(s, a) = R(s, a), or rlref_mdp_expected_reward of the file's P and
 * R(s, a, s'), into r (S A values of the precision r was given; initialised
 * by the caller); the library's status (the reader let only finite numbers
 * in). */
static int
expected_reward_mp (mpfr_ptr r, const rl_mdp_model *f)
{
  size_t n = f->S * f->A * f->S;
  mpfr_ptr P = NULL, R = NULL;
  int status;
  if (!f->sas)
    {
      for (size_t i = 0; i < f->S * f->A; i++)
        mpfr_set_d (r + i, f->R[i], MPFR_RNDN);
      return RLREF_SUCCESS;
    }
  if (n == 0 || !(P = calloc (2 * n, sizeof *P)))
    return RLREF_ENOMEM;
  R = P + n;
  for (size_t i = 0; i < 2 * n; i++)
    {
      mpfr_init2 (P + i, 53);
      mpfr_set_d (P + i, i < n ? f->P[i] : f->R[i - n], MPFR_RNDN);
    }
  status = rlref_mdp_expected_reward_mp (r, P, R, f->S, f->A);
  for (size_t i = 0; i < 2 * n; i++)
    mpfr_clear (P + i);
  free (P);
  return status;
}

/* The same in binary64. */
static int
expected_reward_d (const rl_mdp_model *f, double *r)
{
  if (f->sas)
    return rlref_mdp_expected_reward_d (r, f->P, f->R, f->S, f->A);
  memcpy (r, f->R, f->S * f->A * sizeof *r);
  return RLREF_SUCCESS;
}

/* One certified value as {"value", "digits", "double"}. */
static json_t *
value (mpfr_srcptr v, int digits, const double *d)
{
  char *text = rl_fmt_mpfr (v, digits > 0 ? digits : 1), dec[40];
  json_t *o;
  if (!mpfr_regular_p (v))
    {
      free (text);
      text = strdup ("0");
      digits = 0;
    }
  o = json_pack ("{s:s, s:i}", "value", text ? text : "?", "digits", digits);
  if (d)
    {
      rl_fmt_dec (*d, dec);
      json_object_set_new (o, "double", json_string (dec));
    }
  free (text);
  return o;
}

/* {"V": [S values], "Q": [S rows of A]} from the certified outputs from
   *k on (and their binary64 values d, or none), *k moved past them. */
static json_t *
v_and_q (const rlref_certified *cert, const double *d, size_t S, size_t A, size_t *k)
{
  json_t *V = json_array (), *Q = json_array ();
  for (size_t s = 0; s < S; s++, ++*k)
    json_array_append_new (V, value (cert->value + *k, cert->digits[*k], d ? d + *k : NULL));
  for (size_t s = 0; s < S; s++)
    {
      json_t *row = json_array ();
      for (size_t a = 0; a < A; a++, ++*k)
        json_array_append_new (row, value (cert->value + *k, cert->digits[*k],
                                           d ? d + *k : NULL));
      json_array_append_new (Q, row);
    }
  return json_pack ("{s:o, s:o}", "V", V, "Q", Q);
}

static const char *
name_of (char **names, size_t i, char *buf)
{
  if (names)
    return names[i];
  sprintf (buf, "%zu", i);
  return buf;
}

/* --vi K: k, max |V_k - V*|, gamma^k max |V_0 - V*|. */
static int
vi_table (const rl_mdp_model *f, const rlref_mdp *m, long K, long prec)
{
  size_t S = f->S, A = f->A;
  mpfr_ptr P = NULL, rm = NULL, g = NULL, Vk = NULL, err = NULL, bound = NULL;
  int status;
  rlref_mp_set_prec (prec);
  P = malloc (S * A * S * sizeof *P);
  rm = malloc (S * A * sizeof *rm);
  g = malloc (sizeof *g);
  Vk = malloc (S * sizeof *Vk);
  err = malloc (((size_t) K + 1) * sizeof *err);
  bound = malloc (((size_t) K + 1) * sizeof *bound);
  if (!P || !rm || !g || !Vk || !err || !bound)
    return 2;
  for (size_t i = 0; i < S * A * S; i++)
    mpfr_init2 (P + i, prec), mpfr_set_d (P + i, f->P[i], MPFR_RNDN);
  for (size_t i = 0; i < S * A; i++)
    mpfr_init2 (rm + i, prec);
  mpfr_init2 (g, prec);
  mpfr_set_d (g, f->gamma, MPFR_RNDN);
  for (size_t i = 0; i < S; i++)
    mpfr_init2 (Vk + i, prec);
  for (long k = 0; k <= K; k++)
    mpfr_init2 (err + k, prec), mpfr_init2 (bound + k, prec);
  /* with R(s,a,s'), r is formed in MPFR from the exact P and R */
  status = expected_reward_mp (rm, f);
  if (status == RLREF_SUCCESS)
    status = rlref_mdp_value_iteration_mp (Vk, err, bound, K, m, P, rm, g);
  if (status)
    fprintf (stderr, "rlref mdp: %s: %s: %s\n", f->path, rlref_status_name (status),
             rl_error_text (status));
  else
    {
      printf ("# k\tmax|V_k - V*|\tgamma^k max|V_0 - V*|\n");
      for (long k = 0; k <= K; k++)
        printf ("%ld\t%.17g\t%.17g\n", k, mpfr_get_d (err + k, MPFR_RNDN),
                mpfr_get_d (bound + k, MPFR_RNDN));
    }
  for (size_t i = 0; i < S * A * S; i++)
    mpfr_clear (P + i);
  for (size_t i = 0; i < S * A; i++)
    mpfr_clear (rm + i);
  for (size_t i = 0; i < S; i++)
    mpfr_clear (Vk + i);
  for (long k = 0; k <= K; k++)
    mpfr_clear (err + k), mpfr_clear (bound + k);
  mpfr_clear (g);
  free (P);
  free (rm);
  free (g);
  free (Vk);
  free (err);
  free (bound);
  rlref_mp_set_prec (RLREF_DEFAULT_PREC);
  return status ? 1 : 0;
}

/* --qlearn N: t and max |Q_t - Q*|, every M steps. */
static int
ql_table (const rl_mdp_model *f, const rlref_mdp *m, long N, unsigned long seed, double eps,
          int behaviour, long every, long prec)
{
  size_t S = f->S, A = f->A;
  mpfr_ptr P = malloc (S * A * S * sizeof *P), rm = malloc (S * A * sizeof *rm);
  mpfr_ptr Q = malloc (S * A * sizeof *Q), ge = malloc (2 * sizeof *ge);
  mpfr_ptr err = malloc (((size_t) N + 1) * sizeof *err);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  int status;
  if (!P || !rm || !Q || !ge || !err || !rng)
    return 2;
  rlref_mp_set_prec (prec);
  for (size_t i = 0; i < S * A * S; i++)
    mpfr_init2 (P + i, prec), mpfr_set_d (P + i, f->P[i], MPFR_RNDN);
  for (size_t i = 0; i < S * A; i++)
    {
      mpfr_init2 (rm + i, prec);
      mpfr_init2 (Q + i, prec);
    }
  status = expected_reward_mp (rm, f);
  mpfr_init2 (ge, prec);
  mpfr_init2 (ge + 1, prec);
  mpfr_set_d (ge, f->gamma, MPFR_RNDN);
  mpfr_set_d (ge + 1, eps, MPFR_RNDN);
  for (long k = 0; k <= N; k++)
    mpfr_init2 (err + k, prec);
  gsl_rng_set (rng, seed);
  if (status == RLREF_SUCCESS)
    status = rlref_mdp_qlearn_mp (Q, err, m, P, rm, ge, (size_t) f->start, N,
                                  behaviour == 2 ? NULL : ge + 1,
                                  behaviour == 1 ? RLREF_EGREEDY_EXCLUDE
                                  : RLREF_EGREEDY_INCLUDE, rng);
  if (status)
    fprintf (stderr, "rlref mdp: %s: %s: %s\n", f->path, rlref_status_name (status),
             rl_error_text (status));
  else
    {
      printf ("# t\tmax|Q_t - Q*|  (seed %lu, eps %g, %s)\n", seed, eps,
              behaviour == 2 ? "uniform" : behaviour == 1 ? "exclude-greedy" : "include-greedy");
      for (long k = 0; k <= N; k += every)
        printf ("%ld\t%.17g\n", k, mpfr_get_d (err + k, MPFR_RNDN));
    }
  for (size_t i = 0; i < S * A * S; i++)
    mpfr_clear (P + i);
  for (size_t i = 0; i < S * A; i++)
    mpfr_clear (rm + i), mpfr_clear (Q + i);
  mpfr_clear (ge);
  mpfr_clear (ge + 1);
  for (long k = 0; k <= N; k++)
    mpfr_clear (err + k);
  free (P);
  free (rm);
  free (Q);
  free (ge);
  free (err);
  gsl_rng_free (rng);
  rlref_mp_set_prec (RLREF_DEFAULT_PREC);
  return status ? 1 : 0;
}

int
rlref_cmd_mdp (int argc, char **argv)
{
  const char *path = NULL;
  long prec = RL_WORKING_BITS;
  long long vi = -1, ql = -1, every = 1, seed = 1;
  double eps = 0.1;
  int behaviour = 0, status, rc = 0;
  char err[512], buf[32];
  rl_mdp_model f;
  struct ctx c;
  rlref_certified cert;
  json_t *out, *o;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  {
    static const char *const behaviours[] = { "include", "exclude", "uniform", NULL };
    const rl_opt opts[] = {
      { .name = "--prec", .kind = RL_OPT_PREC, .prec = &prec },
      { .name = "--vi", .kind = RL_OPT_WHOLE, .whole = &vi, .lo = 0, .hi = 10000000 },
      { .name = "--qlearn", .kind = RL_OPT_WHOLE, .whole = &ql, .lo = 0, .hi = 10000000 },
      { .name = "--every", .kind = RL_OPT_WHOLE, .whole = &every, .lo = 0, .hi = 10000000 },
      { .name = "--seed", .kind = RL_OPT_WHOLE, .whole = &seed, .lo = 0, .hi = 0xffffffffLL },
      { .name = "--eps", .kind = RL_OPT_REAL, .real = &eps, .rlo = 0, .rhi = 1 },
      { .name = "--behaviour", .kind = RL_OPT_WORD, .flag = &behaviour, .words = behaviours },
      { .name = NULL },
    };
    int nwords;
    if (rl_parse_options ("mdp", usage, argc, argv, 1, opts, &path, 1, &nwords))
      return 2;
  }
  if (!path)
    {
      fprintf (stderr, "rlref mdp: missing MODEL.json\n%s", usage);
      return 2;
    }
  if (every < 1)
    every = 1;
  status = rl_mdp_model_read (path, &f, err, sizeof err);
  f.path = path;
  if (status)
    {
      fprintf (stderr, "rlref mdp: %s: %s\n", path, err);
      rl_mdp_model_free (&f);
      return status == -2 ? 2 : 1;
    }
  c = (struct ctx) { &f, { f.S, f.A, f.terminal }, calloc (f.S, sizeof (size_t)), 0 };
  if (!c.policy)
    {
      rl_mdp_model_free (&f);
      return 2;
    }
  if ((vi >= 0 && ((double) vi + 1) * f.S * f.A * f.S > TABLE_WORK)
      || (ql >= 0 && ((double) ql + 1) * f.S * f.A > TABLE_WORK))
    {
      fprintf (stderr, "rlref mdp: %s: %s %lld on %zu states and %zu actions is over the limit "
               "of 1e8 multiply-adds (%s)\n", path, vi >= 0 ? "--vi" : "--qlearn",
               vi >= 0 ? vi : ql, f.S, f.A, vi >= 0 ? "(K + 1) S A S" : "(N + 1) S A");
      free (c.policy);
      rl_mdp_model_free (&f);
      return 2;
    }
  if (vi >= 0 || ql >= 0)
    {
      rc = vi >= 0 ? vi_table (&f, &c.m, (long) vi, prec)
        : ql_table (&f, &c.m, (long) ql, (unsigned long) seed, eps, behaviour, (long) every,
                    prec);
      free (c.policy);
      rl_mdp_model_free (&f);
      return rc;
    }
  {
    size_t S = f.S, A = f.A, nR = f.sas ? S * A * S : S * A;
    size_t nx = 1 + S * A * S + nR + (f.pi ? S * A : 0);
    size_t ny = (f.pi ? S + S * A : 0) + S + S * A;
    double *x = malloc (nx * sizeof *x), *r = malloc (S * A * sizeof *r);
    double *yd = malloc (ny * sizeof *yd), *yo;
    size_t pol_d[RLREF_MDP_MAX_S];
    long steps_d = 0, sweeps_d = 0, sweeps_mp = 0;
    int status_d;
    json_t *states = json_array (), *actions = json_array (), *term = json_array ();
    if (!x || !r || !yd)
      return 2;
    x[0] = f.gamma;
    memcpy (x + 1, f.P, S * A * S * sizeof *x);
    memcpy (x + 1 + S * A * S, f.R, nR * sizeof *x);
    if (f.pi)
      memcpy (x + 1 + S * A * S + nR, f.pi, S * A * sizeof *x);
    /* binary64 */
    yo = yd;
    status_d = expected_reward_d (&f, r);
    if (f.pi && !status_d)
      {
        status_d = rlref_mdp_vpi_d (yo, &c.m, f.P, r, f.pi, &f.gamma);
        if (!status_d)
          status_d = rlref_mdp_qpi_d (yo + S, &c.m, f.P, r, f.pi, &f.gamma);
        yo += S + S * A;
      }
    if (!status_d)
      status_d = rlref_mdp_policy_iteration_d (yo, yo + S, pol_d, &steps_d, &c.m, f.P, r,
                                               &f.gamma);
    if (!status_d && vi_work (&f, 53) > VI_WORK_D)
      sweeps_d = -2;                /* skipped: over the limit */
    else if (!status_d)
      {
        double *vf = malloc (S * sizeof *vf);
        status_d = vf ? rlref_mdp_value_iteration_fixed_d (vf, &sweeps_d, &c.m, f.P, r,
                                                           &f.gamma) : RLREF_ENOMEM;
        free (vf);
      }
    rlref_clear_error ();
    status = rlref_certify (eval_mp, &c, x, nx, ny, (mpfr_prec_t) prec, RL_MIN_DIGITS, 0, &cert);
    if (status)
      {
        fprintf (stderr, "rlref mdp: %s: %s: %s\n", path, rlref_status_name (status),
                 rl_error_text (status));
        free (x);
        free (r);
        free (yd);
        free (c.policy);
        json_decref (states);
        json_decref (actions);
        json_decref (term);
        rl_mdp_model_free (&f);
        return 1;
      }
    /* value iteration to its certified fixed point at the certified precision */
    {
      mpfr_ptr P = malloc (S * A * S * sizeof *P), rm = malloc (S * A * sizeof *rm);
      mpfr_ptr V = malloc (S * sizeof *V), g = malloc (sizeof *g);
      if (vi_work (&f, (double) cert.prec) > VI_WORK_MP)
        {
          free (P);
          free (rm);
          free (V);
          free (g);
          P = rm = V = g = NULL;
          sweeps_mp = -2;           /* skipped: over the limit */
        }
      rlref_mp_set_prec (cert.prec);
      for (size_t i = 0; P && rm && V && g && i < S * A * S; i++)
        mpfr_init2 (P + i, cert.prec), mpfr_set_d (P + i, f.P[i], MPFR_RNDN);
      for (size_t i = 0; P && rm && V && g && i < S * A; i++)
        mpfr_init2 (rm + i, cert.prec);
      for (size_t i = 0; P && rm && V && g && i < S; i++)
        mpfr_init2 (V + i, cert.prec);
      if (P && rm && V && g)
        {
          mpfr_init2 (g, cert.prec);
          mpfr_set_d (g, f.gamma, MPFR_RNDN);
          if (expected_reward_mp (rm, &f)
              || rlref_mdp_value_iteration_fixed_mp (V, &sweeps_mp, &c.m, P, rm, g))
            sweeps_mp = -1;
          for (size_t i = 0; i < S * A * S; i++)
            mpfr_clear (P + i);
          for (size_t i = 0; i < S * A; i++)
            mpfr_clear (rm + i);
          for (size_t i = 0; i < S; i++)
            mpfr_clear (V + i);
          mpfr_clear (g);
        }
      free (P);
      free (rm);
      free (V);
      free (g);
      rlref_mp_set_prec (RLREF_DEFAULT_PREC);
    }
    for (size_t s = 0; s < S; s++)
      json_array_append_new (states, json_string (name_of (f.state_names, s, buf)));
    for (size_t a = 0; a < A; a++)
      json_array_append_new (actions, json_string (name_of (f.action_names, a, buf)));
    for (size_t s = 0; s < S; s++)
      if (f.terminal[s])
        json_array_append_new (term, json_string (name_of (f.state_names, s, buf)));
    out = json_pack ("{s:s, s:o, s:o, s:o, s:o, s:b, s:i}", "model", path, "states", states,
                     "actions", actions, "terminal", term, "gamma", rl_json_real (f.gamma),
                     "reward_sas", f.sas, "precision", (int) cert.prec);
    {
      size_t k = 0;
      const double *dd = status_d ? NULL : yd;
      if (f.pi)
        json_object_set_new (out, "policy_evaluation", v_and_q (&cert, dd, S, A, &k));
      o = v_and_q (&cert, dd, S, A, &k);
      {
        json_t *pol = json_array ();
        for (size_t s = 0; s < S; s++)
          json_array_append_new (pol, json_string (name_of (f.action_names, c.policy[s], buf)));
        json_object_set_new (o, "policy", pol);
      }
      json_object_set_new (o, "policy_iteration_steps", json_integer (c.steps));
      {
        /* a count, or null (with why) where the work is over the limit */
        json_t *vis = json_pack ("{s:o, s:o, s:i}", "binary64", sweeps_d == -2 ? json_null ()
                                 : json_integer ((json_int_t) sweeps_d), "mpfr",
                                 sweeps_mp == -2 ? json_null ()
                                 : json_integer ((json_int_t) sweeps_mp), "mpfr_bits",
                                 (int) cert.prec);
        if (sweeps_d == -2 || sweeps_mp == -2)
          json_object_set_new (vis, "skipped", json_string (
            "value iteration to its fixed point would take more than 2e9 multiply-adds in "
            "binary64 or 2e7 at the certified precision (S A S a sweep, about ((p + 2) ln 2 "
            "+ ln(1/(1 - gamma)))/ln(1/gamma) sweeps); V* and Q* come from policy iteration"));
        json_object_set_new (o, "value_iteration_sweeps", vis);
      }
      json_object_set_new (out, "optimal", o);
      if (status_d)
        json_object_set_new (out, "binary64", json_pack ("{s:s}", "error",
                                                         rlref_status_name (status_d)));
    }
    {
      char *text = json_dumps (out, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
      if (text)
        puts (text);
      free (text);
    }
    json_decref (out);
    rlref_certified_clear (&cert);
    free (x);
    free (r);
    free (yd);
  }
  free (c.policy);
  rl_mdp_model_free (&f);
  return rc;
}
