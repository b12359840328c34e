"""What every figure shares: timing a command through the C helper (so that
Python's own cost of starting a process is never measured), medians of
interleaved rounds (so drift on a shared machine hits a figure and its
baseline alike), and the rows of the one table."""
import os
import statistics
import subprocess


class Bench:
    def __init__(self, mecha, helper, work):
        self.mecha = mecha
        self.helper = helper
        self.work = work
        self.rows = []

    def run(self, cmd, stdin=None, env=None, check=True):
        """One run of cmd: (wall seconds, peak RSS in KiB, exit status)."""
        argv = [self.helper, "time"] + (["--in", stdin] if stdin else []) + ["--"] + cmd
        p = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        ns, rss, status = (int(x) for x in p.stdout.split())
        if check and status != 0:
            raise SystemExit(f"bench: {' '.join(cmd)} exited {status}")
        return ns / 1e9, rss, status

    def medians(self, cmds, rounds, env=None):
        """cmds: {name: (argv, stdin or a function of the round giving it)}.
        Runs each once per round, in turn; the median wall time of each."""
        times = {name: [] for name in cmds}
        for r in range(rounds):
            for name, (argv, stdin) in cmds.items():
                times[name].append(self.run(argv, stdin(r) if callable(stdin) else stdin,
                                            env)[0])
        return {name: statistics.median(t) for name, t in times.items()}

    def row(self, figure, value, unit, baseline=None, goal=None, higher_is_better=False,
            note=""):
        """One line of the table. With a baseline the ratio value/baseline is
        held against the goal; without one, the value itself is."""
        ratio = value / baseline if baseline else None
        judged = ratio if baseline else value
        met = None
        if goal is not None:
            met = judged >= goal if higher_is_better else judged <= goal
        self.rows.append({"figure": figure, "value": value, "unit": unit, "baseline": baseline,
                          "ratio": ratio, "goal": goal,
                          "goal_kind": ">=" if higher_is_better else "<=", "met": met,
                          "note": note})


def fmt(v, unit):
    if v is None:
        return "—"
    if unit == "s" and v < 1:
        return f"{v * 1000:.2f} ms"
    if unit == "s":
        return f"{v:.2f} s"
    if unit == "KiB":
        return f"{v / 1024:.1f} MiB"
    if unit == "/s":
        return f"{v:.0f}/s"
    if unit == "":
        return f"{v:.2f}"  # a rate
    return f"{v:.2f} {unit}"


def goal_text(r):
    if r["goal"] is None:
        return "—"
    g = f"{r['goal']:g}" if r["ratio"] is not None else fmt(r["goal"], r["unit"])
    return f"{r['goal_kind']} {g}"


def table(rows):
    """The table a person reads: figure, measured, baseline, ratio, goal, met."""
    head = ("figure", "measured", "baseline", "ratio", "goal", "met")
    lines = []
    for r in rows:
        lines.append((r["figure"], fmt(r["value"], r["unit"]), fmt(r["baseline"], r["unit"]),
                      "—" if r["ratio"] is None else f"{r['ratio']:.2f}", goal_text(r),
                      {True: "met", False: "NOT MET", None: "—"}[r["met"]]))
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    out = []
    for x in [head] + lines:
        out.append("  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip())
        if x is head:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def env_with(**kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHA_")}
    env.update({k: str(v) for k, v in kw.items()})
    env["NO_COLOR"] = "1"
    return env
