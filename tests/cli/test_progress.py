"""Long work shows progress (issue 12): on a terminal `extract`, `triage`,
`reconcile` and `sweep` draw a one-line meter (count, rate, time left) and end
with a summary; on a pipe they print the summary alone (a line per item with -v,
and always one for an item that was not done). `show` cuts prose longer than a
screenful on a terminal, saying how long it is (--full prints it all), and hands a
show taller than the screen to $PAGER; a pipe gets every byte.

The terminal is a real pseudo-terminal (python's pty) with a set window size."""
import fcntl
import json
import os
import pty
import struct
import subprocess
import termios

from conftest import BIN
from test_extract import drained


def on_terminal(mecha, *args, env=None, rows=24, cols=80):
    """Runs mecha with stdout and stderr on one pseudo-terminal; returns (status, what the
    terminal received)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    e = dict(mecha.env)
    e.update(env or {})
    p = subprocess.Popen([BIN, *[str(a) for a in args]], stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=slave, env=e)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer of the terminal has gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


METER_END = "\r\033[K"


def meter_lines(screen, label):
    """The meter's drawings: what follows each carriage return + erase and names the work."""
    return [part.split("\n")[0] for part in screen.split(METER_END)[1:]
            if part.startswith(label + "  ")]


def after_the_meter(screen):
    """What was written once the meter was erased for the last time: the summary."""
    return screen.split(METER_END)[-1].strip("\n")


# ---- the meter --------------------------------------------------------------------------

def test_extract_draws_a_meter_on_a_terminal_and_ends_with_the_summary(mecha):
    for seq in (1, 2, 3):
        drained(mecha, seq)
    status, screen = on_terminal(mecha, "frontdoor", "extract")
    assert status == 0, screen
    drawn = meter_lines(screen, "extract")
    assert drawn[0].startswith("extract  0/3  "), "the meter shows before the first result"
    assert drawn[-1].startswith("extract  3/3  ") and "/s" in drawn[-1] and "ETA" in drawn[-1]
    assert after_the_meter(screen) == "3 extracted, 0 failed and waiting for you"
    assert "     1  " not in screen, "no per-item lines without -v"


def test_extract_on_a_pipe_prints_the_summary_only_and_each_item_with_v(mecha):
    for seq in (1, 2):
        drained(mecha, seq)
    p = mecha.run("frontdoor", "extract", check=0)
    assert p.out == "2 extracted, 0 failed and waiting for you\n" and p.err == ""
    drained(mecha, 3)
    p = mecha.run("frontdoor", "extract", "-v", check=0)
    assert p.out.splitlines()[0].startswith("     3  ")
    assert p.out.splitlines()[-1] == "1 extracted, 0 failed and waiting for you"
    assert METER_END not in p.err


def test_reconcile_draws_a_meter_over_the_store(mecha):
    for seq in (1, 2, 3):
        mecha.write_record(seq, state="extracted")
    status, screen = on_terminal(mecha, "frontdoor", "reconcile")
    assert status == 0, screen
    assert meter_lines(screen, "reconcile")[-1].startswith("reconcile  3/3  ")
    assert after_the_meter(screen) == "nothing to reconcile"
    p = mecha.run("frontdoor", "reconcile", check=0)
    assert p.out == "nothing to reconcile\n" and p.err == ""


def test_triage_draws_a_meter(mecha, model_server):
    from test_triage import configure, extracted
    configure(mecha, model_server, "openai")
    model_server.default({"text": "Nothing to draft."})
    extracted(mecha, 1)
    extracted(mecha, 2)
    status, screen = on_terminal(mecha, "frontdoor", "triage")
    assert status == 0, screen
    assert meter_lines(screen, "triage")[-1].startswith("triage  2/2  ")
    assert after_the_meter(screen) == "0 awaiting you, 2 with nothing drafted, 0 failed"


def test_sweep_draws_a_meter_and_is_silent_when_there_is_nothing_to_do(mecha, smtp_sink):
    from test_sweep import booking, configure
    configure(mecha, smtp_sink)
    booking(mecha)
    status, screen = on_terminal(mecha, "frontdoor", "sweep")
    assert status == 0, screen
    assert meter_lines(screen, "sweep")[-1].startswith("sweep  1/1  ")
    # The fixture's home offered the slot but never paired, so the push after the booking
    # says it could not push (and the booking stands); the summary is the last line.
    rest = after_the_meter(screen).splitlines()
    assert rest[-1] == "1 booked", screen
    assert all(ln.startswith("mecha: slots of meeting not pushed: ") for ln in rest[:-1]), screen
    status, screen = on_terminal(mecha, "frontdoor", "sweep")
    assert status == 0 and screen == ""


# ---- show -----------------------------------------------------------------------------------

LONG = "".join(f"line {i} of what they wrote\n" for i in range(1, 5001))


def long_prose(mecha, text=LONG):
    drained(mecha, 1, values={"purpose_detail": text}, free_text=["purpose_detail"])


def test_show_cuts_long_prose_at_a_screenful_and_says_how_long_it_is(mecha):
    long_prose(mecha)
    status, screen = on_terminal(mecha, "frontdoor", "show", "1",
                                 env={"PAGER": "cat", "NO_COLOR": "1"})
    assert status == 0
    assert "line 1 of what they wrote" in screen and "line 5000 " not in screen
    assert f"{len(LONG)} bytes in 5000 lines in all" in screen and "--full" in screen
    shown = [ln for ln in screen.splitlines() if "| line " in ln]
    assert 0 < len(shown) <= 24


def test_show_cuts_one_enormous_line_too(mecha):
    long_prose(mecha, "x" * 1_000_000)
    status, screen = on_terminal(mecha, "frontdoor", "show", "1",
                                 env={"PAGER": "cat", "NO_COLOR": "1"})
    assert status == 0
    assert "1000000 bytes in 1 line in all" in screen
    assert len(screen) < 24 * 80 * 2


def test_show_full_on_a_terminal_goes_through_the_pager(mecha, tmp_path):
    long_prose(mecha)
    paged = tmp_path / "paged.txt"
    status, screen = on_terminal(mecha, "frontdoor", "show", "1", "--full",
                                 env={"PAGER": f"cat > {paged}", "NO_COLOR": "1"})
    assert status == 0
    text = paged.read_text()
    assert "line 5000 of what they wrote" in text and "cut at a screenful" not in text
    assert "line 1 of" not in screen, "the pager, not the terminal, got the show"


def test_show_on_a_pipe_prints_every_byte_and_never_pages(mecha):
    long_prose(mecha)
    p = mecha.run("frontdoor", "show", "1", env={"PAGER": "false"}, check=0)
    assert "line 5000 of what they wrote" in p.out and "cut at a screenful" not in p.out
    assert p.out.count("| line ") == 5000


def test_a_short_show_on_a_terminal_is_not_paged(mecha, tmp_path):
    drained(mecha, 1)
    paged = tmp_path / "paged.txt"
    status, screen = on_terminal(mecha, "frontdoor", "show", "1",
                                 env={"PAGER": f"cat > {paged}", "NO_COLOR": "1"},
                                 rows=60)
    assert status == 0 and "request 1" in screen and not paged.exists()
    assert json.loads(mecha.run("frontdoor", "show", "1", "--json", check=0).out)["record"]
