# plots/grpobase/grpobase.mk -- the figures of the GRPO baselines family (included by plots/Makefile)
# GRPO-STDBIAS and GRPO-VAR: the leave-one-out baseline (RLOO) against the group mean, with
# and without the std: the weight each puts on a prompt of success rate p, and the noise of
# each baseline against G

$(eval $(call figure,grpobase_rloo,data/grpobase_weight.dat data/grpobase_var.dat))

data/grpobase_weight.dat: grpobase/grpobase_data.sh $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpobase/grpobase_data.sh $(RLREF) $(PYTHON) weight > $@.tmp && mv $@.tmp $@

data/grpobase_var.dat: grpobase/grpobase_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpobase/grpobase_data.sh $(RLREF) $(PYTHON) var > $@.tmp && mv $@.tmp $@
