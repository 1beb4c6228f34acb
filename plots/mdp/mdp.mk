# plots/mdp/mdp.mk -- the figures of the MDP family (included by plots/Makefile)

$(eval $(call figure,mdp_vi,data/mdp_vi.dat))
$(eval $(call figure,mdp_ql,data/mdp_ql.dat data/mdp_ql_uniform.dat))
$(eval $(call figure,mdp_gae,data/mdp_gae.dat))

# MDP-OPT value iteration, MDP-QL, MDP-GAE: certified values from rlref eval

data/mdp_vi.dat: mdp/mdp_vi_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) mdp/mdp_vi_data.sh $(RLREF) $(PYTHON) > $@.tmp && mv $@.tmp $@

data/mdp_ql.dat: mdp/mdp_ql_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) mdp/mdp_ql_data.sh $(RLREF) $(PYTHON) egreedy-include > $@.tmp && mv $@.tmp $@

data/mdp_ql_uniform.dat: mdp/mdp_ql_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) mdp/mdp_ql_data.sh $(RLREF) $(PYTHON) uniform > $@.tmp && mv $@.tmp $@

data/mdp_gae.dat: mdp/mdp_gae_data.sh evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(SH) mdp/mdp_gae_data.sh $(RLREF) $(PYTHON) > $@.tmp && mv $@.tmp $@
