# plots/len/len.mk -- the figures of the LEN family (included by plots/Makefile)

FIGURES += len_drift len_entropy
LEN_NORMS := seq-mean-token-mean token-mean seq-mean-token-sum seq-mean-token-sum-norm
LEN_DRIFT_DATA := $(foreach n,$(LEN_NORMS),data/len_drift_$(n).dat)
LEN_DATA := $(LEN_DRIFT_DATA) data/len_entropy.dat
DATA += $(LEN_DATA)

# LEN-DRIFT on the think-then-answer model with uniform steps (T = 3, G = 4): the exact
# first-order drift and its parts, and E[|y|] after one step of size eta, per normalisation
# (group-mean-length is token-mean on one group)
LEN_MODEL := logits=0,0,0,0,0,0,0,0,0 G=4

data/len_drift_%.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table LEN-DRIFT --variant $* --sweep eta=0:6:61 $(LEN_MODEL) > $@.tmp && mv $@.tmp $@

# ENT-COLLAPSE: 40 outer steps of each recipe from a policy whose correct answer is rare;
# columns: step, entropy (symmetric, clip-higher, dynamic-sampling), accuracy (the same)
LEN_ENT_RUN := logits=0,-2,1,0,-2,1 G=3 lr=4 mu=8 steps=40
LEN_RECIPES := symmetric clip-higher dynamic-sampling

data/len_entropy.dat: evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	for r in $(LEN_RECIPES); do \
	  $(DATAENV) $(RLREF) eval ENT-COLLAPSE --variant $$r $(LEN_ENT_RUN) > $@.$$r.json || exit 1; \
	done
	$(DATAENV) $(PYTHON) evalcols.py array entropy $(foreach r,$(LEN_RECIPES),$@.$(r).json) > $@.h
	$(DATAENV) $(PYTHON) evalcols.py array acc $(foreach r,$(LEN_RECIPES),$@.$(r).json) | cut -d' ' -f2- > $@.a
	paste -d' ' $@.h $@.a > $@.tmp && mv $@.tmp $@
	rm -f $@.h $@.a $(foreach r,$(LEN_RECIPES),$@.$(r).json)

figures/len_drift.png figures/len_drift.svg: $(LEN_DRIFT_DATA)
figures/len_entropy.png figures/len_entropy.svg: data/len_entropy.dat
