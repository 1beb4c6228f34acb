/* dpo_conventions.c -- the named conventions of the DPO formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/dpo.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/dpo.h"

/* The library code the conventions model (TRL at commit f2cd577, 1.10.0.dev0;
 * OpenRLHF 0.11.0, 3c3be62). */
#define TRL_DPO "TRL (f2cd577, 1.10.0.dev0) trl/trainer/dpo_trainer.py DPOTrainer._compute_loss "

#define ORL_DPO "OpenRLHF 0.11 openrlhf/models/loss.py DPOLoss.forward (built and called by " \
  "openrlhf/trainer/dpo_trainer.py DPOTrainer.__init__ and fit) "

/* The margins the rules use (the log-probabilities summed over tokens). */
#define D_SUM "D = (logp_w - ref_w) - (logp_l - ref_l); "

#define D_TOK "D_tok = (logp_w - ref_w)/max(n_w, 1) - (logp_l - ref_l)/max(n_l, 1) (a count of " \
  "0 counts as 1); "

#define KTO_RULE                                                                \
  "z0 = max(0, (1/M) sum_j (kl_logp_j - kl_ref_j)), held constant; r = logp - ref; desirable "   \
  "l = w_d (1 - sigma(beta (r - z0))), undesirable l = w_u (1 - sigma(beta (z0 - r))), given "   \
  "their exact values w sigma(-x) (the libraries write the subtraction 1 - sigmoid(x), which "    \
  "loses digits as x grows: 0 in binary64 beyond x = 37; such cases are flagged "                \
  "OneMinusSigmoid, NUMERICAL); loss = the mean over all B completions; "

#define TRL_CPO "TRL (f2cd577, 1.10.0.dev0) trl/experimental/cpo/cpo_trainer.py CPOTrainer "   \
  "loss_type=\"simpo\": cpo_loss (lines 714-721, logits - simpo_gamma/beta, label_smoothing 0), " \
  "get_batch_logps (average_log_prob, line 787), concatenated_forward (nll_loss, lines 841-844) " \
  "and get_batch_loss_metrics (losses.mean() + cpo_alpha * policy_nll_loss, line 889)"

#define TRL_SIMPO_RULE                                                          \
  "l = -log sigma(beta (a_w - a_l) - simpo_gamma), a = logp/n; loss = mean l + cpo_alpha nll, "   \
  "nll = -sum logp_w / sum n_w (token mean over the batch's chosen completions, TRL's "          \
  "CrossEntropyLoss), or TRL's placeholder 0 where cpo_alpha = 0 (it computes no NLL); "

#define TRL_ORPO "TRL (f2cd577, 1.10.0.dev0) trl/experimental/orpo/orpo_trainer.py: log1mexp "  \
  "(lines 88-92), ORPOTrainer.get_batch_logps (average_log_prob, line 744), "                    \
  "concatenated_forward (chosen_nll_loss, line 803), odds_ratio_loss (lines 673-705) and "        \
  "get_batch_loss_metrics (policy_nll_loss - losses.mean(), line 851); beta = lambda 0.1"

static const rlref_dpo_convention sigmoid = { .form = RLREF_DPO_SIGMOID };
static const rlref_dpo_convention seed003 = { .form = RLREF_DPO_SIGMOID, .beta_squared = 1 };
static const rlref_dpo_convention hinge = { .form = RLREF_DPO_HINGE };
static const rlref_dpo_convention cdpo = { .form = RLREF_DPO_CDPO };
static const rlref_dpo_convention robust = { .form = RLREF_DPO_ROBUST };
static const rlref_dpo_convention ipo_sum = { .form = RLREF_DPO_IPO };
static const rlref_dpo_convention ipo_mean = { .form = RLREF_DPO_IPO, .per_token = 1 };
static const rlref_dpo_convention sigmoid_norm = { .form = RLREF_DPO_SIGMOID, .per_token = 1 };
/* DPO-SIMPO: 1 where the NLL output is TRL's placeholder 0 at cpo_alpha = 0. */
static const int trl_nll = 1;
static const enum rlref_nll_mean token_mean = RLREF_NLL_TOKEN_MEAN;
static const enum rlref_nll_mean seq_mean = RLREF_NLL_SEQ_MEAN;

/* The pair losses: DPO-LOSS carries every one, DPO-CDPO and DPO-IPO their own
 * two again. */
