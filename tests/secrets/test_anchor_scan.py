"""The prefilter's keyword-anchor scan finds a place where the pattern it was written as finds one, and nowhere else
(issue 16: it runs on every event); it starts no branch at the characters every JSON text holds."""

from __future__ import annotations

import re
import re._parser as sre_parse

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.text import _ANCHORS_HINTS_OR_CHUNKS, _HINT, _KEYWORD_ANCHORS

#: the anchors as first written: each branch at its first character, ``://`` at its colon, ``},{`` at its brace
WRITTEN = re.compile(
    rb"k(?:en|ey|ie|s\.slack|er)|p(?:ass|wd|odman|enssl)|c(?:ret|red|ontras|url|tl(?<=nerdctl))|uth"
    rb"|b(?:earer|(?<=mariadb))|j(?<=eyj)|xox|ql(?<=mysql)|zip|-cli(?<=redis-cli)"
    rb"|://|%[0-9a-f]{2}|\\(?:[ux0-3/]|n\{)|&#"
)
WRITTEN_OR_CHUNKS = re.compile(WRITTEN.pattern + rb"|\},\{")

# pieces of every anchor, whole and cut, and the JSON around them: a text made of them meets each branch's edges
_PIECES = [
    *"uth c ret red ontras url nerdctl p ass wd odman enssl b earer mariadb k en ey ie s.slack er eyj j xox".split(),
    *"mysql ql zip redis-cli -cli :// : / // %2f %7 %zz \\u \\x \\0 \\4 \\/ \\n{ \\n &# & # },{ } , {".split(),
    '"',
    '":',
    " ",
    "a",
    "th",
    "e",
    "x",
    "0",
]
texts = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join) | st.text(max_size=40)


@settings(max_examples=1500, deadline=None)
@given(text=texts)
def test_the_scan_finds_a_place_exactly_where_the_written_pattern_does(text):
    blobs = [text.encode("utf-8", "surrogatepass")]
    if text.isascii():  # and as the screen reads it: an event's payload as JSON, lowered
        blobs.append(orjson.dumps({"step": 1, "text": text}).lower())
    for data in blobs:
        assert (_KEYWORD_ANCHORS.search(data) is None) == (WRITTEN.search(data) is None), data
        written = WRITTEN_OR_CHUNKS.search(data) is None and _HINT.search(data) is None  # (the hints: their own test)
        assert (_ANCHORS_HINTS_OR_CHUNKS.search(data) is None) == written, data


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_the_screen_still_writes_what_the_full_redaction_writes(text):
    payload = {"step": 3, "text": text, "rows": [{"a": text}, {"b": "x"}]}
    screened = RunSecrets().screen(payload, event_id="e1", phase="reason")
    full = RunSecrets().redact(payload)
    assert orjson.dumps(screened, option=orjson.OPT_SORT_KEYS) == orjson.dumps(full, option=orjson.OPT_SORT_KEYS)


def _first_characters(pattern: re.Pattern[bytes]) -> set[str]:
    """The characters the top-level branches of ``pattern`` start with (where the search tries a branch)."""
    (op, (_, branches)), *_ = sre_parse.parse(pattern.pattern)
    assert op is sre_parse.BRANCH
    return {chr(branch[0][1]) for branch in branches if branch[0][0] is sre_parse.LITERAL}


def test_no_branch_starts_at_a_character_every_json_object_holds():
    # a colon after every key, a closing brace at the end of every object: a branch tried at each of them on every event
    starts = _first_characters(_ANCHORS_HINTS_OR_CHUNKS)
    assert starts.isdisjoint({":", "}", '"', ","}), starts
    assert {"u", "c", "p", "b", "k"} <= starts  # (the letters, still the anchors')
