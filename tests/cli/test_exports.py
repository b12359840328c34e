"""Every export of src/ has a user outside its file, or is API on purpose (issue 26):
scripts/exports.sh over the objects of the build the tests run, and its allowlist."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ["MECHA_BIN"]).parent
SCRIPT = ROOT / "scripts/exports.sh"


def run(root=ROOT):
    return subprocess.run(["sh", str(SCRIPT), str(BUILD), str(root)], capture_output=True, text=True)


def test_no_export_goes_unused():
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_allowlisted_name_nothing_exports_fails(tmp_path):
    """The check can fail: a stale allowlist entry is named."""
    for top in ("tests", "fuzz"):
        (tmp_path / top).mkdir()
    (tmp_path / "scripts").mkdir()
    allow = (ROOT / "scripts/exports.allow").read_text() + "no_such_function_anywhere\n"
    (tmp_path / "scripts/exports.allow").write_text(allow)
    r = run(tmp_path)
    assert r.returncode == 1
    assert "exports.allow: no_such_function_anywhere is not exported by any object" in r.stdout
