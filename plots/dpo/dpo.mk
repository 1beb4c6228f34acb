# plots/dpo/dpo.mk -- the figures of the DPO family (included by plots/Makefile)
# DPO training on the tiny LM (exact gradients) and likelihood displacement

FIGURES += dpo_train
DATA += data/dpo_train.dat data/dpo_displace.dat

data/dpo_train.dat: $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/tab3.json --objective dpo --steps 600 --lr 40 --every 3 > $@.tmp && mv $@.tmp $@

data/dpo_displace.dat: $(MODELS)/displace.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) train $(MODELS)/displace.json --objective dpo --steps 200 --lr 0.5 --every 2 --pair "1 1 0" "1 1 1" > $@.tmp && mv $@.tmp $@

figures/dpo_train.png figures/dpo_train.svg: data/dpo_train.dat data/dpo_displace.dat
