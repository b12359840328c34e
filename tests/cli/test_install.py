"""Installed like a real tool: `make install DESTDIR=…` and the Debian package
(`make deb`, unpacked with dpkg-deb -x into a clean directory root) each hold
the release programs, the man page, bash and zsh completion and the systemd
units; from the installed files alone `mecha --version`, `mecha init` and
`mecha doctor --offline` run, the installed bash completion offers the home's
values, and systemd-analyze accepts every unit with ExecStart at the installed
programs.

The make install half runs in `make cli` (the release build is there already);
the package half needs the package, which `make install-test` builds first
(MECHA_DEB names it)."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import ROOT

RELEASE = os.environ.get("MECHA_RELEASE_BUILD")
DEB = os.environ.get("MECHA_DEB")
UNITS = {"user": ["mecha-drain.service", "mecha-sweep.service", "mecha-sweep.timer",
                  "mecha-digest.service", "mecha-digest.timer"],
         "system": ["mecha-box.service"]}


# What the make that runs the tests puts in the environment (its command line's variables).
OUTER_MAKE = ("MFLAGS", "TEST_BUILD", "BUILD", "RELEASE_BUILD", "CFLAGS", "LDFLAGS", "CLI_TESTS",
              "PYTEST_ARGS")


def clean_env(**extra):
    """The environment without the outer make's (its jobserver) or mecha's own."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MECHA_", "MAKE")) and k not in OUTER_MAKE}
    env.update(extra)
    return env


def run(args, **kw):
    p = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=kw.pop("timeout", 120), **kw)
    return p


def check_installed(root, prefix, tmp):
    """The three commands, the completion and the units, from the files under root."""
    usr = root / prefix.lstrip("/")
    bindir = usr / "bin"
    for prog in ("mecha", "mecha-review", "mecha-box"):
        assert os.access(bindir / prog, os.X_OK), prog
    assert (usr / "share/man/man1").glob("mecha.1*"), "no man page"
    home = tmp / "home"
    env = clean_env(MECHA_HOME=str(home), HOME=str(tmp))
    p = run([bindir / "mecha", "--version"], env=env)
    assert p.returncode == 0 and re.fullmatch(r"mecha \S+\n", p.stdout), p.stdout
    p = run([bindir / "mecha", "init"], env=env)
    assert p.returncode == 0, p.stdout
    p = run([bindir / "mecha", "doctor", "--offline"], env=env)
    assert p.returncode == 0 and re.search(r"\d+ ok, \d+ warn, 0 fail", p.stdout), p.stdout

    # The installed bash completion, with the installed program, offers the home's seqs.
    (home / "requests" / "0000000007-meeting.json").write_text("{}")
    bash = usr / "share/bash-completion/completions/mecha"
    code = ('source "$1" || exit 9; shift\n'
            'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mecha; printf "%s\\n" "${COMPREPLY[@]}"')
    p = run(["bash", "-c", code, "bash", bash, bindir / "mecha", "frontdoor", "show", ""],
            env=env)
    assert p.returncode == 0 and p.stdout.split() == ["7"], p.stdout
    zsh_dirs = list((usr / "share/zsh").glob("*/_mecha"))
    assert len(zsh_dirs) == 1 and zsh_dirs[0].read_text().startswith("#compdef mecha")

    # Every unit, its ExecStart at the installed program (here: under root).
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed (make deps installs systemd)")
    # A user manager wants a runtime directory; a short one, as the sockets of
    # the machine's other user units are made in it (no systemd need be running).
    runtime = pathlib.Path(tempfile.mkdtemp(prefix="r.", dir="/tmp"))
    try:
        verify_units(analyze, usr, prefix, bindir, tmp, runtime)
    finally:
        shutil.rmtree(runtime)


def verify_units(analyze, usr, prefix, bindir, tmp, runtime):
    for scope, names in UNITS.items():
        units = tmp / f"units-{scope}"
        units.mkdir()
        for name in names:
            text = (usr / "lib/systemd" / scope / name).read_text()
            exec_starts = re.findall(r"^ExecStart=(\S+)", text, re.M)
            assert all(e.startswith(f"{prefix}/bin/") for e in exec_starts), (name, exec_starts)
            (units / name).write_text(text.replace(f"{prefix}/bin/", f"{bindir}/"))
        user = ["--user"] if scope == "user" else []
        p = run([analyze, *user, "verify", "--man=no", *[f"./{n}" for n in names]], cwd=units,
                env=clean_env(HOME=str(tmp), XDG_RUNTIME_DIR=str(runtime)))
        # What it says of our units (a warning is not a failure to systemd: it is here).
        ours = [line for line in p.stdout.splitlines() if "mecha-" in line]
        assert p.returncode == 0 and ours == [], (scope, p.stdout)


@pytest.mark.skipif(not RELEASE, reason="needs the release build (make cli sets MECHA_RELEASE_BUILD)")
def test_make_install_into_a_destdir_is_the_release_build_and_runs(tmp_path):
    root = tmp_path / "root"
    p = run(["make", "-C", ROOT, "--no-print-directory", "-s", "install", f"BUILD={RELEASE}",
             "PREFIX=/usr/local", f"DESTDIR={root}"], env=clean_env(), timeout=600)
    assert p.returncode == 0, p.stdout
    # The programs are the release build's (tests/cli/test_release_build.py: no test hook).
    for prog in ("mecha", "mecha-review", "mecha-box"):
        assert (root / "usr/local/bin" / prog).read_bytes() == (pathlib.Path(RELEASE) / prog).read_bytes()
    check_installed(root, "/usr/local", tmp_path)


@pytest.mark.skipif(not RELEASE, reason="needs the release build (make cli sets MECHA_RELEASE_BUILD)")
def test_make_install_refuses_a_test_build(tmp_path):
    test_build = pathlib.Path(os.environ.get("MECHA_BIN", "")).parent
    if not (test_build / "mecha").exists() or not (test_build / "mecha-box").exists():
        pytest.skip("no test build beside MECHA_BIN")
    p = run(["make", "-C", ROOT, "--no-print-directory", "-s", "install", f"BUILD={test_build}",
             "TEST_BUILD=1", f"DESTDIR={tmp_path / 'root'}"], env=clean_env(), timeout=600)
    assert p.returncode != 0 and "installs the release build" in p.stdout, p.stdout
    assert not (tmp_path / "root").exists()


@pytest.mark.skipif(not DEB, reason="needs the package: make install-test builds it (make deb)")
def test_the_debian_package_unpacked_into_a_clean_root_runs(tmp_path):
    deb = pathlib.Path(DEB)
    fields = run(["dpkg-deb", "-f", deb, "Package", "Depends"]).stdout
    assert "Package: mecha" in fields
    # The libraries loaded on first use are named although never linked.
    for lib in ("libcurl", "libical", "libmicrohttpd", "libsqlite3", "libargon2", "libpq", "libssl"):
        assert lib in fields, (lib, fields)
    root = tmp_path / "root"
    p = run(["dpkg-deb", "-x", deb, root])
    assert p.returncode == 0, p.stdout
    check_installed(root, "/usr", tmp_path)
