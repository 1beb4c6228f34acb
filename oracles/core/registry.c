/* registry.c -- the table of every formula the command knows, gathered from
 * the family modules listed in the generated rl_families[], checked once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/status.h"
#include "registry.h"
#include "domain.h"

static const rl_formula **table;
static const rl_family **owner;
static size_t n_table;

rl_variant *
rl_variants_new (size_t n)
{
  rl_variant *v = calloc (n + 1, sizeof *v);
  if (!v)
    {
      fprintf (stderr, "rlref: out of memory\n");
      exit (3);
    }
  return v;
}

_Static_assert (RLREF_CONVENTION_MAX_PARAMS <= RL_MAX_PARAMS,
                "a convention's parameters fit a variant");

/* The io of ios with the part and precision of convention c; exits when
   there is none or more than one. */
static const rl_io *
io_of (const rlref_convention *c, const rl_io *const *ios)
{
  const rl_io *io = NULL;
  for (const rl_io *const *p = ios; *p; p++)
    if (strcmp ((*p)->part, c->part) == 0 && !(*p)->binary32 == !c->binary32)
      {
        if (io)
          {
            fprintf (stderr, "rlref: %s %s: two ios of part \"%s\"%s\n", c->formula,
                     c->name, c->part, c->binary32 ? " in binary32" : "");
            exit (3);
          }
        io = *p;
      }
  if (!io)
    {
      fprintf (stderr, "rlref: %s %s: no io of part \"%s\"%s\n", c->formula, c->name,
               c->part, c->binary32 ? " in binary32" : "");
      exit (3);
    }
  return io;
}

rl_variant *
rl_variants_of (const rlref_convention *table, const char *id, const rl_io *const *ios,
                rl_io_pick *pick)
{
  rl_variant *v = rl_variants_new (rlref_convention_count (table, id));
  size_t n = 0;
  for (const rlref_convention *c = table; c->name; c++)
    {
      if (strcmp (c->formula, id) != 0)
        continue;
      const rl_io *io = pick ? pick (c) : NULL;
      if (!io)
        io = io_of (c, ios);
      v[n] = (rl_variant) { c->name, c->rule, c->used_by, io, .data = c->setting,
                            .cert = c->binary32 ? "float32-emulation" : io->cert };
      for (size_t k = 0; k < RLREF_CONVENTION_MAX_PARAMS && c->params[k].name; k++)
        {
          const rlref_convention_param *p = &c->params[k];
          v[n].params[k] = (rl_param) { p->name, p->value, .is_int = p->is_int,
                                        .in_x = !p->is_int && !p->shown };
        }
      n++;
    }
  return v;
}

size_t
rl_n_in (const rl_io *io)
{
  size_t n = 0;
  while (io->in && io->in[n].name)
    n++;
  return n;
}

size_t
rl_n_out (const rl_io *io)
{
  size_t n = 0;
  while (io->out && io->out[n].name)
    n++;
  return n;
}

size_t
rl_n_params (const rl_variant *v)
{
  size_t n = 0;
  while (n <= RL_MAX_PARAMS && v->params[n].name)
    n++;
  return n;
}

size_t
rl_n_variants (const rl_formula *f)
{
  size_t n = 0;
  while (f->variants && f->variants[n].name)
    n++;
  return n;
}

size_t
rl_n_cases (const rl_formula *f)
{
  size_t n = 0;
  while (f->cases && f->cases[n].variants)
    n++;
  return n;
}

int
rl_input_index (const rl_io *io, const char *name)
{
  for (size_t i = 0; name && io->in[i].name; i++)
    if (strcmp (io->in[i].name, name) == 0)
      return (int) i;
  return -1;
}

int
rl_out_is_array (const rl_io *io, size_t k)
{
  return io->out[k].len_of != NULL || io->out[k].len_is != NULL;
}

int
rl_list_names (const char *list, const char *name)
{
  size_t n = strlen (name);
  if (!list)
    return 0;
  if (strcmp (list, "*") == 0)
    return 1;
  for (const char *p = list; p && *p;)
    {
      const char *end = strchr (p, ',');
      size_t len = end ? (size_t) (end - p) : strlen (p);
      if (len == n && strncmp (p, name, n) == 0)
        return 1;
      p = end ? end + 1 : NULL;
    }
  return 0;
}

