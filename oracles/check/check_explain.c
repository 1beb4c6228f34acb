/* check_explain.c -- what a candidate that follows no variant follows
   instead.

   For a part whose answer is not followed (or, with --variant, fails),
   the reference is evaluated through the registry at the inputs of the
   part's tests under a set of models, each a variant of the part moved by
   one departure:

     - another variant of the part (with --variant: "these are plain's
       values");
     - the axes the formula declares (rl_axis: ddof 0 for 1, eps inside
       the square root, max in place of min in the clip, ...);
     - one real parameter of the variant at 1, at 0, or at the value
       another variant of the formula gives it (beta forgotten: beta = 1);
     - the log-probability inputs (those documented "log pi" or
       "log-probability") read as probabilities e^x;
     - a variant of another formula that takes the same inputs ("these
       are KL-K2 plain values");
     - an output of a variant times -1 (the sign), 2 or 1/2, or times or
       divided by the length of an array input or the sum of an integer
       array input (a sum in place of a mean, 1/|y| missing).

   A model explains an output when, on every case of the part the
   candidate answers (cases flagged NUMERICAL aside), the candidate's
   values pass the tolerance rule against the model's.  Models are
   screened in binary64 with a tolerance 64 times wider, then the chosen
   ones are verified against certified MPFR values and their own
   sensitivities, with the rule itself.  The explanation is one model that
   explains every output judged, else outputs that follow the nearest
   variant and, for the rest, the models that explain the most of them,
   in the order above; at the declared dtype, else at the next lower one
   (float32 below float64), where the digits must be those a step in that
   dtype leaves.  */

#include <math.h>
#include <stddef.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "check_impl.h"
#include "departure.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "core/golden_args.h"
#include "core/registry.h"

#define SCREEN_WIDER 64.0       /* the screening tolerance over the rule's */
#define MAX_EVALS 200000        /* binary64 evaluations of one search */
#define MAX_SECONDS 20.0        /* processor time of one search */

enum mkind { M_VARIANT, M_AXIS, M_PARAM, M_FORMULA, M_PROBS, M_SCALE };

/* A factor of M_SCALE: a constant, or a count read from an input.  */
enum factor { F_CONST, F_LEN, F_SUM };

/* One model: a variant, moved by one departure, and its binary64 values
   at each point of the part.  */
typedef struct
{
  enum mkind kind;
  const rl_formula *f;          /* the formula it evaluates */
  const rl_variant *v;          /* the variant evaluated: the registry's, or &own */
  rl_variant own;
  union
  {
    max_align_t align;
    unsigned char bytes[RL_AXIS_SCRATCH];
  } scratch;
  const char *base;             /* the variant of the golden it departs from */
  char label[200];              /* the departure, in words */
  int param;                    /* M_PARAM: the parameter's index */
  double pvalue;                /* M_PARAM: its value */
  size_t src;                   /* M_SCALE: the model scaled */
  enum factor fk;               /* M_SCALE */
  double factor;                /* M_SCALE: the constant (F_CONST), or 1 or -1 (power) */
  int finput;                   /* M_SCALE: the input counted */
  int *status;                  /* per point: the binary64 status, -1 not evaluated */
  size_t (*len)[RL_MAX_OUT];    /* per point: the output lengths */
  double **y;                   /* per point: the outputs, flat */
} model;

/* One entry of an explanation: outputs that follow a model.  */
typedef struct
{
  json_t *outputs;              /* array of names */
  size_t model;
  size_t cases;                 /* cases compared */
} entry;

/* The explanation of a part.  */
struct explanation
{
  int level;                    /* the level it holds at */
  int whole;                    /* one model explains every output */
  entry *e;
  size_t ne;
  json_t *follow_nearest;       /* outputs that follow the nearest variant */
  json_t *unexplained;          /* outputs no model explains */
  const char *reason;           /* why there is none, or NULL */
  char *reason_buf;             /* owned text of reason, or NULL */
  size_t searched;              /* models searched */
  model **m;
  size_t nm;
  char *line;                   /* the one-line summary */
  const char *nearest;          /* the nearest variant's name */
};

/* The search of one part.  */
typedef struct
{
  ctx *c;
  size_t p;
  const rl_formula *f;
  json_t **points;              /* the distinct inputs of the part's tests */
  size_t npoints;
  size_t *point_of;             /* per case (index into c->cases): its point, or -1 */
  size_t *next_same;            /* per case: the next case with the same point, or -1 */
  size_t *first_of;             /* per point: its first case */
  model **m;                    /* each allocated once: a variant's data may
                                   point into its model's scratch */
  size_t nm, cap;
  size_t evals;
  clock_t start;                /* when the search began */
  int out_of_time;              /* it ran past MAX_SECONDS: models left unevaluated */
  json_t *outputs;              /* the outputs judged of the part */
} search;

/* Whether search s has used its processor time (then it stops
   evaluating).  */
static int
out_of_time (search *s)
{
  if (!s->out_of_time && (double) (clock () - s->start) > MAX_SECONDS * CLOCKS_PER_SEC)
    s->out_of_time = 1;
  return s->out_of_time;
}

/* --- models ----------------------------------------------------------- */

/* A new model appended to s, or NULL without memory.  */
static model *
add_model (search *s, enum mkind kind, const rl_formula *f, const rl_variant *v,
           const char *base)
{
  model *m;
  if (s->nm == s->cap)
    {
      size_t cap = s->cap ? 2 * s->cap : 64;
      model **g = realloc (s->m, cap * sizeof *g);
      if (g == NULL)
        return NULL;
      s->m = g;
      s->cap = cap;
    }
  if ((m = calloc (1, sizeof *m)) == NULL)
    return NULL;
  m->kind = kind;
  m->f = f;
  m->v = v;
  m->base = base;
  m->param = -1;
  m->status = malloc ((s->npoints ? s->npoints : 1) * sizeof *m->status);
  m->len = calloc (s->npoints ? s->npoints : 1, sizeof *m->len);
  m->y = calloc (s->npoints ? s->npoints : 1, sizeof *m->y);
  if (m->status == NULL || m->len == NULL || m->y == NULL)
    {
      free (m->status);
      free (m->len);
      free (m->y);
      free (m);
      return NULL;
    }
  for (size_t i = 0; i < s->npoints; i++)
    m->status[i] = -1;
  s->m[s->nm++] = m;
  return m;
}

