# plots/grpoobj/grpoobj.mk -- the figure of the GRPO objective family (included by plots/Makefile)

$(eval $(call figure,grpoobj_agg,data/grpoobj_agg.dat))

# GRPO-AGG: the per-token weight d loss / d L_t under every aggregation mode, for one group
# of four sequences of 2, 5, 9 and 4 tokens (rlref eval GRPO-AGG --variant V ... , the
# "weights" output; L_const = 20, the padded width; micro-batches of two sequences)

GRPOOBJ_AGG_MODES := token-mean seq-mean-token-mean seq-mean-token-sum seq-mean-token-sum-norm \
  seq-mean-token-sum-norm-no-b group-mean-length token-sum micro-batch-token-mean
GRPOOBJ_AGG_ARGS := L=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 lens=2,5,9,4 \
  mask=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1

data/grpoobj_agg.dat: evalcols.py $(RLREF_DEP)
	$(NEED_RLREF)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && files="" && \
	for v in $(GRPOOBJ_AGG_MODES); do \
	  case $$v in \
	    seq-mean-token-sum-norm*) extra="L_const=20" ;; \
	    micro-batch-token-mean) extra="micro=2" ;; \
	    *) extra="" ;; \
	  esac; \
	  $(DATAENV) $(RLREF) eval GRPO-AGG --variant $$v $(GRPOOBJ_AGG_ARGS) $$extra > "$$tmp/$$v.json" || exit 1; \
	  files="$$files $$tmp/$$v.json"; \
	done && \
	{ echo "# GRPO-AGG: per-token weights of one group, sequences of 2, 5, 9, 4 tokens (N = 20)"; \
	  echo "# made by: rlref eval GRPO-AGG --variant V $(GRPOOBJ_AGG_ARGS) [L_const=20] [micro=2]"; \
	  echo "# t $(GRPOOBJ_AGG_MODES)"; \
	  $(DATAENV) $(PYTHON) evalcols.py array weights $$files; } > $@.tmp && mv $@.tmp $@
