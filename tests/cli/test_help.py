"""Help that is whole: `mecha --help` names every command and every verb (and
--version), and the bash and zsh completion scripts offer the same commands,
verbs and options — all written from the one command table and the groups'
verb tables, so a verb cannot be in one and missing from the other."""
import re
import shutil
import subprocess

import pytest

from conftest import BIN


def top_help(mecha):
    return mecha.run("--help", check=0).out


def commands(mecha):
    """(name, has verbs) for every command `mecha --help` lists."""
    found = []
    for line in top_help(mecha).splitlines():
        m = re.match(r"  ([a-z]+)( \[?VERB\]?)? {2,}", line)
        if m:
            found.append((m.group(1), bool(m.group(2))))
    return found


def group_verbs(mecha, group):
    """The verbs a group's own --help lists (its summary lines)."""
    out = mecha.run(group, "--help", check=0).out
    return [m.group(1) for m in re.finditer(r"^  ([a-z-]+) {2,}\S", out, re.M)]


def test_top_help_names_every_verb_and_version_the_issue_found_missing(mecha):
    out = top_help(mecha)
    for word in ("--version", "needs-info", "reconcile", "stage", "edit", "review",
                 "completion", "help codes"):
        assert word in out, word


def test_top_help_lists_every_verb_each_group_lists_under_it(mecha):
    out = top_help(mecha).splitlines()
    groups = commands(mecha)
    assert {"frontdoor", "outbox", "mcp", "mission", "blocks", "calendar"} <= {g for g, _ in groups}
    for group, has_verbs in groups:
        if not has_verbs:
            continue
        start = next(i for i, l in enumerate(out) if l.startswith(f"  {group} "))
        listed = []
        for line in out[start + 1:]:
            m = re.match(r"      ([a-z-]+) ", line)
            if not m:
                break
            listed.append(m.group(1))
        assert listed == group_verbs(mecha, group), group


def test_version_prints_one_line(mecha):
    p = mecha.run("--version", check=0)
    assert re.fullmatch(r"mecha \S+\n", p.out)


def test_an_unknown_command_is_named_safely(mecha):
    p = mecha.run("fr\x1b[2Jont", check=2)
    assert "\x1b" not in p.err and "unknown command 'fr\\e[2Jont'" in p.err


# ---- completion ------------------------------------------------------------------


def script(mecha, shell):
    return mecha.run("completion", shell, check=0).out


def bash_complete(mecha, *words):
    """COMPREPLY for the command line `words` (the last one is being completed)."""
    code = ('source <("$MECHA" completion bash) || exit 9\n'
            'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mecha; printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", code, "bash", "mecha", *words], capture_output=True,
                       text=True, env={**mecha.env, "MECHA": BIN}, timeout=30)
    assert p.returncode == 0, p.stderr
    return [w for w in p.stdout.splitlines() if w]


def test_bash_registers_a_completion_for_mecha(mecha):
    p = subprocess.run(["bash", "-c", 'source <("$MECHA" completion bash); complete -p mecha'],
                       capture_output=True, text=True, env={**mecha.env, "MECHA": BIN}, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "complete -o bashdefault -o default -F _mecha mecha"


def test_bash_completes_commands_verbs_and_options(mecha):
    assert bash_complete(mecha, "fr") == ["frontdoor"]
    assert set(bash_complete(mecha, "")) >= {"frontdoor", "outbox", "mcp", "mission", "blocks",
                                            "calendar", "help", "completion", "--version"}
    assert bash_complete(mecha, "frontdoor", "n") == ["next", "needs-info"]
    assert bash_complete(mecha, "outbox", "re") == ["reject", "review"]
    assert bash_complete(mecha, "frontdoor", "extract", "--re") == ["--retry-failed"]
    assert bash_complete(mecha, "mission", "new", "--b") == ["--block", "--brain-ref", "--box",
                                                              "--brain"]
    # A group's default verb takes its options right after the group.
    assert bash_complete(mecha, "frontdoor", "--st") == ["--state"]
    assert bash_complete(mecha, "help", "c") == ["calendar", "codes"]
    assert bash_complete(mecha, "completion", "") == ["bash", "zsh"]
    # Not an option: left to the shell's file names.
    assert bash_complete(mecha, "mission", "post", "") == []


def test_completion_offers_every_verb_top_help_lists(mecha):
    for group, has_verbs in commands(mecha):
        if has_verbs:
            assert bash_complete(mecha, group, "") == group_verbs(mecha, group), group


def offered_options(mecha):
    """(group, verb, option) for every option the bash script offers."""
    for m in re.finditer(r"^\t\t'([a-z]+) ([a-z-]+)'(?:\|'[a-z]+ -'\*)?\) words='([^']*)'",
                         script(mecha, "bash"), re.M):
        for opt in m.group(3).split():
            yield m.group(1), m.group(2), opt


def test_every_option_completion_offers_is_one_the_verb_accepts(mecha):
    seen = 0
    for group, verb, opt in offered_options(mecha):
        if opt == "--help" or group == "help":
            continue
        seen += 1
        p = mecha.run(group, verb, opt, "--zz-not-an-option", input=b"", check=None, timeout=20)
        assert f"unknown option '{opt}'" not in p.err, (group, verb, opt)
    assert seen > 40


def test_completion_of_an_unknown_shell_is_a_usage_mistake(mecha):
    p = mecha.run("completion", "fish", check=2)
    assert "bash, zsh" in p.err and p.out == ""


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (make deps)")
def test_zsh_script_defines_a_completion_that_offers_the_same_words(mecha):
    # compdef, _describe, compadd and _files stubbed: each prints what it was offered.
    code = r'''
compdef() { print -r -- "compdef $*"; }
_describe() { print -rl -- "${(@P)${@[-1]}}"; }
compadd() { print -rl -- "${(@P)2}"; }
_files() { print -r -- FILES; }
source <("$MECHA" completion zsh) || exit 9
print -r -- ---
words=(mecha frontdoor ''); CURRENT=3; PREFIX=''; _mecha
print -r -- ---
words=(mecha mission new --b); CURRENT=4; PREFIX=--b; _mecha
print -r -- ---
words=(mecha mission post ''); CURRENT=4; PREFIX=''; _mecha
'''
    p = subprocess.run(["zsh", "-f", "-c", code], capture_output=True, text=True,
                       env={**mecha.env, "MECHA": BIN}, timeout=30)
    assert p.returncode == 0, p.stderr
    registered, verbs, options, files = p.stdout.split("---\n")
    assert registered.strip() == "compdef _mecha mecha"
    assert [v.split(":")[0] for v in verbs.splitlines()] == group_verbs(mecha, "frontdoor")
    assert "needs-info:park a request until its requester answers" in verbs.splitlines()
    assert "--brain-ref" in options.split() and "--block" in options.split()
    assert files.strip() == "FILES"


# ---- the documentation points only at what a clone has ---------------------------


def test_the_readme_and_docs_point_only_at_files_in_the_repository():
    from conftest import ROOT

    pointer = re.compile(r"(?<![\w/.~-])((?:\.\./|docs/|tests/|scripts/|src/|bench/|fuzz/|\.ci/)"
                         r"[\w./-]*\w)")
    # What the build makes (npm's tests/mcp/node_modules) is named on purpose, not shipped.
    made = ("tests/mcp/node_modules",)
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in pointer.findall(doc.read_text()):
            if path in made:
                continue
            if path.startswith("../") or not (ROOT / path).exists():
                missing.append(f"{doc.name}: {path}")
    assert missing == []
