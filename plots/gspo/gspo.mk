# plots/gspo/gspo.mk -- the figure of GSPO (included by plots/Makefile)

$(eval $(call figure,gspo_ratio,data/gspo_single.dat data/gspo_tokens.dat))

# GRPO-GSPO's sequence ratio against the token ratio (DAPO-CLIPHIGHER symmetric), for one
# deviating token and for one response of 16 tokens

data/gspo_single.dat: gspo/gspo_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) gspo/gspo_data.py $(RLREF) single > $@.tmp && mv $@.tmp $@

data/gspo_tokens.dat: gspo/gspo_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) gspo/gspo_data.py $(RLREF) tokens > $@.tmp && mv $@.tmp $@
