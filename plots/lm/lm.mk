# plots/lm/lm.mk -- the figures of the LM family (included by plots/Makefile)
# the tiny LM: pi* against beta, and the identity objective

FIGURES += lm_pistar lm_identity
DATA += data/lm_pistar.dat data/lm_identity.dat

data/lm_pistar.dat: lm/lm_data.py $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) lm/lm_data.py $(RLREF) pistar $(MODELS)/tab3.json > $@.tmp && mv $@.tmp $@

data/lm_identity.dat: lm/lm_data.py $(MODELS)/tab3.json $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) lm/lm_data.py $(RLREF) identity $(MODELS)/tab3.json > $@.tmp && mv $@.tmp $@

figures/lm_pistar.png figures/lm_pistar.svg: data/lm_pistar.dat
figures/lm_identity.png figures/lm_identity.svg: data/lm_identity.dat