rl_outcome
rl_case_outcome (const rl_case *c, const rl_variant *v)
{
  if (c->expect)
    return c->expect (v);
  if (rl_list_names (c->invalid_in, v->name))
    return RL_INVALID;
  if (rl_list_names (c->acceptable_in, v->name))
    return RL_ACCEPTABLE;
  return RL_VALID;
}

int
rl_out_lengths (const rl_variant *v, const rl_args *a, size_t *out_len)
{
  const rl_io *io = v->io;
  for (size_t i = 0; io->in[i].name; i++)
    {
      int j = rl_input_index (io, io->in[i].same_len_as);
      if (j >= 0 && a->len[i] != a->len[j])
        {
          char msg[160];
          snprintf (msg, sizeof msg, "%s and %s differ in length", io->in[j].name,
                    io->in[i].name);
          RLREF_ERROR (msg, RLREF_EINVAL);
        }
    }
  for (size_t k = 0; io->out[k].name; k++)
    {
      int j;
      out_len[k] = 1;
      if ((j = rl_input_index (io, io->out[k].len_of)) >= 0)
        out_len[k] = a->len[j];
      else if ((j = rl_input_index (io, io->out[k].len_is)) >= 0)
        {
          long n = a->iv[j][0];
          if (n < 0 || n > RL_MAX_LEN)
            {
              char msg[160];
              snprintf (msg, sizeof msg, "%s = %ld is outside [0, %d]", io->in[j].name, n,
                        RL_MAX_LEN);
              RLREF_ERROR (msg, RLREF_EINVAL);
            }
          out_len[k] = (size_t) n;
        }
    }
  return RLREF_SUCCESS;
}

/* --- the start-up check of every record -------------------------------- */

static size_t
problem (const char *where, const char *what, const char *name)
{
  fprintf (stderr, "rlref: registry: %s: %s%s%s\n", where, what, name ? " " : "",
           name ? name : "");
  return 1;
}

/* Words of a case's argument string (space-separated). */
static size_t
count_words (const char *s)
{
  size_t n = 0;
  for (const char *p = s; *p;)
    {
      while (*p == ' ')
        p++;
      if (*p)
        n++;
      while (*p && *p != ' ')
        p++;
    }
  return n;
}

static size_t
io_problems (const char *where, const rl_io *io)
{
  size_t bad = 0, n_in = rl_n_in (io), n_out = rl_n_out (io);
  if (n_in > RL_MAX_IN)
    bad += problem (where, "more inputs than RL_MAX_IN", NULL);
  if (n_out == 0 || n_out > RL_MAX_OUT)
    bad += problem (where, "no outputs, or more than RL_MAX_OUT", NULL);
  if (!io->eval_d || !io->eval_mp || !io->part)
    bad += problem (where, "an evaluator or the part is missing", NULL);
  for (size_t i = 0; i < n_in && i < RL_MAX_IN; i++)
    {
      const rl_input *s = &io->in[i];
      int j = rl_input_index (io, s->same_len_as), d = rl_input_index (io, s->defaults_to_len_of);
      if (rl_input_index (io, s->name) != (int) i)
        bad += problem (where, "input named twice:", s->name);
      if (s->same_len_as && (j < 0 || j == (int) i))
        bad += problem (where, "same_len_as names no other input:", s->name);
      if (s->defaults_to_len_of && (s->kind != RL_INT || d < 0 || io->in[d].kind == RL_INT
                                    || io->in[d].kind == RL_REAL))
        bad += problem (where, "defaults_to_len_of needs an int input and an array:", s->name);
      {
        rl_domain dom;
        char err[160];
        if (rl_domain_parse (s->domain, &dom, err, sizeof err))
          bad += problem (where, err, s->name);
        else if ((dom.sum1 || dom.sorted) && (s->kind == RL_REAL || s->kind == RL_INT))
          bad += problem (where, "sum1 or sorted for a scalar input:", s->name);
      }
    }
  for (size_t k = 0; k < n_out && k < RL_MAX_OUT; k++)
    {
      const rl_output *o = &io->out[k];
      int j = rl_input_index (io, o->len_of), m = rl_input_index (io, o->len_is);
      if (o->len_of && (j < 0 || io->in[j].kind == RL_REAL || io->in[j].kind == RL_INT))
        bad += problem (where, "len_of names no array input:", o->name);
      if (o->len_is && (m < 0 || io->in[m].kind != RL_INT))
        bad += problem (where, "len_is names no int input:", o->name);
      if (o->len_of && o->len_is)
        bad += problem (where, "both len_of and len_is:", o->name);
      for (size_t l = 0; l < k; l++)
        if (strcmp (io->out[l].name, o->name) == 0)
          bad += problem (where, "output named twice:", o->name);
    }
  return bad;
}

