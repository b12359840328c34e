"""`mecha types`: request-type manifests as a person and a script meet them —
every mistake with its file and line, the installed types, one type shown,
its JSON Schema, and a submission validated as the box and the drain do."""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "types"
STARTERS = ["meeting", "letter", "book", "speaking", "lab-application"]


def install(mecha, *names):
    d = mecha.home / "factory" / "types"
    d.mkdir(parents=True, exist_ok=True)
    for n in names:
        shutil.copy(FIXTURES / f"{n}.toml", d / f"{n}.toml")
    return d


def test_the_five_starters_check(mecha):
    p = mecha.run("types", "check", *[FIXTURES / f"{n}.toml" for n in STARTERS], check=0)
    for n in STARTERS:
        assert f"{n}.toml: ok: {n} v" in p.out


def test_every_mistake_in_a_manifest_is_printed_with_its_file_and_line(mecha, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "bad"\nversion = 1\ntitle = "T"\ncolour = "red"\n'
                   '[[fields]]\nname = "note"\nlabel = "Note"\nkind = "text"\n'
                   '[[fields]]\nname = "b"\nlabel = "B"\nkind = "bool"\nmaxlength = 3\n')
    good = FIXTURES / "meeting.toml"
    p = mecha.run("types", "check", good, bad, check=1)
    assert f"{good}: ok: meeting v2, 6 fields" in p.out
    lines = p.err.splitlines()
    assert lines == [
        f"{bad}:4: unknown field `colour`, expected one of `id`, `version`, `title`, "
        "`description`, `retain_days`, `fields`, `steps`, `acknowledgments`, `verification`, "
        "`confirmation`, `kind`, `availability`, `policy`",
        f"{bad}:5: missing field `max_length`",
        f"{bad}:13: field `b` has the key `maxlength`, which a `bool` field does not take "
        "(it accepts: )",
    ]
    doc = json.loads(mecha.run("types", "check", "--json", bad, good, check=1).out)
    assert doc[0]["ok"] is False and [i["line"] for i in doc[0]["issues"]] == [4, 5, 13]
    assert doc[1] == {"file": str(good), "ok": True, "id": "meeting", "version": 2, "issues": []}


def test_a_manifest_that_is_not_toml_names_its_line(mecha, tmp_path):
    bad = tmp_path / "x.toml"
    bad.write_text('id = "x"\nversion = 1\ntitle = "T\n')
    p = mecha.run("types", "check", bad, check=1)
    assert p.err.strip() == f"{bad}:3: unterminated string"


def test_a_missing_file_is_not_found(mecha, tmp_path):
    p = mecha.run("types", "check", tmp_path / "nope.toml", check=1)
    assert "nope.toml" in p.err


def test_the_installed_types_are_listed_and_a_broken_one_says_why(mecha):
    d = install(mecha, "meeting", "book")
    (d / "broken.toml").write_text('id = "broken"\nversion = 1\n')
    p = mecha.run("types", "list", check=0)
    assert p.out.splitlines() == [
        "book  v1  booking  Book a meeting",
        f"broken  (does not load: {d}/broken.toml:1: missing field `title` (and 1 more: "
        f"mecha types check {d}/broken.toml))",
        "meeting  v2  request  Request a meeting",
    ]
    rows = json.loads(mecha.run("types", "list", "--json", check=0).out)
    assert [r["id"] for r in rows] == ["book", "broken", "meeting"]
    assert rows[0] == {"id": "book", "ok": True, "version": 1, "kind": "booking",
                       "title": "Book a meeting", "fields": 4, "servable": True}
    assert rows[1]["ok"] is False and "missing field" in rows[1]["error"]


def test_no_types_installed_is_said_plainly(mecha):
    p = mecha.run("types", "list", check=0)
    assert "no request types installed" in p.out
    assert json.loads(mecha.run("types", "list", "--json", check=0).out) == []


def test_show_names_the_prose_fields_and_the_conditions(mecha):
    install(mecha, "meeting")
    p = mecha.run("types", "show", "meeting", check=0)
    assert "meeting v2 (request): Request a meeting" in p.out
    assert "requester_email  email (at most 254 characters; prose)  required" in p.out
    assert "purpose  select: collaboration, advising, press, other  required" in p.out
    assert 'shown when purpose eq "other"' in p.out
    doc = mecha.json("types", "show", "meeting", "--json")
    assert doc["fields"][1] == {"name": "requester_email", "label": "Your email",
                                "help": "The reply goes here, after you confirm the address.",
                                "kind": "email", "max_length": 254, "required": True}
    assert doc["verification"] == {"field": "requester_email", "expires_hours": 48}


