/* cmd_train.c -- `rlref train MODEL.json --objective OBJ [options]`: exact-
 * gradient training of a tiny-LM policy from its reference (LM-TRAIN,
 * DPO-EQUIV, DPO-DISPLACE), one line per recorded step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "core/args.h"
#include "commands.h"
#include "core/options.h"
#include "lm_json.h"

static const char *usage =
  "usage: rlref train MODEL.json --objective OBJ [--steps N] [--lr LR] [--every K]\n"
  "                  [--beta B] [--pair \"Y_W\" \"Y_L\"] [--sampled N [--seed S]]\n"
  "                  [--trl-log]\n"
  "\n"
  "Trains the policy pi_theta, starting at the model's own logits (the\n"
  "reference pi_ref), by exact gradient descent on OBJ: dpo or ipo (the\n"
  "population losses on the Bradley-Terry preferences the reward induces,\n"
  "pairs drawn from pi_ref), rlhf (E[r] - beta KL(pi||pi_ref), ascended), reward\n"
  "(E[r], ascended), kl or kl-reverse.  With --pair \"Y_W\" \"Y_L\" (tokens, space\n"
  "separated), dpo and ipo are the loss of that one pair instead.  Prints a\n"
  "tab-separated line every K steps (default: N/100): the step, the objective,\n"
  "KL(pi_theta || pi*) (a tabular model that keeps cut sequences), and log\n"
  "pi_theta(y_w), log pi_theta(y_l) and the margin h_w - h_l for the pair, or\n"
  "for the best and the worst sequence by reward.  In binary64; the gradients\n"
  "are exact (no sampling) unless --sampled N: then each step draws N\n"
  "sequences from pi_theta (reward, rlhf: REINFORCE with the batch mean as\n"
  "baseline) or N pairs from pi_ref labelled by Bradley-Terry (dpo) with GSL's\n"
  "mt19937 seeded with S (default 1): the same seed gives the same run to the\n"
  "last bit, or stops (EPREC) where a draw falls within 2^-40 of the probability\n"
  "it is compared with.  Defaults: N 1000 steps, LR 1, beta from the model.\n"
  "\n"
  "--trl-log (dpo or ipo, exact gradients) prints instead what TRL's\n"
  "DPOTrainer logs, with the implicit reward beta h(y), h = log pi_theta(y) -\n"
  "log pi_ref(y): the step, the mean loss per pair, rewards/chosen (the mean\n"
  "of beta h(y_w)), rewards/rejected (of beta h(y_l)), rewards/accuracies (the\n"
  "fraction of pairs with beta h(y_w) > beta h(y_l)) and rewards/margins (the\n"
  "mean of their difference); for --pair those of the one pair, else their\n"
  "expectations over the pairs of the population loss (y_1 != y_2 from\n"
  "pi_ref, y_1 chosen with probability sigma(r(y_1) - r(y_2))).\n";

/* The objectives by name, as --objective takes them. */
static const char *const objective_names[] = {
  "dpo", "ipo", "rlhf", "reward", "kl", "kl-reverse", NULL
};
static const int objective_codes[] = {
  RLREF_LM_OBJ_DPO, RLREF_LM_OBJ_IPO, RLREF_LM_OBJ_RLHF, RLREF_LM_OBJ_REWARD,
  RLREF_LM_OBJ_KL, RLREF_LM_OBJ_KL_REVERSE
};

/* Every sequence's log-probability and reward, in enumeration order (a
 * visit of rlref_lm_moments_d); failed when there are more than cap. */
struct sequences
{
  size_t n, cap;
  double *logp, *r;
  int failed;
};

static void
sequences_visit (void *ctx, const int *y, int L, int cut, const double *logp, const double *r,
                 const double *logp_star)
{
  struct sequences *q = ctx;
  (void) y;
  (void) L;
  (void) cut;
  (void) logp_star;
  if (q->n >= q->cap)
    {
      q->failed = 1;
      return;
    }
  q->logp[q->n] = *logp;
  q->r[q->n] = *r;
  q->n++;
}

/* What TRL's DPOTrainer logs of a batch of pairs, with chosen c = beta h(y_w),
 * rejected j = beta h(y_l), h = log pi_theta - log pi_ref: the means of c and
 * j, the fraction with c > j, and the mean of c - j.  Here in expectation
 * over the pairs of the population loss (lm_grad.c): y_1 != y_2 from pi_ref x
 * pi_ref, y_1 chosen with probability sigma(r_1 - r_2) (13.6), the weights
 * w_12 = pi_ref(1) pi_ref(2) sigma(r_1 - r_2) normalised by their sum W,
 * which is returned (the population loss over W is TRL's mean loss). */
