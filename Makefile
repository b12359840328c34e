# mecha — build, test and demo.  `make help` lists the targets.
#
# Every object goes under $(BUILD) so that a sanitizer build (build-asan) and a
# plain one never share an object file.

BUILD    ?= build
CC       ?= cc
PREFIX   ?= /usr/local
PYTHON   ?= /usr/bin/python3

# Linked: jansson (every verb) and libcrypto (SHA-256 for the mission board's ids).
LINK_PKGS := jansson libcrypto
# Compiled against but never linked: loaded on first use (src/base/dl.h), so a
# verb that never calls a model, sends mail, reads the calendar or opens the
# review screen never pays for mapping them. A library here needs a row in
# DL_LIBRARIES and a shim (src/base/dl_<name>.c); `make dlsyms` checks the
# shims. (ncursesw gets its row with the review screen's first call.)
DL_PKGS   := libcurl libical ncursesw
PKGS      := $(LINK_PKGS) $(DL_PKGS)
DEB_PKGS := build-essential pkg-config libjansson-dev libcurl4-openssl-dev libssl-dev \
            libical-dev libncurses-dev libcriterion-dev python3-pytest python3-aiosmtpd \
            valgrind nodejs

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wno-unused-parameter
# Messages are truncated on purpose (struct err); gcc alone warns about that.
ifneq ($(findstring clang,$(shell $(CC) --version 2>/dev/null)),clang)
WARN     += -Wno-format-truncation
endif
CPPFLAGS += -D_GNU_SOURCE -Isrc -MMD -MP
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c17 $(WARN) $(EXTRA_CFLAGS)

# pkg-config is asked once per make run; a missing library is `make deps`' job.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
CPPFLAGS   += $(PKG_CFLAGS)
LDLIBS     += $(PKG_LIBS) -lpthread

LIB_DIRS := base config calendar frontdoor outbox mission provider mcp
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
BIN_SRC  := $(wildcard src/cli/*.c src/tui/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
BIN_OBJ  := $(BIN_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check layers dlsyms unit cli mcp-test valgrind asan demo bench install clean help fuzz

all: $(BUILD)/mecha

help:
	@echo "make            build $(BUILD)/mecha and $(BUILD)/libmecha.a"
	@echo "make deps       install the Debian packages mecha needs (apt-get)"
	@echo "make check      build, check the layers, run the unit, CLI and MCP tests"
	@echo "make layers     check that every #include follows the arrows of DESIGN.md"
	@echo "make dlsyms     check that libcurl, libical … are loaded on first use, never linked"
	@echo "make mcp-test   the MCP server driven by the official client (node, tests/mcp)"
	@echo "make asan       the same under AddressSanitizer and UndefinedBehaviorSanitizer"
	@echo "make valgrind   the timing-free CLI tests with every mecha run under valgrind"
	@echo "make demo       a walk-through in a sandbox home under a temporary directory"
	@echo "make bench      benchmarks: one table of ratios against baselines from the same run"
	@echo "                (BENCH=mission, store or extract: only those figures)"
	@echo "make install    install the binary and the man page under PREFIX=$(PREFIX)"

# Installs only what is missing, so a machine that has everything pays nothing.
deps:
	@sh .ci/deps.sh $(DEB_PKGS)

# The libraries are checked before anything is compiled: a fresh machine runs
# `make deps` by itself instead of failing on a missing header.
$(BUILD)/.deps-ok:
	@pkg-config --exists $(PKGS) criterion && $(PYTHON) -c 'import pytest, aiosmtpd' 2>/dev/null \
	  || $(MAKE) --no-print-directory deps
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(if $(PKG_CFLAGS),,$(shell pkg-config --cflags $(PKGS))) $(CFLAGS) -c $< -o $@

$(BUILD)/libmecha.a: $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

# Before the link: a call into a loaded-on-first-use library that its shim
# does not forward is named here, with the row to add, not as "undefined reference".
$(BUILD)/.dlsyms-ok: $(LIB_OBJ) $(BIN_OBJ) scripts/dlsyms.sh
	@sh scripts/dlsyms.sh $(LIB_OBJ) $(BIN_OBJ)
	@touch $@

$(BUILD)/mecha: $(BIN_OBJ) $(BUILD)/libmecha.a $(BUILD)/.dlsyms-ok
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BIN_OBJ) $(BUILD)/libmecha.a \
	  $(if $(PKG_LIBS),$(LDLIBS),$(shell pkg-config --libs $(LINK_PKGS)) -lpthread)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmecha.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -o $@ $< $(BUILD)/libmecha.a \
	  $(shell pkg-config --libs criterion) $(if $(PKG_LIBS),$(LDLIBS),$(shell pkg-config --libs $(LINK_PKGS)) -lpthread)

unit: $(UNIT_BIN)
	@status=0; for t in $(UNIT_BIN); do \
	  echo "== $$t"; $$t --jobs 2 $(CRITERION_ARGS) || status=1; \
	done; exit $$status

cli: $(BUILD)/mecha
	MECHA_BIN=$(abspath $(BUILD)/mecha) $(PYTHON) -m pytest -q -p no:cacheprovider $(or $(CLI_TESTS),tests/cli) $(PYTEST_ARGS)

# The MCP server driven by the official client (tests/mcp, pinned by its lock
# file). npm is asked only when node_modules is missing, so it runs offline after.
mcp-test: $(BUILD)/mecha
	@[ -d tests/mcp/node_modules ] || npm ci --prefix tests/mcp --no-audit --no-fund
	MECHA_BIN=$(abspath $(BUILD)/mecha) node --test tests/mcp/

# The black-box tests that do not depend on timing, with every mecha run under
# valgrind (slow: for developers, not CI, which runs ASan and UBSan).
VALGRIND_TESTS ?= tests/cli/test_frontdoor.py tests/cli/test_reconcile.py tests/cli/test_mission.py \
                  tests/cli/test_config.py
valgrind: $(BUILD)/mecha
	VALGRIND_MECHA=$(abspath $(BUILD)/mecha) MECHA_BIN=$(abspath tests/support/valgrind-mecha) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(VALGRIND_TESTS) $(PYTEST_ARGS)

# Every #include follows the arrows of DESIGN.md (scripts/layers.sh).
layers:
	@sh scripts/layers.sh

# The shims forward every call the objects make, and the binary does not link
# a loaded-on-first-use library (scripts/dlsyms.sh).
dlsyms: $(BUILD)/mecha
	@sh scripts/dlsyms.sh --binary $(BUILD)/mecha $(LIB_OBJ) $(BIN_OBJ)

check: all layers dlsyms unit cli mcp-test

# ASan and UBSan in one build; any report fails the run.
asan:
	$(MAKE) --no-print-directory BUILD=build-asan \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" \
	  check

demo: all
	@sh docs/demo.sh $(abspath $(BUILD)/mecha)

bench: all
	@sh bench/run.sh $(abspath $(BUILD)/mecha) $(abspath $(BUILD))

fuzz:
	@sh fuzz/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BUILD)/mecha $(DESTDIR)$(PREFIX)/bin/mecha
	install -m 0644 docs/mecha.1 $(DESTDIR)$(PREFIX)/share/man/man1/mecha.1

clean:
	rm -rf build build-asan build-*

-include $(LIB_OBJ:.o=.d) $(BIN_OBJ:.o=.d)
