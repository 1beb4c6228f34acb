# plots/kl/kl.mk -- the figures of the KL family (included by plots/Makefile)

$(eval $(call figure,kl_naive,data/kl_naive.dat))
$(eval $(call figure,kl_gauss,data/kl_gauss.dat data/kl_gauss_mc.dat))
$(eval $(call figure,kl_estimators,data/kl_k1.dat data/kl_k2.dat data/kl_k3.dat data/kl_gauss.dat))

# KL-K3 naive against the exact k3, and Schulman's Gaussians (KL-EXACT gaussian, and the
# seeded Monte-Carlo run at a few mu); k1, k2, k3 per sample against l, and their means
# on the Gaussians

data/kl_naive.dat: kl/kl_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) kl/kl_data.py $(RLREF) naive > $@.tmp && mv $@.tmp $@

data/kl_gauss.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table KL-EXACT --variant gaussian --sweep mu_ref=0.05:3:119 mu=0 sigma=1 sigma_ref=1 > $@.tmp && mv $@.tmp $@

data/kl_gauss_mc.dat: kl/kl_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) kl/kl_data.py $(RLREF) mc > $@.tmp && mv $@.tmp $@

# KL-K1, KL-K2, KL-K3 per sample against the log-ratio l = logp - ref_logp
data/kl_k1.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table KL-K1 --variant plain --sweep logp=-3:3:241 ref_logp=0 > $@.tmp && mv $@.tmp $@

data/kl_k2.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table KL-K2 --variant plain --sweep logp=-3:3:241 ref_logp=0 > $@.tmp && mv $@.tmp $@

data/kl_k3.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table KL-K3 --variant stable --sweep logp=-3:3:241 ref_logp=0 > $@.tmp && mv $@.tmp $@
