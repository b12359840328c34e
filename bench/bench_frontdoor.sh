#!/bin/sh
# The request store at scale: list, show and reconcile over 100,000 records,
# as ratios against reading the same files with cat in the same run.
exec /usr/bin/python3 "$(dirname "$0")/frontdoor.py" "$@"
