# plots/dapo/dapo.mk -- the figures of the DAPO family (included by plots/Makefile)

$(eval $(call figure,dapo,data/dapo_overlong.dat))

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