#define ROW_SIGMOID(formula)                                                                       \
  { "sigmoid", formula, "pair-loss",                                                               \
    D_SUM "l = -log sigma(beta D) = softplus(-beta D) (13.21); grad_w = -beta "                    \
    "sigma(-beta D)/B, grad_l = -grad_w; beta 0.1",                                                \
    "seed 000 (13.21) and seed 003's pseudo-code; " TRL_DPO "loss_type=\"sigmoid\" (line "         \
    "1435, -F.logsigmoid(beta * delta_score); without label smoothing from 0.29 on); " ORL_DPO     \
    "with label_smoothing 0 (lines 326-329)", .params = { { "beta", 0.1 } },                       \
    .setting = &sigmoid }
#define ROW_SEED003(formula)                                                                       \
  { "seed-003-prose", formula, "pair-loss",                                                        \
    D_SUM "l = -log sigma(beta^2 D): seed 003's prose defines r_w = beta log(pi/"                  \
    "pi_ref) and then writes L = -log sigma(beta (r_w - r_l)), applying beta twice (an erratum: "  \
    "its derivation and pseudo-code apply it once); gradients with beta^2; rewards "               \
    "beta (logp - ref); beta 0.1",                                                                 \
    "seed 003 (DPO, the prose of its outline and derivation; erratum reading)",                    \
    .params = { { "beta", 0.1 } }, .setting = &seed003 }
#define ROW_HINGE(formula)                                                                         \
  { "hinge", formula, "pair-loss",                                                                 \
    D_SUM "l = max(0, 1 - beta D) (SLiC); grad_w = -beta/B where 1 - beta D > 0, else 0; at "      \
    "1 - beta D = 0 exactly the loss is 0 and the gradient 0 (relu'(0) = 0, as PyTorch); beta 0.1", \
    TRL_DPO "loss_type=\"hinge\" (lines 1437-1438, torch.relu(1 - beta * delta_score))",           \
    .params = { { "beta", 0.1 } }, .setting = &hinge }
#define ROW_CDPO(formula)                                                                          \
  { "cdpo", formula, "pair-loss",                                                                  \
    D_SUM "l = -(1 - eps) log sigma(beta D) - eps log sigma(-beta D), 0 <= eps <= 1; beta 0.1, "   \
    "eps 0.1 (the libraries' default label_smoothing 0 gives sigmoid)",                            \
    ORL_DPO "with --model.label_smoothing eps (lines 326-329; the cDPO note's eq. 3); TRL "        \
    "DPOTrainer loss_type=\"sigmoid\" with label_smoothing, up to 0.28; seed 000 section 10.1",    \
    .params = { { "beta", 0.1 }, { "eps", 0.1 } }, .setting = &cdpo }
#define ROW_ROBUST(formula)                                                                        \
  { "robust", formula, "pair-loss",                                                                \
    D_SUM "l = [-(1 - eps) log sigma(beta D) + eps log sigma(-beta D)]/(1 - 2 eps) "               \
    "(negative for large beta D), computed for every 0 <= eps <= 1 but 1/2: TRL only warns "       \
    "outside [0, 1/2), and at eps = 1/2 it divides by 0 (loss -inf; EDOM here); beta 0.1, eps "    \
    "0.1 (the robust DPO paper's typical value; TRL's default 0 gives sigmoid)",                   \
    TRL_DPO "loss_type=\"robust\" (lines 1475-1478; DPOTrainer.__init__, line 774, logs a "        \
    "warning for label_smoothing outside [0, 0.5) and goes on)",                                   \
    .params = { { "beta", 0.1 }, { "eps", 0.1 } }, .setting = &robust }
#define ROW_IPO_SUM(formula)                                                                       \
  { "ipo-sum", formula, "pair-loss",                                                               \
    D_SUM "l = (D - 1/(2 beta))^2 (beta is the IPO paper's "                                       \
    "tau); grad_w = 2 (D - 1/(2 beta))/B; beta 0.1",                                               \
    ORL_DPO "with ipo=True (--model.ipo_enable, line 323, summed log-probabilities); the "         \
    "IPO paper's eq. 17 as written", .params = { { "beta", 0.1 } }, .setting = &ipo_sum }
