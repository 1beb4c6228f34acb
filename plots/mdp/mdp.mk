# plots/mdp/mdp.mk -- the figures of the MDP family (included by plots/Makefile)

FIGURES += mdp_vi mdp_ql mdp_gae
MDP_DATA := data/mdp_vi.dat data/mdp_ql.dat data/mdp_ql_uniform.dat data/mdp_gae.dat
DATA += $(MDP_DATA)

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

figures/mdp_vi.png figures/mdp_vi.svg: data/mdp_vi.dat
figures/mdp_ql.png figures/mdp_ql.svg: data/mdp_ql.dat data/mdp_ql_uniform.dat
figures/mdp_gae.png figures/mdp_gae.svg: data/mdp_gae.dat
