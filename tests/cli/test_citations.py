"""Every document the code cites is one a newcomer can open (issue 26): a comment, a help
text or a test that names a file names one the repository has, and a section of
docs/protocol/ that it cites ("docs/protocol/box-api.md §6.1") is a heading there. The
specifications this project was written from live outside the repository, so a citation of
one (spec/…, seeds/…) sends a reader nowhere and fails here. So does a line that leans on "the
reference" or "the seed(s)" — something a reader cannot open — without a docs/protocol/ citation
on that line or the one before."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
WHERE = ("src", "tests", "fuzz", "scripts", "bench", ".ci", "Makefile", "docs")
# Placeholders in usage lines, not citations.
EXAMPLES = {"tests/cli/test_x.py"}
SOURCE = {".c", ".h", ".py", ".sh", ".mjs", ".js", ".toml", ""}
CITED = re.compile(r"(?<![\w./-])((?:docs|spec|seeds|src|tests|scripts|bench|fuzz)/"
                   r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.(?:md|1|c|h|py|sh|mjs|toml|service|timer))(?![\w-])"
                   r"(?:`?,? (§[0-9]+(?:\.[0-9]+)?))?")


# "The reference" or "the seed(s)" as something to read (the seed's tests, as the reference does).
HEARSAY = re.compile(r"\bthe (?:reference|seed)s?\b", re.I)


def sources():
    for top in WHERE:
        path = ROOT / top
        files = [path] if path.is_file() else path.rglob("*")
        for f in files:
            if (not f.is_file() or "node_modules" in f.parts or f.name.startswith(".")
                    or f.name == "test_citations.py"):
                continue
            if top == "docs" and f.suffix not in {".md", ".1", ".sh", ".service", ".timer"}:
                continue
            if top != "docs" and f.suffix not in SOURCE and f.name != "run":
                continue
            yield f


def citations():
    for f in sources():
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in CITED.finditer(line):
                yield f.relative_to(ROOT), n, m.group(1), m.group(2)


def sections(doc):
    return set(re.findall(r"^#+ (§[0-9]+(?:\.[0-9]+)?) ", (ROOT / doc).read_text(), re.M))


def test_every_cited_file_is_in_the_repository():
    missing = [f"{f}:{n}: {doc}" for f, n, doc, _ in citations()
               if not (ROOT / doc).exists() and not doc.startswith("tests/fixtures/")
               and doc not in EXAMPLES]
    assert not missing, "cited but not in the repository:\n" + "\n".join(missing)


def test_every_cited_protocol_section_is_a_heading_there():
    wrong = [f"{f}:{n}: {doc} {sec}" for f, n, doc, sec in citations()
             if sec and doc.startswith("docs/protocol/") and (ROOT / doc).exists()
             and sec not in sections(doc)]
    assert not wrong, "cited sections that are not headings:\n" + "\n".join(wrong)


def test_the_check_fails_on_a_citation_of_a_file_outside(tmp_path):
    """The pattern finds what it must, so the two tests above can fail."""
    line = "/* as spec/box.md §2 says, and docs/protocol/box-api.md §6.1 */"
    found = [(m.group(1), m.group(2)) for m in CITED.finditer(line)]
    assert found == [("spec/box.md", "§2"), ("docs/protocol/box-api.md", "§6.1")]
    assert not (ROOT / "spec/box.md").exists()


def hearsay(lines):
    """The numbers of the lines that say "the reference" or "the seed(s)" with no docs/protocol/
    citation on them or on the line before."""
    return [n for n, line in enumerate(lines, 1)
            if HEARSAY.search(line) and "docs/protocol/" not in line
            and (n == 1 or "docs/protocol/" not in lines[n - 2])]


def test_no_line_leans_on_the_reference_without_a_protocol_section():
    """Every file the citation check reads, except docs/protocol/: its README says what "the
    reference" is, and each page there states the rule in full, under its own section (the
    differences under "Deliberate differences"). A comment or a page elsewhere that means the
    compatible Rust tools cites the section, or names mecha-factory, or just says the rule. The
    phrase has no innocent use the check must allow: a reference count is "takes ownership" or "its
    reference count", a fuzz seed is a corpus file."""
    found = []
    for f in sources():
        rel = f.relative_to(ROOT)
        if rel.parts[:2] == ("docs", "protocol"):
            continue
        try:
            lines = f.read_text().splitlines()
        except UnicodeDecodeError:
            continue
        found += [f"{rel}:{n}: {lines[n - 1].strip()}" for n in hearsay(lines)]
    assert not found, ('"the reference" or "the seed" with no docs/protocol/ section cited:\n'
                       + "\n".join(found))


def test_the_hearsay_check_fails_on_an_uncited_reference():
    """The rule finds what it must, so the test above can fail, and lets a citation through."""
    lines = ["/* as the reference does */",
             "# the seeds' tests",
             "/* The Reference's texts (docs/protocol/files.md §6) */",
             "/* docs/protocol/box-api.md §9:",
             " * as the reference pairs */",
             "/* steals the reference to x */",
             "def test_the_reference_home_pairs(): ..."]
    assert hearsay(lines) == [1, 2, 6]
