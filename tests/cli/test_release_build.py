"""The binaries people install carry no test hook (issue 22, item 4): every
MECHA_TEST_* probe — the kill points, the sandbox's probes, the temp-file age,
the Landlock ABI cap — is compiled only under -DMECHA_TEST_BUILD, as SQLite's
test hooks are only under SQLITE_TEST. `make all` builds build/ without it; the
tests run the test build (build/test, MECHA_BIN), which has them.

MECHA_RELEASE_BUILD (set by `make cli`) names the release build; build/ otherwise."""
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import BIN, ROOT

RELEASE = pathlib.Path(os.environ.get("MECHA_RELEASE_BUILD", str(ROOT / "build")))
PROGRAMS = ("mecha", "mecha-box", "mecha-review")
HOOK = b"MECHA_TEST_"
# The hooks not spelt MECHA_TEST_*: a fixed clock, a library made to look missing.
OTHER_HOOKS = (b"MECHA_NOW", b"MECHA_DL_MISSING")


def release(name):
    path = RELEASE / name
    assert path.is_file(), f"{path} is not built (make all builds it)"
    return path


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_release_binary_has_no_test_hook_in_it(name):
    path = release(name)
    assert HOOK not in path.read_bytes(), f"{path} carries a MECHA_TEST_ string"
    for other in OTHER_HOOKS:
        assert other not in path.read_bytes(), f"{path} carries {other.decode()}"
    if shutil.which("strings"):
        out = subprocess.run(["strings", str(path)], capture_output=True, check=True).stdout
        assert HOOK not in out


def test_the_test_build_the_tests_run_has_them():
    """The check above can fail: the tests' own binary carries the hooks."""
    assert pathlib.Path(BIN).resolve() != release("mecha").resolve(), \
        "the tests run the release binary: MECHA_BIN should be the test build"
    assert HOOK in pathlib.Path(BIN).read_bytes()
    assert all(other in pathlib.Path(BIN).read_bytes() for other in OTHER_HOOKS)


def test_a_release_binary_ignores_the_hooks_variables(mecha, tmp_path):
    """MECHA_TEST_CREATE makes a test build create a file after confining itself;
    the release binary does not read the variable at all."""
    target = tmp_path / "made-by-the-hook"
    env = dict(os.environ, MECHA_HOME=str(mecha.home), HOME=str(tmp_path),
               MECHA_TEST_CREATE=str(target), MECHA_TEST_LANDLOCK_ABI="0")
    p = subprocess.run([str(release("mecha")), "frontdoor", "list"], env=env,
                       capture_output=True, text=True)
    assert "sandbox test" not in p.stderr and not target.exists()
    p = subprocess.run([BIN, "frontdoor", "list"], env=env, capture_output=True, text=True)
    assert "mecha: sandbox test: create" in p.stderr
