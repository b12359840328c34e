# mecha — build, test and demo.  `make help` lists the targets.
#
# Every object goes under $(BUILD) so that a sanitizer build (build-asan) and a
# plain one never share an object file.
#
# Release builds and test builds. What `make`, `make all` and `make install`
# build in $(BUILD) is what people run, and it carries no test hook: the
# MECHA_TEST_* probes (kill points, the sandbox's probes, the temp-file age, a
# fixed clock, …) are compiled only under -DMECHA_TEST_BUILD, as SQLite
# compiles its test hooks only under SQLITE_TEST. The tests run a test build,
# $(BUILD)/test: asked for in a release make, each test target (TEST_TARGETS)
# makes the test build there once and then runs itself in it (TEST_BUILD=1,
# BUILD=$(BUILD)/test), so MECHA_BIN and every tool a test runs are the test
# build's. A make with TEST_BUILD=1 is a test build throughout (make asan).

BUILD    ?= build
TEST_BUILD ?=
CC       ?= cc
PREFIX   ?= /usr/local
PYTHON   ?= /usr/bin/python3
CLI_JOBS ?= 2
xdist     = $(if $(filter-out 0 1,$(CLI_JOBS)),$(shell $(PYTHON) -c 'import xdist' 2>/dev/null && printf -- '-n %s' $(CLI_JOBS)))

# Linked: jansson (every verb). libcrypto (SHA-256) is loaded on first use like
# the libraries below, so `mecha --version` maps nothing but libc and jansson.
LINK_PKGS := jansson
# Compiled against but never linked: loaded on first use (src/base/dl.h), so a
# verb that never calls a model, sends mail, reads the calendar or opens the
# review screen never pays for mapping them. A library here needs a row in
# DL_LIBRARIES and a shim (src/base/dl_<name>.c); `make dlsyms` checks the
# shims. (ncursesw gets its row with the review screen's first call.)
# The box (build/mecha-box) loads libmicrohttpd, SQLite, libpq and libargon2 the
# same way, so its local verbs and --version map none of them.
DL_PKGS   := libcurl libical libmicrohttpd sqlite3 libargon2 libpq libcrypto
# The review screen is its own program (mecha-review, which `mecha review`
# runs), so only it maps ncurses.
TUI_PKGS  := ncursesw
PKGS      := $(LINK_PKGS) $(DL_PKGS) $(TUI_PKGS)
DEB_PKGS := build-essential pkg-config libjansson-dev libcurl4-openssl-dev libssl-dev \
            libical-dev libncurses-dev libcriterion-dev python3-pytest python3-aiosmtpd \
            valgrind nodejs zsh tmux
# The toml-test suite's files (valid/ and invalid/), which make check runs against base/toml.
DEB_PKGS += golang-github-burntsushi-toml-dev
# The CLI suite runs on every core (pytest-xdist: CLI_JOBS workers, default 2): each test
# has its own home, ports and TMPDIR, so none waits on another's.
DEB_PKGS += python3-pytest-xdist
# The box: its HTTP server, its ledger (SQLite; PostgreSQL for several boxes),
# its key hashes, and the argon2 CLI the tests make a reference-style hash with.
DEB_PKGS += libmicrohttpd-dev libsqlite3-dev libpq-dev libargon2-dev argon2
# The browser tests (tests/web/browser.test.mjs) and the demo's screenshots:
# Debian's Chromium, driven by playwright-core from npm (which never downloads a
# browser), and a font for it to draw text with (its recommends are not installed).
DEB_PKGS += chromium fonts-dejavu-core
CHROMIUM ?= /usr/bin/chromium
# The PostgreSQL server the box's tests start a throw-away cluster of (initdb,
# pg_ctl), to run the box suite on a PostgreSQL ledger as well.
DEB_PKGS += postgresql
# The load balancer the multi-box test (tests/cli/test_box_multi.py) puts in front
# of three boxes on one PostgreSQL database, on loopback.
DEB_PKGS += haproxy
# make lint: the two static analysers (scripts/lint.sh).
DEB_PKGS += cppcheck clang-tidy
# make bench: the one load generator the box's rows are driven by (bench/box.py).
DEB_PKGS += wrk
# make deb: Debian's own packaging tools; the install test checks the units
# with systemd-analyze (from systemd).
DEB_PKGS += dpkg-dev debhelper systemd
TOML_TEST_DIR ?= /usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wno-unused-parameter
# Messages are truncated on purpose (struct err); gcc alone warns about that.
ifneq ($(findstring clang,$(shell $(CC) --version 2>/dev/null)),clang)
WARN     += -Wno-format-truncation
endif
CPPFLAGS += -D_GNU_SOURCE -Isrc -MMD -MP
ifeq ($(TEST_BUILD),1)
CPPFLAGS += -DMECHA_TEST_BUILD
endif
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c17 $(WARN) $(EXTRA_CFLAGS)

