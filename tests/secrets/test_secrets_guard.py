"""Per-run scrubbing (RunSecrets) and giving redacted values back (tools.secret_supply)."""

from __future__ import annotations

import json
import random

import orjson
import pytest

from noesis_nb.secrets import REDACTED_VALUE, RunSecrets, for_run
from noesis_nb.tools.errors import SecretUnavailableError
from noesis_nb.tools.secret_supply import fill_secrets, secret_env_name


def test_screen_copies_redacts_and_remembers():
    guard = RunSecrets()
    payload = {"headers": {"Authorization": "Bearer Zq8vLw3nT5rXk2yP9mB7cJ4h"}, "n": 3}
    out = guard.screen(payload)
    assert out["headers"]["Authorization"] == REDACTED_VALUE and out["n"] == 3  # a secret-named value goes whole
    assert payload["headers"]["Authorization"].endswith("J4h")  # the caller's dict is left alone
    later = guard.screen({"text": "retrying with Zq8vLw3nT5rXk2yP9mB7cJ4h"})  # no context any more: known value
    assert later == {"text": f"retrying with {REDACTED_VALUE}"}
    clean = {"text": "nothing to see"}
    assert guard.screen(clean) == clean and guard.screen(clean) is not clean


@pytest.mark.parametrize("secret", ['pa"ss\\word-9Xq!', "naïve-pässwörd-42", "line1\nline2-secret-X9"])
def test_values_needing_json_escapes_are_found_in_serialised_events(secret):
    guard = RunSecrets()
    guard.screen({"password": secret})
    out = guard.screen({"echo": f"said {secret} twice {secret}"})
    assert secret not in json.dumps(out, ensure_ascii=False) and out["echo"].count(REDACTED_VALUE) == 2


def test_short_values_are_redacted_where_found_but_not_hunted_elsewhere():
    guard = RunSecrets()
    assert guard.screen({"password": "abc12"}) == {"password": REDACTED_VALUE}
    assert guard.screen({"text": "abc12 is also a part number"})["text"].startswith("abc12")


def test_unserialisable_payloads_are_screened_in_their_json_form():
    guard = RunSecrets()
    out = guard.screen({"n": 2**70, "token": "Xq9vLw3nT5rXk2yP"})
    assert "Xq9vLw3nT5rXk2yP" not in orjson.dumps(out).decode()


def test_one_guard_per_run_directory(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "run")
    assert for_run(tmp_path / "run") is for_run(tmp_path / "alias") is for_run(str(tmp_path / "run"))
    assert for_run(tmp_path / "other") is not for_run(tmp_path / "run")


def test_sweep_rewrites_only_the_lines_and_files_holding_a_late_value(tmp_path):
    guard = for_run(tmp_path)
    guard.screen({"text": "warming up"})  # something was written before the value was learned
    lines = [orjson.dumps({"i": i, "text": "the word is swordfish-77" if i == 1 else "ok"}) + b"\n" for i in range(3)]
    (tmp_path / "events.jsonl").write_bytes(b"".join(lines))
    (tmp_path / "notes.json").write_text(json.dumps({"note": "swordfish-77"}))
    (tmp_path / "other.json").write_text(json.dumps({"note": "nothing"}))
    before = (tmp_path / "other.json").read_bytes()
    guard.screen({"password": "swordfish-77"})
    assert guard.late
    changed = guard.sweep(tmp_path)
    assert sorted(p.name for p in changed) == ["events.jsonl", "notes.json"]
    data = (tmp_path / "events.jsonl").read_bytes().splitlines(keepends=True)
    assert data[0] == lines[0] and data[2] == lines[2] and b"swordfish" not in data[1]
    assert (tmp_path / "other.json").read_bytes() == before and not guard.late


def test_fill_secrets_takes_the_secret_the_whole_value_or_one_per_marker(monkeypatch):
    stored = {
        "kwargs": {"auth": REDACTED_VALUE},
        "argv": ["x", f"--token={REDACTED_VALUE}", f"{REDACTED_VALUE}:{REDACTED_VALUE}"],
    }
    filled, given, missing = fill_secrets(stored, {"kwargs.auth": ["user", "pw"], "argv.1": "tok-1", "argv.2": ["a", "b"]})
    assert filled == {"kwargs": {"auth": ["user", "pw"]}, "argv": ["x", "--token=tok-1", "a:b"]} and missing == []
    filled, _, _ = fill_secrets(stored, {"argv.1": "--token=tok-2", "kwargs.auth": "k", "argv.2": "c:d"})
    assert filled["argv"][1:] == ["--token=tok-2", "c:d"]
    monkeypatch.setenv(secret_env_name("kwargs.auth"), "from-env")
    filled, given, missing = fill_secrets(stored, {})
    assert filled["kwargs"]["auth"] == "from-env" and missing == ["argv.1", "argv.2"]
    with pytest.raises(SecretUnavailableError, match="argv.2"):
        fill_secrets(stored, {"argv.2": ["only-one"]})
    assert stored["kwargs"]["auth"] == REDACTED_VALUE  # the stored payload itself is never changed