static double
trl_expectations (double out[4], const struct sequences *ref, const struct sequences *pol,
                  double beta)
{
  double W = 0, c = 0, j = 0, acc = 0, margin = 0;
  for (size_t a = 0; a < ref->n; a++)
    for (size_t b = 0; b < ref->n; b++)
      {
        double d = ref->r[a] - ref->r[b], s, w, ca, jb;
        if (a == b || rlref_sigmoid_d (&s, &d))
          continue;
        w = exp (ref->logp[a] + ref->logp[b]) * s;
        if (w == 0)
          continue;
        ca = beta * (pol->logp[a] - ref->logp[a]);
        jb = beta * (pol->logp[b] - ref->logp[b]);
        W += w;
        c += w * ca;
        j += w * jb;
        acc += ca > jb ? w : 0;
        margin += w * (ca - jb);
      }
  out[0] = c / W;
  out[1] = j / W;
  out[2] = acc / W;
  out[3] = margin / W;
  return W;
}

/* Tokens "0 1 2" into y; the length, or -1. */
static int
tokens (const char *s, int *y, int max)
{
  int n = 0;
  char *end;
  while (*s)
    {
      long a = strtol (s, &end, 10);
      if (end == s || n >= max)
        return -1;
      y[n++] = (int) a;
      s = end;
      while (*s == ' ' || *s == ',')
        s++;
    }
  return n;
}

/* The best and the worst sequence by reward (visit of the enumeration). */
struct extremes
{
  int have, yw[RLREF_LM_MAX_T], yl[RLREF_LM_MAX_T], Lw, Ll;
  double rw, rl;
};

static void
extremes_visit (void *ctx, const int *y, int L, int cut, const double *logp, const double *r,
                const double *logp_star)
{
  struct extremes *e = ctx;
  (void) cut;
  (void) logp;
  (void) logp_star;
  if (!e->have || *r > e->rw)
    {
      e->rw = *r;
      e->Lw = L;
      memcpy (e->yw, y, (size_t) L * sizeof *y);
    }
  if (!e->have || *r < e->rl)
    {
      e->rl = *r;
      e->Ll = L;
      memcpy (e->yl, y, (size_t) L * sizeof *y);
    }
  e->have = 1;
}