# pkg-config is asked once per make run; a missing library is `make deps`' job.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
CPPFLAGS   += $(PKG_CFLAGS)
LDLIBS     += $(PKG_LIBS) -lpthread

LIB_DIRS := base config calendar requests frontdoor outbox mission provider mcp types doctor drain
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
REVIEW_ONLY := src/cli/review.c src/cli/review_main.c
BIN_SRC  := $(filter-out $(REVIEW_ONLY),$(wildcard src/cli/*.c))
REVIEW_SRC := $(REVIEW_ONLY) src/cli/verb.c src/cli/util.c $(wildcard src/tui/*.c)
# The box is its own binary, built from these layers only: the process that
# faces the internet does not contain the code that reaches the owner's
# calendar, mail or models (docs/architecture.md).
BOX_LIB_DIRS := base config types box
BOX_LIB_SRC  := $(filter-out src/box/main.c,$(foreach d,$(BOX_LIB_DIRS),$(wildcard src/$(d)/*.c)))
BOX_LIB_OBJ  := $(BOX_LIB_SRC:%.c=$(BUILD)/%.o)
BOX_MAIN_OBJ := $(BUILD)/src/box/main.o
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
BIN_OBJ  := $(BIN_SRC:%.c=$(BUILD)/%.o)
REVIEW_OBJ := $(REVIEW_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check layers dlsyms unit cli mcp-test valgrind asan demo bench install clean help fuzz \
        crash race lint web-test web-deps test-build test-tools deb install-test

all: $(BUILD)/mecha $(BUILD)/mecha-review $(BUILD)/mecha-box

help:
	@echo "make            build $(BUILD)/mecha, $(BUILD)/mecha-box and their libraries (no test hooks)"
	@echo "make deps       install the Debian packages mecha needs (apt-get)"
	@echo "make check      build, check the layers, run the unit, CLI and MCP tests (these, and"
	@echo "                valgrind, crash, race: against the test build in $(BUILD)/test)"
	@echo "                (the CLI suite on CLI_JOBS=$(CLI_JOBS) workers; CLI_TESTS=FILE: only it)"
	@echo "make layers     check that every #include follows the arrows of docs/architecture.md"
	@echo "make dlsyms     check that libcurl, libical … are loaded on first use, never linked"
	@echo "make mcp-test   the MCP server driven by the official client (node, tests/mcp)"
	@echo "make asan       the same under AddressSanitizer and UndefinedBehaviorSanitizer"
	@echo "make valgrind   a chosen few CLI tests with every mecha run under memcheck"
	@echo "make crash      writers killed at random and named points (CRASH_ROUNDS=$(CRASH_ROUNDS)),"
	@echo "                then the race rounds (make race, RACE_ROUNDS=$(RACE_ROUNDS)): nothing lost"
	@echo "make lint       cppcheck and clang-tidy over src, fuzz and the tests: any finding fails"
	@echo "make demo       a walk-through in a sandbox home under a temporary directory"
	@echo "make bench      benchmarks: one table of ratios against baselines from the same run"
	@echo "                (BENCH=store,box,…: only those parts; docs/bench.md)"
	@echo "make install    install the programs, the man page, bash and zsh completion and the"
	@echo "                systemd units under PREFIX=$(PREFIX) (and DESTDIR)"
	@echo "make deb        a Debian package of the same (dpkg-buildpackage), in $(BUILD)/deb/"
	@echo "make install-test  make install and the package, each in a temporary root, run and checked"

# Installs only what is missing, so a machine that has everything pays nothing.
deps:
	@sh .ci/deps.sh $(DEB_PKGS)

# The libraries are checked before anything is compiled: a fresh machine runs
# `make deps` by itself instead of failing on a missing header. A package
# build (debian/rules: PACKAGE_BUILD=1) has its Build-Depends instead, and
# only the libraries are asked for.
$(BUILD)/.deps-ok:
ifeq ($(PACKAGE_BUILD),1)
	@pkg-config --exists --print-errors $(PKGS)
else
	@pkg-config --exists $(PKGS) criterion && $(PYTHON) -c 'import pytest, aiosmtpd' 2>/dev/null \
	  && [ -d $(TOML_TEST_DIR) ] && command -v argon2 >/dev/null && [ -x $(CHROMIUM) ] \
	  || $(MAKE) --no-print-directory deps
endif
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(if $(PKG_CFLAGS),,$(shell pkg-config --cflags $(PKGS))) $(CFLAGS) -c $< -o $@

# The one link line. $(call link,INPUTS,LIBS): links $@ from INPUTS (objects
# and archives; a test's own source, compiled on the way, is named first and
# gets -Itests/unit) and the libraries every program links (LINK_PKGS, asked
# of pkg-config here if the one ask above failed, so the error names the
# missing library), then LIBS.
link_libs = $(if $(PKG_LIBS),$(LDLIBS),$(shell pkg-config --libs $(LINK_PKGS)) -lpthread)
define link
@mkdir -p $(dir $@)
@echo "  $(if $(filter %.c,$(1)),CC,LD)      $(or $(firstword $(filter %.c,$(1))),$@)"
@$(CC) $(if $(filter %.c,$(1)),$(CPPFLAGS) -Itests/unit) $(CFLAGS) $(LDFLAGS) -o $@ $(1) $(link_libs) $(2)
endef

$(BUILD)/libmecha.a: $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

$(BUILD)/libmecha-box.a: $(BOX_LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

# Before the link: a call into a loaded-on-first-use library that its shim
# does not forward is named here, with the row to add, not as "undefined reference".
$(BUILD)/.dlsyms-ok: $(LIB_OBJ) $(BIN_OBJ) $(REVIEW_OBJ) $(BOX_LIB_OBJ) $(BOX_MAIN_OBJ) scripts/dlsyms.sh
	@sh scripts/dlsyms.sh $(sort $(LIB_OBJ) $(BIN_OBJ) $(REVIEW_OBJ) $(BOX_LIB_OBJ) $(BOX_MAIN_OBJ))
	@touch $@

$(BUILD)/mecha: $(BIN_OBJ) $(BUILD)/libmecha.a $(BUILD)/.dlsyms-ok
	$(call link,$(BIN_OBJ) $(BUILD)/libmecha.a)

$(BUILD)/mecha-box: $(BOX_MAIN_OBJ) $(BUILD)/libmecha-box.a $(BUILD)/.dlsyms-ok
	$(call link,$(BOX_MAIN_OBJ) $(BUILD)/libmecha-box.a)

# The review screen: the same library, plus ncurses (the only program that maps it).
$(BUILD)/mecha-review: $(REVIEW_OBJ) $(BUILD)/libmecha.a $(BUILD)/.dlsyms-ok
	$(call link,$(REVIEW_OBJ) $(BUILD)/libmecha.a,$(shell pkg-config --libs $(TUI_PKGS)))

# ---- the test programs: the unit tests and the tools the CLI tests run ---------------
CRITERION_LIBS = $(shell pkg-config --libs criterion)
# A test may check what the program makes with libcrypto itself (a base64 body decoded);
# the program loads it on first use (base/dl), the tests link it.
UNIT_LIBS := $(shell pkg-config --libs libcrypto 2>/dev/null)

# What several unit tests share (tests/unit/*_fixture.c), linked into each of them.
UNIT_SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/unit/*_fixture.c))
-include $(UNIT_SUPPORT_OBJ:.o=.d)
# A test program is compiled and linked in one step; gcc's -MMD leaves its
# dependencies in PROGRAM.d, so a changed header (tests/unit/*.h, src/) rebuilds it.
-include $(UNIT_BIN:=.d) $(patsubst %,$(BUILD)/tests/%.d,toml_decode state_table box_seed \
  box_pages_dump)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmecha.a $(UNIT_SUPPORT_OBJ)
	$(call link,$< $(UNIT_SUPPORT_OBJ) $(BUILD)/libmecha.a $(CRITERION_LIBS),$(UNIT_LIBS))

# The box's own units link the box's library (src/box is not in libmecha.a),
# the pages' test too.
BOX_UNIT_BIN := $(filter $(BUILD)/tests/test_box_%,$(UNIT_BIN))
$(BOX_UNIT_BIN): $(BUILD)/tests/test_box_%: tests/unit/test_box_%.c $(BUILD)/libmecha-box.a $(UNIT_SUPPORT_OBJ)
	$(call link,$< $(UNIT_SUPPORT_OBJ) $(BUILD)/libmecha-box.a $(CRITERION_LIBS))

# The decoder toml-test drives (tests/cli/test_toml_suite.py).
$(BUILD)/tests/toml_decode: tests/support/toml_decode.c $(BUILD)/libmecha.a
	$(call link,$< $(BUILD)/libmecha.a,-lm)

# The library's state table, printed for the crash rounds (tests/crash).
$(BUILD)/tests/state_table: tests/support/state_table.c $(BUILD)/libmecha.a
	$(call link,$< $(BUILD)/libmecha.a)

# The test support tool that puts queued rows into a box's ledger as the form
# flow will (tests/support/box_seed.c): the box has no test-only routes.
# box_pages_dump writes every page for the starter manifests, so that tests/cli
# (Python's parser) and tests/web (html-validate) can check the HTML.
$(BUILD)/tests/box_seed $(BUILD)/tests/box_pages_dump: $(BUILD)/tests/%: tests/support/%.c $(BUILD)/libmecha-box.a
	$(call link,$< $(BUILD)/libmecha-box.a)

# The tests' temporary files go under $(TEST_TMP), never straight into /tmp:
# each suite gets TMPDIR=$(TEST_TMP)/<suite>, which is removed after it. The CLI
# and node suites must leave theirs empty (a test that forgets to clean up fails
# the run: tests/cli/conftest.py checks its own, tmp_empty the node one's).
TEST_TMP := $(abspath $(BUILD))/tmp
tmp_fresh = rm -rf $(TEST_TMP)/$(1) && mkdir -p $(TEST_TMP)/$(1)
tmp_empty = left=$$(ls -A $(TEST_TMP)/$(1)); \
	  if [ -n "$$left" ]; then echo "tests left files in TMPDIR ($(TEST_TMP)/$(1)): $$left" >&2; \
	  exit 1; fi; rmdir $(TEST_TMP)/$(1)

# ---- the test targets: in a release make, run again in the test build ----------------
TEST_TARGETS := unit cli mcp-test valgrind crash race web-test
TEST_BUILD_DIR := $(BUILD)/test
ifneq ($(TEST_BUILD),1)
# One make builds what every test target links first, so that test targets run
# side by side (make -j2 check) never compile the same object at once; the
# release binaries too, which tests/cli/test_release_build.py reads.
$(TEST_TARGETS): test-build
	@$(MAKE) --no-print-directory BUILD=$(TEST_BUILD_DIR) TEST_BUILD=1 RELEASE_BUILD=$(BUILD) $@
test-build: all
	@$(MAKE) --no-print-directory BUILD=$(TEST_BUILD_DIR) TEST_BUILD=1 test-tools
cli web-test: web-deps
else
# The programs and tools the test targets share (their own are built by each).
test-tools: all $(BUILD)/tests/toml_decode $(BUILD)/tests/box_seed $(BUILD)/tests/state_table \
  $(BUILD)/tests/box_pages_dump
# Where the release binaries are, for the test that looks for hooks in them.
RELEASE_BUILD ?=
release_env = $(if $(RELEASE_BUILD),MECHA_RELEASE_BUILD=$(abspath $(RELEASE_BUILD)))

unit: $(UNIT_BIN)
	@$(call tmp_fresh,unit)
	@status=0; for t in $(abspath $(UNIT_BIN)); do \
	  echo "== $$t"; (cd $(TEST_TMP)/unit && TMPDIR=$(TEST_TMP)/unit MECHA_SOURCE_DIR=$(CURDIR) \
	    $$t --jobs 2 $(CRITERION_ARGS)) || status=1; \
	done; rm -rf $(TEST_TMP)/unit; exit $$status

cli: $(BUILD)/mecha $(BUILD)/mecha-box $(BUILD)/tests/toml_decode $(BUILD)/tests/box_seed \
  $(BUILD)/tests/box_pages_dump web-deps
	@$(call tmp_fresh,cli)
	$(release_env) TMPDIR=$(TEST_TMP)/cli TOML_DECODE=$(abspath $(BUILD)/tests/toml_decode) TOML_TEST_DIR=$(TOML_TEST_DIR) \
	BOX_SEED=$(abspath $(BUILD)/tests/box_seed) \
	MECHA_BIN=$(abspath $(BUILD)/mecha) $(PYTHON) -m pytest -q -p no:cacheprovider $(xdist) $(or $(CLI_TESTS),tests/cli) $(PYTEST_ARGS)
	@$(call tmp_empty,cli)

# The MCP server driven by the official client (tests/mcp, pinned by its lock
# file). npm is asked only when node_modules is missing, so it runs offline after.
mcp-test: $(BUILD)/mecha
	@[ -d tests/mcp/node_modules ] || npm ci --prefix tests/mcp --no-audit --no-fund
	@$(call tmp_fresh,mcp)
	TMPDIR=$(TEST_TMP)/mcp MECHA_BIN=$(abspath $(BUILD)/mecha) node --test tests/mcp/
	@$(call tmp_empty,mcp)

# A chosen few of the black-box tests (tests/support/valgrind-tests.txt: every
# verb group, every parser of untrusted bytes, none that waits on a clock) with
# every mecha run under memcheck. Any memory error or definite leak fails the
# run: the test whose run it was fails (exit 99), and valgrind-report prints
# every error any run left in $(VALGRIND_LOGS), looked at by a test or not.
# VALGRIND_TESTS=tests/cli/test_x.py runs others.
VALGRIND_LIST  := tests/support/valgrind-tests.txt
VALGRIND_TESTS ?= $(shell grep '^tests/' $(VALGRIND_LIST))
VALGRIND_LOGS  := $(TEST_TMP)/valgrind-logs
valgrind: $(BUILD)/mecha
	@$(call tmp_fresh,valgrind)
	@rm -rf $(VALGRIND_LOGS) && mkdir -p $(VALGRIND_LOGS)
	@status=0; TMPDIR=$(TEST_TMP)/valgrind VALGRIND_LOGS=$(VALGRIND_LOGS) \
	  VALGRIND_MECHA=$(abspath $(BUILD)/mecha) MECHA_BIN=$(abspath tests/support/valgrind-mecha) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(foreach t,$(VALGRIND_TESTS),'$(t)') $(PYTEST_ARGS) \
	  || status=1; $(PYTHON) tests/support/valgrind-report $(VALGRIND_LOGS) || status=1; exit $$status
	@$(call tmp_empty,valgrind)
	@rm -rf $(VALGRIND_LOGS)

# Crash and race rounds (tests/crash): the real binary and loopback servers, a
# writer SIGKILLed round after round, then many verbs at once on one home; the
# home is checked after each (nothing lost, exactly once, states along the
# table: build/tests/state_table prints the library's own). Figures at the end.
CRASH_ROUNDS ?= 220
RACE_ROUNDS  ?= 20

# The drain and the box's queue are killed against a real box on loopback
# (mecha-box), its rows put in by build/tests/box_seed.
crash_env = TMPDIR=$(TEST_TMP)/crash MECHA_BIN=$(abspath $(BUILD)/mecha) \
	    MECHA_STATE_TABLE=$(abspath $(BUILD)/tests/state_table) \
	    BOX_SEED=$(abspath $(BUILD)/tests/box_seed)
crash: $(BUILD)/mecha $(BUILD)/mecha-box $(BUILD)/tests/state_table $(BUILD)/tests/box_seed
	@$(call tmp_fresh,crash)
	@status=0; \
	$(crash_env) $(PYTHON) tests/crash/crash_rounds.py --rounds $(CRASH_ROUNDS) $(CRASH_ARGS) || status=1; \
	$(crash_env) $(PYTHON) tests/crash/race_rounds.py --rounds $(RACE_ROUNDS) $(RACE_ARGS) || status=1; \
	exit $$status
	@$(call tmp_empty,crash)

race: $(BUILD)/mecha $(BUILD)/tests/state_table
	@$(call tmp_fresh,crash)
	$(crash_env) $(PYTHON) tests/crash/race_rounds.py --rounds $(RACE_ROUNDS) $(RACE_ARGS)
	@$(call tmp_empty,crash)

# The rendered pages through html-validate, and a stranger in headless Chromium
# against a real box (skipped, saying so, when $(CHROMIUM) is absent); the
# browser's screenshots are kept in $(BUILD)/screenshots/.
web-test: $(BUILD)/tests/box_pages_dump $(BUILD)/mecha $(BUILD)/mecha-box web-deps
	@[ -x $(CHROMIUM) ] || echo "web-test: $(CHROMIUM) is absent, so the browser tests" \
	  "are skipped (make deps installs Debian's chromium)" >&2
	@$(call tmp_fresh,web)
	TMPDIR=$(TEST_TMP)/web BOX_PAGES_DUMP=$(abspath $(BUILD)/tests/box_pages_dump) \
	  MECHA_BIN=$(abspath $(BUILD)/mecha) CHROMIUM=$(CHROMIUM) \
	  SCREENSHOTS=$(abspath $(BUILD)/screenshots) node --test tests/web/
	@$(call tmp_empty,web)
endif # the test targets' own recipes, in a test build

# cppcheck and clang-tidy with the checked-in configuration (.clang-tidy,
# scripts/cppcheck.cfg, scripts/cppcheck-suppress.txt); any finding fails.
# clang-tidy sees the code with the flags it is compiled with (LINT_CFLAGS).
# The test hooks are linted too: they are compiled into the test build.
LINT_CFLAGS = -std=c17 -D_GNU_SOURCE -DMECHA_TEST_BUILD -Isrc -Itests/unit \
	      $(or $(PKG_CFLAGS),$(shell pkg-config --cflags $(PKGS))) $(shell pkg-config --cflags criterion)
lint: | $(BUILD)/.deps-ok
	@command -v cppcheck >/dev/null && command -v clang-tidy >/dev/null || $(MAKE) --no-print-directory deps
	@LINT_OUT=$(BUILD)/lint LINT_CFLAGS='$(LINT_CFLAGS)' sh scripts/lint.sh

# Every #include follows the arrows of docs/architecture.md (scripts/layers.sh).
layers:
	@sh scripts/layers.sh

# The shims forward every call the objects make, and the binary does not link
# a loaded-on-first-use library (scripts/dlsyms.sh).
dlsyms: $(BUILD)/mecha $(BUILD)/mecha-box
	@sh scripts/dlsyms.sh --binary $(BUILD)/mecha $(LIB_OBJ) $(BIN_OBJ)
	@sh scripts/dlsyms.sh --binary $(BUILD)/mecha-box $(BOX_LIB_OBJ) $(BOX_MAIN_OBJ)

check: all layers dlsyms unit cli mcp-test web-test

# The node test tools of tests/web, pinned by its lock file. npm is asked only
# when node_modules is missing or older than the lock file (a new tool), so it
# runs offline after.
web-deps:
	@[ tests/web/node_modules/.package-lock.json -nt tests/web/package-lock.json ] \
	  || npm ci --prefix tests/web --no-audit --no-fund

# ASan and UBSan in one build; any report fails the run.
# It is a test build throughout (TEST_BUILD=1): its binaries are only for the tests.
asan:
	$(MAKE) --no-print-directory BUILD=build-asan TEST_BUILD=1 \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" \
	  check

# With a browser here, the demo shows the stranger's pages as screenshots.
demo: all
	@[ ! -x $(CHROMIUM) ] || $(MAKE) --no-print-directory web-deps
	@CHROMIUM=$(CHROMIUM) SCREENSHOTS=$(abspath $(BUILD)/screenshots/demo) \
	  sh docs/demo.sh $(abspath $(BUILD)/mecha)

bench: all
	@sh bench/run.sh $(abspath $(BUILD)/mecha) $(abspath $(BUILD))
	@/usr/bin/python3 -B bench/box_holds.py $(abspath $(BUILD)/mecha)  # holds/s at 1 and 3 boxes

fuzz:
	@sh fuzz/run.sh

# What a person runs, installed: the release build's programs (no test hook:
# a TEST_BUILD=1 make refuses), the man page, the completion scripts (written
# by the program from its verb tables), and the systemd units with ExecStart
# pointing at $(BINDIR): the user units (drain, sweep, digest) for
# `systemctl --user`, and the box's system unit. DESTDIR stages it all
# elsewhere (make deb does).
BINDIR    = $(PREFIX)/bin
MANDIR    = $(PREFIX)/share/man
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(PREFIX)/share/zsh/site-functions
SYSTEMD_USER_DIR    ?= $(PREFIX)/lib/systemd/user
SYSTEMD_SYSTEM_DIR  ?= $(PREFIX)/lib/systemd/system
USER_UNITS   := docs/mecha-drain.service docs/mecha-sweep.service docs/mecha-sweep.timer \
                docs/mecha-digest.service docs/mecha-digest.timer
SYSTEM_UNITS := docs/mecha-box.service
install_unit = sed 's|/usr/local/bin/|$(BINDIR)/|g' $(1) > $(DESTDIR)$(2)/$(notdir $(1)) && \
	       chmod 0644 $(DESTDIR)$(2)/$(notdir $(1))
install: all
ifeq ($(TEST_BUILD),1)
	@echo "make install installs the release build: run it without TEST_BUILD=1" >&2; exit 2
endif
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASH_COMPLETION_DIR) \
	  $(DESTDIR)$(ZSH_COMPLETION_DIR) $(DESTDIR)$(SYSTEMD_USER_DIR) $(DESTDIR)$(SYSTEMD_SYSTEM_DIR)
	install -m 0755 $(BUILD)/mecha $(BUILD)/mecha-review $(BUILD)/mecha-box $(DESTDIR)$(BINDIR)/
	install -m 0644 docs/mecha.1 $(DESTDIR)$(MANDIR)/man1/mecha.1
	$(BUILD)/mecha completion bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/mecha
	$(BUILD)/mecha completion zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_mecha
	chmod 0644 $(DESTDIR)$(BASH_COMPLETION_DIR)/mecha $(DESTDIR)$(ZSH_COMPLETION_DIR)/_mecha
	$(foreach u,$(USER_UNITS),$(call install_unit,$(u),$(SYSTEMD_USER_DIR)) && ) true
	$(foreach u,$(SYSTEM_UNITS),$(call install_unit,$(u),$(SYSTEMD_SYSTEM_DIR)) && ) true

# A Debian package of the same install (PREFIX=/usr), built by Debian's own
# tooling from debian/ (dpkg-buildpackage, debhelper), into $(BUILD)/deb/.
# It builds in a copy of the tree, so the checkout and its build/ are left as
# they are.
DEB_OUT := $(abspath $(BUILD))/deb
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null \
	  || $(MAKE) --no-print-directory deps
	@rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src
	@git ls-files -z | xargs -0 cp --parents -t $(DEB_OUT)/src
	cd $(DEB_OUT)/src && dpkg-buildpackage -b -uc -us -j2
	@rm -rf $(DEB_OUT)/src
	@ls $(DEB_OUT)/*.deb

# The installed files as a person gets them (tests/cli/test_install.py): make
# install into a temporary root, and the package unpacked into another; from
# each, mecha --version, init and doctor --offline, the completion, and
# systemd-analyze verify on every unit. `make cli` runs the make install half.
install-test: deb
	@$(call tmp_fresh,install)
	TMPDIR=$(TEST_TMP)/install MECHA_RELEASE_BUILD=$(abspath $(BUILD)) \
	  MECHA_DEB=$$(ls $(DEB_OUT)/mecha_*.deb) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests/cli/test_install.py $(PYTEST_ARGS)
	@$(call tmp_empty,install)

clean:
	rm -rf build build-asan build-*

-include $(sort $(LIB_OBJ:.o=.d) $(BIN_OBJ:.o=.d) $(REVIEW_OBJ:.o=.d) $(BOX_LIB_OBJ:.o=.d) $(BOX_MAIN_OBJ:.o=.d))
