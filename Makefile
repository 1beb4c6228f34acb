# rlref -- GNU make.  `make` installs missing Debian packages (as root),
# builds, regenerates golden/, runs derivations/ and draws plots/;
# `make check` runs every test.

# Recipes run in the C locale: file lists sort the same everywhere.
export LC_ALL := C

PREFIX    ?= /usr/local
BUILD     ?= build
OPT       ?= -O2
SANITIZE  ?=
PYTHON    ?= /usr/bin/python3
CC        ?= cc

PKGS      := gsl mpfr check jansson
DEB_PKGS  := build-essential pkg-config libgsl-dev libmpfr-dev libgmp-dev check \
             libsubunit-dev libjansson-dev gnuplot-nox python3 python3-mpmath \
             python3-jsonschema python3-pytest python3-setuptools python3-venv python3-pip \
             python3-hypothesis python3-numpy \
             libsleef-dev chromium

WARN      := -std=c11 -Wall -Wextra -Werror
# SLEEF: the vectorised exp and log1p (1 ulp) of the batch DPO kernel
CPPFLAGS  := -Ireference/include -I$(BUILD)/include -Ireference/src -Ireference/src/core \
             -Ireference/src/math -D_POSIX_C_SOURCE=200809L \
             -DRLREF_HAVE_SLEEF
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs gsl mpfr jansson 2>/dev/null) -lsleef -lgmp -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
ALL_CFLAGS = $(WARN) $(OPT) -g -fPIC -MMD -MP $(SANITIZE) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SANITIZE) $(LDFLAGS)

# The library's sources (reference/README.md, "The source tree"): core/ is the
# infrastructure, compiled once; math/ (the shared two-precision building
# blocks) and each family's folder FAMILY/ are written against num_* and
# compiled twice, binary64 (_d) and MPFR (_mp), except a family's binary64
# batch kernels batch_*.c and its convention tables *_conventions.c, compiled once.
ONCE_SRC  := $(wildcard reference/src/core/*.c reference/src/*/batch_*.c \
                        reference/src/*/*_conventions.c)
TMPL_SRC  := $(filter-out $(ONCE_SRC),$(wildcard reference/src/*/*.c))
LIB_OBJ   := $(patsubst reference/src/%.c,$(BUILD)/obj/lib/%_d.o,$(TMPL_SRC)) \
             $(patsubst reference/src/%.c,$(BUILD)/obj/lib/%_mp.o,$(TMPL_SRC)) \
             $(patsubst reference/src/%.c,$(BUILD)/obj/lib/%.o,$(ONCE_SRC))
LIB_A     := $(BUILD)/lib/librlref.a
LIB_SO    := $(BUILD)/lib/librlref.so

