"""config.toml as every verb reads it: defaults without a file, strict
errors naming the file and the line, and the environment over the file."""
from conftest import write_config


def test_without_a_config_file_every_verb_runs_on_defaults(mecha):
    mecha.run("outbox", "list", check=0)


def test_an_unknown_key_is_refused_naming_the_file_and_line(mecha):
    path = write_config(mecha, '[mail]\nfrom = "me@example.org"\nport = 25\n')
    p = mecha.run("outbox", "list", check=1)
    assert f"{path}:3: unknown key 'port' in [mail]" in p.err


def test_a_wrong_value_or_table_is_refused_by_name_and_line(mecha):
    cases = {
        '[providers.a]\nkind = "openai"\n\ntimeout_s = 2.5\n': ":4: timeout_s must be an integer, not a float",
        "[server]\n": ":1: unknown table [server]",
        '[outbox]\ntools = "mail_send"\n': ":2: tools must be an array of strings",
        '[mail]\nfrom = "never closed\n': ":2: unterminated string",
        "[[providers]]\n": ":1: arrays of tables",
        '[mail]\nfrom = "a"\nfrom = "b"\n': ":3: from is set twice",
    }
    for text, want in cases.items():
        write_config(mecha, text)
        p = mecha.run("outbox", "list", check=1)
        assert want in p.err, (text, p.err)


def test_an_escape_sequence_in_a_broken_config_is_shown_visibly(mecha):
    write_config(mecha, '[mail]\n"\\u001b[2J" = 1\n')
    p = mecha.run("outbox", "list", check=1)
    assert "\x1b" not in p.err and "\\e[2J" in p.err


def test_a_default_provider_must_exist_unless_it_is_the_rules_extractor(mecha):
    write_config(mecha, 'default_provider = "local"\n')
    p = mecha.run("outbox", "list", check=1)
    assert "[providers.local]" in p.err
    mecha.run("outbox", "list", env={"MECHA_PROVIDER": "rules"}, check=0)
