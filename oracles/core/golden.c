/* golden.c -- golden files in the manner of Wycheproof: one canonical JSON
 * file per formula id, test groups by variant, every value a certified
 * decimal string (golden/README.md). */
#include <float.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/rlref.h"
#include "args.h"
#include "jsonio.h"
#include "numfmt.h"
#include "golden.h"

static void
add_flag (json_t *flags, const char *flag)
{
  size_t i;
  json_t *f;
  json_array_foreach (flags, i, f)
    if (strcmp (json_string_value (f), flag) == 0)
      return;
  json_array_append_new (flags, json_string (flag));
}

struct value_ctx
{
  const rl_variant *v;
  const rl_result *r;
  json_t *flags;
};

/* One certified value: {"value", "digits", "hex", "sens", "cert"}. */
static json_t *
value_object (const void *ctx, size_t k)
{
  const struct value_ctx *c = ctx;
  const rl_variant *v = c->v;
  const rl_result *r = c->r;
  json_t *flags = c->flags;
  mpfr_srcptr y = r->cert.value + k;
  int digits = r->cert.digits[k];
  double nearest = mpfr_get_d (y, MPFR_RNDN);
  char hex[40], sens[40], *text;
  json_t *o;
  int exact, near_zero = rl_certified_zero (r, k, &exact) && !exact;
  if (exact)
    add_flag (flags, "ExactZero");
  else if (near_zero)
    add_flag (flags, "ZeroWithinPrecision");
  else if (mpfr_regular_p (y))
    {
      if (digits < RL_MIN_DIGITS)
        add_flag (flags, "LowDigits");
      if (isinf (nearest))
        add_flag (flags, "OverflowsDouble");
      else if (fabs (nearest) < DBL_MIN)
        add_flag (flags, "UnderflowsDouble");
    }
  if (r->cert.nondiff[k])
    add_flag (flags, "NonDifferentiable");
  text = near_zero ? strdup ("0") : rl_fmt_mpfr (y, mpfr_regular_p (y) ? digits : 0);
  rl_fmt_hex (nearest, hex);
  if (mpfr_zero_p (y) || near_zero)
    strcpy (hex, "0x0p+0");
  mpfr_snprintf (sens, sizeof sens, "%.3Rg", r->cert.sens_mp + k);
  o = json_pack ("{s:s, s:i, s:s, s:s, s:s}", "value", text ? text : "?",
                 "digits", mpfr_regular_p (y) && !near_zero ? digits : 0, "hex", hex,
                 "sens", sens,
                 "cert", r->cert.exact_zero[k] ? "exact" : near_zero ? "bound"
                 : v->cert ? v->cert : "two-precision");
  free (text);
  return o;
}

json_t *
rl_json_outputs (const rl_variant *v, const rl_result *r, json_t *flags)
{
  struct value_ctx c = { v, r, flags };
  return rl_outputs_json (v->io, r->out_len, value_object, &c);
}

/* Splits a case's args at spaces into argv (room for RL_MAX_IN +
 * RL_MAX_PARAMS words: the registry check holds every case to it). */
static int
split_words (char *s, char **argv)
{
  int argc = 0;
  char *save = NULL;
  for (char *w = strtok_r (s, " ", &save); w && argc < RL_MAX_IN + RL_MAX_PARAMS;
       w = strtok_r (NULL, " ", &save))
    argv[argc++] = w;
  return argc;
}

static json_t *
group_params (const rl_variant *v)
{
  json_t *p = json_object ();
  for (size_t i = 0; v->params[i].name; i++)
    json_object_set_new (p, v->params[i].name,
                         v->params[i].is_int ? json_integer ((json_int_t) v->params[i].value)
                                             : rl_json_real (v->params[i].value));
  return p;
}

static json_t *
io_spec (const rl_variant *v)
{
  static const char *kinds[] = { "real", "real[]", "int", "int[]" };
  json_t *in = json_array (), *out = json_array ();
  for (size_t i = 0; v->io->in[i].name; i++)
    json_array_append_new (in, json_pack ("{s:s, s:s, s:s}", "name", v->io->in[i].name,
                                          "type", kinds[v->io->in[i].kind],
                                          "doc", v->io->in[i].doc));
  for (size_t i = 0; v->io->out[i].name; i++)
    json_array_append_new (out, json_pack ("{s:s, s:s, s:s}", "name", v->io->out[i].name,
                                           "type", rl_out_is_array (v->io, i) ? "real[]" : "real",
                                           "doc", v->io->out[i].doc));
  return json_pack ("{s:o, s:o}", "inputs", in, "outputs", out);
}