#define ROW_IPO_MEAN(formula)                                                                      \
  { "ipo-mean", formula, "pair-loss",                                                              \
    D_TOK "l = (D_tok - 1/(2 beta))^2; grad_w = 2 "                                                \
    "(D_tok - 1/(2 beta))/(B max(n_w, 1)), grad_l = -2 (D_tok - 1/(2 beta))/(B max(n_l, 1)); "     \
    "rewards from the summed log-ratios; beta 0.1",                                                \
    TRL_DPO "loss_type=\"ipo\" (lines 1440-1451: each log-ratio divided by "                       \
    "completion_mask.sum(dim=1).clamp(min=1.0); 0.28 averaged the log-probabilities before the "   \
    "loss)", .params = { { "beta", 0.1 } }, .setting = &ipo_mean }
#define ROW_SIGMOID_NORM(formula)                                                                  \
  { "sigmoid-norm", formula, "pair-loss",                                                          \
    D_TOK "l = -log sigma(beta D_tok); grad_w = "                                                  \
    "-beta sigma(-beta D_tok)/(B max(n_w, 1)), grad_l = beta sigma(-beta D_tok)/(B max(n_l, 1)); " \
    "beta 0.1",                                                                                    \
    TRL_DPO "loss_type=\"sigmoid_norm\" (lines 1551-1556: each log-ratio divided by "              \
    "completion_mask.sum(dim=1).clamp(min=1.0))", .params = { { "beta", 0.1 } },                   \
    .setting = &sigmoid_norm }

