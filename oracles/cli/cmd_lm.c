/* cmd_lm.c -- `rlref lm MODEL.json [--beta B] [--prec BITS] [--dp] [--table[=FILE]]`:
 * the exact moments of a tiny-LM model and of its KL-optimal policy, with
 * certified digits (LM-ENUM, LM-EXACT, LM-DP, KLOPT-Z). */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "core/jsonio.h"
#include "core/numfmt.h"
#include "check/rules.h"
#include "commands.h"
#include "core/options.h"
#include "lm_json.h"

static const char *usage =
  "usage: rlref lm MODEL.json [--beta B] [--prec BITS] [--dp] [--table[=FILE]]\n"
  "\n"
  "Enumerates every sequence of the tiny language model in MODEL.json (\"-\":\n"
  "standard input; the format is in README.md) and prints, as JSON with\n"
  "certified digits and the binary64 result: the number of sequences, their\n"
  "probability mass (1; P(EOS within max_len) when cut sequences are\n"
  "conditioned away), the entropy, E[r] and Var[r] under the model, and for\n"
  "the KL-optimal policy pi* = pi_ref e^{r/beta}/Z: log Z, KL(pi*||pi_ref),\n"
  "KL(pi_ref||pi*) and E_pi*[r].  --beta overrides the file's beta.\n"
  "--dp computes the same by dynamic programming (a bigram model with an\n"
  "additive reward; no limit on the number of sequences).  --table adds\n"
  "every sequence with pi_ref, r and pi* (25 digits, exact to the digits of\n"
  "log Z) to the output, --table=FILE writes them to FILE as tab-separated\n"
  "lines.  Enumeration takes at most 1e8 sequences; progress is shown on\n"
  "stderr after a second.\n"
  "\n"
  "exit status: 0 success; 1 the model is rejected (a message says why);\n"
  "2 usage error or unreadable file.\n";

static const char *names[RLREF_LM_NMOMENTS] = {
  "sequences", "mass", "entropy", "mean_r", "var_r", "log_Z", "kl_pistar_ref",
  "kl_ref_pistar", "mean_r_pistar",
};

struct lm_ctx
{
  const rlref_lm *lm;
  int dp;
};

/* rlref_certify's callback: x = (beta, logits, reward). */
static int
eval_mp (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const struct lm_ctx *c = ctx;
  mpfr_srcptr logits = x + 1, reward = x + 1 + c->lm->n_rows * (size_t) c->lm->V;
  (void) nx;
  (void) ny;
  return c->dp ? rlref_lm_moments_dp_mp (y, c->lm, logits, reward, x)
    : rlref_lm_moments_mp (y, c->lm, logits, reward, x, RLREF_LM_ALL, NULL, NULL);
}

struct progress
{
  double start;
  int shown;
};

