/* departure.h -- a variant moved by one departure, evaluated at a golden
   test's inputs: the models of the checker's explanation search
   (check_explain.c), and their export to other languages, so that a judge
   written elsewhere (the Python package's rlref.judge) searches the same
   models with the same values.  */
#ifndef RLREF_ORACLES_DEPARTURE_H
#define RLREF_ORACLES_DEPARTURE_H

#include <jansson.h>
#include "core/args.h"
#include "core/registry.h"

/* Whether input i of io is documented as a log-probability ("log pi...",
   "...log-probability..."): a real or real array.  */
int rl_is_logprob (const rl_io *io, size_t i);

/* Bind the golden test inputs u to v in a, with parameter param (its index,
   or -1) at pvalue and, with probs, every log-probability input x read as
   the probability e^x; 0 or -1 (free a with rl_args_free either way).  */
int rl_departure_args (const rl_variant *v, json_t *u, int param, double pvalue, int probs,
                       rl_args *a);

/* What the search may move variant variant of formula id along, as JSON
   text: {"axes": [{"axis": index, "label": "ddof 0 in place of 1",
   "variant": the moved variant's name}] (the formula's axes that apply to it), "params": [{"name", "value", "isInt",
   "inX"}], "logprob": whether an input is a log-probability}; NULL for an
   unknown formula or variant or without memory.  Free with
   rlref_eval_text_free.  */
char *rlref_departures_text (const char *id, const char *variant);

/* Variant variant of formula id, moved along axis (its index, or -1), with
   parameter param (its index, or -1) at pvalue and with probs as above,
   evaluated at the golden test inputs inputs_json (the "inputs" object of
   a test, as JSON text).  Without certified: binary64, {"status": S,
   "outputs": [{"name", "y": [C99 hex]}]}; with it, certified at the
   checker's working precision with sensitivities, {"status": S, "outputs":
   [{"name", "x": [...], "sens": [...], "nondiff": [0 or 1]}]}, values in
   MPFR's exact hex ("%Ra").  S is 0, or the status that stopped it.  NULL
   for an unknown formula, variant or axis, or without memory; free with
   rlref_eval_text_free.  */
char *rlref_departure_text (const char *id, const char *variant, int axis, int param,
                            double pvalue, int probs, const char *inputs_json, int certified);

#endif