/* The variant model m evaluates.  */
static const rl_variant *
model_variant (const model *m)
{
  return m->kind == M_AXIS || m->kind == M_PARAM ? &m->own : m->v;
}

/* Whether the inputs of variants a and b have the same names.  */
static int
same_inputs (const rl_io *a, const rl_io *b)
{
  size_t n = rl_n_in (a);
  if (n != rl_n_in (b))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (rl_input_index (b, a->in[i].name) < 0)
      return 0;
  return 1;
}

/* Format the number x for a label: %.10g.  */
static void
fmt_value (char *buf, size_t size, double x)
{
  snprintf (buf, size, "%.10g", x);
}

/* Add the parameter models of variant v: each real parameter at 1, at 0
   and at the values the other variants of its formula give a parameter of that
   name; 0 or -1.  */
static int
param_models (search *s, const rl_variant *v)
{
  for (size_t p = 0; v->params[p].name; p++)
    {
      double cand[64];
      size_t n = 0;
      cand[n++] = 1.0;
      cand[n++] = 0.0;
      for (size_t j = 0; s->f->variants[j].name && n < 64; j++)
        for (size_t q = 0; s->f->variants[j].params[q].name && n < 64; q++)
          if (strcmp (s->f->variants[j].params[q].name, v->params[p].name) == 0)
            cand[n++] = s->f->variants[j].params[q].value;
      if (v->params[p].in_x)
        {
          /* the parameter as an input of the formula, ignored: the
             variant's value whatever a test gives */
          model *m = add_model (s, M_PARAM, s->f, NULL, v->name);
          char b[40];
          if (m == NULL)
            return -1;
          m->own = *v;
          m->param = (int) p;
          m->pvalue = v->params[p].value;
          fmt_value (b, sizeof b, v->params[p].value);
          snprintf (m->label, sizeof m->label, "%s = %s whatever the test gives (%s "
                    "ignored as an input)", v->params[p].name, b, v->params[p].name);
        }
      for (size_t i = 0; i < n; i++)
        {
          model *m;
          char a[40], b[40];
          int dup = cand[i] == v->params[p].value
            || (v->params[p].is_int && cand[i] != floor (cand[i]));
          for (size_t j = 0; j < i && !dup; j++)
            dup = cand[j] == cand[i];
          if (dup)
            continue;
          if ((m = add_model (s, M_PARAM, s->f, NULL, v->name)) == NULL)
            return -1;
          m->own = *v;
          m->own.params[p].value = cand[i];
          m->param = (int) p;
          m->pvalue = cand[i];
          fmt_value (a, sizeof a, cand[i]);
          fmt_value (b, sizeof b, v->params[p].value);
          snprintf (m->label, sizeof m->label, "%s = %s in place of %s",
                    v->params[p].name, a, b);
        }
    }
  return 0;
}

/* Add the scale models of model index src (a variant of the part); 0 or
   -1.  */
static int
scale_models (search *s, size_t src)
{
  static const struct
  {
    double factor;
    const char *label;
  } consts[] = {
    { -1.0, "times -1 (the sign flipped)" },
    { 2.0, "times 2" },
    { 0.5, "times 1/2" },
  };
  const rl_variant *v = s->m[src]->v;
  const char *base = s->m[src]->base;
  for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
    {
      model *m = add_model (s, M_SCALE, s->f, v, base);
      if (m == NULL)
        return -1;
      m->src = src;
      m->fk = F_CONST;
      m->factor = consts[i].factor;
      snprintf (m->label, sizeof m->label, "%s", consts[i].label);
    }
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      rl_kind k = v->io->in[i].kind;
      if (k != RL_REAL_ARRAY && k != RL_INT_ARRAY)
        continue;
      for (int pass = 0; pass < (k == RL_INT_ARRAY ? 4 : 2); pass++)
        {
          model *m = add_model (s, M_SCALE, s->f, v, base);
          const char *name = v->io->in[i].name;
          if (m == NULL)
            return -1;
          m->src = src;
          m->fk = pass < 2 ? F_LEN : F_SUM;
          m->factor = pass % 2 ? -1.0 : 1.0;
          m->finput = (int) i;
          if (pass == 0)
            snprintf (m->label, sizeof m->label, "times the number of %s elements "
                      "(a sum in place of a mean over them)", name);
          else if (pass == 1)
            snprintf (m->label, sizeof m->label, "divided by the number of %s "
                      "elements (a mean in place of a sum over them)", name);
          else if (pass == 2)
            snprintf (m->label, sizeof m->label, "times the sum of %s (a sum in "
                      "place of a mean over those %s counts)", name, name);
          else
            snprintf (m->label, sizeof m->label, "divided by the sum of %s (a mean "
                      "over those %s counts in place of a sum)", name, name);
        }
    }
  return 0;
}

/* Build the models of the part s searches: each variant of the part with its
   departures, and the variants of the formulas with the same inputs; 0 or
   -1 without memory.  */
