"""The calendar at the cost of reading it (issue #25, item 5): free/busy over a
vdir of BENCH_CALENDAR_FILES (5000) small files, each carrying the same
VTIMEZONE as real exports do, against `cat` of the same files in the same
rounds; and the peak memory of one large file (BENCH_CALENDAR_MB, 10 MB, one
calendar of events), held against 32 MiB."""
import os
import subprocess

from common import env_with

FILES = int(os.environ.get("BENCH_CALENDAR_FILES", "5000"))
BIG_MB = int(os.environ.get("BENCH_CALENDAR_MB", "10"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "21"))

ZONE = ("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
        "BEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n"
        "DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
        "BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n"
        "DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\n"
        "END:VTIMEZONE\r\n")
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//mecha bench//EN\r\n" + ZONE


def event(i):
    day, hour = 1 + i % 28, 8 + i % 9
    return (f"BEGIN:VEVENT\r\nUID:bench-{i}@example.org\r\nDTSTAMP:20261101T000000Z\r\n"
            f"DTSTART;TZID=Europe/Berlin:2026{1 + i % 12:02d}{day:02d}T{hour:02d}0000\r\n"
            f"DTEND;TZID=Europe/Berlin:2026{1 + i % 12:02d}{day:02d}T{hour:02d}3000\r\n"
            f"SUMMARY:Meeting {i} about the quarterly plan\r\n"
            f"DESCRIPTION:Notes a real calendar carries along with every event.\r\n"
            f"LOCATION:Room {i % 40}\r\nEND:VEVENT\r\n")


def make_home(b, name, path):
    home = os.path.join(b.work, name)
    subprocess.run([b.mecha, "init"], env=env_with(MECHA_HOME=home), check=True,
                   capture_output=True)
    conf = os.path.join(home, "config.toml")
    with open(conf) as f:
        text = f.read()
    if "\n[calendar]\n" not in text:
        raise SystemExit(f"bench: {conf} has no [calendar] table to set")
    text = text.replace("\n[calendar]\n",
                        f'\n[calendar]\npath = "{path}"\ntimezone = "Europe/Berlin"\n', 1)
    with open(conf, "w") as f:
        f.write(text)
    return env_with(MECHA_HOME=home)


def figures(b):
    vdir = os.path.join(b.work, "calendar-vdir")
    os.makedirs(vdir)
    names = []
    for i in range(FILES):
        names.append(os.path.join(vdir, f"{i:05d}.ics"))
        with open(names[-1], "w", newline="") as f:
            f.write(HEAD + event(i) + "END:VCALENDAR\r\n")
    big = os.path.join(b.work, "calendar-big.ics")
    with open(big, "w", newline="") as f:
        f.write(HEAD)
        i, size = 0, len(HEAD)
        while size < BIG_MB * 1000 * 1000:
            e = event(i)
            f.write(e)
            size, i = size + len(e), i + 1
        f.write("END:VCALENDAR\r\n")
    window = ["--from", "2026-01-01T00:00:00Z", "--to", "2026-12-31T00:00:00Z", "--json"]
    env = make_home(b, "calendar-home", vdir)
    med = b.medians({"mecha": ([b.mecha, "calendar", "free-busy"] + window, None),
                     "cat": (["cat"] + names, None)}, max(3, ROUNDS // 3), env=env)
    b.row(f"calendar: free/busy over a vdir of {FILES} files", med["mecha"], "s",
          baseline=med["cat"], goal=3, note="baseline: cat of the same files")
    env = make_home(b, "calendar-big-home", big)
    _, rss, _ = b.run([b.mecha, "calendar", "free-busy"] + window, env=env)
    b.row(f"calendar: one {BIG_MB} MB file, peak RSS", rss, "KiB", goal=32 * 1024)
