# plots/bon/bon.mk -- the figures of the best-of-n family (included by plots/Makefile)

$(eval $(call figure,bon_kl,data/bon_kl.dat))
$(eval $(call figure,bon_overopt,data/bon_overopt_bon.dat data/bon_overopt_rl.dat))

# BON: KL(best-of-n || base) against n for uniform bases of K outcomes, with the bound
# log n - (n - 1)/n; OVEROPT: the two functional forms in d = sqrt(KL) with their peaks

data/bon_kl.dat: bon/bon_data.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(PYTHON) bon/bon_data.py $(RLREF) kl > $@.tmp && mv $@.tmp $@

data/bon_overopt_bon.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table OVEROPT --variant bon --sweep kl=0:36:721 alpha=1 beta=0.25 > $@.tmp && mv $@.tmp $@

data/bon_overopt_rl.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table OVEROPT --variant rl --sweep kl=0:36:721 alpha=0.5 beta=0.25 > $@.tmp && mv $@.tmp $@