static int
build_models (search *s)
{
  const ctx *c = s->c;
  size_t first = s->nm;
  for (size_t i = 0; i < c->nvars; i++)
    {
      const rl_variant *v;
      if (c->vars[i].part != s->p)
        continue;
      v = rl_find_variant (s->f, c->vars[i].name);
      if (v == NULL || strcmp (v->name, c->vars[i].name) != 0)
        continue;
      if (add_model (s, M_VARIANT, s->f, v, v->name) == NULL)
        return -1;
    }
  for (size_t b = first, nb = s->nm; b < nb; b++)
    {
      const rl_variant *v = s->m[b]->v;
      model *m;
      int has_lp = 0;
      for (size_t a = 0; s->f->axes != NULL && s->f->axes[a].name; a++)
        {
          if ((m = add_model (s, M_AXIS, s->f, NULL, v->name)) == NULL)
            return -1;
          if (s->f->axes[a].apply (v, &m->own, m->scratch.bytes, m->label,
                                   sizeof m->label) != 0)
            {
              free (m->status);
              free (m->len);
              free (m->y);
              free (m);
              s->nm--;
            }
        }
      if (param_models (s, v))
        return -1;
      for (size_t i = 0; v->io->in[i].name; i++)
        has_lp |= rl_is_logprob (v->io, i);
      if (has_lp)
        {
          if ((m = add_model (s, M_PROBS, s->f, v, v->name)) == NULL)
            return -1;
          snprintf (m->label, sizeof m->label, "probabilities e^x read in place of "
                    "the log-probabilities");
        }
      if (scale_models (s, b))
        return -1;
    }
  if (s->nm == first)
    return 0;
  for (size_t i = 0; i < rl_formula_count (); i++)
    {
      const rl_formula *g = rl_formula_at (i);
      if (g == s->f)
        continue;
      for (size_t j = 0; g->variants[j].name; j++)
        if (same_inputs (s->m[first]->v->io, g->variants[j].io))
          {
            model *m = add_model (s, M_FORMULA, g, &g->variants[j], NULL);
            if (m == NULL)
              return -1;
            snprintf (m->label, sizeof m->label, "%s %s", g->id, g->variants[j].name);
          }
    }
  return 0;
}

/* --- evaluation --------------------------------------------------------- */

/* Bind point u's inputs to model m's variant in a, with m's departures on
   the inputs; 0 or -1.  */
static int
model_args (model *m, json_t *u, rl_args *a)
{
  return rl_departure_args (model_variant (m), u, m->kind == M_PARAM ? m->param : -1,
                            m->pvalue, m->kind == M_PROBS, a);
}

/* Evaluate model m (not of kind M_SCALE) in binary64 at point u of s.  */
static void
evaluate_point (search *s, model *m, size_t u)
{
  const rl_variant *v = model_variant (m);
  rl_args a;
  size_t ny = 0, nx;
  double *x;
  if (m->status[u] != -1)
    return;
  m->status[u] = RLREF_EINVAL;
  if (s->evals >= MAX_EVALS || out_of_time (s))
    return;
  s->evals++;
  if (model_args (m, s->points[u], &a) || rl_out_lengths (v, &a, m->len[u]))
    {
      rl_args_free (&a);
      return;
    }
  for (size_t k = 0; v->io->out[k].name; k++)
    ny += m->len[u][k];
  nx = rl_args_nx (v, &a);
  x = malloc ((nx ? nx : 1) * sizeof *x);
  m->y[u] = calloc (ny ? ny : 1, sizeof *m->y[u]);
  if (x != NULL && m->y[u] != NULL)
    {
      rl_args_flatten (v, &a, x);
      m->status[u] = rl_call_d (v, &a, x, m->y[u], m->len[u]);
    }
  free (x);
  rl_args_free (&a);
}

/* The factor of scale model m at point u: its constant, or the count of
   its input (to the power +-1).  */
static double
factor_at (search *s, const model *m, size_t u)
{
  const rl_variant *v = m->v;
  json_t *in, *e;
  size_t i;
  double n = 0;
  if (m->fk == F_CONST)
    return m->factor;
  in = json_object_get (s->points[u], v->io->in[m->finput].name);
  if (m->fk == F_LEN)
    n = (double) json_array_size (in);
  else
    json_array_foreach (in, i, e)
      n += (double) json_integer_value (e);
  if (n == 0)
    return NAN;
  return m->factor > 0 ? n : 1.0 / n;
}

/* The elements of output name of model mi at point u: *y and *n, or -1
   when the model does not give it there.  */
static int
model_output (search *s, size_t mi, size_t u, const char *name, const double **y,
              size_t *n)
{
  model *m = s->m[mi];
  model *src = m->kind == M_SCALE ? s->m[m->src] : m;
  const rl_variant *v = model_variant (src);
  size_t off = 0;
  evaluate_point (s, src, u);
  if (src->status[u] != 0)
    return -1;
  for (size_t k = 0; v->io->out[k].name; off += src->len[u][k], k++)
    if (strcmp (v->io->out[k].name, name) == 0)
      {
        *y = src->y[u] + off;
        *n = src->len[u][k];
        return 0;
      }
  return -1;
}

/* The candidate's values of output name in case k: up to max into buf,
   their number in *n; -1 when it gives none.  */
static int
cand_output (const gcase *k, const char *name, double *buf, size_t max, size_t *n)
{
  json_t *v = json_object_get (json_object_get (k->res, "outputs"), name), *e;
  size_t i;
  if (v == NULL)
    return -1;
  if (!json_is_array (v))
    {
      *n = 1;
      return ck_cand_number (v, &buf[0]) == 0 ? 0 : -1;
    }
  *n = json_array_size (v);
  if (*n > max)
    return -1;
  json_array_foreach (v, i, e)
    if (ck_cand_number (e, &buf[i]))
      return -1;
  return 0;
}

/* The golden's sensitivity of element i of output name in case k, or 0.  */
static double
golden_sens (const gcase *k, const char *name, size_t i)
{
  json_t *o = json_object_get (json_object_get (k->test, "outputs"), name), *e, *s;
  double d;
  e = json_is_array (o) ? json_array_get (o, i) : i == 0 ? o : NULL;
  s = json_object_get (e, "sens");
  if (json_is_string (s))
    return ck_cand_number (s, &d) == 0 && isfinite (d) ? d : 0.0;
  return json_is_number (s) ? json_number_value (s) : 0.0;
}

