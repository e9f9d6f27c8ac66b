"""The rules behind ``test_secrets_shapes_runs``, one by one: short labelled values, pairs under a key and
name/value records, chunk records, UTF-16 text, known values behind invisible characters, and what is kept."""

from __future__ import annotations

import hashlib
import secrets as stdlib_secrets
from pathlib import Path

import orjson
import pytest

from noesis_nb.secrets import find_in_text, for_run, redact, shown
from noesis_nb.secrets.text import payload_might_contain


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password=a+b", "a+b"),
        ("export DB_PASSWORD=q1 && make", "q1"),
        ("url?token=x9&page=2", "x9"),
        ('{"password": "ab"}', "ab"),
        ("password: ab", "ab"),
    ],
)
def test_a_labelled_value_of_any_length_is_redacted(text: str, value: str) -> None:
    assert value not in shown(text) and "[REDACTED]" in shown(text)
    assert value not in orjson.dumps(redact({"text": text})[0]).decode()


@pytest.mark.parametrize(
    "text",
    ["fill in the password field", "password= is empty", "password=", "auth: no", "password: ab and more", "token=***"],
)
def test_prose_and_empty_labels_are_kept(text: str) -> None:
    assert find_in_text(text) == set() and shown(text) == text


def test_pairs_under_a_key_and_name_value_records_are_redacted_but_schemas_and_commands_are_kept() -> None:
    pw = "Pw" + stdlib_secrets.token_hex(8)
    payload = {
        "login": ("password", pw),
        "Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": pw}],
        "Tags": [{"Key": "api_key", "Value": pw}],
        "required": ["password", "email"],
        "argv": ["passwd", "alice"],
    }
    out, _ = redact(payload)
    assert pw not in orjson.dumps(out).decode()
    assert out["required"] == ["password", "email"] and out["argv"] == ["passwd", "alice"]


@pytest.mark.parametrize(
    "record",
    [
        lambda t: {"delta": t},
        lambda t: {"type": "content_block_delta", "delta": {"type": "text_delta", "text": t}},
        lambda t: {"choices": [{"index": 0, "delta": {"content": t}}]},
    ],
)
def test_a_token_streamed_across_chunk_records_is_found_by_the_prefilter_and_redacted(record) -> None:
    key = "sk-proj-" + stdlib_secrets.token_hex(15)  # each piece under 20 characters and no keyword
    payload = {"chunks": [record(key[i : i + 12]) for i in range(0, len(key), 12)]}
    assert payload_might_contain(payload, orjson.dumps(payload))
    out, _ = redact(payload)
    assert not any(key[i : i + 8] in orjson.dumps(out).decode() for i in range(len(key) - 7))


def test_a_chat_message_list_is_not_read_as_one_stream() -> None:
    messages = {"messages": [{"role": "user", "content": "sk-proj-Ab12Cd34"}, {"role": "user", "content": "Ef56Gh78Ij90"}]}
    assert redact(messages)[0] == messages


def test_the_word_after_a_token_in_the_next_chunk_is_kept_but_a_random_tail_is_not() -> None:
    token = "ghp_" + stdlib_secrets.token_hex(18)
    assert redact(["key " + token, "Thanks for waiting"])[0] == ["key [REDACTED]", "Thanks for waiting"]
    out, _ = redact(["key " + token[:-5], token[-5:] + "Zq", " done"])  # a tail of hex digits: part of the token
    assert out[1] == "[REDACTED]" and token not in str(out)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_stored_from_bytes_is_read_without_its_nuls(encoding: str) -> None:
    token = "ghp_" + stdlib_secrets.token_hex(18)
    stored = ("token " + token).encode(encoding).decode("utf-8", "replace")  # as bytes are stored
    assert payload_might_contain({"raw": stored}, orjson.dumps({"raw": stored}))
    for text in (redact({"raw": stored})[0]["raw"], shown(stored)):
        assert token[4:20] not in text.replace("\x00", "")


def test_a_known_value_behind_invisible_characters_is_scrubbed_when_written_shown_and_swept(tmp_path: Path) -> None:
    value = "Hu" + stdlib_secrets.token_hex(5) + "2!"
    hidden = value[:3] + "\u200b" + value[3:7] + "\u00ad" + value[7:]
    guard = for_run(tmp_path)
    guard.learn([value])
    assert "[REDACTED]" in guard.screen({"text": "using " + hidden})["text"]
    assert value not in shown("using " + hidden).replace("\u200b", "").replace("\u00ad", "")
    (tmp_path / "tool.log").write_text("using " + hidden + "\n", encoding="utf-8")
    assert guard.sweep(tmp_path) == [tmp_path / "tool.log"]
    assert "[REDACTED]" in (tmp_path / "tool.log").read_text()


def test_a_labelled_digest_is_kept_and_a_bare_random_hex_word_is_not() -> None:
    digest = hashlib.sha256(stdlib_secrets.token_bytes(8)).hexdigest()
    for label in ("wrote blob ", "tree ", "object ", "oid ", "HEAD ", "etag: ", "sha "):
        assert find_in_text(label + digest) == set(), label
    assert find_in_text("signing with " + digest) == {digest}  # a 64-hex key is written the same way


def test_a_placeholder_under_a_secret_key_is_redacted_there_but_not_hunted_elsewhere(tmp_path: Path) -> None:
    guard = for_run(tmp_path)
    assert guard.screen({"auth": ("password", "Pw" + stdlib_secrets.token_hex(8))}) == {"auth": "[REDACTED]"}
    later = {"text": "fill in the password field", "schema": {"required": ["password", "email"]}}
    assert guard.screen(later) == later


def test_a_known_value_split_across_chunks_is_scrubbed_when_written_and_when_learned_late(tmp_path: Path) -> None:
    value = "Hu" + stdlib_secrets.token_hex(5) + "2!"
    guard = for_run(tmp_path / "run")
    written = {"chunks": ["use ", value[:4], value[4:9], value[9:]], "records": [{"delta": value[:6]}, {"delta": value[6:]}]}
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.jsonl").write_bytes(orjson.dumps(written) + b"\n")
    guard.learn([value])
    out = guard.screen(written)
    assert out["chunks"][0] == "use " and "[REDACTED]" in out["chunks"][1]
    assert all("[REDACTED]" in r["delta"] for r in out["records"])
    assert guard.sweep(tmp_path / "run") == [tmp_path / "run" / "events.jsonl"]  # a line written before it was known
    assert orjson.loads((tmp_path / "run" / "events.jsonl").read_bytes()) == out
