# plots/kl/kl.mk -- the figures of the KL family (included by plots/Makefile)

$(eval $(call figure,kl_naive,data/kl_naive.dat))
$(eval $(call figure,kl_gauss,data/kl_gauss.dat data/kl_gauss_mc.dat))

# KL-K3 naive against the exact k3, and Schulman's Gaussians (KL-EXACT gaussian, and the
# seeded Monte-Carlo run at a few mu)

data/kl_naive.dat: kl/kl_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) kl/kl_data.py $(RLREF) naive > $@.tmp && mv $@.tmp $@

data/kl_gauss.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table KL-EXACT --variant gaussian --sweep mu_ref=0.05:3:119 mu=0 sigma=1 sigma_ref=1 > $@.tmp && mv $@.tmp $@

data/kl_gauss_mc.dat: kl/kl_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) kl/kl_data.py $(RLREF) mc > $@.tmp && mv $@.tmp $@
