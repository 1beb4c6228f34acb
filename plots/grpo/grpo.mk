# plots/grpo/grpo.mk -- the figures of the GRPO family (included by plots/Makefile)
# GRPO-ADV: the advantages of one group under every convention

FIGURES += grpo_adv
DATA += data/grpo_adv.dat

data/grpo_adv.dat: grpo/grpo_adv_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpo/grpo_adv_data.sh $(RLREF) $(PYTHON) > $@.tmp && mv $@.tmp $@

figures/grpo_adv.png figures/grpo_adv.svg: data/grpo_adv.dat
