"""A key's end is where its format ends: the screen redacts a whole key and nothing after it, neither the word that
follows it on its line nor the next line's first word; words that only start like a key (``sk-learn``) or a prefix
named alone (``prefix: sk-``) are kept with the line after them; and lines each starting like a key cost the screen
calls linear in their number."""

from __future__ import annotations

import json
import random
import string
import textwrap

import pytest

from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.guard import RunSecrets
from tests.callcount import counting_calls

_R = random.Random(7)
_ALNUM = string.ascii_letters + string.digits


def _mixed(n: int) -> str:
    while True:
        v = "".join(_R.choice(_ALNUM) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.islower() for c in v) and any(c.isupper() for c in v):
            return v


_KEYS = [
    "ghp_" + _mixed(36),
    "AKIA" + "".join(_R.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
    "sk-proj-" + _mixed(48) + "_" + _mixed(60),
    "sk_live_" + _mixed(24),
    "hf_" + _mixed(34),
    "glpat-" + _mixed(20),
    "AIza" + _mixed(35),
]


def _screened(text: str) -> str:
    out = RunSecrets("").screen({"text": text})["text"]
    assert isinstance(out, str)
    return out


@pytest.mark.parametrize("key", _KEYS, ids=lambda k: k[:5])
@pytest.mark.parametrize(
    ("tail", "word"),
    [
        ("\nContinued on the next line", "Continued"),
        ("\n  indented second line", "indented"),
        ("\r\nTraceback (most recent call last)", "Traceback"),
        (" RequestFailed was logged", "RequestFailed"),
        (" HTTPError404 was logged", "HTTPError404"),
    ],
)
def test_a_whole_key_is_redacted_and_the_word_after_it_kept(key, tail, word):
    """Before, the screen read a key on across the line break or space (while the next word looked like a piece of
    it) and redacted ``token <key>\\nContinued on…`` as ``token [REDACTED] on…``."""
    for text in (f"token {key}{tail}", json.dumps({"log": f"token {key}{tail}"})):
        out = _screened(text)
        assert key not in out, out
        assert word in out, (text, out)


@pytest.mark.parametrize(
    "text",
    [
        "pip install sk-learn\nsklearn_compatible_transformers",
        "Configure the agent:\n  prefix: sk-\n  ProjectConfigurationManager2024: true",
        textwrap.fill("SALES REPORT FOR ASIA PACIFIC2024 REGIONAL HEADQUARTERS", width=20),
        textwrap.fill("Vault tokens begin with hvs. and the CAS token type HashiCorpVaultServiceToken", width=28),
        textwrap.fill("we saw sk-learn estimators, e.g. GradientBoostingClassifier2 and HistGradientBoosting", width=24),
    ],
)
def test_text_holding_no_key_is_kept_whole(text):
    """Before, ``pip install sk-learn\\nsklearn_compatible_transformers`` read ``pip install [REDACTED]``."""
    assert _screened(text) == text
    assert redact(text)[0] == text
    assert shown(text) == text


def _screen_calls(text: str) -> int:
    """The calls screening ``text`` makes (counted, not timed: a busy machine slows every call alike)."""
    with counting_calls() as made:
        RunSecrets("").screen({"text": text})
    return made[0]


def test_lines_starting_like_a_key_cost_linear_time():
    """Lines each starting ``sk-abcdefghij`` (a short word, no key): 4x the lines makes under 5x the screen's calls
    (13.5x before, each start read on across every following line)."""
    unit = "sk-abcdefghij\n"
    _screen_calls(unit * 10)  # the patterns compiled and the modules imported before counting
    small, large = _screen_calls(unit * 250), _screen_calls(unit * 1000)
    assert large < 5 * small, (small, large)
