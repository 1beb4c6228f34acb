# plots/bon/bon.mk -- the figures of the best-of-n family (included by plots/Makefile)

FIGURES += bon_kl bon_overopt
BON_DATA := data/bon_kl.dat data/bon_overopt_bon.dat data/bon_overopt_rl.dat
DATA += $(BON_DATA)

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

figures/bon_kl.png figures/bon_kl.svg: data/bon_kl.dat
figures/bon_overopt.png figures/bon_overopt.svg: data/bon_overopt_bon.dat data/bon_overopt_rl.dat