/* The largest of the golden's sensitivities of element i of output name
   over the cases with the inputs of index ki: a case of another
   variant carries its own variant's sensitivity (0 where its guard makes
   the value flat), which would screen out a model that holds on the
   certified values, so the screen takes the widest; verify() then holds
   the model to its own.  */
static double
screen_sens (const search *s, size_t ki, const char *name, size_t i)
{
  double m = 0.0;
  for (size_t j = s->first_of[s->point_of[ki]]; j != (size_t) -1; j = s->next_same[j])
    m = fmax (m, golden_sens (&s->c->cases[j], name, i));
  return m;
}

/* Whether g is within the screening tolerance of y (sensitivity sens) at
   level l.  */
static int
screen_close (const ctx *c, double g, double y, double sens, int l)
{
  double lambda = ldexp (1.0, (int) ck_dtypes[l].emin), tol;
  if (isnan (y) || isnan (g))
    return isnan (y) && isnan (g);
  if (isinf (y) || isinf (g))
    return g == y;
  tol = SCREEN_WIDER * c->ulps * ldexp (sens + (y != 0 ? fmax (fabs (y), lambda) : 0.0),
                                        -ck_dtypes[l].prec);
  return fabs (g - y) <= tol;
}

/* Screen model mi on output name at level l over the part's cases: 1 when
   it explains it (at least one case compared), with the number compared in
   *ncmp.  */
static int
screen (search *s, size_t mi, const char *name, int l, size_t *ncmp)
{
  ctx *c = s->c;
  double buf[4096];
  *ncmp = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      size_t u = s->point_of[i], n, ny;
      const double *y;
      double f = 1.0;
      int have;
      if (u == (size_t) -1 || k->numerical || k->answer == A_MISSING || k->answer == A_SKIP)
        continue;
      have = model_output (s, mi, u, name, &y, &ny) == 0;
      if (k->answer == A_ERROR)
        {
          if (have && k->kind == K_VALID)
            return 0;           /* it rejects a valid input the model takes */
          continue;
        }
      if (!have || cand_output (k, name, buf, sizeof buf / sizeof buf[0], &n))
        continue;
      if (n != ny)
        return 0;
      if (s->m[mi]->kind == M_SCALE)
        {
          f = factor_at (s, s->m[mi], u);
          if (isnan (f))
            continue;
        }
      for (size_t j = 0; j < n; j++)
        if (!screen_close (c, buf[j], f * y[j], fabs (f) * screen_sens (s, i, name, j), l))
          return 0;
      (*ncmp)++;
    }
  return *ncmp > 0;
}

/* Whether scale model mi is the identity at every point it is compared at
   (then it is its source model over again).  */
static int
scale_is_identity (search *s, size_t mi)
{
  const ctx *c = s->c;
  if (s->m[mi]->kind != M_SCALE)
    return 0;
  for (size_t i = 0; i < c->ncases; i++)
    if (s->point_of[i] != (size_t) -1 && c->cases[i].answer == A_OUTPUTS
        && factor_at (s, s->m[mi], s->point_of[i]) != 1.0)
      return 0;
  return 1;
}

/* Verify model mi on output name at level l against certified values and
   their own sensitivities, with the tolerance rule; 1 when it holds.  */
static int
verify (search *s, size_t mi, const char *name, int l)
{
  ctx *c = s->c;
  model *m = s->m[mi], *src = m->kind == M_SCALE ? s->m[m->src] : m;
  const rl_variant *v = model_variant (src);
  double buf[4096], worst = 0, digits;
  int ok = 1;
  size_t k_out = 0;
  for (size_t k = 0; v->io->out[k].name; k++)
    if (strcmp (v->io->out[k].name, name) == 0)
      k_out = k + 1;
  if (k_out-- == 0)
    return 0;
  for (size_t i = 0; i < c->ncases && ok; i++)
    {
      const gcase *k = &c->cases[i];
      size_t u = s->point_of[i], n, off = 0;
      rl_args a;
      rl_result r;
      double f = 1.0;
      if (out_of_time (s))
        return 0;
      if (u == (size_t) -1 || k->numerical || k->answer != A_OUTPUTS
          || cand_output (k, name, buf, sizeof buf / sizeof buf[0], &n))
        continue;
      evaluate_point (s, src, u);
      if (src->status[u] != 0)
        continue;
      if (m->kind == M_SCALE && isnan (f = factor_at (s, m, u)))
        continue;
      if (model_args (src, s->points[u], &a))
        {
          rl_args_free (&a);
          return 0;
        }
      if (rl_evaluate (v, &a, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r) != 0)
        {
          rl_result_free (&r);
          rl_args_free (&a);
          return 0;
        }
      for (size_t q = 0; q < k_out; q++)
        off += r.out_len[q];
      if (r.out_len[k_out] != n)
        ok = 0;
      for (size_t j = 0; j < n && ok; j++)
        {
          mpfr_srcptr x = &r.cert.value[off + j];
          int p = ck_dtypes[l].prec;
          mpfr_mul_d (c->x, x, f, MPFR_RNDN);
          if (!mpfr_number_p (c->x))
            {
              ok = mpfr_nan_p (c->x) ? isnan (buf[j])
                : isinf (buf[j]) && (buf[j] > 0) == (mpfr_sgn (c->x) > 0);
              continue;
            }
          if (!isfinite (buf[j]))
            {
              ok = 0;
              continue;
            }
          if (r.cert.nondiff[off + j])
            mpfr_set_zero (c->t, 1);
          else
            mpfr_mul_d (c->t, &r.cert.sens_mp[off + j], fabs (f), MPFR_RNDN);
          mpfr_abs (c->w, c->x, MPFR_RNDN);
          if (!mpfr_zero_p (c->w) && mpfr_cmp_ui_2exp (c->w, 1, ck_dtypes[l].emin) < 0)
            mpfr_set_ui_2exp (c->w, 1, ck_dtypes[l].emin, MPFR_RNDN);
          mpfr_add (c->t, c->t, c->w, MPFR_RNDU);
          mpfr_mul_d (c->t, c->t, c->ulps, MPFR_RNDU);
          mpfr_mul_2si (c->t, c->t, -p, MPFR_RNDU);
          mpfr_set_d (c->y, buf[j], MPFR_RNDN);
          mpfr_sub (c->d, c->y, c->x, MPFR_RNDN);
          mpfr_abs (c->d, c->d, MPFR_RNDN);
          if (c->have_rtol)
            {
              mpfr_abs (c->w, c->x, MPFR_RNDN);
              mpfr_mul_d (c->w, c->w, c->rtol, MPFR_RNDU);
              mpfr_max (c->t, c->t, c->w, MPFR_RNDU);
            }
          ok = mpfr_lessequal_p (c->d, c->t);
          if (ok && !mpfr_zero_p (c->t))
            {
              /* q = d / (2^-p (sens + max(|x|, lambda))), for the digits */
              mpfr_div (c->w, c->d, c->t, MPFR_RNDU);
              worst = fmax (worst, c->ulps * mpfr_get_d (c->w, MPFR_RNDU));
            }
        }
      rl_result_free (&r);
      rl_args_free (&a);
    }
  if (!ok || l == c->level)
    return ok;
  /* at a lower accuracy than declared, the digits a step in that dtype
     leaves (as check_verdict.c claims a lower accuracy) */
  digits = worst > 0 ? ck_dtypes[l].prec * log10 (2.0) - log10 (worst) : 17.0;
  return digits >= ck_dtypes[l].prec * log10 (2.0) - 1
    && digits <= ck_dtypes[l].prec * log10 (2.0) + 1.5;
}

