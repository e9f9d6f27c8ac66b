"""A Noetic log's last line without a line end: "cut short or still being written" only when it stops inside a value.

JSONL built with ``"\\n".join(lines)``, or saved by an editor without a final newline, ends in a whole line that
has no line end; when that line is wrong (a key written twice, a trailing comma) the log needs fixing, and was
called unfinished instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noesis_nb.integrations.noetic import NoeticLogError, noetic_rows

FIRST = json.dumps({"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1"}})
EVENT = {  # every kind of JSON value a cut can fall in: strings with escapes, numbers, literals, nesting
    "source": "sdk",
    "type": "response.output_text.delta",
    "data": {"delta": 'r\u00e9sum\u00e9 "q" \\ \n \U0001f600', "n": -12.5e-3, "m": [1e10, 0, True, False, None]},
    "outputIndex": 0,
}
LAST = json.dumps(EVENT, ensure_ascii=False)
LAST_ESCAPED = json.dumps(EVENT)  # \u00e9 and a surrogate pair \ud83d\ude00: cuts inside \uXXXX escapes
CUT_SHORT = "it is the last line and has no line end: the log was cut short or is still being written"

WHOLE_BUT_WRONG = {
    "key twice": '{"source": "sdk", "type": "a:turn_completed", "data": {"n": 1, "n": 2}}',
    "extra data": '{"source": "sdk", "type": "a:b", "data": {}} x',
    "trailing comma": '{"source": "sdk", "type": "a:b", "data": {},}',
    "single quotes": "{'source': 'sdk', 'type': 'a:b', 'data': {}}",
    "bad escape": '{"source": "sdk", "type": "a:b", "data": {"t": "\\q"}}',
    "a word": '{"source": "sdk", "type": "a:b", "data": nul}',
    "a number": '{"source": "sdk", "type": "a:b", "data": {"n": 1.}}',
}


def _error(log: object) -> str:
    with pytest.raises(NoeticLogError) as caught:
        list(noetic_rows(log))
    return str(caught.value)


@pytest.mark.parametrize("kind", sorted(WHOLE_BUT_WRONG))
def test_a_whole_but_wrong_last_line_without_a_line_end_is_the_usual_bad_line(tmp_path: Path, kind: str) -> None:
    text = FIRST + "\n" + WHOLE_BUT_WRONG[kind]
    path = tmp_path / "done.jsonl"
    path.write_text(text)
    for log in (text, path, WHOLE_BUT_WRONG[kind]):
        said = _error(log)
        assert "cut short" not in said and "still being written" not in said, said
        assert said.endswith("; fix that line (or import a copy of the log without it)"), said


def test_a_last_line_cut_anywhere_inside_its_value_is_called_cut_short() -> None:
    for last in (LAST, LAST_ESCAPED):
        for end in range(1, len(last)):
            said = _error(FIRST + "\n" + last[:end])
            assert "line 2: not JSON" in said and CUT_SHORT in said, (end, said)


def test_a_file_cut_inside_a_character_is_cut_short_and_a_wrong_byte_is_not(tmp_path: Path) -> None:
    raw = (FIRST + "\n" + LAST).encode("utf-8")
    accent = raw.index("\u00e9".encode())
    path = tmp_path / "stream.jsonl"
    path.write_bytes(raw[: accent + 1])  # the first byte of é: the writer had not finished the character
    said = _error(path)
    assert "not UTF-8 text (unexpected end of data" in said and CUT_SHORT in said, said
    path.write_bytes(raw[:accent] + b"\xff" + raw[accent + 2 :])  # whole, with a byte no UTF-8 text holds
    said = _error(path)
    assert "not UTF-8 text (invalid start byte" in said and CUT_SHORT not in said, said
    assert said.endswith("; save the log as UTF-8"), said


@pytest.mark.parametrize("end", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_a_log_written_with_crlf_or_cr_line_ends_reads_as_with_lf(tmp_path: Path, end: str) -> None:
    """A Windows-written trace (CRLF), or one of a CR-only writer, gives the rows its LF twin gives, from a file or text."""
    second = json.dumps(
        {"source": "framework", "type": "helper:turn_completed", "data": {"text": "a\u2028b"}}, ensure_ascii=False
    )
    lines = [FIRST, LAST, second]
    expected = list(noetic_rows("\n".join(lines) + "\n"))
    assert [p["kind"] for _, p in expected] == ["run_started", "message", "run_finished"]
    path = tmp_path / "windows.jsonl"
    for text in (end.join(lines) + end, end.join(lines)):
        path.write_bytes(text.encode("utf-8"))
        assert list(noetic_rows(path)) == expected
        assert list(noetic_rows(text)) == expected
    # a CRLF whose CR ends one read of the file (64 KiB) and whose LF starts the next is one line end
    padded = " " * ((1 << 16) - 1 - len(FIRST)) + FIRST  # JSON allows the leading blanks
    path.write_bytes((end.join([padded, LAST, second]) + end).encode("utf-8"))
    assert path.read_bytes()[(1 << 16) - 1 : (1 << 16) + 1] == end.encode()[:2].ljust(2, b"{")
    assert list(noetic_rows(path)) == expected
