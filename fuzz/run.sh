#!/bin/sh
# Builds each libFuzzer target (fuzz/fuzz_*.c) with clang and runs it for a
# bounded time (FUZZ_SECONDS, default 30). Any crash or sanitizer report fails.
set -eu
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
out=build-fuzz
make --no-print-directory BUILD=$out CC=clang \
  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
  $out/libmecha.a $out/mecha $out/libmecha-box.a
# libcurl and libical are loaded on first use (src/base/dl.h), as in build/mecha.
libs="$(pkg-config --libs jansson libcrypto) -lpthread"
status=0
for src in fuzz/fuzz_*.c; do
  [ -e "$src" ] || continue
  name=$(basename "$src" .c)
  lib="$out/libmecha.a"
  case $name in fuzz_box_*) lib="$out/libmecha-box.a" ;; esac  # the box's own layers
  clang -D_GNU_SOURCE -Isrc $(pkg-config --cflags jansson) -O1 -g \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -o "$out/$name" "$src" "$lib" $libs
  mkdir -p "$out/corpus-$name"
  seeds=""
  [ -d "fuzz/corpus/$name" ] && seeds="fuzz/corpus/$name"
  echo "== $name ($secs s)"
  "$out/$name" -max_total_time="$secs" -rss_limit_mb=2048 "$out/corpus-$name" $seeds || status=1
done
exit $status