/* --- the search ----------------------------------------------------------- */

/* Collect the distinct inputs of the tests of s's part into s; 0 or -1.  */
static int
collect_points (search *s)
{
  ctx *c = s->c;
  json_t *seen = json_object ();
  size_t *last;
  if (seen == NULL)
    return -1;
  s->point_of = malloc ((c->ncases ? c->ncases : 1) * sizeof *s->point_of);
  s->next_same = malloc ((c->ncases ? c->ncases : 1) * sizeof *s->next_same);
  s->first_of = malloc ((c->ncases ? c->ncases : 1) * sizeof *s->first_of);
  last = malloc ((c->ncases ? c->ncases : 1) * sizeof *last);
  s->points = malloc ((c->ncases ? c->ncases : 1) * sizeof *s->points);
  if (s->point_of == NULL || s->next_same == NULL || s->first_of == NULL || last == NULL
      || s->points == NULL)
    {
      json_decref (seen);
      free (last);
      return -1;
    }
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      json_t *in = json_object_get (k->test, "inputs"), *known;
      char *key;
      s->point_of[i] = (size_t) -1;
      s->next_same[i] = (size_t) -1;
      if (c->vars[k->var].part != s->p || in == NULL)
        continue;
      key = json_dumps (in, JSON_COMPACT | JSON_SORT_KEYS);
      if (key == NULL)
        {
          json_decref (seen);
          free (last);
          return -1;
        }
      if ((known = json_object_get (seen, key)) != NULL)
        {
          s->point_of[i] = (size_t) json_integer_value (known);
          s->next_same[last[s->point_of[i]]] = i;
        }
      else
        {
          s->points[s->npoints] = in;
          json_object_set_new (seen, key, json_integer ((json_int_t) s->npoints));
          s->first_of[s->npoints] = i;
          s->point_of[i] = s->npoints++;
        }
      last[s->point_of[i]] = i;
      free (key);
    }
  json_decref (seen);
  free (last);
  return 0;
}

/* The order of model kinds, simplest departure first.  */
static int
kind_rank (enum mkind k)
{
  return (int) k;
}

