# plots/grpo/grpo.mk -- the figures of the GRPO family (included by plots/Makefile)

$(eval $(call figure,grpo_adv,data/grpo_adv.dat))

# GRPO-ADV: the advantages of one group under every convention

data/grpo_adv.dat: grpo/grpo_adv_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) grpo/grpo_adv_data.sh $(RLREF) $(PYTHON) > $@.tmp && mv $@.tmp $@
