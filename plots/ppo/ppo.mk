# plots/ppo/ppo.mk -- the figures of the PPO family (included by plots/Makefile)

$(eval $(call figure,ppo_clip,data/ppo_clip_pos.dat data/ppo_clip_neg.dat data/ppo_cliphigh_pos.dat \
  data/ppo_cliphigh_neg.dat data/ppo_dual_neg.dat))

# PPO-CLIP (13.12) and PPO-DUALCLIP against the ratio: rho swept directly (PPO-CLIP-EX2) or
# as e^logp with old_logp = 0 (PPO-DUALCLIP; LOG5 = the double nearest log 5)
LOG5     := 1.6094379124341003
PPO_TOK   = old_logp=0 mask=1

data/ppo_clip_pos.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PPO-CLIP-EX2 --sweep rho=0:5:501 adv=1 > $@.tmp && mv $@.tmp $@

data/ppo_clip_neg.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PPO-CLIP-EX2 --sweep rho=0:5:501 adv=-1 > $@.tmp && mv $@.tmp $@

data/ppo_cliphigh_pos.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PPO-DUALCLIP --variant none --sweep logp=-10:$(LOG5):1001 $(PPO_TOK) adv=1 eps_high=0.28 > $@.tmp && mv $@.tmp $@

data/ppo_cliphigh_neg.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PPO-DUALCLIP --variant none --sweep logp=-10:$(LOG5):1001 $(PPO_TOK) adv=-1 eps_high=0.28 > $@.tmp && mv $@.tmp $@

data/ppo_dual_neg.dat: $(RLREF_DEP)
	$(NEED_RLREF)
	$(DATAENV) $(RLREF) table PPO-DUALCLIP --variant dual-clip --sweep logp=-10:$(LOG5):1001 $(PPO_TOK) adv=-1 > $@.tmp && mv $@.tmp $@
