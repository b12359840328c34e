#!/bin/sh
# exports — every function or object a file of src/ exports is used outside
# it: by another object of src/, or by a test or fuzz target (tests/, fuzz/),
# unless it is named in scripts/exports.allow, the API kept on purpose (each
# one says why in its header). A symbol that nothing outside its file uses
# belongs `static` in that file, out of its header.
#
# Usage: scripts/exports.sh BUILD [ROOT]   (BUILD holds src/**/*.o of a build;
# ROOT defaults to the repository). Prints each unused export as
# "OBJECT: SYMBOL is used by no other file" and each allowlist entry that is
# not (or no longer) an unused export as "exports.allow: SYMBOL ...", and
# exits 1 when there is any. The tests and fuzz targets are read as text (a
# word that names the symbol counts as a use): they are linked from their
# sources, so there is no object of theirs to ask.
set -eu
build=$1
root=${2:-$(dirname "$0")/..}
allow="$root/scripts/exports.allow"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

find "$build/src" -name '*.o' | sort >"$tmp/objs"
[ -s "$tmp/objs" ] || { echo "exports: no objects under $build/src (build first)" >&2; exit 2; }
while read -r o; do
	# (ASan's own symbols, __odr_asan.* and the like, are the sanitizer's, not ours)
	nm -g --defined-only "$o" | awk -v o="$o" 'NF == 3 && $2 ~ /^[TDBRVW]$/ && $3 !~ /^__(odr_)?asan/ { print $3, o }'
done <"$tmp/objs" >"$tmp/defs"
while read -r o; do
	nm -u "$o" | awk -v o="$o" '{ print $NF, o }'
done <"$tmp/objs" >"$tmp/uses"
find "$root/tests" "$root/fuzz" \( -name '*.c' -o -name '*.h' \) -not -path '*/node_modules/*' \
	-exec cat {} + | tr -c 'A-Za-z0-9_' '\n' | sort -u >"$tmp/words"
sed 's/#.*//' "$allow" | awk 'NF { print $1 }' >"$tmp/allow"

awk -v words="$tmp/words" -v uses="$tmp/uses" -v allow="$tmp/allow" '
	BEGIN {
		while ((getline w <words) > 0) word[w] = 1
		while ((getline line <uses) > 0) { split(line, f, " "); used[f[1]] = used[f[1]] " " f[2] " " }
		while ((getline a <allow) > 0) ok[a] = 1
	}
	{ def[$1] = def[$1] " " $2 " " }
	END {
		for (s in def) {
			if (s == "main") continue
			n = split(used[s], by, " "); other = 0
			for (i = 1; i <= n; i++) if (index(def[s], " " by[i] " ") == 0) other = 1
			if (other || (s in word)) {
				if (s in ok) print "exports.allow: " s " is used outside its file: take it off the list"
				continue
			}
			if (s in ok) { ok[s] = 2; continue }
			sub(/^ /, "", def[s]); sub(/ $/, "", def[s])
			print def[s] ": " s " is used by no other file (make it static, or list it in scripts/exports.allow and say why in its header)"
		}
		for (s in ok) if (ok[s] == 1 && !(s in def)) print "exports.allow: " s " is not exported by any object"
	}' "$tmp/defs" | sort >"$tmp/out"
cat "$tmp/out"
[ ! -s "$tmp/out" ]