/* Search s's part at level l into the new explanation x; 0 or -1.  */
static int
search_level (search *s, int l, struct explanation *x, const char *nearest)
{
  size_t nout = json_array_size (s->outputs), best = (size_t) -1, bestn = 0;
  unsigned char *ex = calloc ((s->nm ? s->nm : 1) * (nout ? nout : 1), 1);
  size_t *ncmp = calloc ((s->nm ? s->nm : 1) * (nout ? nout : 1), sizeof *ncmp);
  json_t *left = json_array ();
  size_t nearest_m = (size_t) -1;
  if (ex == NULL || ncmp == NULL || left == NULL)
    {
      free (ex);
      free (ncmp);
      json_decref (left);
      return -1;
    }
  x->level = l;
  for (size_t mi = 0; mi < s->nm; mi++)
    {
      if (scale_is_identity (s, mi))
        continue;
      if (s->m[mi]->kind == M_VARIANT && strcmp (s->m[mi]->v->name, nearest) == 0)
        nearest_m = mi;
      for (size_t o = 0; o < nout; o++)
        ex[mi * nout + o] = screen (s, mi, json_string_value (json_array_get (s->outputs, o)),
                                    l, &ncmp[mi * nout + o]);
    }
  /* one model for every output: the simplest departure that verifies */
  for (int rank = 0; rank <= kind_rank (M_SCALE) && best == (size_t) -1; rank++)
    for (size_t mi = 0; mi < s->nm && best == (size_t) -1; mi++)
      {
        size_t o;
        if (kind_rank (s->m[mi]->kind) != rank || mi == nearest_m)
          continue;
        for (o = 0; o < nout && ex[mi * nout + o]; o++)
          ;
        if (o < nout || nout == 0)
          continue;
        for (o = 0; o < nout && verify (s, mi, json_string_value (json_array_get (s->outputs, o)), l); o++)
          ;
        if (o == nout)
          best = mi;
      }
  if (best != (size_t) -1)
    {
      x->whole = 1;
      x->e = calloc (1, sizeof *x->e);
      if (x->e == NULL)
        goto oom;
      x->e[0].outputs = json_deep_copy (s->outputs);
      x->e[0].model = best;
      for (size_t o = 0; o < nout; o++)
        bestn = ncmp[best * nout + o] > bestn ? ncmp[best * nout + o] : bestn;
      x->e[0].cases = bestn;
      x->ne = 1;
      free (ex);
      free (ncmp);
      json_decref (left);
      return 0;
    }
  /* the outputs the nearest variant explains, then a cover of the rest */
  for (size_t o = 0; o < nout; o++)
    {
      const char *name = json_string_value (json_array_get (s->outputs, o));
      if (nearest_m != (size_t) -1 && ex[nearest_m * nout + o]
          && verify (s, nearest_m, name, l))
        json_array_append_new (x->follow_nearest, json_string (name));
      else
        json_array_append_new (left, json_string (name));
    }
  while (json_array_size (left) > 0)
    {
      size_t pick = (size_t) -1, pickn = 0;
      json_t *got;
      for (size_t mi = 0; mi < s->nm; mi++)
        {
          size_t n = 0, i;
          json_t *nm;
          if (mi == nearest_m)
            continue;
          json_array_foreach (left, i, nm)
            for (size_t o = 0; o < nout; o++)
              if (json_equal (nm, json_array_get (s->outputs, o)) && ex[mi * nout + o])
                n++;
          if (n > pickn || (n == pickn && n > 0 && pick != (size_t) -1
                            && kind_rank (s->m[mi]->kind) < kind_rank (s->m[pick]->kind)))
            {
              pick = mi;
              pickn = n;
            }
        }
      if (pick == (size_t) -1)
        break;
      got = json_array ();
      for (size_t i = 0; i < json_array_size (left);)
        {
          json_t *nm = json_array_get (left, i);
          size_t o;
          for (o = 0; o < nout && !json_equal (nm, json_array_get (s->outputs, o)); o++)
            ;
          if (o < nout && ex[pick * nout + o])
            {
              ex[pick * nout + o] = 0;      /* tried: not again */
              if (verify (s, pick, json_string_value (nm), l))
                {
                  json_array_append (got, nm);
                  json_array_remove (left, i);
                  continue;
                }
            }
          i++;
        }
      if (json_array_size (got) > 0)
        {
          entry *g = realloc (x->e, (x->ne + 1) * sizeof *x->e);
          if (g == NULL)
            {
              json_decref (got);
              goto oom;
            }
          x->e = g;
          x->e[x->ne].outputs = got;
          x->e[x->ne].model = pick;
          x->e[x->ne].cases = 0;
          for (size_t o = 0; o < nout; o++)
            if (ncmp[pick * nout + o] > x->e[x->ne].cases)
              x->e[x->ne].cases = ncmp[pick * nout + o];
          x->ne++;
        }
      else
        json_decref (got);
    }
  json_array_extend (x->unexplained, left);
  json_decref (left);
  free (ex);
  free (ncmp);
  return 0;
oom:
  free (ex);
  free (ncmp);
  json_decref (left);
  return -1;
}

/* Free the values of model m over npoints points (the model itself, its
   label, stays for the report).  */
static void
model_free (model *m, size_t npoints)
{
  for (size_t u = 0; u < npoints; u++)
    free (m->y[u]);
  free (m->y);
  free (m->len);
  free (m->status);
  m->y = NULL;
  m->len = NULL;
  m->status = NULL;
}

/* A new empty explanation, or NULL.  */
static struct explanation *
new_explanation (void)
{
  struct explanation *x = calloc (1, sizeof *x);
  if (x == NULL)
    return NULL;
  x->follow_nearest = json_array ();
  x->unexplained = json_array ();
  if (x->follow_nearest == NULL || x->unexplained == NULL)
    {
      json_decref (x->follow_nearest);
      json_decref (x->unexplained);
      free (x);
      return NULL;
    }
  return x;
}

/* Free explanation x (not its models).  */
static void
explanation_clear (struct explanation *x)
{
  for (size_t i = 0; i < x->ne; i++)
    json_decref (x->e[i].outputs);
  free (x->e);
  x->e = NULL;
  x->ne = 0;
  x->whole = 0;
  json_array_clear (x->follow_nearest);
  json_array_clear (x->unexplained);
}

/* Whether the registry reproduces the golden's values of s's part (the
   golden is this build's): the first variant of the part, at its first
   valid test, in binary64, against the golden's nearest doubles.  */
static int
golden_is_ours (search *s)
{
  ctx *c = s->c;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      const rl_variant *v;
      const char *name;
      json_t *ev;
      size_t mi;
      if (c->vars[k->var].part != s->p || k->kind != K_VALID || s->point_of[i] == (size_t) -1)
        continue;
      v = rl_find_variant (s->f, c->vars[k->var].name);
      if (v == NULL || strcmp (v->name, c->vars[k->var].name) != 0)
        return 0;
      for (mi = 0; mi < s->nm && !(s->m[mi]->kind == M_VARIANT && s->m[mi]->v == v); mi++)
        ;
      if (mi == s->nm)
        return 0;
      json_object_foreach (json_object_get (k->test, "outputs"), name, ev)
        {
          const double *y;
          size_t n, j;
          json_t *e;
          if (model_output (s, mi, s->point_of[i], name, &y, &n))
            return 0;
          for (j = 0; j < n; j++)
            {
              double h;
              e = json_is_array (ev) ? json_array_get (ev, j) : ev;
              if (ck_cand_number (json_object_get (e, "hex"), &h) != 0)
                return 0;
              if (!(h == y[j] || (isnan (h) && isnan (y[j]))
                    || fabs (h - y[j]) <= 1e-9 * fmax (fabs (h), 1e-300)
                    || fabs (h - y[j]) <= 64 * ldexp (golden_sens (k, name, j)
                                                      + fabs (h), -53)))
                return 0;
            }
        }
      return 1;
    }
  return 1;
}

/* The error the candidate gives on every valid or acceptable case of part
   p it answers, when it answers every one of them with an error (it
   computes none of them), else NULL.  */