# The library's family headers: one per declaration template tmpl/NAME.h;
# rlref/rlref.h includes the generated rlref/families.h, which includes them.
LIB_FAMILIES := $(sort $(filter-out begin_d begin_mp end, \
                  $(basename $(notdir $(wildcard reference/include/rlref/tmpl/*.h)))))
GEN_HDR   := $(BUILD)/include/rlref/families.h

# The rlref command: oracles/check (the checker), oracles/core (registry,
# arguments, evaluation, golden writer) and the family modules
# oracles/families/NAME/NAME.c are compiled once, each family's glue
# NAME/NAME_eval.c twice (binary64 and MPFR); oracles/cli holds main and the
# subcommands.  The table of family modules is generated from the files.
FAM_GLUE  := $(wildcard oracles/families/*/*_eval.c)
FAM_MOD   := $(filter-out $(FAM_GLUE),$(wildcard oracles/families/*/*.c))
FAMILIES  := $(sort $(basename $(notdir $(FAM_MOD))))
ORC_PLAIN := $(wildcard oracles/check/*.c oracles/core/*.c)
ORC_OBJ   := $(patsubst oracles/%.c,$(BUILD)/obj/oracles/%.o,$(ORC_PLAIN) $(FAM_MOD)) \
             $(patsubst oracles/%.c,$(BUILD)/obj/oracles/%_d.o,$(FAM_GLUE)) \
             $(patsubst oracles/%.c,$(BUILD)/obj/oracles/%_mp.o,$(FAM_GLUE)) \
             $(BUILD)/obj/oracles/gen/families.o
CLI_OBJ   := $(patsubst oracles/%.c,$(BUILD)/obj/oracles/%.o,$(wildcard oracles/cli/*.c))
ORC_A     := $(BUILD)/lib/liboracles.a
ORC_SO    := $(BUILD)/lib/librlref_oracles.so
RLREF     := $(BUILD)/bin/rlref

DERIV_SRC := $(wildcard derivations/*.c)
DERIV_BIN := $(patsubst derivations/%.c,$(BUILD)/bin/deriv-%,$(DERIV_SRC))

# The Check suites: the infrastructure's in tests/unit/, each family's beside its
# cross-check module in tests/families/FAMILY/ (test_*.c).
TEST_SRC  := $(wildcard tests/unit/*.c tests/families/*/test_*.c)
TEST_BIN  := $(addprefix $(BUILD)/bin/,$(basename $(notdir $(TEST_SRC))))
vpath test_%.c tests/unit $(sort $(dir $(wildcard tests/families/*/test_*.c)))

GOLDEN_TMP := $(BUILD)/golden-regen

.PHONY: FORCE check-stages fuzz docs check-docs check-sens check-refvalues check-generic check-faults check-plots check-python check-binaries all deps build lib golden derivations plots check check-unit check-golden \
        check-repro check-xcheck check-cli check-sanitize check-cli-asan check-install check-derivations bench coverage install clean

# Compilation runs on every core; the test stages run one after another.
NPROC := $(shell nproc 2>/dev/null || echo 1)

all: deps
	$(MAKE) -j$(NPROC) build
	$(MAKE) golden
	$(MAKE) docs
	$(MAKE) derivations
	$(MAKE) plots

# Header dependencies written by -MMD.
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- Debian packages -------------------------------------------------------
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "rlref needs these Debian packages:$$missing"; \
	  echo "install them as root with:"; \
	  echo "  apt-get install -y$$missing"; \
	  exit 1; \
	fi

build: lib $(RLREF) $(ORC_SO) $(DERIV_BIN)

lib: $(LIB_A) $(LIB_SO)

# Generated lists: rewritten only when their text changes.
$(GEN_HDR): FORCE
	@mkdir -p $(@D)
	@{ echo '/* rlref/families.h -- every family header of rlref (generated from'; \
	   echo '   include/rlref/tmpl/ by the Makefile; do not edit). */'; \
	   echo '#ifndef RLREF_FAMILIES_H'; echo '#define RLREF_FAMILIES_H'; \
	   for f in $(LIB_FAMILIES); do echo "#include \"rlref/$$f.h\""; done; \
	   echo '#endif'; } > $@.$$$$.tmp; \
	 cmp -s $@.$$$$.tmp $@ || mv $@.$$$$.tmp $@; rm -f $@.$$$$.tmp

$(BUILD)/gen/families.c: FORCE
	@mkdir -p $(@D)
	@{ echo '/* The family modules of oracles/families/ (generated by the Makefile;'; \
	   echo '   do not edit). */'; \
	   echo '#include <stddef.h>'; echo '#include "core/registry.h"'; \
	   for f in $(FAMILIES); do echo "extern const rl_family rl_family_$$f;"; done; \
	   echo 'const rl_family *const rl_families[] = {'; \
	   for f in $(FAMILIES); do echo "  &rl_family_$$f,"; done; \
	   echo '  NULL,'; echo '};'; } > $@.$$$$.tmp; \
	 cmp -s $@.$$$$.tmp $@ || mv $@.$$$$.tmp $@; rm -f $@.$$$$.tmp

$(LIB_OBJ) $(ORC_OBJ) $(CLI_OBJ): | $(GEN_HDR)

$(BUILD)/obj/lib/%_d.o: reference/src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/lib/%_mp.o: reference/src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DRLREF_MP $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/lib/%.o: reference/src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

SONAME    := librlref.so.0
$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# Family records use designated initialisers: omitted fields are zero.
ORC_CPPFLAGS = $(CPPFLAGS) -Ioracles -Ioracles/core -Ioracles/families
FAM_CFLAGS   = $(ALL_CFLAGS) -Wno-missing-field-initializers

$(BUILD)/obj/oracles/families/%_eval_d.o: oracles/families/%_eval.c
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) $(FAM_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/families/%_eval_mp.o: oracles/families/%_eval.c
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) -DRLREF_MP $(FAM_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/families/%.o: oracles/families/%.c
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) $(FAM_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/gen/families.o: $(BUILD)/gen/families.c
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/%.o: oracles/%.c
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(ORC_A): $(ORC_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(RLREF): $(CLI_OBJ) $(ORC_A) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(ORC_A) $(LIB_A) $(PKG_LIBS)

# The registry and evaluation in one shared object, for the Python package's
# rlref.eval (ctypes: rlref_eval_text of oracles/core/eval_api.h).
$(ORC_SO): $(ORC_OBJ) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bin/deriv-%: derivations/%.c derivations/residual.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $< -o $@ $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)

$(BUILD)/bin/test_%: test_%.c tests/unit/testutil.h tests/unit/refvalues.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $< -o $@ $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS) $(CHECK_LIBS)

# The generic test: every formula, variant and golden case of the registry.
TGENERIC := $(BUILD)/bin/tgeneric
$(TGENERIC): tests/generic/tgeneric.c tests/generic/fuzz.c tests/generic/generic.h $(ORC_A) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ORC_CPPFLAGS) -Itests/generic $(ALL_CFLAGS) tests/generic/tgeneric.c tests/generic/fuzz.c -o $@ $(LDFLAGS_ALL) $(ORC_A) $(LIB_A) $(PKG_LIBS) $(CHECK_LIBS)

# The figures' data files: regenerated from the rlref built here, byte-identical to
# plots/data (the pictures themselves depend on the gnuplot and cairo of the machine);
# then every figure's four files and the gallery, loaded in headless Chromium.
PLOTS_TMP := $(BUILD)/plots-check
check-plots: $(RLREF)
	rm -rf $(PLOTS_TMP) && mkdir -p $(PLOTS_TMP)
	cp plots/Makefile plots/*.py $(PLOTS_TMP)/ && \
	  for d in plots/*/; do case $$d in plots/data/|plots/figures/) ;; *) cp -R $$d $(PLOTS_TMP)/ ;; esac; done
	$(MAKE) -s -C $(PLOTS_TMP) data RLREF=$(abspath $(RLREF)) MODELS=$(abspath oracles/models)
	diff -r $(PLOTS_TMP)/data plots/data && echo "plots: every data file is current"
	MAKE=$(MAKE) sh tests/plots/test_gallery.sh $(CURDIR) $(abspath $(PLOTS_TMP))/gallery

# --- golden files ----------------------------------------------------------
golden: $(RLREF)
	$(RLREF) golden golden
	cd golden && sha256sum [A-Z]*.json > MANIFEST

# The formula tables of README.md and golden/README.md: `rlref list --markdown`.
DOC_TABLES := README.md golden/README.md
docs: $(RLREF)
	$(PYTHON) tests/docs/tables.py --write $(RLREF) $(DOC_TABLES)
	$(PYTHON) tests/docs/coverage.py --sync
	$(PYTHON) tests/docs/coverage.py $(RLREF) --write README.md
	$(PYTHON) tests/check_cmd/real_check.py $(RLREF) --write

# --- derivations -----------------------------------------------------------
# the report: every derivation's output, in the order of DERIV_BIN, each
# got by the command $(1) of the program $$b
deriv_report = set -e; { \
	  echo "\# Derivation report"; echo; \
	  echo "Each program evaluates every step of a derivation at 256 bits and prints"; \
	  echo "the residual of each step; it fails when a residual exceeds its bound."; \
	  for b in $(DERIV_BIN); do echo; echo "\#\# $$(basename $$b | sed 's/^deriv-//')"; echo; \
	    echo '```'; $(1); echo '```'; done; }
DERIV_REPORT = $(call deriv_report,$$b)

derivations: $(DERIV_BIN)
	@$(DERIV_REPORT) > derivations/REPORT.md.tmp && mv derivations/REPORT.md.tmp derivations/REPORT.md
	@echo "derivations: all residuals within their bounds (derivations/REPORT.md)"

# --- figures ---------------------------------------------------------------
plots: $(RLREF)
	$(MAKE) -C plots RLREF=$(abspath $(RLREF))

# --- tests -----------------------------------------------------------------
# Every binary first; then the stages, NPROC at a time (the longest first),
# each stage's output printed whole when it ends.
CHECK_STAGES := check-sanitize check-xcheck check-generic check-repro check-cli check-golden \
                check-unit check-plots check-python check-derivations check-faults \
                check-install check-refvalues check-docs
check: check-binaries
	@$(MAKE) --no-print-directory -j$(NPROC) --output-sync=target check-stages
	@echo "make check: all test stages passed"

check-stages: $(CHECK_STAGES)

# Every binary the stages run, compiled first on every core.
check-binaries:
	$(MAKE) --no-print-directory -j$(NPROC) $(TEST_BIN) $(TGENERIC) $(RLREF) $(DERIV_BIN)

# Runners fail when they ran nothing, and end with "N passed, M failed".
# The suites run NPROC at a time (tests/unit/run_suites.sh), their reports
# printed in order after.
check-unit: $(TEST_BIN)
	@sh tests/unit/run_suites.sh $(NPROC) $(BUILD)/unit-logs $(TEST_BIN)

# The unit tests' reference values come from tests/unit/gen_refvalues.py.
check-refvalues:
	$(PYTHON) tests/unit/gen_refvalues.py --check

# The generic test, then its domain fuzzer: FUZZ_DRAWS inputs per variant (seeded,
# the seed printed; tests/generic/fuzz.c), a variant stopping early where its
# draws take more than its share of FUZZ_SECONDS of processor time; the variants
# of tests/generic/fuzz_pending are drawn but not held.  `make fuzz N=2000` draws
# N per variant with no time limit and holds the pending ones too.
# The cases and the fuzzer run side by side, the cases' report printed after.
FUZZ_DRAWS ?= 60
FUZZ_SECONDS ?= 80
check-generic: $(TGENERIC)
	@RLREF_FUZZ=0 $(TGENERIC) > $(BUILD)/tgeneric-cases.log 2>&1 & cases=$$!; \
	RLREF_FUZZ=only RLREF_FUZZ_SECONDS=$(FUZZ_SECONDS) RLREF_FUZZ_DRAWS=$(FUZZ_DRAWS) \
	  $(TGENERIC); fuzz=$$?; wait $$cases; c=$$?; cat $(BUILD)/tgeneric-cases.log; \
	echo "generic: cases exit $$c, fuzzer exit $$fuzz"; [ $$c -eq 0 ] && [ $$fuzz -eq 0 ]

N ?= 500
fuzz: $(TGENERIC)
	RLREF_FUZZ_SECONDS=0 RLREF_FUZZ_DRAWS=$(N) RLREF_FUZZ_ALL=1 $(TGENERIC)

# Faults planted in a temporary copy (a registry past its limits, a duplicate
# id, a valid case turned invalid, an aliasing bug) must be caught.
check-faults:
	sh tests/faults/test_faults.sh .

# Each program runs once; the report is assembled from their outputs.
DERIV_OUT := $(BUILD)/deriv-out
check-derivations: $(DERIV_BIN)
	@rm -rf $(DERIV_OUT) && mkdir -p $(DERIV_OUT); p=0; f=0; for b in $(DERIV_BIN); do \
	  if $$b > $(DERIV_OUT)/$$(basename $$b); then p=$$((p + 1)); echo "derivation $$(basename $$b): ok"; \
	  else f=$$((f + 1)); echo "FAIL derivation $$(basename $$b)"; fi; done; \
	echo "derivations: $$p passed, $$f failed"; [ $$f -eq 0 ] && [ $$p -gt 0 ]
	@($(call deriv_report,cat $(DERIV_OUT)/$$(basename $$b))) > $(BUILD)/REPORT.md
	@diff -u derivations/REPORT.md $(BUILD)/REPORT.md \
	  || { echo "FAIL derivations/REPORT.md is out of date: make derivations"; exit 1; }
	@echo "derivations: derivations/REPORT.md is current"

check-docs: $(RLREF)
	$(PYTHON) tests/docs/tables.py --check $(RLREF) $(DOC_TABLES)
	$(PYTHON) tests/docs/coverage.py $(RLREF) --readme README.md
	$(PYTHON) tests/docs/names.py
	$(PYTHON) tests/docs/citations.py

# The goldens regenerated once, with every supplied sensitivity also formed by
# central differences (RLREF_SENS=both: a disagreement is an error, and the
# bytes written are those of the plain run): byte-identical to golden/MANIFEST.
check-golden: $(RLREF)
	rm -rf $(GOLDEN_TMP) && mkdir -p $(GOLDEN_TMP)
	RLREF_SENS=both $(RLREF) golden $(GOLDEN_TMP)
	(cd $(GOLDEN_TMP) && sha256sum [A-Z]*.json) | diff - golden/MANIFEST \
	  && echo "golden: regenerated files are byte-identical to golden/MANIFEST" \
	  && echo "golden: every supplied sensitivity agrees with central differences"
	cd golden && sha256sum -c --quiet MANIFEST && echo "golden: golden/ matches its MANIFEST"

check-sens: check-golden

# The goldens must not depend on the optimisation level: written here at -O3
# (the default build is -O2; check-cli-asan writes them again at -O1).
check-repro:
	@set -e; for o in -O3; do \
	  $(MAKE) --no-print-directory -j$(NPROC) BUILD=$(BUILD)/repro$$o OPT=$$o $(BUILD)/repro$$o/bin/rlref >/dev/null; \
	  rm -rf $(BUILD)/repro$$o/golden && mkdir -p $(BUILD)/repro$$o/golden; \
	  $(BUILD)/repro$$o/bin/rlref golden $(BUILD)/repro$$o/golden; \
	  (cd $(BUILD)/repro$$o/golden && sha256sum [A-Z]*.json) | diff - golden/MANIFEST \
	    && echo "golden: byte-identical when built with $$o"; \
	done

check-xcheck: $(RLREF)
	$(PYTHON) tests/schema/validate.py golden
	$(PYTHON) tests/crosscheck/xcheck.py --selftest
	$(PYTHON) tests/crosscheck/xcheck.py golden
	$(PYTHON) tests/crosscheck/detectors.py golden
	sh tests/crosscheck/test_fail_closed.sh golden
	sh tests/crosscheck/test_candidates.sh $(abspath $(RLREF)) golden/GRPO-ADV.json

check-cli: $(RLREF)
	sh tests/check_cmd/test_fixture_drift.sh $(abspath $(RLREF))
	sh tests/check_cmd/test_check.sh $(abspath $(RLREF)) tests/check_cmd/fixtures
	$(PYTHON) tests/check_cmd/real_check.py $(abspath $(RLREF)) --check
	$(PYTHON) tests/check_cmd/test_verdicts.py $(abspath $(RLREF))
	$(PYTHON) tests/check_cmd/test_planted.py $(abspath $(RLREF))
	sh tests/check_cmd/test_ppo_f32.sh $(abspath $(RLREF)) golden
	sh tests/cli/test_cli.sh $(abspath $(RLREF))
	sh tests/cli/test_check_diag.sh $(abspath $(RLREF))
	sh tests/cli/test_strict.sh $(abspath $(RLREF))
	sh tests/cli/test_range.sh $(abspath $(RLREF))
	$(PYTHON) tests/cli/test_train_trl.py $(abspath $(RLREF)) oracles/models
	sh tests/example/test_readme_example.sh
	sh tests/selfcheck/run.sh $(abspath $(RLREF)) golden
	$(PYTHON) tests/selfcheck/naive.py $(abspath $(RLREF)) golden

# The Python path: oracles/python/rlref_check.py, rlref check --format json and
# --junit, the pytest and README examples, the library-style examples.
check-python: $(RLREF)
	$(PYTHON) tests/python/run.py $(abspath $(RLREF))

ASAN_MAKE = $(MAKE) --no-print-directory BUILD=$(BUILD)/asan OPT=-O1 \
	  SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
check-sanitize:
	$(ASAN_MAKE) check-binaries
	$(ASAN_MAKE) FUZZ_DRAWS=6 FUZZ_SECONDS=40 check-unit check-generic check-cli-asan

check-cli-asan: $(RLREF)
	sh tests/cli/test_cli.sh $(abspath $(RLREF))
	sh tests/cli/test_strict.sh $(abspath $(RLREF))
	$(PYTHON) tests/cli/fuzz_eval.py $(abspath $(RLREF)) 300
	$(PYTHON) tests/cli/test_train_trl.py $(abspath $(RLREF)) oracles/models
	sh tests/check_cmd/test_check.sh $(abspath $(RLREF)) tests/check_cmd/fixtures
	rm -rf $(GOLDEN_TMP) && mkdir -p $(GOLDEN_TMP)
	$(RLREF) golden $(GOLDEN_TMP)
	(cd $(GOLDEN_TMP) && sha256sum [A-Z]*.json) | diff - golden/MANIFEST \
	  && echo "golden: the sanitized build writes the same bytes"

# An install into a staging prefix, used through pkg-config, static and shared.
check-install:
	rm -rf $(BUILD)/stage
	$(MAKE) --no-print-directory install PREFIX=$(abspath $(BUILD)/stage) >/dev/null
	PKG_CONFIG_PATH=$(BUILD)/stage/lib/pkgconfig $(CC) $(WARN) tests/install/smoke.c \
	  $$(PKG_CONFIG_PATH=$(BUILD)/stage/lib/pkgconfig pkg-config --cflags rlref) \
	  -o $(BUILD)/stage/smoke-shared \
	  $$(PKG_CONFIG_PATH=$(BUILD)/stage/lib/pkgconfig pkg-config --libs rlref) -lm \
	  -Wl,-rpath,$(abspath $(BUILD)/stage/lib)
	$(BUILD)/stage/smoke-shared
	$(CC) $(WARN) tests/install/smoke.c \
	  $$(PKG_CONFIG_PATH=$(BUILD)/stage/lib/pkgconfig pkg-config --cflags rlref) \
	  -o $(BUILD)/stage/smoke-static $(BUILD)/stage/lib/librlref.a $(PKG_LIBS)
	$(BUILD)/stage/smoke-static
	$(BUILD)/stage/bin/rlref --version

# --- benchmarks and coverage (not part of make check) ----------------------
bench: $(LIB_A) $(RLREF) $(ORC_SO)
	@mkdir -p $(BUILD)/bin
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/bench.c -o $(BUILD)/bin/bench \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	$(BUILD)/bin/bench
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/w1.c -o $(BUILD)/bin/w1 \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	sh tests/bench/w1.sh $(BUILD)/bin/w1
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/w2.c -o $(BUILD)/bin/w2 \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/w3.c -o $(BUILD)/bin/w3 \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	sh tests/bench/w2w3.sh $(BUILD)/bin/w2 $(BUILD)/bin/w3
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/ppo_clip.c -o $(BUILD)/bin/ppo_clip \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	sh tests/bench/ppo_clip.sh $(BUILD)/bin/ppo_clip
	$(PYTHON) tests/bench/python_eval.py $(abspath $(RLREF))
	$(PYTHON) tests/bench/python_batch.py

# Line coverage of the library by the unit suites and the command tests (gcov).
coverage:
	rm -rf $(BUILD)/cov
	$(MAKE) --no-print-directory BUILD=$(BUILD)/cov OPT=-O0 SANITIZE=--coverage \
	  check-unit check-derivations $(BUILD)/cov/bin/rlref >/dev/null
	$(BUILD)/cov/bin/rlref golden $$(mktemp -d) >/dev/null
	sh tests/cli/test_cli.sh $(abspath $(BUILD)/cov/bin/rlref) >/dev/null
	sh tests/check_cmd/test_check.sh $(abspath $(BUILD)/cov/bin/rlref) tests/check_cmd/fixtures >/dev/null
	sh tests/selfcheck/run.sh $(abspath $(BUILD)/cov/bin/rlref) golden >/dev/null
	@cd $(BUILD)/cov/obj && for f in lib/*.gcda oracles/*.gcda; do \
	  gcov -n -o $$(dirname $$f) $$f 2>/dev/null \
	  | awk -v obj=$$(basename $$f .gcda) '/^File/ { f = $$2 } \
	      /^Lines executed/ && f !~ /\.h.$$/ && f ~ /reference|oracles/ { \
	        printf "%-24s %s\n", obj, $$0; exit }'; done

# --- install ---------------------------------------------------------------
install: build
	install -d $(DESTDIR)$(PREFIX)/include/rlref/tmpl $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 reference/include/rlref/*.h $(DESTDIR)$(PREFIX)/include/rlref/
	install -m 644 reference/include/rlref/tmpl/*.h $(DESTDIR)$(PREFIX)/include/rlref/tmpl/
	install -m 644 $(GEN_HDR) $(DESTDIR)$(PREFIX)/include/rlref/
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/librlref.so
	install -m 755 $(RLREF) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' reference/rlref.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rlref.pc

clean:
	rm -rf $(BUILD)
