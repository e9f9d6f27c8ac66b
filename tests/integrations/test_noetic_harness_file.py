"""A Noetic HarnessResponse JSON file is read as strictly as the log's lines.

A key written twice in one object is ambiguous (Python and JavaScript keep the last value, other readers the first):
a log line holding one is refused, and the harness response was read with a lenient parser that silently kept the
last one, so ``{"inputTokens": 1200, "inputTokens": 999999999}`` counted the second. Both are now one
``NoeticLogError`` naming the file and the key, and no run is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.frames import usage_df
from noesis_nb.integrations.noetic import NoeticLogError, import_noetic

LOG = [
    {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t"}},
    {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t"}},
]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"usage": {"inputTokens": 1200, "outputTokens": 60, "inputTokens": 999999999}}', "inputTokens"),
        ('{"usage": {"inputTokens": 1}, "cost": 0.003, "cost": 0.0}', "cost"),
        ('{"usage": {"inputTokens": 1}, "text": "a", "items": [{"type": "message", "type": "function_call"}]}', "type"),
    ],
    ids=["nested", "top-level", "inside-an-item"],
)
def test_a_key_written_twice_in_the_harness_file_is_refused_like_in_a_log_line(runs_dir: Path, tmp_path: Path, text, key):
    harness = tmp_path / "harness.json"
    harness.write_text(text)
    with pytest.raises(NoeticLogError) as raised:
        import_noetic(LOG, harness, runs_dir=runs_dir)
    message = str(raised.value)
    assert "harness.json" in message and f"the key '{key}' comes twice" in message, message
    assert not list(runs_dir.iterdir()), "a run was written"

    log = tmp_path / "log.jsonl"  # the same duplication in a log line: the same refusal
    log.write_text('{"source": "sdk", "type": "x", "data": ' + text + "}\n")
    with pytest.raises(NoeticLogError, match=f"the key '{key}' comes twice"):
        import_noetic(log, runs_dir=runs_dir)


def test_a_harness_file_with_a_byte_order_mark_or_nan_still_imports(runs_dir: Path, tmp_path: Path):
    """What the lenient reader took stays readable: a byte order mark; NaN (a JavaScript writer's) is an unknown cost."""
    harness = tmp_path / "harness.json"
    harness.write_bytes(b"\xef\xbb\xbf" + b'{"usage": {"inputTokens": 12, "outputTokens": 3}, "cost": NaN}')
    import_noetic(LOG, harness, runs_dir=runs_dir)
    frame = usage_df(runs_dir, cache=False)
    assert frame["input_tokens"].tolist() == [12] and frame["reported_cost_usd"].isna().all()


@pytest.mark.parametrize(
    ("data", "said"),
    [(b'{"usage": {"inputTokens": 12}', "not JSON"), (b'{"text": "caf\xe9"}', "not UTF-8 text")],
    ids=["cut-short", "latin-1"],
)
def test_an_unreadable_harness_file_is_one_error_naming_it(runs_dir: Path, tmp_path: Path, data: bytes, said: str):
    harness = tmp_path / "harness.json"
    harness.write_bytes(data)
    with pytest.raises(NoeticLogError, match=f"Noetic harness response .*harness.json.*: {said}"):
        import_noetic(LOG, harness, runs_dir=runs_dir)
    assert not list(runs_dir.iterdir())
