# plots/len/len.mk -- the figures of the LEN family (included by plots/Makefile)

$(eval $(call figure,len_drift,data/len_drift_seq-mean-token-mean.dat data/len_drift_token-mean.dat data/len_drift_seq-mean-token-sum.dat data/len_drift_seq-mean-token-sum-norm.dat))
$(eval $(call figure,len_entropy,data/len_entropy.dat))

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