/* One test: evaluated, checked against the case's expectation. */
static json_t *
make_test (const rl_formula *f, const rl_variant *v, const rl_case *c, int tcid,
           json_t *used_flags, int *failed)
{
  char *copy = strdup (c->args), *argv[RL_MAX_IN + RL_MAX_PARAMS], err[256];
  int argc = split_words (copy, argv);
  rl_args a;
  rl_result r;
  json_t *t, *flags = json_array ();
  char *fl = strdup (c->flags), *save = NULL;
  int status = rl_args_parse (v, argc, argv, &a, err, sizeof err);
  rl_outcome declared = rl_case_outcome (c, v);
  for (char *w = strtok_r (fl, " ", &save); w; w = strtok_r (NULL, " ", &save))
    add_flag (flags, w);
  free (fl);
  if (status)
    {
      fprintf (stderr, "rlref golden: %s [%s] '%s': %s\n", f->id, v->name, c->args, err);
      *failed = 1;
      free (copy);
      json_decref (flags);
      return NULL;
    }
  status = rl_evaluate (v, &a, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r);
  if (status != r.status_d)
    {
      fprintf (stderr, "rlref golden: %s [%s] '%s': binary64 says %s, MPFR says %s\n",
               f->id, v->name, c->args, rlref_status_name (r.status_d), rlref_status_name (status));
      *failed = 1;
    }
  if ((status == RLREF_SUCCESS) != (declared != RL_INVALID))
    {
      fprintf (stderr, "rlref golden: %s [%s] '%s': declared %s, but %s\n", f->id, v->name,
               c->args, declared == RL_INVALID ? "invalid" : "valid",
               status == RLREF_SUCCESS ? "it gives values" : rlref_status_name (status));
      *failed = 1;
    }
  t = json_pack ("{s:i, s:s}", "tcId", tcid, "comment", c->comment);
  json_object_set_new (t, "flags", flags);
  json_object_set_new (t, "inputs", rl_json_inputs (v, &a));
  if (status == RLREF_SUCCESS)
    {
      json_object_set_new (t, "outputs", rl_json_outputs (v, &r, flags));
      json_object_set_new (t, "result",
                           json_string (declared == RL_ACCEPTABLE ? "acceptable" : "valid"));
    }
  else
    {
      json_object_set_new (t, "result", json_string ("invalid"));
      json_object_set_new (t, "error", json_string (rlref_status_name (status)));
    }
  {
    size_t i;
    json_t *fv;
    json_array_foreach (flags, i, fv)
      add_flag (used_flags, json_string_value (fv));
  }
  rl_result_free (&r);
  rl_args_free (&a);
  free (copy);
  return t;
}

static const char *tolerance_rule =
  "A candidate computed with unit roundoff u (binary64 2^-53, binary32 2^-24, bfloat16 2^-8) "
  "and smallest normal L passes an output when |got - expected| <= U u (sens + max(|expected|, "
  "L)), U = defaultUlps unless overridden (the floor L only for nonzero expected values; an "
  "exact zero stays exact); sens is the first-order sensitivity sum_j |df/dx_j| |x_j| over the "
  "real inputs.";

static const char *certificate_text =
  "Each value is evaluated in MPFR at p = 256 bits (or more: at least the binary exponent spread "
  "of the inputs + 128, so that no input bit is lost in a sum) and at p + 64 bits; digits counts "
  "the leading significant decimal digits on which the two agree (less one), and p is doubled up "
  "to 4096 bits until at least 30 agree. Maximum-likelihood fits start from a GSL BFGS2 fit in binary64 "
  "and are polished by Newton steps in MPFR (newton-polish). Constants such as 1e-4 are the "
  "binary64 values of those literals.";

