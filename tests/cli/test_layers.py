"""`make layers`: the include arrows of docs/architecture.md hold, and a planted upward
include is caught (in a copy of the tree, never in the real one)."""
import pathlib
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def copy_tree(tmp):
    dst = tmp / "tree"
    shutil.copytree(ROOT / "src", dst / "src")
    shutil.copytree(ROOT / "scripts", dst / "scripts")
    return dst


def layers(tree):
    return subprocess.run(["sh", str(tree / "scripts" / "layers.sh"), str(tree)],
                          capture_output=True, text=True)


def plant(tree, rel, include):
    path = tree / "src" / rel
    lines = path.read_text().split("\n")
    # After the file's own include, so the line number is known: 2 past the banner's end.
    at = next(i for i, l in enumerate(lines) if l.startswith("#include")) + 1
    lines.insert(at, f'#include "{include}"')
    path.write_text("\n".join(lines))
    return at + 1


def test_the_tree_follows_the_arrows(tmp_path):
    p = layers(copy_tree(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_planted_upward_include_fails_naming_the_file_and_line(tmp_path):
    tree = copy_tree(tmp_path)
    line = plant(tree, "base/buf.c", "frontdoor/store.h")
    p = layers(tree)
    assert p.returncode == 1
    assert f"src/base/buf.c:{line}: base must not include frontdoor/" in p.stdout


def test_the_outbox_never_includes_the_front_door(tmp_path):
    tree = copy_tree(tmp_path)
    plant(tree, "outbox/release.c", "frontdoor/record.h")
    p = layers(tree)
    assert p.returncode == 1 and "outbox must not include frontdoor/" in p.stdout


def test_nothing_outside_the_cli_includes_a_cli_header(tmp_path):
    tree = copy_tree(tmp_path)
    plant(tree, "mcp/tools.c", "cli/cli.h")
    p = layers(tree)
    assert p.returncode == 1 and "mcp must not include cli/" in p.stdout


def test_mission_reaches_neither_the_front_door_nor_the_outbox(tmp_path):
    tree = copy_tree(tmp_path)
    plant(tree, "mission/board.c", "outbox/store.h")
    p = layers(tree)
    assert p.returncode == 1 and "mission must not include outbox/" in p.stdout


def test_a_module_the_design_does_not_name_is_reported(tmp_path):
    tree = copy_tree(tmp_path)
    (tree / "src" / "stray").mkdir()
    (tree / "src" / "stray" / "x.c").write_text('#include "base/err.h"\n')
    p = layers(tree)
    assert p.returncode == 1 and "src/stray/" in p.stdout


def test_the_request_record_includes_neither_the_front_door_nor_the_drain(tmp_path):
    tree = copy_tree(tmp_path)
    plant(tree, "requests/store.c", "frontdoor/brief.h")
    plant(tree, "requests/record.c", "drain/intake.h")
    p = layers(tree)
    assert p.returncode == 1
    assert "requests must not include frontdoor/" in p.stdout
    assert "requests must not include drain/" in p.stdout


def test_the_box_never_includes_the_request_record(tmp_path):
    tree = copy_tree(tmp_path)
    plant(tree, "box/api.c", "requests/record.h")
    p = layers(tree)
    assert p.returncode == 1 and "box must not include requests/" in p.stdout
