"""One option parser (base/opts) for the three programs: mecha, mecha-box and
mecha-review refuse the same mistakes in the same words — an unknown option
with the nearest one, an option without its value, a stray argument — each on
one line with a pointer to the verb's --help, exit 2, and with --json the failure
document on stdout. And the box's verbs are written once (box/help.h): `mecha
box` and mecha-box list the same verbs and print the same help for each."""
import json
import pathlib
import re
import subprocess

import pytest

from conftest import BIN

PROGRAMS = pathlib.Path(BIN).parent
BOX = PROGRAMS / "mecha-box"
REVIEW = PROGRAMS / "mecha-review"


def run(mecha, program, *args):
    p = subprocess.run([str(program), *map(str, args)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=mecha.env, timeout=30)
    p.out = p.stdout.decode("utf-8", "replace")
    p.err = p.stderr.decode("utf-8", "replace")
    return p


def said(p, prefix):
    """The one line of a usage mistake, without the program's name."""
    assert p.returncode == 2, (p.returncode, p.err)
    assert len(p.err.splitlines()) == 1 and p.err.startswith(prefix), p.err
    return p.err[len(prefix):].rstrip("\n")


# (program, its prefix, the verb's words, the mistake, what is said)
MISTAKES = [
    (BIN, "mecha: ", ("frontdoor", "list"), ("--jsno",),
     "unknown option '--jsno'; did you mean '--json'? (see 'mecha frontdoor list --help')"),
    (BOX, "mecha box: ", ("sweep",), ("--jsno",),
     "unknown option '--jsno'; did you mean '--json'? (see 'mecha box sweep --help')"),
    (BIN, "mecha box: ", ("box", "sweep"), ("--jsno",),
     "unknown option '--jsno'; did you mean '--json'? (see 'mecha box sweep --help')"),
    (REVIEW, "mecha: ", (), ("--sate", "x"),
     "unknown option '--sate'; did you mean '--state'? (see 'mecha review --help')"),
    (BIN, "mecha: ", ("review",), ("--sate", "x"),
     "unknown option '--sate'; did you mean '--state'? (see 'mecha review --help')"),
    (BOX, "mecha box: ", ("serve",), ("--zz-not-an-option",),
     "unknown option '--zz-not-an-option' (see 'mecha box serve --help')"),
    (BOX, "mecha box: ", ("serve",), ("--data",),
     "--data needs a value (see 'mecha box serve --help')"),
    (BOX, "mecha box: ", ("serve",), ("--data", "--verbose"),
     "--data needs a value (see 'mecha box serve --help')"),
    (REVIEW, "mecha: ", (), ("--state",), "--state needs a value (see 'mecha review --help')"),
    (REVIEW, "mecha: ", (), ("--state", " "),
     "--state needs a value that says something (see 'mecha review --help')"),
    (BIN, "mecha: ", ("frontdoor", "list"), ("stray",),
     "unexpected argument 'stray' (see 'mecha frontdoor list --help')"),
    (BOX, "mecha box: ", ("sweep",), ("stray",),
     "unexpected argument 'stray' (see 'mecha box sweep --help')"),
    (REVIEW, "mecha: ", (), ("stray",), "unexpected argument 'stray' (see 'mecha review --help')"),
    (BOX, "mecha box: ", ("owner",), ("add",), "missing an argument (see 'mecha box owner --help')"),
    (BOX, "mecha box: ", ("owner",), ("ad", "ada", "--data", "d"),
     "owner has no verb 'ad'; did you mean 'add'? (see 'mecha box owner --help')"),
    (BOX, "mecha box: ", ("key",), ("new", "--data", "d"),
     "--owner and --scope are required (see 'mecha box key --help')"),
    (BOX, "mecha box: ", ("srve",), (),
     "box has no verb 'srve'; did you mean 'serve'? (see 'mecha box --help')"),
    (BIN, "mecha: ", ("box", "srve"), (),
     "box has no verb 'srve'; did you mean 'serve'? (see 'mecha box --help')"),
    (BOX, "mecha box: ", ("serve",), ("--\x1b[2Jx",),
     "unknown option '--\\e[2Jx' (see 'mecha box serve --help')"),
]


@pytest.mark.parametrize("program,prefix,verb,mistake,words", MISTAKES,
                         ids=[" ".join((pathlib.Path(m[0]).name, *m[2], *m[3])) for m in MISTAKES])
def test_a_mistake_is_said_the_same_way_by_every_program(mecha, program, prefix, verb, mistake,
                                                         words):
    p = run(mecha, program, *verb, *mistake)
    assert said(p, prefix) == words
    assert p.out == ""


@pytest.mark.parametrize("program,verb", [(BIN, ("frontdoor", "list")), (BOX, ("sweep",)),
                                          (BIN, ("box", "pair"))])
def test_with_json_a_usage_mistake_is_also_the_document(mecha, program, verb):
    p = run(mecha, program, *verb, "--json", "--jsno")
    doc = json.loads(p.out)
    assert doc["ok"] is False and doc["error"] == "usage"
    assert doc["message"].startswith("unknown option '--jsno'; did you mean '--json'? (see 'mecha ")
    assert p.returncode == 2 and p.err.endswith(doc["message"] + "\n")


def box_verbs(text):
    return re.findall(r"^  ([a-z-]+) {2,}\S", text, re.M)


def test_the_box_verbs_and_their_help_are_the_same_through_both_doors(mecha):
    listed = run(mecha, BOX, "--help")
    assert listed.returncode == 0
    assert listed.out == mecha.run("box", "--help", check=0).out
    assert listed.out == mecha.run("help", "box", check=0).out
    verbs = box_verbs(listed.out)
    assert verbs == ["serve", "owner", "key", "pair", "sweep"]
    for verb in verbs:
        own = run(mecha, BOX, verb, "--help")
        assert own.returncode == 0 and own.err == ""
        assert own.out == mecha.run("box", verb, "--help", check=0).out
        assert own.out == run(mecha, BOX, verb, "-h").out
        assert own.out.startswith(f"usage: mecha box {verb}"), own.out
        # every option the help names is one the verb takes (the parser's table)
        for opt in set(re.findall(r"^ +(?:-[a-z], )?(--[a-z-]+)", own.out, re.M)):
            p = run(mecha, BOX, verb, opt, "--zz-not-an-option")
            assert f"unknown option '{opt}'" not in p.err, (verb, opt)


def test_the_box_without_a_verb_lists_them_as_a_usage_mistake(mecha):
    p = run(mecha, BOX)
    assert p.returncode == 2 and p.out == ""
    assert p.err == run(mecha, BOX, "--help").out
    assert p.err == mecha.run("box", check=2).err
