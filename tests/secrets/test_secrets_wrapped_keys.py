"""A key printed wrapped across lines (folded at a column, cut by ``textwrap``, the break written as a line break or
escaped as ``\\n``, indented after it) is redacted whole wherever text is written or shown: each format at several
columns, and in a live run whose tool (a real subprocess) prints them, through its files, frames, views, OTLP export
and error; text whose lines merely end in long words or start like a key is kept, and a name at a line's end takes no
value from the next line."""

from __future__ import annotations

import asyncio
import json
import random
import re
import string
import sys
import textwrap
import traceback
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.wrapped import wrapped_keys
from tests.callcount import counting_calls
from tests.hardening.secret_corpus import run_files
from tests.hardening.test_secrets import _surfaces

_R = random.Random(2026)
_ALNUM = string.ascii_letters + string.digits


def _r(n: int, alphabet: str = _ALNUM) -> str:
    while True:  # random as a key is: digits and both cases in it
        v = "".join(_R.choice(alphabet) for _ in range(n))
        if alphabet != _ALNUM or (any(c.isdigit() for c in v) and any(c.islower() for c in v) and any(c.isupper() for c in v)):
            return v


_UPPER = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
KEYS = {
    "openai project": "sk-proj-" + _r(74) + "T3BlbkFJ" + _r(74),
    "openai legacy": "sk-" + _r(48),
    "anthropic": "sk-ant-api03-" + _r(93) + "AA",
    "aws": "AKIA" + _r(16, _UPPER),
    "aws session": "ASIA" + _r(16, _UPPER),
    "github": "ghp_" + _r(36),
    "github fine-grained": "github_pat_" + _r(22) + "_" + _r(59),
    "google": "AIza" + _r(35),
    "google oauth": "ya29." + _r(60),
    "slack": "xoxb-" + _r(12, string.digits) + "-" + _r(12, string.digits) + "-" + _r(24),
    "stripe": "sk_live_" + _r(99),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9." + _r(43),
    "hugging face": "hf_" + _r(34),
    "gitlab": "glpat-" + _r(20),
    "npm": "npm_" + _r(36),
    "digitalocean": "dop_v1_" + _r(64, _HEX),
    "groq": "gsk_" + _r(52),
    "private key body": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + _r(300, _ALNUM + "+/") + "==",
}
COLUMNS = (7, 13, 20, 64)
BREAKS = {"newline": "\n", "crlf": "\r\n", "escaped": "\\n", "escaped crlf": "\\r\\n"}


def _folded(key: str, width: int, brk: str, indent: str) -> str:
    return (brk + indent).join(key[i : i + width] for i in range(0, len(key), width))


def _pieces(key: str, width: int) -> list[str]:
    """The pieces a reader could take back (3 characters or more)."""
    return [p for p in (key[i : i + width] for i in range(0, len(key), width)) if len(p) >= 3]


def _screened(text: str) -> str:
    out = RunSecrets("").screen({"stream": "stdout", "text": text})["text"]
    assert isinstance(out, str)
    return out


def _outputs(text: str) -> list[str]:
    """What the screen writes, what ``redact`` and a view show, and the screen of the text sent on as JSON."""
    return [_screened(text), redact(text)[0], shown(text), _screened(json.dumps({"log": text}))]


_CASES = [
    (name, width, brk, indent)
    for name in KEYS
    for width in COLUMNS
    if width < len(KEYS[name])
    for brk in BREAKS
    for indent in ("", "    ")
]


@pytest.mark.parametrize(("name", "width", "brk", "indent"), _CASES, ids=[f"{n}-{w}-{b}-{len(i)}" for n, w, b, i in _CASES])
def test_a_key_folded_at_a_column_is_redacted_whole(name: str, width: int, brk: str, indent: str) -> None:
    """Before, the pieces shorter than a random word (under 20 characters) were written as they were: the lead's
    line (``sk-proj-Ab3x9``), and the short last piece."""
    key, sep = KEYS[name], BREAKS[brk]
    text = f"The tool printed:{sep}{indent}{_folded(key, width, sep, indent)}{sep}Done, 3 files changed."
    for out in _outputs(text):
        assert [p for p in _pieces(key, width) if p in out] == [], out
        assert "The tool printed:" in out and "Done, 3 files changed." in out


