#!/bin/sh
# dlsyms — checks that the libraries mecha loads on first use (src/base/dl.h's
# DL_LIBRARIES) stay that way:
#   - every function of theirs an object calls is forwarded by its shim
#     (src/base/dl_<name>.c), so the link never needs the library itself;
#   - with --binary, the binary does not link one of them (no DT_NEEDED).
# The libraries' exports are read from the installed sonames, so a call is
# caught whatever its prefix.
#
# Usage: scripts/dlsyms.sh [--binary BIN] OBJECT...
# Prints each violation and exits 1 when there is any.
set -eu
export LC_ALL=C
root=$(dirname "$0")/..
bin=
if [ "${1:-}" = --binary ]; then
	bin=$2
	shift 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dlsyms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# "name soname" per row of DL_LIBRARIES.
sed -n 's/^[[:space:]]*X([A-Z0-9_]*, "\([^"]*\)", "\([^"]*\)".*/\1 \2/p' "$root/src/base/dl.h" \
	>"$tmp/libs"
[ -s "$tmp/libs" ] || { echo "dlsyms: no DL_LIBRARIES rows in src/base/dl.h" >&2; exit 1; }

where() {
	p=$(${CC:-cc} -print-file-name="$1")
	[ "$p" != "$1" ] || p=$(/sbin/ldconfig -p | awk -v s="$1" '$1 == s { print $NF; exit }')
	[ -n "$p" ] && [ -e "$p" ] || { echo "dlsyms: $1 is not installed; run make deps" >&2; exit 1; }
	echo "$p"
}

# "symbol name soname" for every function the libraries export.
while read -r name soname; do
	nm -D --defined-only "$(where "$soname")" |
		awk -v n="$name" -v s="$soname" 'NF == 3 { sub(/@.*/, "", $3); print $3, n, s }'
done <"$tmp/libs" | sort -u -k1,1 >"$tmp/exports"

# What the objects define (the shims' forwarders among them), and "symbol
# object" for what each needs from elsewhere.
: >"$tmp/defined"
: >"$tmp/needed"
for o in "$@"; do
	nm --defined-only "$o" | awk 'NF == 3 { print $3 }' >>"$tmp/defined"
	nm -u "$o" | awk -v o="$o" '{ print $NF, o }' >>"$tmp/needed"
done
sort -u "$tmp/defined" -o "$tmp/defined"
sort -k1,1 "$tmp/needed" -o "$tmp/needed"

status=0
join "$tmp/needed" "$tmp/exports" | sort -k1,1 | join -v 1 - "$tmp/defined" >"$tmp/missing"
while read -r sym obj name soname; do
	src=$(echo "$obj" | sed 's|^.*/src/|src/|; s|\.o$|.c|')
	echo "$src calls $sym ($soname), which src/base/dl_$name.c does not forward:" \
		"add its row there (the library is loaded on first use, never linked)"
	status=1
done <"$tmp/missing"

if [ -n "$bin" ]; then
	while read -r name soname; do
		if readelf -d "$bin" | grep -q "NEEDED.*\[$soname\]"; then
			echo "$bin links $soname: it must be loaded on first use (Makefile: DL_PKGS)"
			status=1
		fi
	done <"$tmp/libs"
fi
exit $status