def test_a_type_that_is_not_there_or_cannot_be_an_id_is_not_found(mecha):
    install(mecha, "meeting")
    p = mecha.run("types", "show", "letter", check=1)
    assert "there is no request type `letter`" in p.err
    p = mecha.run("types", "show", "../meeting", "--json", check=1)
    assert json.loads(p.out)["error"] == "not_found"
    assert "may only contain lowercase letters" in p.err


def test_a_type_is_named_after_its_id(mecha):
    d = install(mecha, "meeting")
    (d / "meeting.toml").rename(d / "talk.toml")
    p = mecha.run("types", "show", "talk", check=1)
    assert "the manifest's id is `meeting`, but its file is talk.toml" in p.err
    p = mecha.run("types", "schema", "talk", check=1)
    assert f"{d}/talk.toml:2:" in p.err


def test_schema_is_draft_2020_12_with_the_references_id(mecha):
    install(mecha, "letter")
    p = mecha.run("types", "schema", "letter", check=0)
    s = json.loads(p.out)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == "mecha-factory:request/letter/v3"
    assert s["additionalProperties"] is False
    assert list(s) == sorted(s), "keys in sorted order"
    assert s["properties"]["waiver"]["const"] is True


def submit(mecha, type_id, values, *args, check=None):
    return mecha.run("types", "validate", type_id, *args, input=json.dumps(values), check=check)


def test_a_good_submission_comes_back_coerced_with_its_prose_and_reply_to(mecha):
    install(mecha, "meeting")
    p = submit(mecha, "meeting", {"requester_name": " Ada ", "requester_email": " ada@example.org ",
                                  "purpose": "advising", "duration_minutes": "45"}, check=0)
    assert json.loads(p.out) == {
        "type_id": "meeting", "type_version": 2,
        "values": {"duration_minutes": 45, "purpose": "advising",
                   "requester_email": "ada@example.org", "requester_name": "Ada"},
        "free_text": ["requester_name", "requester_email"],
        "reply_to": "ada@example.org",
    }


def test_every_error_comes_back_sorted_and_the_exit_is_a_refusal(mecha):
    install(mecha, "meeting")
    p = submit(mecha, "meeting", {"requester_email": "nope", "purpose": "lunch", "role": "admin",
                                  "other_detail": "hidden"}, check=3)
    doc = json.loads(p.out)
    assert doc["ok"] is False and doc["error"] == "invalid_submission"
    assert doc["message"] == "5 problems with a `meeting` submission"
    assert doc["errors"] == [
        {"field": "other_detail", "message": "this field was not shown, so it cannot be submitted"},
        {"field": "purpose", "message": "this has to be one of: collaboration, advising, press, other"},
        {"field": "requester_email", "message": "this does not look like an email address"},
        {"field": "requester_name", "message": "this is required"},
        {"field": "role", "message": "this is not a field of this request type"},
    ]


def test_the_submit_phase_refuses_files_and_does_not_require_them(mecha):
    install(mecha, "lab-application")
    values = {"requester_name": "A", "requester_email": "a@b.co", "position": "undergrad",
              "statement": "Why not.", "data_policy": "on"}
    submit(mecha, "lab-application", values, "--phase", "submit", check=0)
    p = submit(mecha, "lab-application", values, check=3)
    assert json.loads(p.out)["errors"] == [{"field": "cv", "message": "this is required"}]
    values["cv"] = "resume.pdf"
    p = submit(mecha, "lab-application", values, "--phase", "submit", check=3)
    assert json.loads(p.out)["errors"] == [
        {"field": "cv", "message": "files are uploaded after your email is verified"}]


def test_validate_refuses_a_bad_phase_and_a_body_that_is_not_json(mecha):
    install(mecha, "meeting")
    p = mecha.run("types", "validate", "meeting", "--phase", "later", input="{}", check=2)
    assert "--phase is submit or complete" in p.err
    p = mecha.run("types", "validate", "meeting", input="{not json", check=1)
    assert json.loads(p.out)["error"] == "parse"


def test_the_group_and_its_verbs_have_help_and_a_man_page_entry(mecha):
    out = mecha.run("help", "types", check=0).out
    for verb in ("check", "list", "show", "schema", "validate"):
        assert verb in out
        assert "usage: mecha types " + verb in mecha.run("types", verb, "--help", check=0).out
    man = (ROOT / "docs" / "mecha.1").read_text()
    for verb in ("check", "list", "show", "schema", "validate"):
        assert f"types {verb}" in man.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
