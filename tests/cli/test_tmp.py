"""`make check` leaves nothing in /tmp. Every suite runs with TMPDIR pointed at
a directory of its own that is removed afterwards (the Makefile; conftest.py
fails the CLI run on anything left in its own): what remains to pin is that no
test, helper or source names /tmp itself, which TMPDIR cannot redirect."""
import re

from conftest import ROOT

# Strings that merely contain /tmp/ and create nothing: recipient addresses a
# sink must refuse, and a value a config test reads back.
NOT_PATHS = ("-oQ/tmp/x@example.org", "/tmp/from-env")
LITERAL_TMP = re.compile(r"""["'`]/tmp/""")


def sources():
    for pattern in ("src/**/*.[ch]", "tests/unit/*.[ch]", "tests/cli/*.py", "tests/support/*",
                    "tests/mcp/*.mjs", "docs/demo.sh", "docs/demo.d/*.sh", "bench/*"):
        yield from (p for p in ROOT.glob(pattern) if p.is_file())


def test_nothing_the_tests_run_names_tmp_directly():
    found = []
    for path in sources():
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for bad in NOT_PATHS:
                line = line.replace(bad, "")
            if LITERAL_TMP.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], "use $TMPDIR (tests/unit/scratch.h, tmp_path, os.tmpdir()):\n" + \
        "\n".join(found)