static double
seconds (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static void
show_progress (void *ctx, double fraction)
{
  struct progress *p = ctx;
  if (seconds () - p->start > 1.0)
    {
      fprintf (stderr, "\rrlref lm: %3.0f%% of the sequences (%d bits)", 100 * fraction,
               (int) rlref_mp_prec ());
      p->shown = 1;
    }
}

/* The table: every sequence, at the precision of the certified values. */
struct table_ctx
{
  FILE *f;                      /* tab-separated lines, or */
  json_t *rows;                 /* JSON rows */
  mpfr_t t;
};

static void
table_row (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp, mpfr_srcptr r,
           mpfr_srcptr logp_star)
{
  struct table_ctx *c = ctx;
  char tokens[RLREF_LM_MAX_T * 4 + 1] = "", p[64], ps[64], rv[64], lps[64];
  size_t n = 0;
  for (int t = 0; t < L; t++)
    n += (size_t) snprintf (tokens + n, sizeof tokens - n, "%s%d", t ? " " : "", y[t]);
  mpfr_exp (c->t, logp, MPFR_RNDN);
  mpfr_snprintf (p, sizeof p, "%.25Rg", c->t);
  mpfr_exp (c->t, logp_star, MPFR_RNDN);
  mpfr_snprintf (ps, sizeof ps, "%.25Rg", c->t);
  mpfr_snprintf (rv, sizeof rv, "%.25Rg", r);
  mpfr_snprintf (lps, sizeof lps, "%.25Rg", logp_star);
  if (c->f)
    fprintf (c->f, "%s\t%d\t%s\t%s\t%s\t%s\n", tokens, cut, p, rv, ps, lps);
  else
    json_array_append_new (c->rows, json_pack ("{s:s, s:b, s:s, s:s, s:s, s:s}", "y", tokens,
                                               "cut", cut, "pi_ref", p, "r", rv, "pi_star",
                                               ps, "log_pi_star", lps));
}

int
rlref_cmd_lm (int argc, char **argv)
{
  const char *path = NULL, *table = NULL;
  long prec = RL_WORKING_BITS;
  double beta = 0;
  int have_beta = 0, dp = 0, want_table = 0, status, rc = 0;
  char err[512];
  rl_lm_model m;
  struct progress prog = { 0, 0 };
  rlref_certified cert;
  struct lm_ctx ctx;
  double yd[RLREF_LM_NMOMENTS];
  int status_d;
  json_t *out, *values;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  {
    const rl_opt opts[] = {
      { .name = "--beta", .kind = RL_OPT_REAL, .real = &beta, .rlo = 0, .rhi = DBL_MAX,
        .open_lo = 1, .given = &have_beta },
      { .name = "--prec", .kind = RL_OPT_PREC, .prec = &prec },
      { .name = "--dp", .kind = RL_OPT_FLAG, .flag = &dp },
      { .name = "--table", .kind = RL_OPT_FLAG_TEXT, .flag = &want_table, .text = &table },
      { .name = NULL },
    };
    int nwords;
    if (rl_parse_options ("lm", usage, argc, argv, 1, opts, &path, 1, &nwords))
      return 2;
  }
  if (!path)
    {
      fprintf (stderr, "rlref lm: missing MODEL.json\n%s", usage);
      return 2;
    }
  if (rl_lm_model_read (path, &m, err, sizeof err))
    {
      fprintf (stderr, "rlref lm: %s: %s\n", path, err);
      return 1;
    }
  if (!have_beta)
    {
      beta = m.beta;
      have_beta = m.have_beta;
    }
  if (!have_beta || !(beta > 0) || beta == beta + 1)
    {
      fprintf (stderr, "rlref lm: %s: beta must be given (--beta or \"beta\") and be finite "
               "and positive\n", path);
      rl_lm_model_free (&m);
      return 1;
    }
  if (!dp && rlref_lm_num_sequences (&m.lm) > RLREF_LM_MAX_SEQUENCES)
    {
      fprintf (stderr, "rlref lm: %s: %.6g sequences are too many to enumerate (at most 1e8)%s\n",
               path, rlref_lm_num_sequences (&m.lm),
               m.lm.kind == RLREF_LM_BIGRAM && m.lm.reward != RLREF_REWARD_TABLE
               ? "; this model has the DP form: --dp" : "");
      rl_lm_model_free (&m);
      return 1;
    }
  if (want_table && dp)
    {
      fprintf (stderr, "rlref lm: --table lists sequences: it needs enumeration, not --dp\n");
      rl_lm_model_free (&m);
      return 2;
    }
  if (want_table && !table && rlref_lm_num_sequences (&m.lm) > 1e5)
    {
      fprintf (stderr, "rlref lm: %.6g sequences: write the table to a file, --table=FILE\n",
               rlref_lm_num_sequences (&m.lm));
      rl_lm_model_free (&m);
      return 2;
    }
  prog.start = seconds ();
  m.lm.progress = show_progress;
  m.lm.progress_ctx = &prog;
  ctx.lm = &m.lm;
  ctx.dp = dp;
  status_d = dp ? rlref_lm_moments_dp_d (yd, &m.lm, m.logits, m.reward, &beta)
    : rlref_lm_moments_d (yd, &m.lm, m.logits, m.reward, &beta, RLREF_LM_ALL, NULL, NULL);
  rlref_clear_error ();
  {
    /* the inputs, exact doubles: beta, the logits, the reward */
    size_t nl = m.lm.n_rows * (size_t) m.lm.V, nx = 1 + nl + (size_t) m.lm.V + 2;
    double *x = malloc (nx * sizeof *x);
    if (!x)
      {
        rl_lm_model_free (&m);
        return 2;
      }
    x[0] = beta;
    memcpy (x + 1, m.logits, nl * sizeof *x);
    memcpy (x + 1 + nl, m.reward, ((size_t) m.lm.V + 2) * sizeof *x);
    status = rlref_certify (eval_mp, &ctx, x, nx, RLREF_LM_NMOMENTS, (mpfr_prec_t) prec,
                            RL_MIN_DIGITS, 0, &cert);
    free (x);
  }
  if (prog.shown)
    fputc ('\n', stderr);
  if (status)
    {
      fprintf (stderr, "rlref lm: %s: %s: %s\n", path, rlref_status_name (status),
               rl_error_text (status));
      rl_lm_model_free (&m);
      return 1;
    }
  values = json_object ();
  for (int k = 1; k < RLREF_LM_NMOMENTS; k++)
    {
      int digits = mpfr_regular_p (cert.value + k) ? cert.digits[k] : 0;
      char *text = rl_fmt_mpfr (cert.value + k, digits), dec[40];
      json_t *o = json_pack ("{s:s, s:i}", "value", text ? text : "?", "digits", digits);
      if (status_d == 0)
        {
          rl_fmt_dec (yd[k], dec);
          json_object_set_new (o, "double", json_string (dec));
        }
      json_object_set_new (values, names[k], o);
      free (text);
    }
  out = json_pack ("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:o, s:i, s:I}", "model", path,
                   "method", dp ? "dynamic programming" : "enumeration", "kind",
                   m.lm.kind == RLREF_LM_BIGRAM ? "bigram" : "tabular", "vocab", m.lm.V, "eos",
                   m.lm.eos, "max_len", m.lm.T, "truncated",
                   m.lm.truncation == RLREF_LM_KEEP ? "keep" : "condition",
                   "beta", rl_json_real (beta), "precision", (int) cert.prec,
                   "sequences", (json_int_t) mpfr_get_d (cert.value, MPFR_RNDN));
  json_object_set_new (out, "values", values);
  if (status_d)
    json_object_set_new (out, "binary64", json_pack ("{s:s}", "error",
                                                     rlref_status_name (status_d)));
  if (want_table)
    {
      struct table_ctx tc = { NULL, NULL, { { 0 } } };
      mpfr_t b;
      size_t nl = m.lm.n_rows * (size_t) m.lm.V, nr = (size_t) m.lm.V + 2;
      mpfr_ptr mom = malloc ((RLREF_LM_NMOMENTS + nl + nr) * sizeof *mom);
      mpfr_prec_t p = cert.prec + 64;
      rlref_mp_set_prec (p);
      mpfr_init2 (tc.t, p);
      mpfr_init2 (b, p);
      mpfr_set_d (b, beta, MPFR_RNDN);
      for (size_t k = 0; mom && k < RLREF_LM_NMOMENTS + nl + nr; k++)
        mpfr_init2 (mom + k, p);
      for (size_t k = 0; mom && k < nl; k++)
        mpfr_set_d (mom + RLREF_LM_NMOMENTS + k, m.logits[k], MPFR_RNDN);
      for (size_t k = 0; mom && k < nr; k++)
        mpfr_set_d (mom + RLREF_LM_NMOMENTS + nl + k, m.reward[k], MPFR_RNDN);
      if (table && !(tc.f = fopen (table, "w")))
        {
          fprintf (stderr, "rlref lm: cannot write %s: %s\n", table, strerror (errno));
          rc = 2;
        }
      else
        {
          if (!table)
            tc.rows = json_array ();
          else
            fprintf (tc.f, "# y\tcut\tpi_ref\tr\tpi_star\tlog_pi_star\n");
          m.lm.progress = NULL;
          if (!mom || rlref_lm_moments_mp (mom, &m.lm, mom + RLREF_LM_NMOMENTS,
                                           mom + RLREF_LM_NMOMENTS + nl, b, RLREF_LM_ALL,
                                           table_row, &tc))
            rc = 1;
          if (tc.rows)
            json_object_set_new (out, "table", tc.rows);
          if (tc.f && (ferror (tc.f) || fclose (tc.f) != 0))
            {
              fprintf (stderr, "rlref lm: writing %s failed\n", table);
              rc = 2;
            }
        }
      for (size_t k = 0; mom && k < RLREF_LM_NMOMENTS + nl + nr; k++)
        mpfr_clear (mom + k);
      free (mom);
      mpfr_clears (tc.t, b, (mpfr_ptr) 0);
      rlref_mp_set_prec (RLREF_DEFAULT_PREC);
    }
  {
    char *text = json_dumps (out, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
    if (text)
      puts (text);
    free (text);
  }
  json_decref (out);
  rlref_certified_clear (&cert);
  rl_lm_model_free (&m);
  return rc;
}
