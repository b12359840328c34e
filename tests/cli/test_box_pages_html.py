"""The box's pages as a browser's parser reads them: every page the renderer makes
for the starter manifests (tests/support/box_pages_dump, hostile answers and all)
parsed with Python's html.parser — elements nest and close, ids are unique, every
control has a label bound to it, every reference names an element that exists,
nothing the CSP forbids is inline, and a form posts what the server expects.

The dumper is built by `make cli` beside the binary (MECHA_BIN's directory)."""
import html.parser
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("MECHA_BIN", str(ROOT / "build" / "test" / "mecha")))
DUMP = BIN.parent / "tests" / "box_pages_dump"

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
LABELABLE = {"input", "select", "textarea"}


class Page(html.parser.HTMLParser):
    """One document: its elements with their attributes and parents, and every
    nesting mistake met on the way."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements = []  # (tag, attrs, ancestors)
        self.stack = []
        self.problems = []
        self.text = {}  # id(element) -> its text
        self.doctype = None
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"never closed: {[t for t, _ in self.stack]}")

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        names = [a for a, _ in attrs]
        if len(names) != len(set(names)):
            self.problems.append(f"<{tag}> repeats an attribute: {names}")
        element = (tag, dict(attrs), [t for t, _ in self.stack])
        self.elements.append(element)
        if tag not in VOID:
            self.stack.append((tag, element))

    def handle_startendtag(self, tag, attrs):
        self.problems.append(f"<{tag}/>: self-closing syntax")
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problems.append(f"</{tag}> closes a void element")
        elif not self.stack or self.stack[-1][0] != tag:
            self.problems.append(f"</{tag}> while {[t for t, _ in self.stack]} is open")
        else:
            self.stack.pop()

    def handle_data(self, data):
        for _, element in self.stack:
            self.text[id(element)] = self.text.get(id(element), "") + data

    def all(self, tag=None, **attrs):
        return [e for e in self.elements if (tag is None or e[0] == tag)
                and all(e[1].get(k) == v for k, v in attrs.items())]

    def text_of(self, element):
        return " ".join(self.text.get(id(element), "").split())


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    assert DUMP.exists(), f"{DUMP} is missing: `make cli` builds it"
    out = tmp_path_factory.mktemp("pages")
    subprocess.run([str(DUMP), str(ROOT / "tests" / "fixtures" / "types"), str(out / "p")],
                   check=True)
    names = (out / "p" / "index.txt").read_text().split()
    return {n: (out / "p" / n).read_text() for n in names}


def parsed(pages):
    return {name: Page(text) for name, text in pages.items()}


def test_the_dumper_renders_every_page_of_every_starter(pages):
    assert len(pages) >= 50
    for kind in ("form-", "upload-", "check-email-", "confirm-", "confirmed-", "expired-",
                 "booking-week", "booking-manage-", "not-found"):
        assert any(n.startswith(kind) for n in pages), kind


def test_every_page_is_a_well_formed_document_in_a_language(pages):
    for name, page in parsed(pages).items():
        assert page.problems == [], (name, page.problems)
        assert page.doctype == "DOCTYPE html", name
        [root] = page.all("html")
        assert root[1].get("lang") == "en", name
        assert page.all("meta", name="viewport"), name
        assert len(page.all("title")) == 1 and page.text_of(page.all("title")[0]), name
        assert len(page.all("h1")) == 1, name
        assert len(page.all("main")) == 1, name


def test_ids_are_unique_and_every_reference_names_one(pages):
    for name, page in parsed(pages).items():
        ids = [e[1]["id"] for e in page.elements if "id" in e[1]]
        assert len(ids) == len(set(ids)), (name, sorted(i for i in ids if ids.count(i) > 1))
        for tag, attrs, _ in page.elements:
            for ref in ("for", "aria-describedby", "aria-labelledby"):
                for target in (attrs.get(ref) or "").split():
                    assert target in ids, (name, tag, ref, target)
        for tag, attrs, _ in page.all("a"):
            if attrs.get("href", "").startswith("#"):
                assert attrs["href"][1:] in ids, (name, attrs["href"])


def test_every_control_has_a_label_bound_to_it(pages):
    for name, page in parsed(pages).items():
        labelled = {e[1].get("for") for e in page.all("label")}
        for tag, attrs, ancestors in page.elements:
            if tag in LABELABLE and attrs.get("type") not in ("hidden", "submit"):
                assert attrs.get("id") in labelled, (name, tag, attrs)
        for label in page.all("label"):
            target = [e for e in page.elements if e[1].get("id") == label[1].get("for")]
            assert target and target[0][0] in LABELABLE, (name, label[1])
            assert page.text_of(label), (name, label[1])


def test_choices_and_steps_are_groups_with_a_legend(pages):
    for name, page in parsed(pages).items():
        for fieldset in page.all("fieldset"):
            i = page.elements.index(fieldset)
            assert page.elements[i + 1][0] == "legend", (name, fieldset[1])
        for box in page.all("input", type="checkbox"):
            if box[1].get("id", "").startswith("opt"):
                assert "fieldset" in box[2], (name, box[1])


def test_nothing_is_inline_that_the_csp_forbids(pages):
    for name, text in pages.items():
        page = Page(text)
        assert not page.all("style"), name
        for tag, attrs, _ in page.elements:
            assert "style" not in attrs, (name, tag)
            assert not [a for a in attrs if a.startswith("on")], (name, tag, attrs)
            for a in ("href", "src", "action"):
                assert not (attrs.get(a) or "").lower().startswith("javascript:"), (name, tag)
        for tag, attrs, _ in page.all("script"):
            assert attrs.get("src", "").endswith("/form.js"), (name, attrs)
        for script in page.all("script"):
            assert page.text_of(script) == "", name


def test_a_hostile_answer_never_reaches_a_page_as_markup(pages):
    for name, page in parsed(pages).items():
        assert not page.all("b") and not page.all("i"), name
        assert len(page.all("script")) <= 1, name
        for element in page.all("textarea"):
            assert not any(t in ("b", "script") for t in element[2]), name
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in pages["form-meeting-errors.html"]


def test_forms_post_what_the_server_reads(pages):
    for name, page in parsed(pages).items():
        for form in page.all("form"):
            attrs = form[1]
            assert attrs.get("method") == "post", name
            files = [e for e in page.all("input", type="file")]
            if name.startswith("upload-"):
                assert attrs.get("enctype") == "multipart/form-data", name
                assert "action" not in attrs, name  # back to its own token address
            else:
                assert "enctype" not in attrs, name
                assert not files, name
            if name.startswith("form-"):
                assert attrs.get("action", "").startswith("/f/alice/"), name


def test_with_scripts_off_a_conditional_field_can_be_left_blank(pages):
    page = Page(pages["form-meeting.html"])
    [detail] = page.all("textarea", id="f-other_detail")
    assert "required" not in detail[1] and detail[1].get("data-required") == "true"
    [note] = page.all("p", id="when-other_detail")
    assert page.text_of(note) == "Answer only if \u201cWhat is it about\u201d is \u201cSomething else\u201d."
    # fields that always apply keep the browser's own check
    [name] = page.all("input", id="f-requester_name")
    assert "required" in name[1]


def test_the_week_page_posts_a_slot_the_server_can_match(pages):
    page = Page(pages["booking-week.html"])
    slots = [e[1] for e in page.all("input", name="_slot")]
    assert slots, "no slots on the week page"
    for slot in slots:
        assert slot["type"] == "radio" and "required" in slot
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z\|\d+", slot["value"]), slot["value"]
    [form] = page.all("form")
    assert form[1]["action"] == "/s/alice/book"
    links = [e[1]["href"] for e in page.all("a")]
    assert "/s/alice/book?week=2026-03-09&mins=30" in links, links
