# plots/pref/pref.mk -- the figures of the PREF family (included by plots/Makefile)

$(eval $(call figure,pref_bt,data/pref_bt.dat data/pref_rm_loss.dat data/pref_bt_points.dat))

# PREF-BT and PREF-RM-LOSS against the reward difference, with the worked points

data/pref_bt.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PREF-BT --sweep rw=-6:6:241 rl=0 > $@.tmp && mv $@.tmp $@

data/pref_rm_loss.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PREF-RM-LOSS --sweep rw=-6:6:241 rl=0 > $@.tmp && mv $@.tmp $@

data/pref_bt_points.dat: pref/pref_bt_points.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) pref/pref_bt_points.sh $(RLREF) $(PYTHON) > $@.tmp && mv $@.tmp $@