static const char *
rejects_all (const ctx *c, size_t p)
{
  const char *first = NULL;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (c->vars[k->var].part != p || k->kind == K_INVALID || k->answer == A_SKIP
          || k->answer == A_MISSING)
        continue;
      if (k->answer != A_ERROR)
        return NULL;
      if (first == NULL)
        first = k->cand_error;
    }
  return first;
}

/* Explain part p into c->parts[p].why; 0 or -1 without memory.  */
static int
explain_part (ctx *c, size_t p, const rl_formula *f)
{
  struct explanation *x = new_explanation ();
  const variant *a = ck_answer (c, p);
  search s;
  int rc = 0;
  if (x == NULL)
    return -1;
  c->parts[p].why = x;
  x->nearest = a->name;
  x->level = c->level;          /* the declared dtype until a search says otherwise */
  if (f == NULL)
    {
      x->reason = "the golden's formula is not one of this rlref's";
      return 0;
    }
  const char *err = rejects_all (c, p);
  if (err != NULL)
    {
      /* nothing to search: it computes none of the part's cases */
      const char *fmt = "the candidate rejects every case of the part it answers "
        "(the first with \"%.160s\"): it computes none of them";
      size_t n = strlen (fmt) + 161;
      x->reason_buf = malloc (n);
      if (x->reason_buf == NULL)
        return -1;
      snprintf (x->reason_buf, n, fmt, err);
      for (char *q = x->reason_buf; *q; q++)
        if ((unsigned char) *q < 0x20 || *q == 0x7f)
          *q = ' ';
      x->reason = x->reason_buf;
      return 0;
    }
  memset (&s, 0, sizeof s);
  s.c = c;
  s.p = p;
  s.f = f;
  s.start = clock ();
  s.outputs = json_array ();
  if (s.outputs == NULL || collect_points (&s) || build_models (&s))
    rc = -1;
  if (rc == 0)
    {
      /* the outputs judged of this part, in the golden's order */
      json_t *seen = json_object ();
      for (size_t i = 0; i < c->ncases && seen != NULL; i++)
        {
          const char *name;
          json_t *v;
          if (c->vars[c->cases[i].var].part != p)
            continue;
          json_object_foreach (json_object_get (c->cases[i].test, "outputs"), name, v)
            if (json_object_get (c->judged_outputs, name) && !json_object_get (seen, name))
              {
                json_object_set_new (seen, name, json_true ());
                json_array_append_new (s.outputs, json_string (name));
              }
        }
      json_decref (seen);
      if (s.nm == 0)
          x->reason = "the registry has none of the part's variants";
      else if (!golden_is_ours (&s))
        x->reason = "the golden's values are not this rlref's (another version)";
    }
  if (rc == 0 && x->reason == NULL)
    for (int l = c->level, top = c->level + 1 < NLEVELS ? c->level + 1 : c->level;
         l <= top && rc == 0; l++)
      {
        explanation_clear (x);
        rc = search_level (&s, l, x, a->name);
        if (rc == 0 && json_array_size (x->unexplained) == 0 && x->ne > 0)
          break;
        if (l == top && l != c->level && rc == 0)
          {
            /* nothing complete at any level: keep the declared one */
            explanation_clear (x);
            rc = search_level (&s, c->level, x, a->name);
          }
      }
  x->searched = x->reason == NULL ? s.nm : 0;
  x->m = s.m;
  x->nm = s.nm;
  if (rc == 0 && x->reason == NULL && x->ne == 0)
    x->reason = s.out_of_time ? "the search stopped after 20 s of processor time "
      "(each evaluation of this formula is long)" : "no departure searched explains it";
  /* keep the models' labels; free their values */
  for (size_t i = 0; i < s.nm; i++)
    model_free (s.m[i], s.npoints);
  free (s.points);
  free (s.point_of);
  free (s.next_same);
  free (s.first_of);
  json_decref (s.outputs);
  return rc;
}

/* --- rendering ----------------------------------------------------------- */

/* Write the phrase of entry e of x ("follow trl with ddof 0 in place of
   1") to f; plural: the outputs are several.  */
static void
phrase (const struct explanation *x, const entry *e, FILE *f, int plural)
{
  const model *m = x->m[e->model];
  switch (m->kind)
    {
    case M_VARIANT:
      fprintf (f, "%s variant %s", plural ? "follow" : "follows", m->v->name);
      break;
    case M_FORMULA:
      fprintf (f, "%s the values of %s variant %s", plural ? "are" : "is", m->f->id,
               m->v->name);
      break;
    case M_SCALE:
      fprintf (f, "%s %s %s", plural ? "follow" : "follows", m->base, m->label);
      break;
    default:
      fprintf (f, "%s %s with %s", plural ? "follow" : "follows", m->base, m->label);
    }
}

/* Write the names of the array a joined by ", " to f.  */
static void
names (json_t *a, FILE *f)
{
  size_t i;
  json_t *v;
  json_array_foreach (a, i, v)
    fprintf (f, "%s%s", i ? ", " : "", json_string_value (v));
}