static size_t
formula_problems (const rl_formula *f)
{
  size_t bad = 0, nv = rl_n_variants (f), nc = rl_n_cases (f);
  char where[160];
  if (!f->what || !f->source || !f->definition)
    bad += problem (f->id, "what, source or definition missing", NULL);
  if (nv == 0)
    bad += problem (f->id, "no variants", NULL);
  if (nc == 0)
    bad += problem (f->id, "no golden cases", NULL);
  for (size_t i = 0; i < nv; i++)
    {
      const rl_variant *v = &f->variants[i];
      size_t np = rl_n_params (v);
      snprintf (where, sizeof where, "%s [%s]", f->id, v->name);
      if (!v->io || !v->description || !v->used_by)
        {
          bad += problem (where, "io, description or used_by missing", NULL);
          continue;
        }
      bad += io_problems (where, v->io);
      if (np > RL_MAX_PARAMS)
        bad += problem (where, "more parameters than RL_MAX_PARAMS", NULL);
      for (size_t j = 0; j < i; j++)
        if (strcmp (f->variants[j].name, v->name) == 0)
          bad += problem (where, "variant named twice", NULL);
    }
  for (size_t c = 0; c < nc; c++)
    {
      const rl_case *k = &f->cases[c];
      size_t used = 0;
      snprintf (where, sizeof where, "%s case '%s'", f->id, k->args ? k->args : "(null)");
      if (!k->args || !k->flags || !k->comment)
        {
          bad += problem (where, "args, flags or comment missing", NULL);
          continue;
        }
      for (size_t i = 0; i < nv; i++)
        if (rl_list_names (k->variants, f->variants[i].name))
          {
            used++;
            if (count_words (k->args)
                > rl_n_in (f->variants[i].io) + rl_n_params (&f->variants[i]))
              bad += problem (where, "more words than inputs and parameters of",
                              f->variants[i].name);
          }
      if (used == 0)
        bad += problem (where, "names no variant of the formula", NULL);
    }
  return bad;
}

size_t
rl_registry_problems (const rl_family *const *families)
{
  size_t bad = 0;
  for (size_t a = 0; families[a]; a++)
    {
      const rl_family *fa = families[a];
      if (!fa->name || !fa->title || !fa->formulas)
        {
          bad += problem ("family", "name, title or formulas missing", fa->name);
          continue;
        }
      for (size_t i = 0; fa->formulas[i].id; i++)
        {
          bad += formula_problems (&fa->formulas[i]);
          /* ids are unique across the whole registry */
          for (size_t b = 0; b <= a; b++)
            for (size_t j = 0; families[b]->formulas && families[b]->formulas[j].id
                               && (b < a || j < i); j++)
              if (strcmp (families[b]->formulas[j].id, fa->formulas[i].id) == 0)
                bad += problem (fa->formulas[i].id, "formula id defined twice, also in family",
                                families[b]->name);
        }
    }
  return bad;
}

/* --- the table --------------------------------------------------------- */

static int
by_rank (const void *pa, const void *pb)
{
  const rl_family *a = *(const rl_family *const *) pa, *b = *(const rl_family *const *) pb;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  return strcmp (a->name, b->name);
}

