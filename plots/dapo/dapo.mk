# plots/dapo/dapo.mk -- the figures of the DAPO family (included by plots/Makefile)

$(eval $(call figure,dapo,data/dapo_pos_sym.dat data/dapo_pos_high.dat data/dapo_neg_sym.dat \
  data/dapo_neg_high.dat data/dapo_neg_dual.dat data/dapo_overlong.dat))

# DAPO-CLIPHIGHER (13.31) against the ratio: logp swept with old_logp = 0 (DAPO_LOG5 = the
# double nearest log 5), variants symmetric (PPO, 0.2/0.2), seed-000 (0.2/0.28) and verl
# (0.2/0.28 with the dual clip c = 3)
DAPO_LOG5 := 1.6094379124341003
DAPO_TOK   = --sweep logp=-3:$(DAPO_LOG5):301 old_logp=0 mask=1

data/dapo_pos_sym.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DAPO-CLIPHIGHER --variant symmetric $(DAPO_TOK) adv=1 > $@.tmp && mv $@.tmp $@

data/dapo_pos_high.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DAPO-CLIPHIGHER --variant seed-000 $(DAPO_TOK) adv=1 > $@.tmp && mv $@.tmp $@

data/dapo_neg_sym.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DAPO-CLIPHIGHER --variant symmetric $(DAPO_TOK) adv=-1 > $@.tmp && mv $@.tmp $@

data/dapo_neg_high.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DAPO-CLIPHIGHER --variant seed-000 $(DAPO_TOK) adv=-1 > $@.tmp && mv $@.tmp $@

data/dapo_neg_dual.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table DAPO-CLIPHIGHER --variant verl $(DAPO_TOK) adv=-1 > $@.tmp && mv $@.tmp $@

# DAPO-OVERLONG (13.34): one rlref eval per reading over |y| = 0, 128, ..., 28672 (L_max
# 20480, L_cache 4096); evalcols.py writes index, paper, verl, openrlhf
DAPO_LENGTHS := $(shell seq -s, 0 128 28672)

data/dapo_overlong.dat: evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	for v in paper verl openrlhf; do \
	  $(DATAENV) $(RLREF) eval DAPO-OVERLONG --variant $$v lengths=$(DAPO_LENGTHS) L_max=20480 L_cache=4096 > $@.$$v.json || exit 1; \
	done; \
	$(DATAENV) $(PYTHON) evalcols.py array penalty $@.paper.json $@.verl.json $@.openrlhf.json > $@.tmp && \
	rm -f $@.paper.json $@.verl.json $@.openrlhf.json && mv $@.tmp $@