const rlref_convention rlref_dpo_conventions[] = {
  ROW_SIGMOID ("DPO-LOSS"),
  ROW_SEED003 ("DPO-LOSS"),
  ROW_HINGE ("DPO-LOSS"),
  ROW_CDPO ("DPO-LOSS"),
  ROW_ROBUST ("DPO-LOSS"),
  ROW_IPO_SUM ("DPO-LOSS"),
  ROW_IPO_MEAN ("DPO-LOSS"),
  ROW_SIGMOID_NORM ("DPO-LOSS"),
  { "seed-000", "DPO-GRAD", "grad",
    D_SUM "weight = sigma(r_l - r_w) = sigma(-beta D), r = beta (logp - ref) (13.18, "
      "13.22); grad_w = -beta weight/B, grad_l = beta weight/B; beta 0.1",
    "seed 000 (13.22); what " TRL_DPO "loss_type=\"sigmoid\" and " ORL_DPO "back-propagate",
    .params = { { "beta", 0.1 } }, .setting = &sigmoid },
  { "seed-003-prose", "DPO-GRAD", "grad",
    D_SUM "beta applied twice: weight = sigma(beta (r_l - r_w)) = sigma(-beta^2 D), "
      "grad_w = -beta^2 weight/B, grad_l = beta^2 weight/B; beta 0.1",
    "seed 003's prose (erratum reading)",
    .params = { { "beta", 0.1 } }, .setting = &seed003 },
  ROW_CDPO ("DPO-CDPO"),
  ROW_ROBUST ("DPO-CDPO"),
  ROW_IPO_SUM ("DPO-IPO"),
  ROW_IPO_MEAN ("DPO-IPO"),
  { "trl", "DPO-KTO", "kto",
    KTO_RULE "(TRL: losses.nanmean(), which leaves a NaN loss out; a NaN input is refused "
      "here); beta 0.1, w_d = w_u = 1",
    "TRL (f2cd577, 1.10.0.dev0) trl/trainer/kto_trainer.py KTOTrainer._compute_loss "
      "loss_type=\"kto\" (kl clamp(min=0) line 1554, 1 - F.sigmoid lines 1563 and 1580, "
      "torch.cat of the weighted losses 1589-1592, losses.nanmean() 1657; KL pairs by cycling "
      "completions within the batch)",
    .params = { { "beta", 0.1 }, { "w_d", 1.0 }, { "w_u", 1.0 } } },
  { "openrlhf", "DPO-KTO", "kto",
    KTO_RULE "beta 0.01, w_d = w_u = 1",
    "OpenRLHF 0.9.5 openrlhf/models/loss.py KTOLoss.forward (1 - F.sigmoid, KL clamp(min=0), "
      "torch.cat(...).mean(); present from 0.1.9, removed in 0.9.6) with openrlhf/cli/train_kto.py "
      "--beta default 0.01",
    .params = { { "beta", 0.01 }, { "w_d", 1.0 }, { "w_u", 1.0 } } },
  { "simpo-repo", "DPO-SIMPO", "simpo",
    "l = -log sigma(beta (a_w - a_l - gamma_beta_ratio)), a = logp/n, i.e. gamma = "
      "beta gamma_beta_ratio; loss = mean l + sft_weight nll (token-mean NLL of the chosen "
      "completions); beta 2.0, gamma_beta_ratio 0.25, sft_weight 0",
    "princeton-nlp/SimPO scripts/simpo_trainer.py SimPOTrainer.simpo_loss (SimPOConfig "
      "defaults)",
    .params = { { "beta", 2.0 }, { "gamma_beta_ratio", 0.25 }, { "sft_weight", 0.0 } } },
  { "trl", "DPO-SIMPO", "simpo",
    TRL_SIMPO_RULE "beta 0.1, simpo_gamma 0.5, cpo_alpha 1",
    TRL_CPO " (CPOConfig defaults: the NLL term is on)",
    .params = { { "beta", 0.1 }, { "simpo_gamma", 0.5 }, { "cpo_alpha", 1.0 } },
    .setting = &trl_nll },
  { "trl-no-nll", "DPO-SIMPO", "simpo",
    TRL_SIMPO_RULE "beta 0.1, simpo_gamma 0.5, cpo_alpha 0: loss = mean l, nll 0",
    TRL_CPO " with cpo_alpha=0 (the NLL term off, SimPO's own objective; beta and simpo_gamma "
      "the CPOConfig defaults)",
    .params = { { "beta", 0.1 }, { "simpo_gamma", 0.5 }, { "cpo_alpha", 0.0 } },
    .setting = &trl_nll },
  { "trl", "DPO-ORPO", "orpo",
    "log_odds = lo(a_w) - lo(a_l), lo(a) = a - log(1 - e^a) (stable log1mexp), a = logp/n; "
      "l = -lambda log sigma(log_odds) (TRL's own losses tensor, beta * logsigmoid(log_odds), is "
      "its negative; the trainer subtracts its mean); nll = -sum_i logp_w,i / sum_i n_w,i (token "
      "mean); loss = nll + mean l; exact (TRL casts to float32 first: see trl-float32); lambda 0.1",
    TRL_ORPO "; TRL's NLL also counts the prompt's tokens, here only the chosen completion's",
    .params = { { "lambda", 0.1 } }, .setting = &token_mean },
  { "trl-float32", "DPO-ORPO", "orpo",
    "trl as TRL computes it: a = logp/n in binary64, cast to binary32 "
      "(odds_ratio_loss's .float(), also for float64 inputs), then every step of log_odds = "
      "(a_w - a_l) - (log1mexp(a_w) - log1mexp(a_l)), log1mexp(a) = a < f32(-ln 2) ? log1p(-e^a) : "
      "log(-expm1(a)), logsigmoid (min(x, 0) - log1p(e^-|x|)), f32(lambda) times it, the mean, "
      "the rewards f32(lambda) a and the odds-ratio part of the gradients (autograd's steps: "
      "log_sigmoid_backward, Log1p/Log, Neg, Exp/Expm1) rounded to binary32; nll the token mean and "
      "loss = nll - mean in binary64; e^x, expm1, log1p, log correctly rounded (torch's SLEEF "
      "kernel of logsigmoid is within 1 ulp); ERANGE where TRL's log_odds or gradient is not "
      "finite: e^a rounds to 1 in binary32 (a within 2^-25 of 0), where torch.where's unused "
      "log1p(-exp(a)) branch back-propagates 0/0 = NaN; lambda 0.1",
    TRL_ORPO " (.float() casts, lines 694-695), on float64 or float32 log-probabilities",
    .params = { { "lambda", 0.1 } }, .binary32 = 1, .setting = &token_mean },
  { "seq-mean", "DPO-ORPO", "orpo",
    "as trl, but nll = (1/B) sum_i (-logp_w,i / n_w,i), the mean over pairs of each "
      "chosen completion's per-token NLL; lambda 0.1",
    "the ORPO paper (L_SFT of each chosen completion, averaged over the batch)",
    .params = { { "lambda", 0.1 } }, .setting = &seq_mean },
  { 0 },
};