@pytest.mark.parametrize("name", KEYS)
@pytest.mark.parametrize("width", [12, 30, 41])
def test_a_key_cut_by_textwrap_is_redacted(name: str, width: int) -> None:
    """``textwrap.fill`` cuts a long word at the width (and after a hyphen): the key's pieces were kept."""
    key = KEYS[name]
    text = textwrap.fill(f"Your new key is {key} and it is shown once.", width=width)
    for out in _outputs(text):
        flat = out.replace("\\n", "\n")
        assert [p for p in _pieces(key, 8) if p in flat.replace("\n", "")] == [], out
        assert "shown once." in flat.replace("\n", " ")


KEPT = [
    "pip install sk-learn\nsklearn_compatible_transformers",
    "    result = self.configuration_manager\n        .initialize_default_providers(timeout)\n",
    "2026-12-05 12:00:01 INFO rotated AKIA_rotation_job\nnext: ASIA_PACIFIC_REGION\ndone",
    "GitHub tokens start ghp_ or github_pat_\nand Google keys AIza; a JWT starts eyJ\nand a key body MII.",
    "headers = build_headers(session_token_provider\n    , retry_policy=ExponentialBackoff2)",
    "sk-proj-\nkeys are project keys; sk-ant-\nkeys are Anthropic's",
    "Docs: ghp_exampleTokenForTheDocs\nContinued on the next line",
    "eyJhbGciOiJIUzI1NiJ9 is the header\nof every example",
    textwrap.fill("Tokens like xoxb-ExampleWorkspaceBot are Slack bot tokens, see SlackApiDocumentation", width=26),
    textwrap.fill("Set OPENAI_API_KEY to a sk-proj- key from the dashboard, not a sk-svcacct-ServiceAccount", width=22),
    "api_key = \nparses the file",
    "api_key =\r\nparses the file",
    "API_TOKEN:\nparses the file",
    "--token\nparses the file",
    "log: secret = \\nparses the file",
    json.dumps({"config": "password =\nparses the file"}),
]


@pytest.mark.parametrize("text", KEPT)
def test_text_holding_no_key_is_kept_whole(text: str) -> None:
    """Lines ending in long names, key leads named in prose, and a name ending its line: nothing is redacted. Before,
    ``api_key = \\nparses the file`` lost ``parses``: a name's value was read across the line break."""
    assert _screened(text) == text
    assert redact(text)[0] == text
    assert shown(text) == text


def test_a_name_whose_value_is_on_its_line_or_indented_below_keeps_it_secret() -> None:
    """A name's value on its line, or on the indented line below a ``name:`` (YAML), is still read."""
    for text, value in [("api_key = Zq9horseLm4x\nnext line", "Zq9horseLm4x"), ("password:\n  Zq9horseLm4x\n", "Zq9horseLm4x")]:
        assert value not in _screened(text) and "[REDACTED]" in _screened(text)


# words of code, logs and prose, some starting as a key does, and long names: lines of them are no key however cut
_WORDS = (
    "the agent read build log and wrote summary of fix ERROR INFO DEBUG WARN Traceback return self result None "
    "sk-learn sk-proj- sk-ant- ghp_config github_pat_ AIzaSample AKIAEXAMPLE ASIA_PACIFIC xoxb- eyJ MII hf_hub "
    "npm_config_cache glpat- SG. ya29. sk_live_ whsec_ configuration_manager initialize_default_providers "
    "HistGradientBoostingClassifier2 ProjectConfigurationManager2024 session_token_provider retry_policy v1.2.3 "
    "2026-12-05T12:00:01Z 0x7ff3a012d840 src/noesis_nb/secrets/text.py:812 --verbose --no-cache"
).split()
_SEPARATORS = [" ", " ", " ", "\n", "\r\n", "\\n", "\n    ", "\\n  ", ", ", "\n\n"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPARATORS)), min_size=1, max_size=60))
@example([("sk-proj-", "\n"), ("0x7ff3a012d840", "\n"), ("0x7ff3a012d840", " ")])  # a line repeated: no key's fold
def test_generated_lines_of_words_hold_no_wrapped_key(parts: list[tuple[str, str]]) -> None:
    text = "".join(word + sep for word, sep in parts)
    assert wrapped_keys(text) == set()
    assert wrapped_keys(json.dumps({"log": text})) == set()