int
rlref_cmd_train (int argc, char **argv)
{
  const char *path = NULL, *pw = NULL, *pl = NULL;
  int objective = -1, objective_index = -1, steps, every, have_beta = 0, rc = 0, sampled;
  int trl_log = 0;
  struct sequences ref_seqs = { 0 }, pol_seqs = { 0 };
  long long steps_ll = 1000, every_ll = 0, sampled_ll = 0, seed_ll = 1;
  unsigned long seed;
  gsl_rng *rng = NULL;
  double lr = 1.0, beta = 0;
  char err[512];
  rl_lm_model m;
  struct extremes ex = { 0 };
  int yw[RLREF_LM_MAX_T], yl[RLREF_LM_MAX_T], Lw, Ll, have_star = 0;
  double *th, *star, *tmp, value, kl = 0, lw, ll, lw0 = 0, ll0 = 0, m0[RLREF_LM_NMOMENTS];
  size_t nl;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  {
    /* below 2^53: a step that moves logits of order 1 */
    const rl_opt opts[] = {
      { .name = "--objective", .kind = RL_OPT_WORD, .flag = &objective_index,
        .words = objective_names },
      { .name = "--steps", .kind = RL_OPT_WHOLE, .whole = &steps_ll, .lo = 0, .hi = 10000000 },
      { .name = "--every", .kind = RL_OPT_WHOLE, .whole = &every_ll, .lo = 1, .hi = 10000000 },
      { .name = "--lr", .kind = RL_OPT_REAL, .real = &lr, .rlo = 0, .rhi = 0x1p53,
        .open_lo = 1 },
      { .name = "--beta", .kind = RL_OPT_REAL, .real = &beta, .rlo = 0, .rhi = 0x1p53,
        .open_lo = 1, .given = &have_beta },
      { .name = "--sampled", .kind = RL_OPT_WHOLE, .whole = &sampled_ll, .lo = 2,
        .hi = 10000000 },
      { .name = "--seed", .kind = RL_OPT_WHOLE, .whole = &seed_ll, .lo = 0,
        .hi = 0xffffffffLL },
      { .name = "--pair", .kind = RL_OPT_PAIR, .text = &pw, .text2 = &pl },
      { .name = "--trl-log", .kind = RL_OPT_FLAG, .flag = &trl_log },
      { .name = NULL },
    };
    int nwords;
    if (rl_parse_options ("train", usage, argc, argv, 1, opts, &path, 1, &nwords))
      return 2;
    objective = objective_index < 0 ? -1 : objective_codes[objective_index];
    steps = (int) steps_ll;
    every = (int) every_ll;
    sampled = (int) sampled_ll;
    seed = (unsigned long) seed_ll;
  }
  if (!path || objective < 0 || (sampled && pw)
      || (trl_log && (sampled || (objective != RLREF_LM_OBJ_DPO
                                  && objective != RLREF_LM_OBJ_IPO))))
    {
      fprintf (stderr, "rlref train: %s\n%s", !path ? "missing MODEL.json"
               : objective < 0 ? "missing --objective (dpo, ipo, rlhf, reward, kl or kl-reverse)"
               : sampled && pw ? "--sampled draws pairs from the reference: not with --pair"
               : "--trl-log logs the pairwise losses dpo and ipo, with exact gradients (not "
               "--sampled)", usage);
      return 2;
    }
  if (rl_lm_model_read (path, &m, err, sizeof err))
    {
      fprintf (stderr, "rlref train: %s: %s\n", path, err);
      return 1;
    }
  if (!have_beta)
    {
      beta = m.beta;
      have_beta = m.have_beta;
    }
  if (!have_beta || !(beta > 0) || beta == beta + 1 || m.lm.reward == RLREF_REWARD_TABLE)
    {
      fprintf (stderr, "rlref train: %s: needs a finite positive beta and an additive reward "
               "(or none)\n", path);
      rl_lm_model_free (&m);
      return 1;
    }
  if (every == 0)
    every = steps >= 100 ? steps / 100 : 1;
  if (sampled)
    {
      rng = gsl_rng_alloc (gsl_rng_mt19937);
      if (!rng)
        {
          rl_lm_model_free (&m);
          return 2;
        }
      gsl_rng_set (rng, seed);
    }
  nl = m.lm.n_rows * (size_t) m.lm.V;
  th = malloc (3 * nl * sizeof *th);
  if (!th)
    {
      rl_lm_model_free (&m);
      return 2;
    }
  star = th + nl;
  tmp = star + nl;
  memcpy (th, m.logits, nl * sizeof *th);
  /* the pair: given, or the best and the worst sequence by reward */
  if (pw)
    {
      Lw = tokens (pw, yw, RLREF_LM_MAX_T);
      Ll = tokens (pl, yl, RLREF_LM_MAX_T);
      if (Lw < 1 || Ll < 1)
        {
          fprintf (stderr, "rlref train: --pair takes two sequences of tokens\n");
          rc = 2;
        }
    }
  else if (rlref_lm_moments_d (m0, &m.lm, m.logits, m.reward, &beta, RLREF_LM_ALL,
                               extremes_visit, &ex) == 0 && ex.have)
    {
      Lw = ex.Lw;
      Ll = ex.Ll;
      memcpy (yw, ex.yw, sizeof yw);
      memcpy (yl, ex.yl, sizeof yl);
    }
  else
    {
      fprintf (stderr, "rlref train: %s: %s\n", path, rlref_last_error ());
      rc = 1;
    }
  if (rc == 0 && m.lm.kind == RLREF_LM_TABULAR && m.lm.truncation == RLREF_LM_KEEP
      && m.lm.reward == RLREF_REWARD_ADDITIVE)
    have_star = rlref_lm_pistar_logits_d (star, &m.lm, m.logits, m.reward, &beta) == 0;
  if (rc == 0 && (rlref_lm_logprob_d (&lw0, tmp, &m.lm, m.logits, yw, Lw)
                  || rlref_lm_logprob_d (&ll0, tmp, &m.lm, m.logits, yl, Ll)))
    {
      fprintf (stderr, "rlref train: the pair: %s\n", rlref_last_error ());
      rc = 1;
    }
  /* --trl-log over the population: the sequences under pi_ref, once */
  if (rc == 0 && trl_log && !pw)
    {
      const size_t cap = 4096;
      ref_seqs.cap = pol_seqs.cap = cap;
      ref_seqs.logp = malloc (4 * cap * sizeof (double));
      if (!ref_seqs.logp)
        rc = 2;
      else
        {
          ref_seqs.r = ref_seqs.logp + cap;
          pol_seqs.logp = ref_seqs.logp + 2 * cap;
          pol_seqs.r = ref_seqs.logp + 3 * cap;
          if (rlref_lm_moments_d (m0, &m.lm, m.logits, m.reward, &beta, RLREF_LM_ALL,
                                  sequences_visit, &ref_seqs) || ref_seqs.failed)
            {
              fprintf (stderr, "rlref train: %s: %s\n", path, ref_seqs.failed
                       ? "more than 4096 sequences (the limit of the pairwise losses)"
                       : rlref_last_error ());
              rc = 1;
            }
        }
    }
  if (rc == 0)
    printf (trl_log ? "# step\tloss\trewards/chosen\trewards/rejected\trewards/accuracies"
            "\trewards/margins\n"
            : "# step\tobjective\tkl_to_pistar\tlogp_w\tlogp_l\tmargin\n");
  for (int k = 0; rc == 0 && k <= steps; k += every)
    {
      int n = k + every <= steps ? every : steps - k;
      double hw[2], hl[2];
      int status;
      if (pw)
        {
          /* one pair: the recorded value is the pair's loss at this step */
          status = rlref_lm_pair_descend_d (th, hw, hl, &m.lm, m.logits, &beta, objective, yw,
                                            Lw, yl, Ll, &lr, 0);
          value = 0;
          if (status == 0)
            {
              double z = (hw[0] - lw0) - (hl[0] - ll0), t = -beta * z;
              value = objective == RLREF_LM_OBJ_DPO ? (t > 0 ? t + log1p (exp (-t))
                                                       : log1p (exp (t)))
                : (z - 0.5 / beta) * (z - 0.5 / beta);
            }
        }
      else
        status = rlref_lm_objective_d (&value, NULL, &m.lm, th, m.logits, m.reward, &beta,
                                       objective);
      if (status == 0 && have_star)
        status = rlref_lm_objective_d (&kl, NULL, &m.lm, th, star, m.reward, &beta,
                                       RLREF_LM_OBJ_KL);
      if (status == 0)
        status = rlref_lm_logprob_d (&lw, tmp, &m.lm, th, yw, Lw);
      if (status == 0)
        status = rlref_lm_logprob_d (&ll, tmp, &m.lm, th, yl, Ll);
      if (status)
        {
          fprintf (stderr, "rlref train: step %d: %s\n", k, rlref_last_error ());
          rc = 1;
          break;
        }
      if (trl_log)
        {
          double t[4];
          if (pw)
            {
              t[0] = beta * (lw - lw0);
              t[1] = beta * (ll - ll0);
              t[2] = t[0] > t[1];
              t[3] = t[0] - t[1];
            }
          else
            {
              pol_seqs.n = 0;
              if (rlref_lm_moments_d (m0, &m.lm, th, m.reward, &beta, RLREF_LM_ALL,
                                      sequences_visit, &pol_seqs) || pol_seqs.n != ref_seqs.n)
                {
                  fprintf (stderr, "rlref train: step %d: %s\n", k, rlref_last_error ());
                  rc = 1;
                  break;
                }
              value /= trl_expectations (t, &ref_seqs, &pol_seqs, beta);
            }
          printf ("%d\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n", k, value, t[0], t[1], t[2], t[3]);
        }
      else if (have_star)
        printf ("%d\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n", k, value, kl, lw, ll,
                (lw - lw0) - (ll - ll0));
      else
        printf ("%d\t%.17g\tnan\t%.17g\t%.17g\t%.17g\n", k, value, lw, ll,
                (lw - lw0) - (ll - ll0));
      if (n <= 0)
        break;
      if (pw)
        {
          double *hist = malloc (2 * ((size_t) n + 1) * sizeof *hist);
          status = hist ? rlref_lm_pair_descend_d (th, hist, hist + n + 1, &m.lm, m.logits,
                                                   &beta, objective, yw, Lw, yl, Ll, &lr, n)
            : RLREF_ENOMEM;
          free (hist);
        }
      else
        {
          double *hist = malloc (((size_t) n + 1) * sizeof *hist);
          if (!hist)
            status = RLREF_ENOMEM;
          else if (sampled)
            status = rlref_lm_sampled_descend_d (th, hist, &m.lm, m.logits, m.reward, &beta,
                                                 objective, &lr, n, sampled, rng);
          else
            status = rlref_lm_descend_d (th, hist, &m.lm, m.logits, m.reward, &beta,
                                         objective, &lr, n);
          free (hist);
        }
      if (status)
        {
          fprintf (stderr, "rlref train: %s\n", rlref_last_error ());
          rc = 1;
        }
    }
  free (th);
  free (ref_seqs.logp);
  if (rng)
    gsl_rng_free (rng);
  rl_lm_model_free (&m);
  return rc;
}
