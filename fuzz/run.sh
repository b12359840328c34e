#!/bin/sh
# Builds each libFuzzer target (fuzz/fuzz_*.c) with clang and runs it for a
# bounded time (FUZZ_SECONDS, default 30; FUZZ_TARGETS="fuzz_a fuzz_b" runs
# only those). Any crash, leak, sanitizer report, broken property, or an input
# taking longer than FUZZ_TIMEOUT seconds (default 60) fails the run.
#
# One line per target (runs, and ok or CRASH) and a last "N passed, N failed"
# line; a target's whole libFuzzer output is in build-fuzz/log-<target>.txt,
# and the input that broke it in build-fuzz/artifacts/ (never in the tree).
set -eu
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
timeout=${FUZZ_TIMEOUT:-60}
out=build-fuzz
toml_valid=${TOML_TEST_DIR:-/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests}/valid
# The box's layers are not in libmecha.a: the fuzz_box_* targets link the
# box's own library, libmecha-box.a (the Makefile's BOX_LIB_DIRS).
# A test build (TEST_BUILD=1, the Makefile says why), as every test target uses.
make --no-print-directory -j2 BUILD=$out TEST_BUILD=1 CC=clang \
  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
  $out/libmecha.a $out/mecha $out/libmecha-box.a
# libcurl and libical are loaded on first use (src/base/dl.h), as in build/mecha.
libs="$(pkg-config --libs jansson) -lpthread"  # libcrypto: loaded on first use (base/dl.h)
mkdir -p "$out/artifacts"
passed=0
failed=0

# build NAME SRC: links the target; its objects beyond libmecha.a by name.
build() {
  objs="$out/libmecha.a"
  case $1 in fuzz_box_*) objs="$out/libmecha-box.a" ;; esac  # the box's own layers
  clang -D_GNU_SOURCE -Isrc $(pkg-config --cflags jansson) -O1 -g \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -o "$out/$1" "$2" $objs $libs
}

# report NAME LOG RC: the target's one line (and, on failure, its report).
report() {
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$2" | tail -n 1)
  if [ "$3" -eq 0 ] && [ -n "$runs" ]; then
    printf '%-28s %10s runs  ok\n' "$1" "$runs"
    passed=$((passed + 1))
    return
  fi
  printf '%-28s %10s runs  CRASH (exit %s; log %s)\n' "$1" "${runs:-?}" "$3" "$2"
  # The sanitizer's report or the broken property (without libFuzzer's own
  # frames and ASan's shadow map), then where the input that did it went.
  sed -n '/ERROR: \|runtime error:\|deadly signal/,$p' "$2" | sed '/^Shadow bytes/,/^==[0-9]*==ABORTING/d' |
    grep -v -E ' in (fuzzer::|__|_start|main |operator new)|\(/lib/|^NOTE:|^ +Combine|^Base64:|^0x|^artifact_prefix' |
    head -n 30 | sed 's/^/    /'
  sed -n "s|.*Test unit written to \(.*\)|    input: \1 (again: $out/$1 \1)|p" "$2"
  failed=$((failed + 1))
}

for src in fuzz/fuzz_*.c; do
  [ -e "$src" ] || continue
  name=$(basename "$src" .c)
  case " ${FUZZ_TARGETS:-$name} " in *" $name "*) ;; *) continue ;; esac
  log="$out/log-$name.txt"
  if ! build "$name" "$src" >"$log" 2>&1; then
    printf '%-28s %10s       BUILD FAILED (log %s)\n' "$name" "-" "$log"
    sed 's/^/    /' "$log" | head -n 20
    failed=$((failed + 1))
    continue
  fi
  mkdir -p "$out/corpus-$name"
  seeds=""
  [ -d "fuzz/corpus/$name" ] && seeds="fuzz/corpus/$name"
  # The TOML reader also starts from the toml-test suite's valid documents
  # (a Debian package `make deps` installs), not copied into the tree.
  [ "$name" = fuzz_toml ] && [ -d "$toml_valid" ] && seeds="$seeds $toml_valid"
  rc=0
  "$out/$name" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb=2048 \
    -artifact_prefix="$out/artifacts/$name-" "$out/corpus-$name" $seeds >>"$log" 2>&1 || rc=$?
  report "$name" "$log" "$rc"
done
echo "fuzz: $passed passed, $failed failed ($secs s each)"
[ "$failed" -eq 0 ]