/* Write explanation x as one line (no newline) to f.  */
static void
line_text (const ctx *c, const struct explanation *x, FILE *f)
{
  const char *acc = x->level == c->level ? "" : x->level == 1
    ? " (at float32 accuracy)" : " (at bfloat16 accuracy)";
  if (x->ne == 0 && x->searched == 0)
    {
      fprintf (f, "Unexplained: %s", x->reason != NULL ? x->reason : "nothing searched");
      return;
    }
  if (x->ne == 0)
    {
      size_t n = 0;
      fprintf (f, "Unexplained: %s (%zu departures of its variants searched: their "
               "parameters, the formula's axes, sign and scale, probabilities for "
               "log-probabilities, formulas with the same inputs)",
               x->reason != NULL ? x->reason : "nothing explains it", x->searched);
      for (size_t i = 0; i < c->ncases; i++)
        {
          const gcase *k = &c->cases[i];
          if (strcmp (c->vars[k->var].name, x->nearest) != 0 || k->kind == K_INVALID
              || k->st[c->level] != S_FAIL)
            continue;
          if (n < 12)
            fprintf (f, "%s%" JSON_INTEGER_FORMAT, n ? ", " : "; it departs from "
                     "the nearest on tcIds ", k->tcid);
          n++;
        }
      if (n > 12)
        fprintf (f, " and %zu more", n - 12);
      return;
    }
  if (x->whole)
    {
      const model *m = x->m[x->e[0].model];
      fputs ("Explained: the candidate ", f);
      if (m->kind == M_VARIANT)
        fprintf (f, "follows variant %s", m->v->name);
      else if (m->kind == M_FORMULA)
        fprintf (f, "gives the values of %s variant %s", m->f->id, m->v->name);
      else if (m->kind == M_SCALE)
        fprintf (f, "follows %s with every output %s", m->base, m->label);
      else
        fprintf (f, "follows %s with %s", m->base, m->label);
      fprintf (f, "%s, on all %zu cases compared", acc, x->e[0].cases);
      return;
    }
  fputs ("Explained: ", f);
  for (size_t i = 0; i < x->ne; i++)
    {
      if (i > 0)
        fputs ("; ", f);
      names (x->e[i].outputs, f);
      putc (' ', f);
      phrase (x, &x->e[i], f, json_array_size (x->e[i].outputs) > 1);
    }
  if (json_array_size (x->follow_nearest) > 0)
    {
      fputs ("; ", f);
      names (x->follow_nearest, f);
      fprintf (f, " %s %s", json_array_size (x->follow_nearest) > 1 ? "follow" : "follows",
               x->nearest);
    }
  fputs (acc, f);
  if (json_array_size (x->unexplained) > 0)
    {
      fputs ("; not explained: ", f);
      names (x->unexplained, f);
    }
}

/* For each part whose answer is not followed, search what the candidate
   follows; 0 or 2 without memory.  */
int
ck_explain (ctx *c)
{
  const char *id = json_string_value (json_object_get (c->golden, "formula"));
  const rl_formula *f = id != NULL ? rl_find (id) : NULL;
  for (size_t p = 0; p < c->nparts; p++)
    {
      const variant *a = ck_answer (c, p);
      struct explanation *x;
      char *buf = NULL;
      size_t len = 0;
      FILE *m;
      if (a == NULL || a->cls != C_NONE)
        continue;
      if (explain_part (c, p, f))
        return ck_bad (c->cpath, "out of memory");
      x = c->parts[p].why;
      if ((m = open_memstream (&buf, &len)) == NULL)
        return ck_bad (c->cpath, "out of memory");
      line_text (c, x, m);
      if (fclose (m) != 0)
        return ck_bad (c->cpath, "out of memory");
      x->line = buf;
    }
  return 0;
}

/* Write part p's explanation as a text line (starting with ind) to f.  */
void
ck_explain_text (const ctx *c, size_t p, FILE *f, const char *ind)
{
  const struct explanation *x = c->parts[p].why;
  (void) c;
  if (x != NULL && x->line != NULL)
    fprintf (f, "%s%s\n", ind, x->line);
}

/* One line summing up part p's explanation, or NULL.  */
const char *
ck_explain_line (const ctx *c, size_t p)
{
  const struct explanation *x = c->parts[p].why;
  return x != NULL ? x->line : NULL;
}

/* The JSON object of part p's explanation, or null.  */
json_t *
ck_explain_json (ctx *c, size_t p)
{
  const struct explanation *x = c->parts[p].why;
  json_t *o, *entries;
  if (x == NULL)
    return json_null ();
  o = json_object ();
  entries = json_array ();
  for (size_t i = 0; i < x->ne; i++)
    {
      const model *m = x->m[x->e[i].model];
      static const char *const kinds[] = { "variant", "axis", "parameter", "formula",
                                           "probabilities", "scale" };
      json_t *e = json_object ();
      ck_put (c, e, "outputs", json_deep_copy (x->e[i].outputs));
      ck_put (c, e, "kind", json_string (kinds[m->kind]));
      ck_put (c, e, "formula", json_string (m->f->id));
      ck_put (c, e, "variant", json_string (model_variant (m)->name));
      ck_put (c, e, "base", m->base != NULL ? json_string (m->base) : json_null ());
      ck_put (c, e, "departure", m->kind == M_VARIANT || m->kind == M_FORMULA
              ? json_null () : json_string (m->label));
      if (m->kind == M_PARAM)
        {
          ck_put (c, e, "parameter", json_string (m->own.params[m->param].name));
          ck_put (c, e, "value", json_real (m->pvalue));
        }
      ck_put (c, e, "cases", json_integer ((json_int_t) x->e[i].cases));
      if (entries == NULL || json_array_append_new (entries, e))
        c->oom = 1;
    }
  ck_put (c, o, "nearest", json_string (x->nearest));
  ck_put (c, o, "dtype", json_string (ck_dtypes[x->level].name));
  ck_put (c, o, "whole", json_boolean (x->whole));
  ck_put (c, o, "entries", entries);
  ck_put (c, o, "followNearest", json_deep_copy (x->follow_nearest));
  ck_put (c, o, "unexplained", json_deep_copy (x->unexplained));
  ck_put (c, o, "reason", x->reason != NULL ? json_string (x->reason) : json_null ());
  ck_put (c, o, "searched", json_integer ((json_int_t) x->searched));
  ck_put (c, o, "text", x->line != NULL ? json_string (x->line) : json_null ());
  return o;
}

/* Free the explanations.  */
void
ck_explain_free (ctx *c)
{
  for (size_t p = 0; p < c->nparts && c->parts != NULL; p++)
    {
      struct explanation *x = c->parts[p].why;
      if (x == NULL)
        continue;
      explanation_clear (x);
      json_decref (x->follow_nearest);
      json_decref (x->unexplained);
      for (size_t i = 0; i < x->nm; i++)
        free (x->m[i]);
      free (x->m);
      free (x->line);
      free (x->reason_buf);
      free (x);
      c->parts[p].why = NULL;
    }
}