static void
init (void)
{
  const rl_family **fams;
  size_t nf = 0, n = 0;
  if (table)
    return;
  while (rl_families[nf])
    nf++;
  for (size_t a = 0; a < nf; a++)
    if (rl_families[a]->init)
      rl_families[a]->init ();
  if (rl_registry_problems (rl_families))
    {
      fprintf (stderr, "rlref: the formula registry is defective (see above)\n");
      exit (3);
    }
  fams = malloc ((nf ? nf : 1) * sizeof *fams);
  for (size_t a = 0; fams && a < nf; a++)
    {
      fams[a] = rl_families[a];
      for (size_t i = 0; fams[a]->formulas[i].id; i++)
        n++;
    }
  table = malloc ((n ? n : 1) * sizeof *table);
  owner = malloc ((n ? n : 1) * sizeof *owner);
  if (!fams || !table || !owner)
    {
      fprintf (stderr, "rlref: out of memory\n");
      exit (3);
    }
  qsort (fams, nf, sizeof *fams, by_rank);
  for (size_t a = 0; a < nf; a++)
    for (size_t i = 0; fams[a]->formulas[i].id; i++)
      {
        owner[n_table] = fams[a];
        table[n_table++] = &fams[a]->formulas[i];
      }
  free (fams);
}

size_t
rl_formula_count (void)
{
  init ();
  return n_table;
}

const rl_formula *
rl_formula_at (size_t i)
{
  init ();
  return i < n_table ? table[i] : NULL;
}

const rl_formula *
rl_find (const char *id)
{
  init ();
  for (size_t i = 0; id && i < n_table; i++)
    if (strcmp (table[i]->id, id) == 0)
      return table[i];
  return NULL;
}

const rl_family *
rl_family_of (const rl_formula *f)
{
  init ();
  for (size_t i = 0; i < n_table; i++)
    if (table[i] == f)
      return owner[i];
  return NULL;
}

const rl_variant *
rl_find_variant (const rl_formula *f, const char *name)
{
  if (!f || rl_n_variants (f) == 0)
    return NULL;
  if (!name)
    return &f->variants[0];
  for (size_t i = 0; f->variants[i].name; i++)
    if (strcmp (f->variants[i].name, name) == 0)
      return &f->variants[i];
  return NULL;
}

static const rl_note common_notes[] = {
  { "ExactZero", "EDGE_CASE",
    "The exact value is 0 (both precisions give exactly 0): value \"0\" with digits 0." },
  { "NonDifferentiable", "EDGE_CASE",
    "The formula is not differentiable (a branch or a jump) at this input: sens is 0, and the "
    "candidate must reproduce the branch exactly." },
  { "LowDigits", "PRECISION",
    "Fewer than 30 digits could be certified at up to 4096 bits (a value that cancels to almost "
    "nothing): digits says how many hold." },
  { "ZeroWithinPrecision", "PRECISION",
    "Both evaluations are below 2^-(p/2) in magnitude at the highest precision tried (4096 "
    "bits) while their digits disagree: the exact value is 0 to within that bound (cert "
    "\"bound\"); value \"0\" with digits 0." },
  { "OverflowsDouble", "EDGE_CASE", "The exact value is beyond the binary64 range." },
  { "UnderflowsDouble", "EDGE_CASE",
    "The exact value is below the binary64 normal range: hex holds 0x0p+0 or a subnormal "
    "though the value is not zero." },
  /* The refusals of bad input.  A family writes its own note of one of
     these flags only when it says more than this (which inputs, which
     bound); the error each case must give is in the case. */
  { "NonFinite", "INVALID_INPUT", "A NaN or infinite input: must be rejected." },
  { "OutOfDomain", "INVALID_INPUT", "An input outside its domain: must be rejected." },
  { "LengthMismatch", "INVALID_INPUT",
    "Inputs whose lengths do not fit together: must be rejected." },
  { "Empty", "INVALID_INPUT", "No data: must be rejected." },
  { "EmptyBatch", "INVALID_INPUT", "An empty batch: must be rejected." },
  { NULL, NULL, NULL },
};

const rl_note *
rl_common_notes (void)
{
  return common_notes;
}
