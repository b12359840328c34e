#!/bin/sh
# architecture — prints the layers section of docs/architecture.md from the
# one table of arrows, the allowed() function of scripts/layers.sh: a row per
# folder of src/, what it may include, and who may include it.
# tests/cli/test_architecture.py fails when the section between the markers
# in docs/architecture.md is not this script's output, so the drawing cannot
# drift from what `make layers` enforces. To change an arrow, change
# scripts/layers.sh, then rerun this and paste its output between the markers.
#
# Usage: scripts/architecture.sh [ROOT]   (ROOT defaults to the repository)
set -eu
root=${1:-$(dirname "$0")/..}
# The table's rows, one per module: "	mod) echo "dep dep …" ;;".
sed -n '/^allowed() {/,/^}/s/^	\([a-z_]*\)) echo "\([a-z_ ]*\)" ;;$/\1:\2/p' \
	"$root/scripts/layers.sh" |
	awk -F: '
	{ mod[NR] = $1; deps[$1] = $2; n = NR
	  k = split($2, d, " ")
	  for (i = 1; i <= k; i++) by[d[i]] = by[d[i]] (by[d[i]] == "" ? "" : " ") $1 }
	function list(s,   a, k, i, out) {
		k = split(s, a, " ")
		if (k == 0) return "nothing"
		out = ""
		for (i = 1; i <= k; i++) out = out (i > 1 ? ", " : "") "`" a[i] "`"
		return out
	}
	END {
		if (n == 0) { print "architecture: no table of arrows in scripts/layers.sh" > "/dev/stderr"; exit 1 }
		print "| folder | may include | included by |"
		print "|---|---|---|"
		for (i = 1; i <= n; i++)
			printf "| `src/%s/` | %s | %s |\n", mod[i], list(deps[mod[i]]), list(by[mod[i]])
	}'
