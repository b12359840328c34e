#!/bin/sh
# layers — checks that every #include "dir/file.h" in src/ follows the arrows
# of the table in allowed() below: a row per folder of src/, naming every
# other folder it may include. That table is the one truth about the layers;
# scripts/architecture.sh prints it as the layers section of
# docs/architecture.md (tests/cli/test_architecture.py keeps the two equal).
# Its rows keep the rules the design states: the outbox never includes the
# front door (the invite sink uses calendar); provider knows nothing of
# requests; requests uses only types, config and base; box never reaches
# requests, frontdoor, outbox, calendar or provider; only cli includes
# doctor, tui and box; nothing outside src/cli includes a cli header.
# Keep each row on one line, `mod) echo "dep …" ;;`: the generator reads them.
#
# Usage: scripts/layers.sh [ROOT]   (ROOT defaults to the repository)
# Prints each violation as FILE:LINE: and exits 1 when there is any.
set -eu
root=${1:-$(dirname "$0")/..}
cd "$root"

# What each module may include besides itself.
allowed() {
	case $1 in
	base) echo "" ;;
	config) echo "base" ;;
	calendar) echo "base config" ;;
	provider) echo "base" ;;
	types) echo "base config" ;;
	requests) echo "base config types" ;;
	outbox) echo "base config calendar" ;;
	mission) echo "base config" ;;
	frontdoor) echo "base config requests calendar provider outbox types" ;;
	mcp) echo "base config requests calendar provider outbox types frontdoor mission" ;;
	doctor) echo "base config requests calendar provider outbox types frontdoor mission mcp drain" ;;
	tui) echo "base config requests calendar provider outbox types frontdoor mission" ;;
	drain) echo "base config requests calendar provider types" ;;
	box) echo "base config types" ;;
	cli) echo "base config requests calendar provider outbox types frontdoor mission mcp tui box drain doctor" ;;
	*) echo "?" ;;
	esac
}

bad=0
for dir in src/*/; do
	mod=$(basename "$dir")
	ok=$(allowed "$mod")
	if [ "$ok" = "?" ]; then
		echo "$dir: a module docs/architecture.md does not name (add it to scripts/layers.sh and docs/architecture.md)"
		bad=1
		continue
	fi
	# file:line:#include "dep/…"
	for hit in $(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$dir"*.[ch] 2>/dev/null |
		sed 's/^\([^:]*:[0-9]*\):[^"]*"\([a-z_]*\)\/.*/\1:\2/'); do
		dep=${hit##*:}
		where=${hit%:*}
		[ "$dep" = "$mod" ] && continue
		case " $ok " in
		*" $dep "*) ;;
		*)
			echo "$where: $mod must not include $dep/ (see the arrows in docs/architecture.md)"
			bad=1
			;;
		esac
	done
done
[ $bad -eq 0 ] && echo "layers: every include follows the arrows"
exit $bad
