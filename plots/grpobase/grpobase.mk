# plots/grpobase/grpobase.mk -- the figures of the GRPO baselines family (included by plots/Makefile)
# GRPO-STDBIAS and GRPO-VAR: the leave-one-out baseline (RLOO) against the group mean, with
# and without the std: the weight each puts on a prompt of success rate p, and the noise of
# each baseline against G

FIGURES += grpobase_rloo
GRPOBASE_DATA := data/grpobase_weight.dat data/grpobase_var.dat
DATA += $(GRPOBASE_DATA)

data/grpobase_weight.dat: grpobase/grpobase_data.sh $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpobase/grpobase_data.sh $(RLREF) $(PYTHON) weight > $@.tmp && mv $@.tmp $@

data/grpobase_var.dat: grpobase/grpobase_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpobase/grpobase_data.sh $(RLREF) $(PYTHON) var > $@.tmp && mv $@.tmp $@

figures/grpobase_rloo.png figures/grpobase_rloo.svg: $(GRPOBASE_DATA)