@pytest.mark.parametrize("width", [20, 40, 72])
def test_code_and_logs_wrapped_at_a_column_are_kept(width: int) -> None:
    """Real-looking code and log lines cut at a column (their long names and key-like words split over lines)."""
    rnd = random.Random(width)
    lines = [" ".join(rnd.choice(_WORDS) for _ in range(12)) for _ in range(40)]
    text = "\n".join(textwrap.fill(line, width) for line in lines)
    assert wrapped_keys(text) == set()
    assert _screened(text) == text and redact(text)[0] == text


# -- a live run -------------------------------------------------------------------------------------------------------
_PRINT = (
    "import json, sys, textwrap\n"
    "keys = json.loads(sys.argv[1])\n"
    "for i, key in enumerate(keys):\n"
    "    width = (13, 20, 64)[i % 3]\n"
    "    print('key', i, ':')\n"
    "    print('\\n'.join('  ' + key[j:j + width] for j in range(0, len(key), width)))\n"
    "    print(json.dumps({'key': textwrap.fill(key, 11)}))\n"
)


def _live_run(runs: Path, **options: Any) -> tuple[Path, str]:
    """A run whose tool (a real subprocess) prints every key wrapped; its folder and the error it raised."""
    keys = list(KEYS.values())

    def agent(task: str, ctx: Any) -> str:
        ctx.tool("keys.show", {"argv": [sys.executable, "-c", _PRINT, json.dumps(keys)]}, effect="read", risk="low")
        ctx.emit("model", {"event_name": "model.call", "model": "m", "text": "Here:\n" + textwrap.fill(keys[0], 16)})
        raise RuntimeError("login failed with\n" + _folded(keys[3], 9, "\n", "  "))

    async def cell() -> tuple[Path, str]:
        handle = noesis_nb.start("show the keys", using=agent, runs_dir=runs, approver="auto", **options)
        await handle
        with pytest.raises(RuntimeError) as raised:
            handle.result()
        return handle.run_dir, "".join(traceback.format_exception(raised.value)) + repr(handle.error)

    return asyncio.run(cell())


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return _live_run(tmp_path_factory.mktemp("wrapped") / "runs")


