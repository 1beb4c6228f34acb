/* rlref/lmtrain.h -- the tiny language model's parameterisations, supervised
 * fine-tuning on it, and the report of an exact-gradient training run
 * (LM-PARAM, LM-SFT, LM-TRAIN), binary64 and MPFR.  The model is the
 * rlref_lm of rlref/lm.h; seed 000 (13.1), section 1, (13.8), (13.17). */
#ifndef RLREF_LMTRAIN_H
#define RLREF_LMTRAIN_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/lm.h"
#include "rlref/convention.h"

/* The longest training run rlref_lm_train_report_* accepts. */
#define RLREF_LM_TRAIN_MAX_STEPS 100000
/* The most prefixes walked for P(EOS within T) and its gradient (LM-SFT,
 * cut sequences conditioned away). */
#define RLREF_LM_SFT_MAX_PREFIXES 1e6

/* The named conventions of the LMTRAIN formulas, in the order of the golden
 * variants (src/lmtrain/lmtrain_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   LM-PARAM: rlref_lm_setting
 *   LM-SFT: rlref_lm_setting
 *   LM-TRAIN: rlref_lm_setting */
extern const rlref_convention rlref_lmtrain_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/lmtrain.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/lmtrain.h"
#include "rlref/tmpl/end.h"

#endif
