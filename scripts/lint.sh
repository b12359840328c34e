#!/bin/sh
# make lint: cppcheck and clang-tidy over every C file we write (src/, fuzz/,
# tests/unit/, tests/support/), with the configuration checked in beside this
# script (.clang-tidy at the root; cppcheck's options below, its macro
# definitions in scripts/cppcheck.cfg, its suppressions in
# scripts/cppcheck-suppress.txt). Any finding of either fails the run.
#
# LINT_CFLAGS: the preprocessor flags the Makefile compiles with (clang-tidy
# must see the code as the compiler does). LINT_OUT: where the logs go
# (default build/lint). LINT_JOBS: clang-tidy processes at once (default 2).
# LINT_FILES: only these files (both tools), e.g. while fixing one.
#
# The last line is the summary .ci/run shows:
#   lint: cppcheck N findings, clang-tidy N findings (N files, N s)
set -u
cd "$(dirname "$0")/.."
flags=${LINT_CFLAGS:?LINT_CFLAGS: run me through make lint}
out=${LINT_OUT:-build/lint}
jobs=${LINT_JOBS:-2}
files=${LINT_FILES:-$(find src fuzz tests/unit tests/support -name '*.c' | sort)}
start=$(date +%s)
rm -rf "$out" && mkdir -p "$out/tidy"

# cppcheck reads our headers (-Isrc) but not the system's: with them it takes
# minutes and reports on code that is not ours. scripts/cppcheck.cfg gives it
# the few library macros that shape control flow instead.
# shellcheck disable=SC2086 # $files is a list of paths without spaces
cppcheck -q -j "$jobs" --std=c11 --enable=warning,performance,portability \
  --library=posix --library=scripts/cppcheck.cfg \
  --inline-suppr --error-exitcode=1 --suppressions-list=scripts/cppcheck-suppress.txt \
  -D_GNU_SOURCE -D__linux__ -Isrc -Itests/unit -Ifuzz \
  --template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
  $files >"$out/cppcheck.txt" 2>&1
cpp_rc=$?
cpp_n=$(grep -c ': \(error\|warning\|style\|performance\|portability\|information\): ' "$out/cppcheck.txt")

# One clang-tidy per file, LINT_JOBS at once; each file's report in its own
# log so that parallel runs do not interleave.
# shellcheck disable=SC2016 # expanded by the inner sh
printf '%s\n' $files | xargs -P "$jobs" -n 1 sh -c \
  'clang-tidy --quiet "$1" -- '"$flags"' >"$0/$(echo "$1" | tr / _).log" 2>&1 || echo "$1" >>"$0/failed"' \
  "$out/tidy"
# A header's finding is reported once per file including it: counted once.
cat "$out"/tidy/*.log >"$out/clang-tidy.txt"
grep -h ': \(warning\|error\): ' "$out"/tidy/*.log | sort -u >"$out/clang-tidy-findings.txt"
tidy_n=$(grep -c . "$out/clang-tidy-findings.txt")

[ "$cpp_n" -gt 0 ] || [ "$cpp_rc" -ne 0 ] && sed 's/^/  cppcheck: /' "$out/cppcheck.txt"
[ "$tidy_n" -gt 0 ] && sed 's/^/  clang-tidy: /' "$out/clang-tidy-findings.txt" &&
  echo "  (each with its context in $out/clang-tidy.txt)"
failed_files=0
[ -f "$out/tidy/failed" ] && failed_files=$(grep -c . "$out/tidy/failed")
[ "$tidy_n" -eq 0 ] && [ "$failed_files" -gt 0 ] && sed "s|^|  clang-tidy failed on |" "$out/tidy/failed"
nfiles=$(printf '%s\n' $files | grep -c .)
echo "lint: cppcheck $cpp_n findings, clang-tidy $tidy_n findings ($nfiles files, $(($(date +%s) - start)) s)"
[ "$cpp_n" -eq 0 ] && [ "$cpp_rc" -eq 0 ] && [ "$tidy_n" -eq 0 ] && [ "$failed_files" -eq 0 ]