def _stands_alone(piece: str, text: str) -> bool:
    """Whether ``piece`` stands in ``text`` with no letter or digit either side (a fold's last line, a rest glued to a
    redaction): a piece of 3 to 8 characters inside a longer word is chance, as the ``55X`` of a run id is."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(piece)}(?![A-Za-z0-9])", text) is not None


def _leaks(blobs: list[tuple[str, bytes]]) -> list[tuple[str, str]]:
    """Where a key stands whole (its lines joined) or a piece of it: a piece of 9 characters anywhere, its shorter
    last piece where it stands alone. A run's ULIDs are random words of capitals and digits: one held the 3-character
    last piece of the Google key (``ep_01M955X…``, the ids of every run started for 33 s from 08:00:37 UTC on
    2026-12-06), and every file naming the run was taken for a leak."""
    out = []
    for where, blob in blobs:
        text = blob.decode("utf-8", "replace").replace("\\n", "\n")
        flat = "".join(text.split())  # the pieces joined as they would be read back
        for name, key in KEYS.items():
            pieces = _pieces(key, 9)
            if any(p in text if len(p) == 9 else _stands_alone(p, text) for p in pieces) or key in flat:
                out.append((name, where))
    return out


def _blobs(run_dir: Path, error: str, spans: Path) -> list[tuple[str, bytes]]:
    """Every file of the run, its views, its frames, its OTLP export and the error it raised."""
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs += [("events_df", noesis_nb.events_df(run_dir.parent).to_json().encode())]
    blobs += [("tools_df", noesis_nb.tools_df(run_dir.parent).to_json().encode())]
    noesis_nb.export_otel(run_dir, path=spans)
    return blobs + [("otlp", spans.read_bytes()), ("error", error.encode())]


def test_a_live_run_writes_and_shows_no_wrapped_key(live: tuple[Path, str], tmp_path: Path) -> None:
    """A real subprocess prints every key folded at 13, 20 and 64 columns with indentation, and wrapped at 11 inside a
    JSON line; the model's text wraps one and the adapter's error another: no piece is in any file of the run, its
    views, its frames, its OTLP export or the error raised."""
    run_dir, error = live
    assert any(b"key 17 :" in blob for _, blob in run_files(run_dir))  # the tool ran and its output was written
    assert _leaks(_blobs(run_dir, error, tmp_path / "spans.json")) == []
    assert "login failed with" in error


def test_a_run_whose_id_holds_a_keys_short_piece_leaks_nothing(tmp_path: Path) -> None:
    """The run above, its id a ULID holding the Google key's last 3 characters (``55X``), as every id made for 33 s from
    08:00:37 UTC on 2026-12-06 did: nothing leaks, and that piece on a line of its own still is a leak. Before, the
    id was taken for the piece in every file naming the run (CI failed so) though no file showed the key."""
    tail = _pieces(KEYS["google"], 9)[-1]
    episode_id = f"ep_01M9{tail}0A3QF7RZK2WNB8DTYHV"
    assert len(tail) < 9 and re.fullmatch(r"ep_[0-7][0-9A-HJKMNP-TV-Z]{25}", episode_id)  # a ULID's shape
    run_dir, error = _live_run(tmp_path / "runs", episode_id=episode_id)
    blobs = _blobs(run_dir, error, tmp_path / "spans.json")
    assert sum(episode_id.encode() in blob for _, blob in blobs) >= 10  # the id names the run in its files and views
    assert _leaks(blobs) == []
    missed = json.dumps({"log": f"[REDACTED]\n  {tail}\nDone"}).encode()  # a fold's last line a screen missed
    assert _leaks([("missed", missed)]) == [("google", "missed")]


def test_a_line_opening_with_another_keys_lead_is_not_the_rest_of_the_key_above() -> None:
    """``sk-proj-`` alone on its line and ``AIzaSample`` on the next two: the lines below open with a Google key's lead,
    so they are no continuation of an OpenAI key (a generated-text test found this join)."""
    from noesis_nb.secrets.wrapped import wrapped_keys

    assert wrapped_keys("sk-proj-\nAIzaSample\nAIzaSample ") == set()


def test_a_line_shorter_than_a_line_above_it_ends_a_wrapped_key() -> None:
    """``ya29.`` alone on its line, an address on the next, then ``the`` indented and ``the``: the third line is
    shorter than the second, so a key would have ended there. Joined, the four made a 20-character OAuth body (the
    generated-text test found it); the key itself with its lead alone on the first line is still found whole."""
    assert wrapped_keys("ya29.\n0x7ff3a012d840\n    the\nthe ") == set()
    key = KEYS["google oauth"]
    text = "token:\nya29.\n    " + _folded(key[5:], 20, "\n", "    ") + "\nnext"
    assert key in wrapped_keys(text)
    assert [p for p in _pieces(key[5:], 20) if p in _screened(text)] == []


def _calls(text: str) -> int:
    """The calls ``wrapped_keys(text)`` makes (counted, not timed: a busy machine slows every call alike)."""
    with counting_calls() as made:
        wrapped_keys(text)
    return made[0]


@pytest.mark.parametrize("escaped", [False, True])
def test_lines_each_starting_like_a_key_cost_calls_linear_in_their_number(escaped: bool) -> None:
    """``sk-abcdefghij`` on each of 250 and 1,000 lines (as text, and in JSON): each line starts a read of the lines
    below, which stops at the first that no format reads on into (here the next: ``sk-abcdefghij`` reads as a word).
    4x the lines make at most 5x the calls; before, each read went on to 8,400 characters (13.6x)."""
    small, large = ("sk-abcdefghij\n" * n for n in (250, 1000))
    if escaped:
        small, large = json.dumps({"log": small}), json.dumps({"log": large})
    assert _calls(large) < 5 * _calls(small)