/* Explanations of the flags used in this file. */
static json_t *
file_notes (const rl_formula *f, json_t *used)
{
  json_t *notes = json_object ();
  size_t i;
  const rl_note *common = rl_common_notes ();
  json_t *fv;
  json_array_foreach (used, i, fv)
    {
      const char *flag = json_string_value (fv);
      const rl_note *note = NULL;
      for (size_t k = 0; f->notes && f->notes[k].flag && !note; k++)
        if (strcmp (f->notes[k].flag, flag) == 0)
          note = &f->notes[k];
      for (size_t k = 0; common[k].flag && !note; k++)
        if (strcmp (common[k].flag, flag) == 0)
          note = &common[k];
      if (note)
        json_object_set_new (notes, flag, json_pack ("{s:s, s:s}", "bugType", note->bug_type,
                                                      "description", note->description));
      else
        json_object_set_new (notes, flag, json_pack ("{s:s, s:s}", "bugType", "UNDOCUMENTED",
                                                      "description", "(no note)"));
    }
  return notes;
}

static int
notes_complete (const rl_formula *f, json_t *notes)
{
  const char *key;
  json_t *val;
  int ok = 1;
  json_object_foreach (notes, key, val)
    if (strcmp (json_string_value (json_object_get (val, "bugType")), "UNDOCUMENTED") == 0)
      {
        fprintf (stderr, "rlref golden: %s: flag %s has no note\n", f->id, key);
        ok = 0;
      }
  return ok;
}

int
rl_golden_write (const rl_formula *f, const char *dir)
{
  json_t *root, *groups = json_array (), *used = json_array ();
  int tcid = 0, failed = 0, bad;
  char *path, *text;
  FILE *fp;
  for (size_t g = 0; f->variants[g].name; g++)
    {
      const rl_variant *v = &f->variants[g];
      json_t *tests = json_array ();
      for (size_t c = 0; f->cases[c].variants; c++)
        if (rl_list_names (f->cases[c].variants, v->name))
          {
            json_t *t = make_test (f, v, &f->cases[c], ++tcid, used, &failed);
            if (t)
              json_array_append_new (tests, t);
          }
      json_array_append_new (groups,
                             json_pack ("{s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "variant",
                                        v->name, "part", v->io->part,
                                        "description", v->description, "usedBy", v->used_by,
                                        "params", group_params (v), "io", io_spec (v),
                                        "tests", tests));
    }
  root = json_pack ("{s:s, s:i, s:s, s:s, s:s, s:s, s:i}",
                    "schema", "rlref-golden.schema.json", "schemaVersion", RL_SCHEMA_VERSION,
                    "generator", RL_GENERATOR, "formula", f->id, "what", f->what,
                    "source", f->source, "numberOfTests", tcid);
  json_object_set_new (root, "precision",
                       json_pack ("{s:i, s:i, s:s}", "workingBits", RL_WORKING_BITS,
                                  "minDigits", RL_MIN_DIGITS, "certificate", certificate_text));
  json_object_set_new (root, "tolerance", json_pack ("{s:s, s:i}", "rule", tolerance_rule,
                                                     "defaultUlps",
                                                     f->ulps ? f->ulps : RL_DEFAULT_ULPS));
  json_object_set_new (root, "notes", file_notes (f, used));
  json_object_set_new (root, "testGroups", groups);
  if (!notes_complete (f, json_object_get (root, "notes")))
    failed = 1;
  json_decref (used);
  text = json_dumps (root, JSON_INDENT (1) | JSON_PRESERVE_ORDER);
  json_decref (root);
  path = malloc (strlen (dir) + strlen (f->id) + sizeof "/.json.tmp");
  if (!text || !path)
    {
      free (text);
      free (path);
      fprintf (stderr, "rlref golden: out of memory\n");
      return 1;
    }
  /* written whole to ID.json.tmp, then renamed: a failed write (a full
     disk) leaves the old file as it was */
  sprintf (path, "%s/%s.json.tmp", dir, f->id);
  errno = 0;
  fp = fopen (path, "w");
  bad = !fp;
  if (fp)
    {
      bad |= fputs (text, fp) == EOF || fputc ('\n', fp) == EOF;
      bad |= fflush (fp) != 0 || ferror (fp);
      bad |= fclose (fp) != 0;
    }
  if (!bad)
    {
      char *final = strdup (path);
      if (final)
        {
          final[strlen (final) - 4] = '\0';
          bad = rename (path, final) != 0;
          free (final);
        }
      else
        bad = 1;
    }
  if (bad)
    {
      int e = errno;
      fprintf (stderr, "rlref golden: cannot write %s: %s\n", path,
               e ? strerror (e) : "write error");
      remove (path);
      failed = 2;
    }
  free (text);
  free (path);
  return failed;
}
