"""Completion from the home: after a verb that takes a request's seq, an outbox
id or a type id, and after --seq and --state, the bash and zsh scripts offer
the home's values at the moment of the TAB (the hidden `mecha __complete KIND
WORD`), and an outbox id is found by a unique tail as by a unique start —
by the completion and by every verb that takes an id."""
import shutil
import subprocess

import pytest

from conftest import BIN
from test_outbox import configure, stage

STATES = ["drained", "extracted", "extraction_failed", "triaged", "awaiting_me", "needs_info",
          "answered", "booked", "closed"]


def bash_complete(mecha, *words):
    """COMPREPLY for `mecha WORDS…` (the last word is the one being completed),
    the program named as a person's shell would see it typed: by its path."""
    code = ('source <("$MECHA" completion bash) || exit 9\n'
            'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mecha; printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", code, "bash", BIN, *words], capture_output=True,
                       text=True, env={**mecha.env, "MECHA": BIN}, timeout=30)
    assert p.returncode == 0, p.stderr
    return [w for w in p.stdout.splitlines() if w]


@pytest.fixture
def home(mecha):
    """A home with three requests, two drafts and one type."""
    for seq in (3, 12, 120):
        mecha.write_record(seq=seq)
    configure(mecha)
    mecha.ids = sorted([stage(mecha), stage(mecha)])
    return mecha


def test_request_seqs_are_offered_where_a_seq_is_taken(home):
    assert bash_complete(home, "frontdoor", "show", "") == ["3", "12", "120"]
    assert bash_complete(home, "frontdoor", "show", "1") == ["12", "120"]
    assert bash_complete(home, "frontdoor", "close", "--reject-drafts", "12") == ["12", "120"]
    assert bash_complete(home, "frontdoor", "extract", "--seq", "3") == ["3"]
    assert home.run("__complete", "seqs", "12", check=0).out == "12\n120\n"


def test_a_free_text_value_is_not_offered_anything_from_the_home(home):
    assert bash_complete(home, "frontdoor", "close", "12", "--reason", "") == []
    assert bash_complete(home, "outbox", "reject", home.ids[0], "--reason", "") == []


def test_states_come_from_the_state_table_after_state(home):
    assert bash_complete(home, "frontdoor", "list", "--state", "") == STATES
    # The group's default verb takes its options right after the group.
    assert bash_complete(home, "frontdoor", "--state", "a") == ["awaiting_me", "answered"]


def test_type_ids_are_offered_where_a_type_is_taken(home):
    assert bash_complete(home, "types", "show", "") == ["meeting"]
    assert bash_complete(home, "slots", "show", "me") == ["meeting"]
    assert bash_complete(home, "types", "show", "x") == []


def test_outbox_ids_are_offered_by_their_start_or_a_unique_tail(home):
    a, b = home.ids
    assert bash_complete(home, "outbox", "show", "") == [a, b]
    assert bash_complete(home, "outbox", "approve", a[:-8]) == [x for x in (a, b)
                                                                  if x.startswith(a[:-8])]
    # The random tail alone is enough, and the shell puts the whole id in its place.
    assert bash_complete(home, "outbox", "approve", a[-8:]) == [a]
    assert bash_complete(home, "outbox", "edit", b[-8:]) == [b]
    assert home.run("__complete", "outbox", a[-6:], check=0).out == a + "\n"


def test_every_verb_that_takes_an_outbox_id_takes_a_unique_tail(home):
    a, b = home.ids
    assert home.json("outbox", "show", a[-8:], "--json")["id"] == a
    p = home.run("outbox", "reject", b[-8:], "--reason", "not now", check=0)
    assert home.json("outbox", "show", b, "--json")["status"] == "rejected", p.out


def test_a_tail_two_ids_end_with_is_ambiguous_and_names_them(home):
    a, b = home.ids
    tail = ""
    for i in range(1, 9):  # the longest tail both share, if any; else a start both share
        if a[-i:] == b[-i:]:
            tail = a[-i:]
    part = tail or a[:15]
    p = home.run("outbox", "show", part, check=2)
    assert "matches more than one outbox item" in p.err and a in p.err and b in p.err


def test_completion_in_a_home_that_is_not_there_offers_nothing(mecha):
    shutil.rmtree(mecha.home)
    assert bash_complete(mecha, "frontdoor", "show", "") == []
    assert bash_complete(mecha, "outbox", "show", "") == []
    # The states are the program's own: they need no home.
    assert bash_complete(mecha, "frontdoor", "--state", "n") == ["needs_info"]


def test_an_unknown_kind_is_a_usage_mistake(mecha):
    p = mecha.run("__complete", "missions", check=2)
    assert "seqs, outbox, types, states" in p.err and p.out == ""


def test_the_hidden_command_is_not_in_the_help(mecha):
    assert "__complete" not in mecha.run("--help", check=0).out


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (make deps)")
def test_zsh_offers_the_same_values_and_replaces_a_tail_with_the_id(home):
    a, _ = home.ids
    # compadd and _files stubbed: each prints what it was offered.
    code = r'''
compdef() { :; }
compadd() { [[ $1 == -U ]] || print -r -- NOT-U; print -rl -- "${(@P)3}"; }
_files() { print -r -- FILES; }
source <("$MECHA" completion zsh) || exit 9
words=("$MECHA" frontdoor show 1); CURRENT=4; PREFIX=1; _mecha
print -r -- ---
words=("$MECHA" outbox approve "$TAIL"); CURRENT=4; PREFIX=$TAIL; _mecha
print -r -- ---
words=("$MECHA" frontdoor --state n); CURRENT=4; PREFIX=n; _mecha
print -r -- ---
words=("$MECHA" types check ''); CURRENT=4; PREFIX=''; _mecha
'''
    p = subprocess.run(["zsh", "-f", "-c", code], capture_output=True, text=True,
                       env={**home.env, "MECHA": BIN, "TAIL": a[-8:]}, timeout=30)
    assert p.returncode == 0, p.stderr
    seqs, ids, states, files = p.stdout.split("---\n")
    assert seqs.split() == ["12", "120"]
    assert ids.split() == [a]
    assert states.split() == ["needs_info"]
    assert files.strip() == "FILES"
