"""make bench: every figure, each against a baseline measured in the same run,
printed as one table and kept in build/bench.json (so a regression shows up as
a changed row).

usage: bench.py MECHA HELPER OUT.json
Sizes: BENCH_RECORDS (100000), BENCH_LETTERS (20000), BENCH_CALENDAR_FILES (5000),
BENCH_CALENDAR_MB (10), BENCH_EXTRACT_RECORDS
(256), BENCH_DRAIN_ROWS (10000), BENCH_DRAIN_ROUNDS (3), BENCH_MCP_POSTS (200 per session),
BENCH_ROUNDS (21).
Parts: BENCH=mission (or store, extract, drain, injection, box, box_cost, calendars, or
several, comma-separated) runs only
those figures (`make bench BENCH=mission`); the default is all of them.
A part that fails (a command exits wrongly, a server does not start) is
named with its error after the table; the rows measured so far, its own
and every other part's, are still printed and written, and the exit status
is 1."""
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import box  # noqa: E402
import box_cost  # noqa: E402
import calendars  # noqa: E402
import drain  # noqa: E402
import extract  # noqa: E402
import injection  # noqa: E402
import mission  # noqa: E402
import store  # noqa: E402
from common import Bench, table  # noqa: E402

PARTS = (store, mission, extract, drain, injection, box, box_cost, calendars)


def chosen():
    """The parts BENCH names (all when unset); an unknown name is a usage error."""
    names = [n for n in os.environ.get("BENCH", "").split(",") if n]
    known = {p.__name__: p for p in PARTS}
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit(f"bench: unknown part {bad[0]!r} (known: {', '.join(known)})")
    return [known[n] for n in names] if names else list(PARTS)


def main():
    mecha, helper, out = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="mecha-bench-")
    b = Bench(mecha, helper, work)
    start, load = time.time(), os.getloadavg()
    errors = []
    try:
        for part in chosen():
            t = time.perf_counter()
            try:
                part.figures(b)
            except (Exception, SystemExit) as x:  # a broken part must not hide the others
                why = str(x) or type(x).__name__
                errors.append({"part": part.__name__, "error": why})
                print(f"bench: part {part.__name__} failed: {why}", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
            print(f"  {part.__name__}: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(b.rows))
    for x in errors:
        print(f"FAILED: part {x['part']}: {x['error']} (its rows after the failure are missing)")
    doc = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
           "machine": {"cpus": os.cpu_count(), "system": platform.platform(),
                       "load_average_at_start": load},
           "mecha": mecha, "rows": b.rows, "errors": errors}
    with open(out, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"(machine-readable: {out})")
    return 0 if not errors and all(r["met"] is not False for r in b.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
