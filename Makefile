# rlref -- GNU make.  `make` installs missing Debian packages (as root),
# builds, regenerates golden/, runs derivations/ and draws plots/;
# `make check` runs every test.

PREFIX    ?= /usr/local
BUILD     ?= build
OPT       ?= -O2
SANITIZE  ?=
PYTHON    ?= /usr/bin/python3
CC        ?= cc

PKGS      := gsl mpfr check jansson
DEB_PKGS  := build-essential pkg-config libgsl-dev libmpfr-dev libgmp-dev check \
             libsubunit-dev libjansson-dev gnuplot-nox python3 python3-mpmath \
             python3-jsonschema

WARN      := -std=c11 -Wall -Wextra -Werror
CPPFLAGS  := -Ireference/include -Ireference/src -D_POSIX_C_SOURCE=200809L
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs gsl mpfr jansson 2>/dev/null) -lgmp -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
ALL_CFLAGS = $(WARN) $(OPT) -g -fPIC -MMD -MP $(SANITIZE) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SANITIZE) $(LDFLAGS)

# Formula sources: each compiled twice, binary64 (_d) and MPFR (_mp).
TMPL_SRC  := $(wildcard reference/src/formulas/*.c)
PLAIN_SRC := $(wildcard reference/src/*.c)
LIB_OBJ   := $(patsubst reference/src/formulas/%.c,$(BUILD)/obj/lib/%_d.o,$(TMPL_SRC)) \
             $(patsubst reference/src/formulas/%.c,$(BUILD)/obj/lib/%_mp.o,$(TMPL_SRC)) \
             $(patsubst reference/src/%.c,$(BUILD)/obj/lib/%.o,$(PLAIN_SRC))
LIB_A     := $(BUILD)/lib/librlref.a
LIB_SO    := $(BUILD)/lib/librlref.so

ORC_TMPL  := $(wildcard oracles/tmpl/*.c)
ORC_SRC   := $(wildcard oracles/*.c)
ORC_OBJ   := $(patsubst oracles/tmpl/%.c,$(BUILD)/obj/oracles/%_d.o,$(ORC_TMPL)) \
             $(patsubst oracles/tmpl/%.c,$(BUILD)/obj/oracles/%_mp.o,$(ORC_TMPL)) \
             $(patsubst oracles/%.c,$(BUILD)/obj/oracles/%.o,$(ORC_SRC))
RLREF     := $(BUILD)/bin/rlref

DERIV_SRC := $(wildcard derivations/*.c)
DERIV_BIN := $(patsubst derivations/%.c,$(BUILD)/bin/deriv-%,$(DERIV_SRC))

TEST_SRC  := $(wildcard tests/unit/*.c)
TEST_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/bin/%,$(TEST_SRC))

GOLDEN_TMP := $(BUILD)/golden-regen

.PHONY: all deps build lib golden derivations plots check check-unit check-golden \
        check-repro check-xcheck check-cli check-sanitize check-cli-asan check-install check-derivations bench coverage install clean

all: deps
	$(MAKE) build
	$(MAKE) golden
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

build: lib $(RLREF) $(DERIV_BIN)

lib: $(LIB_A) $(LIB_SO)

$(BUILD)/obj/lib/%_d.o: reference/src/formulas/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/lib/%_mp.o: reference/src/formulas/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DRLREF_MP $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/lib/%.o: reference/src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(BUILD)/obj/oracles/%_d.o: oracles/tmpl/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ioracles $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/%_mp.o: oracles/tmpl/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ioracles -DRLREF_MP $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/oracles/%.o: oracles/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ioracles $(ALL_CFLAGS) -c $< -o $@

$(RLREF): $(ORC_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(ORC_OBJ) $(LIB_A) $(PKG_LIBS)

$(BUILD)/bin/deriv-%: derivations/%.c derivations/residual.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $< -o $@ $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)

$(BUILD)/bin/test_%: tests/unit/test_%.c tests/unit/testutil.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $< -o $@ $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS) $(CHECK_LIBS)

# --- golden files ----------------------------------------------------------
golden: $(RLREF)
	$(RLREF) golden golden
	cd golden && sha256sum [A-Z]*.json > MANIFEST

# --- derivations -----------------------------------------------------------
derivations: $(DERIV_BIN)
	@set -e; { \
	  echo "# Derivation report"; echo; \
	  echo "Each program evaluates every step of a derivation at 256 bits and prints"; \
	  echo "the residual of each step; it fails when a residual exceeds its bound."; \
	  for b in $(DERIV_BIN); do echo; echo "## $$(basename $$b | sed 's/^deriv-//')"; echo; \
	    echo '```'; $$b; echo '```'; done; \
	} > derivations/REPORT.md.tmp && mv derivations/REPORT.md.tmp derivations/REPORT.md
	@echo "derivations: all residuals within their bounds (derivations/REPORT.md)"

# --- figures ---------------------------------------------------------------
plots: $(RLREF)
	$(MAKE) -C plots RLREF=$(abspath $(RLREF))

# --- tests -----------------------------------------------------------------
check: check-unit check-derivations check-golden check-repro check-xcheck check-cli check-install \
       check-sanitize
	@echo "make check: all test stages passed"

check-unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done

check-derivations: $(DERIV_BIN)
	@set -e; for b in $(DERIV_BIN); do $$b > /dev/null && echo "derivation $$(basename $$b): ok"; done

check-golden: $(RLREF)
	rm -rf $(GOLDEN_TMP) && mkdir -p $(GOLDEN_TMP)
	$(RLREF) golden $(GOLDEN_TMP)
	(cd $(GOLDEN_TMP) && sha256sum [A-Z]*.json) | diff - golden/MANIFEST \
	  && echo "golden: regenerated files are byte-identical to golden/MANIFEST"
	cd golden && sha256sum -c --quiet MANIFEST && echo "golden: golden/ matches its MANIFEST"

# The goldens must not depend on the optimisation level.
check-repro:
	@set -e; for o in -O0 -O3; do \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)/repro$$o OPT=$$o $(BUILD)/repro$$o/bin/rlref >/dev/null; \
	  rm -rf $(BUILD)/repro$$o/golden && mkdir -p $(BUILD)/repro$$o/golden; \
	  $(BUILD)/repro$$o/bin/rlref golden $(BUILD)/repro$$o/golden; \
	  (cd $(BUILD)/repro$$o/golden && sha256sum [A-Z]*.json) | diff - golden/MANIFEST \
	    && echo "golden: byte-identical when built with $$o"; \
	done

check-xcheck: $(RLREF)
	$(PYTHON) tests/schema/validate.py golden
	$(PYTHON) tests/crosscheck/xcheck.py golden
	$(PYTHON) tests/crosscheck/detectors.py golden
	sh tests/crosscheck/test_candidates.sh $(abspath $(RLREF)) golden/GRPO-ADV.json

check-cli: $(RLREF)
	sh tests/check_cmd/test_check.sh $(abspath $(RLREF)) tests/check_cmd/fixtures
	sh tests/cli/test_cli.sh $(abspath $(RLREF))
	sh tests/example/test_readme_example.sh
	sh tests/selfcheck/run.sh $(abspath $(RLREF)) golden
	$(PYTHON) tests/selfcheck/naive.py $(abspath $(RLREF)) golden

check-sanitize:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/asan OPT=-O1 \
	  SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  check-unit check-cli-asan

check-cli-asan: $(RLREF)
	sh tests/cli/test_cli.sh $(abspath $(RLREF))
	$(PYTHON) tests/cli/fuzz_eval.py $(abspath $(RLREF)) 300
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
bench: $(LIB_A)
	@mkdir -p $(BUILD)/bin
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) tests/bench/bench.c -o $(BUILD)/bin/bench \
	  $(LDFLAGS_ALL) $(LIB_A) $(PKG_LIBS)
	$(BUILD)/bin/bench

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
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(RLREF) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' reference/rlref.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rlref.pc

clean:
	rm -rf $(BUILD)
