# plots/dpo/dpo.mk -- the figures of the DPO family (included by plots/Makefile)

$(eval $(call figure,dpo_weight,data/dpo_weight_b0.1.dat data/dpo_weight_b0.5.dat data/dpo_weight_b1.dat))
$(eval $(call figure,dpo_train,data/dpo_train.dat data/dpo_displace.dat))
$(eval $(call figure,dpo_trl_logs,data/dpo_trl_logs.dat data/dpo_trl_pair.dat))

# DPO training on the tiny LM (exact gradients) and likelihood displacement

data/dpo_train.dat: $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/tab3.json --objective dpo --steps 600 --lr 40 --every 3 > $@.tmp && mv $@.tmp $@

data/dpo_displace.dat: $(MODELS)/displace.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/displace.json --objective dpo --steps 200 --lr 0.5 --every 2 --pair "1 1 0" "1 1 1" > $@.tmp && mv $@.tmp $@

# DPO-GRAD: the gradient weight sigma(-beta D) against the margin D (logp_w swept, the rest 0)
data/dpo_weight_b%.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DPO-GRAD --variant seed-000 --sweep logp_w=-20:20:401 logp_l=0 ref_w=0 ref_l=0 beta=$* > $@.tmp && mv $@.tmp $@

# the same two runs as TRL's DPOTrainer logs them (rlref train --trl-log)
data/dpo_trl_logs.dat: $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/tab3.json --objective dpo --steps 300 --lr 40 --every 1 --trl-log > $@.tmp && mv $@.tmp $@

data/dpo_trl_pair.dat: $(MODELS)/displace.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/displace.json --objective dpo --steps 200 --lr 0.5 --every 2 --pair "1 1 0" "1 1 1" --trl-log > $@.tmp && mv $@.tmp $@
