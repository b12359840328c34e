#!/bin/sh
# make bench: builds the bench's C helper and runs every figure (bench/bench.py)
# against the built binary. One table on stdout, a copy in BUILD/bench.json.
# Exit 1 when a goal is not met.
#
# usage: bench/run.sh PATH-TO-MECHA [BUILD-DIR]
set -eu
bin=${1:?usage: bench/run.sh PATH-TO-MECHA [BUILD-DIR]}
dir=$(dirname "$0")
build=${2:-$(dirname "$bin")}
mkdir -p "$build/bench"
${CC:-cc} -O2 -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$build/bench/helper" "$dir/helper.c"
# The box rows' baselines: a hello-world and a static server on libmicrohttpd.
${CC:-cc} -O2 -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$build/bench/httpd" "$dir/httpd.c" \
  $(pkg-config --cflags --libs libmicrohttpd) -lpthread
exec /usr/bin/python3 -B "$dir/bench.py" "$bin" "$build/bench/helper" "$build/bench.json"