def test_a_secret_used_as_a_key_is_redacted_remembered_and_no_value_is_lost():
    from noesis_nb.tools.redaction import build_payload_evidence

    token, other = "ghp_" + "Zq8vLw3nT5rXk2yP9mB7cJ4hGf6Ds1Aq0Wx3", "ghp_" + "Mn4bV7cX1zL9kJ3hG5fD8sA2pO6iU0yT4rE7"
    guard = RunSecrets()
    out = guard.screen({"by_owner": {token: 1, other: 2, REDACTED_VALUE: 3}})
    assert out == {"by_owner": {REDACTED_VALUE: 1, f"{REDACTED_VALUE} #2": 2, f"{REDACTED_VALUE} #3": 3}}
    assert token in guard.values  # hunted in every later line
    assert guard.scrub({"notes": {f"{token}-old": "a", f"{REDACTED_VALUE}-old": "b"}}) == {
        "notes": {f"{REDACTED_VALUE}-old": "a", f"{REDACTED_VALUE}-old #2": "b"}
    }
    third = "ghp_" + "Qw2eR4tY6uI8oP0aS2dF4gH6jK8lZ0xC2vB4"
    evidence = build_payload_evidence({"kwargs": {"table": {third: 1}}}, secrets=guard)
    assert evidence.normalized_payload == {"kwargs": {"table": {REDACTED_VALUE: 1}}} and third in guard.values


@pytest.mark.parametrize("where", ["list", "chunks"])
def test_sweep_finds_a_late_value_split_in_a_pretty_printed_document(tmp_path, where):
    """A run's JSON documents are written indented: the strings of a list are on lines of their own there."""
    from noesis_nb._jsonio import atomic_write_json
    from tests.hardening.secret_corpus import corpus, leaks

    shapes = corpus(random.SystemRandom().randrange(2**32))
    for shape in shapes:
        cut = len(shape.value) // 2
        head, tail = f"using {shape.value[:cut]}", f"{shape.value[cut:]} now"
        parts = {"list": {"parts": [head, tail]}, "chunks": {"stream": [{"text": head}, {"text": tail}]}}[where]
        path = tmp_path / f"{shape.name}.json"
        atomic_write_json(path, {"summary": "done", **parts})  # written before the value is known
        guard = RunSecrets()
        guard.learn([shape.value])
        assert guard.sweep(tmp_path) == [path]
        assert leaks([shape], [(path.name, path.read_bytes())]) == []
        assert json.loads(path.read_text())["summary"] == "done"
        path.unlink()


def test_a_known_value_split_after_its_first_half_is_scrubbed_in_both_pieces():
    """The first piece ends with 8+ characters of the value (scrubbed alone as a cut-off start): the second
    piece still holds the rest, found only in the pieces as given."""
    from tests.hardening.secret_corpus import corpus, leaks

    for shape in corpus(random.SystemRandom().randrange(2**32)):
        cut = len(shape.value) // 2
        guard = RunSecrets()
        guard.learn([shape.value])
        for pieces in (
            [f"using {shape.value[:cut]}", f"{shape.value[cut:]} now"],
            [{"text": shape.value[:cut]}, {"text": shape.value[cut:]}],
        ):
            written = orjson.dumps(guard.scrub(pieces))
            assert leaks([shape], [(shape.name, written)]) == [], written


def test_a_known_value_whose_part_a_detector_finds_is_redacted_whole():
    """``<16 characters>.<a random word>``: the detectors find the word after the dot, the guard knows the whole."""
    rng = random.SystemRandom()
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    for _ in range(20):
        head = "".join(rng.choice(alnum) for _ in range(16))
        value = f"{head}.{''.join(rng.choice(alnum) for _ in range(24))}"
        guard = RunSecrets()
        guard.learn([value])
        written = orjson.dumps(guard.screen({"error": {"message": f"auth failed for {value}"}}))
        assert head.encode() not in written and head[8:].encode() not in written, written
