# plots/lm/lm.mk -- the figures of the LM family (included by plots/Makefile)

$(eval $(call figure,lm_pistar,data/lm_pistar.dat))
$(eval $(call figure,lm_identity,data/lm_identity.dat))

# the tiny LM: pi* against beta, and the identity objective

data/lm_pistar.dat: lm/lm_data.py $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) lm/lm_data.py $(RLREF) pistar $(MODELS)/tab3.json > $@.tmp && mv $@.tmp $@

data/lm_identity.dat: lm/lm_data.py $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) lm/lm_data.py $(RLREF) identity $(MODELS)/tab3.json > $@.tmp && mv $@.tmp $@
