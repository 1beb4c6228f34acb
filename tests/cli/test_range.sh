#!/bin/sh
# test_range.sh RLREF -- the range rule of binary64 answers (README "Bad
# input"): a value beyond the binary64 range, or an intermediate overflow
# that leaves no stable form, makes `rlref eval` exit 3 with ERANGE and the
# output named; where a stable form exists (the mean of terms whose sum
# alone overflows, formed scaled) the double is the certified value.  Each
# input below printed inf, -inf or NaN with exit 0 before.
RLREF=${1:?usage: test_range.sh path/to/rlref}
. "$(dirname "$0")/testlib.sh"

# refused PATTERN -- EVAL-ARGS: exit 3, "ERANGE: PATTERN" on stderr, the
# certified values printed
refused () {
  pat=$1; shift 2
  "$RLREF" eval "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq 3 ] && grep -Eq -- "ERANGE: $pat" "$tmp/err" && grep -q '"value"' "$tmp/out"
  then ok
  else bad "eval $*: exit $got (expected 3, ERANGE: $pat), stderr: $(head -c 300 "$tmp/err")"
  fi
}

# answers OUTPUT DOUBLE -- EVAL-ARGS: exit 0 and the binary64 value of
# OUTPUT is DOUBLE (shortest form, as printed)
answers () {
  name=$1; want=$2; shift 3
  "$RLREF" eval "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  d=$(tr -d '\n ' <"$tmp/out" | sed -n "s/.*\"$name\":{[^}]*\"double\":\"\([^\"]*\)\".*/\1/p")
  if [ "$got" -eq 0 ] && [ "$d" = "$want" ]; then ok
  else bad "eval $*: exit $got, $name double '$d' (expected 0 and $want) $(head -c 200 "$tmp/err")"
  fi
}

# --- beyond the range: ERANGE, as PPO-RATIO always did ----------------------
refused "the ratio overflows" -- PPO-RATIO logp=1000 old_logp=0
refused "value = -4e\+308 lies beyond the binary64 range" -- \
  GRPO-AGG --variant token-sum L=-1e308,-1e308,-1e308,-1e308 lens=2,2 mask=1,1,1,1
refused "expected_groups = 1.01201e\+323 lies beyond the binary64 range" -- \
  DAPO-DYNSAMPLE --variant openrlhf-refill p=4.9e-324 G=8 B=4
refused "k3 = p_ref/p - 1 \+ l lies beyond the binary64 range" -- PPO-TOKREW-EX p=1e-310 p_ref=0.9
refused "gamma = beta gamma_beta_ratio lies beyond the binary64 range" -- DPO-SIMPO \
  --variant simpo-repo logp_w=-10000 logp_l=-1 n_w=1 n_l=1 beta=2 gamma_beta_ratio=1.7e308 \
  sft_weight=0

# --- a mean whose sum alone overflows: the scaled sum -----------------------
for spec in "DAPO-CLIPHIGHER --variant verl" "PPO-DUALCLIP --variant none" \
            "PPO-CLIP --variant plain" "GRPO-GSPO --variant verl lens=1,1"; do
  # shellcheck disable=SC2086
  answers loss 1e+308 -- $spec logp=0,0 old_logp=0,0 adv=-1e308,-1e308 mask=1,1
done
answers mean_kept 1e+308 -- GRPO-GFPO --variant shortest rewards=1e308,1e308,1e308,0 lens=1,2,3,4 k=3
for v in seed-003 trl verl openrlhf; do
  answers loss 1e+308 -- GRPO-OBJ --variant $v logp=0,0 old_logp=0,0 ref_logp=0,0 lens=1,1 \
    adv=-1e308,-1e308 mask=1,1
done

finish test_range
