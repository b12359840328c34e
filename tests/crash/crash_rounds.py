#!/usr/bin/python3
"""Crash rounds: round after round, a writer (writers.py) is started on a home
and killed with SIGKILL — after a random delay, or at a named point (a test
hook in the binary, the SMTP sink holding its answer, a torn write) — and
then the home is checked (invariants.py), the writer is run again as a person
or the next timer would, and the home is checked again. A temp file a kill left
must be gone within two cycles of writers (invariants.temps_swept).

    crash_rounds.py [--rounds N] [--seed S] [--only NAME,...] [-v]

Prints the figures — rounds, kills, kill points reached (the distinct sets of
files a killed writer had changed, and the named points it died at),
violations — and exits 1 on any violation, 2 when the harness itself broke.
The home lives under $TMPDIR and is removed at the end.
"""
import argparse
import random
import statistics
import sys
import time
import traceback

import invariants
from house import House
from tree import Snapshot, changes
from writers import WRITERS, Counter


class Tally:
    def __init__(self, w):
        self.w = w
        self.rounds = self.killed = self.hooked = self.exited = 0
        self.phases = set()
        self.named = set()
        self.durations = []

    def delay(self, rng):
        """Somewhere in a run as long as the ones seen so far (the first runs are measured)."""
        if len(self.durations) < 2:
            return None
        return rng.uniform(0, statistics.median(self.durations) * 1.15)


class Broken(Exception):
    """A round whose home is too damaged to go on with: its violations end the rounds."""

    def __init__(self, v, point, delay, run):
        super().__init__("the home is broken")
        self.v, self.point, self.delay, self.run = v, point, delay, run


def point_name(point):
    if "env" in point:
        return next(iter(point["env"].values()))
    return "smtp-hold" if point.get("hold") else "torn-write" if point.get("torn") else \
        point.get("name")  # a point the writer's own kill() reaches (multi-box)


def kill(house, w, t, rng, job, known_torn):
    """Runs the job and kills it somewhere; returns (run, point, delay)."""
    point = w.choose_point(job, rng)
    delay = None if point else t.delay(rng)
    env = dict(job.env)
    env.update(point.get("env", {}))
    until = None
    if point.get("hold"):
        house.sink.hold_next()
        until = house.sink.holding.is_set
    if job.args is None:  # the writer's process is not one mecha run: it kills it itself
        run = w.kill(house, job, rng)
    else:
        run = house.mecha_killed(job.args, input=job.input, env=env, delay=delay, until=until)
    if point.get("hold"):
        house.sink.release_hold()
    if w.mail and (run.killed or run.hooked):
        house.sink.settle(quiet=0.25)  # what a killed sender put on the wire still arrives
    if point.get("torn") and not run.killed:
        known_torn.add(w.torn(house, job))
    return run, point, delay


def how_it_ended(w, run):
    """A run nobody killed ends with a status of the table: 0, 1 or 3."""
    if run.timed_out:
        return [f"{w.name} ran for over a minute and was killed"]
    if not run.killed and not run.hooked and run.rc not in (0, 1, 3):
        return [f"{w.name} ended with status {run.rc}: {run.err.strip()[:300]}"]
    return []


def tally(t, run, point, before, after):
    t.rounds += 1
    if run.killed or run.hooked:
        t.killed += run.killed
        t.hooked += run.hooked
        t.phases.add(changes(before, after))
    else:
        t.exited += 1
        if not point:
            t.durations.append(run.elapsed)
    name = point_name(point)
    if name and (run.hooked if "env" in point else run.killed if point.get("hold") else True):
        t.named.add(name)


def one_round(house, w, t, rng, known_torn, verbose):
    job = w.prepare(house, rng)
    before = Snapshot(house)
    run, point, delay = kill(house, w, t, rng, job, known_torn)
    after = Snapshot(house)
    _, tail = after.box_letters()
    if tail:
        known_torn.add(tail)
    v = how_it_ended(w, run) + invariants.whole(after, known_torn) + \
        invariants.nothing_lost(before, after, w.may_change)
    tally(t, run, point, before, after)
    try:
        v += w.recover(house, job, run)
    except Exception as exc:  # noqa: BLE001 - a home the rerun cannot read is a finding
        v.append(f"running it again failed on what the kill left: {exc!r}")
        raise Broken(v, point, delay, run) from exc
    final = Snapshot(house)
    v += invariants.whole(final, known_torn) + invariants.nothing_lost(after, final, w.may_change)
    v += invariants.temps_swept(house.temps_seen, final, house.round, house.cycle, house.cal)
    if verbose:
        how = "killed" if run.killed else "hook" if run.hooked else f"exit {run.rc}"
        print(f"  round {house.round:4d} {w.name:10s} {how:8s} "
              f"{sorted(changes(before, after))}", flush=True)
    return v, point, delay, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=220)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    writers = [w for w in WRITERS if not a.only or w.name in a.only.split(",")]
    tallies = {w.name: Tally(w) for w in writers}
    violations, known_torn, rounds, seen = [], set(), 0, set()
    t0 = time.monotonic()
    print(f"crash rounds: {a.rounds} rounds over {len(writers)} writers, seed {seed}",
          flush=True)
    house = House("crash")
    # Rounds run one writer at a time, so no live writer holds a temp file when the next
    # starts: the sweep's threshold (base/fs.h) can be 0, and a kill's leftover must go
    # with the next writer of its store.
    house.env["MECHA_TEST_TEMP_AGE"] = "0"
    try:
        house.temps_seen, house.cycle = {}, 2 * len(writers)
        house.counter = Counter()
        house.orphans = set()
        house.round = 0
        house.ok("blocks", "add", "sb_crash", "--title", "the crash rounds' block")
        for r in range(a.rounds):
            house.round, broken = r, False
            w = writers[r % len(writers)]
            try:
                v, point, delay, run = one_round(house, w, tallies[w.name], rng, known_torn,
                                                 a.verbose)
            except Broken as b:
                v, point, delay, run, broken = b.v, b.point, b.delay, b.run, True
            rounds = r + 1
            for x in v:
                if x in seen:  # a damage found before, still there: counted once
                    continue
                seen.add(x)
                msg = (f"round {r} ({w.name}, {point or 'delay %.4fs' % (delay or 0)}, "
                       f"exit {run.rc}): {x}")
                print("VIOLATION " + msg, flush=True)
                violations.append(msg)
            if broken:
                print("the home is too damaged to go on: the rounds stop here", flush=True)
                break
    except Exception:  # noqa: BLE001 - the harness broke: say where, exit 2
        traceback.print_exc()
        return 2
    finally:
        house.close()
    print(f"\n{'writer':12s} {'rounds':>6s} {'killed':>6s} {'hooked':>6s} {'exited':>6s} "
          f"{'phases':>6s}  named points reached")
    for name, t in tallies.items():
        print(f"{name:12s} {t.rounds:6d} {t.killed:6d} {t.hooked:6d} {t.exited:6d} "
              f"{len(t.phases):6d}  {', '.join(sorted(t.named)) or '-'}")
    phases = sum(len(t.phases) for t in tallies.values())
    named = sum(len(t.named) for t in tallies.values())
    print(f"\nrounds {rounds}, kills {sum(t.killed + t.hooked for t in tallies.values())}, "
          f"kill points reached {phases + named} ({phases} distinct phases, {named} named "
          f"points), violations {len(violations)}  [{time.monotonic() - t0:.0f} s, seed {seed}]")
    if house.orphans:
        print(f"(not a violation: {len(house.orphans)} drafts staged by a killed run are on no "
              f"request's outbox list; outbox list shows them)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
