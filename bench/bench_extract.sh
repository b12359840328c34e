#!/bin/sh
# The quarantined pass with calls in flight: 200 records against the scripted
# model server answering each call after 100 ms, --jobs 1 against --jobs 8.
exec /usr/bin/python3 "$(dirname "$0")/extract.py" "$@"
