"""A key wrapped so that its lead itself is cut (``textwrap`` ends a line with ``sk-`` or ``gh``, the next opens with
``proj-…`` or ``p_…``), and a key the run already knew a part of, redacted up to a line's end.

Before, a lead was joined across a break only when its first three characters stood before it, and a redaction of a
known part stopped where that part stopped: ``sk-\\n[REDACTED]z1Wc5Yn4Pd6Hs\\n0Jf2Gq9Ue3Ko7Xw`` was written with 28 of
the key's 48 characters in clear (a part of it learned from an earlier event wrapped at another width)."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.wrapped import wrapped_keys

from .test_secrets_wrapped_keys import _WORDS, KEYS

# each key's lead: what a reader of the format knows it by (the part a cut may fall in)
_LEADS = {
    "openai project": "sk-proj-",
    "openai legacy": "sk-",
    "anthropic": "sk-ant-",
    "aws": "AKIA",
    "aws session": "ASIA",
    "github": "ghp_",
    "github fine-grained": "github_pat_",
    "google": "AIza",
    "google oauth": "ya29.",
    "slack": "xoxb-",
    "stripe": "sk_live_",
    "jwt": "eyJ",
    "hugging face": "hf_",
    "gitlab": "glpat-",
    "npm": "npm_",
    "digitalocean": "dop_v1_",
    "groq": "gsk_",
    "private key body": "MIIEvQIBADAN",
}
_BREAKS = ["\n", "\r\n", "\\n", "\\r\\n"]


def _screened(text: str) -> str:
    out = RunSecrets("").screen({"stream": "stdout", "text": text})["text"]
    assert isinstance(out, str)
    return out


def _kept(key: str, out: str) -> list[str]:
    """The key's stretches of 6 characters a reader finds in ``out`` (breaks and indentation taken out)."""
    flat = "".join(out.replace("\\r", "").replace("\\n", "").split())
    return [key[i : i + 6] for i in range(len(key) - 5) if key[i : i + 6] in flat]


@pytest.mark.parametrize("name", list(KEYS))
def test_a_key_whose_lead_is_cut_at_any_character_is_redacted_whole(name: str) -> None:
    """``gh`` / ``p_…``, ``AI`` / ``za…``, ``s`` / ``k-proj-…``: each cut of the lead, with a real or escaped break and
    indentation, in text and in JSON text. Before, a cut after the lead's first or second character kept the key."""
    key, lead = KEYS[name], _LEADS[name]
    assert key.startswith(lead)
    for cut in range(1, len(lead)):
        for brk in _BREAKS:
            for indent in ("", "    "):
                text = f"Your new key is {key[:cut]}{brk}{indent}{key[cut:]} and it is shown once."
                if "\\" not in brk:
                    assert key in wrapped_keys(text), (cut, brk, indent)
                outs = [_screened(text), redact(text)[0], shown(text), _screened(json.dumps({"log": text}))]
                for out in outs:
                    assert _kept(key, out) == [], (cut, brk, indent, out)
                    assert "Your new key is" in out and "shown once." in out


_WIDTHS = range(16, 48)


def test_a_key_a_run_knew_a_part_of_is_redacted_past_the_line_the_part_ends() -> None:
    """The probe's case: one key in a sentence wrapped at each width, each text screened by one run in turn. A part
    of it learned from an earlier text (a random line of it) was redacted in a later one up to its line's end, and
    the lines after it were written in clear."""
    key = "sk-proj-Ab3x9Qm2Lk8Vr7Tz1Wc5Yn4Pd6Hs0Jf2Gq9Ue3Ko7Xw"
    run = RunSecrets("")
    for pad in (1, 2, 3):
        for width in _WIDTHS:
            text = textwrap.fill(f"here is the credential {'x' * pad} {key} please keep it", width=width)
            out = run.screen({"note": "wrapped", "text": text})["text"]
            assert _kept(key, out) == [], (pad, width, out)
            assert "please" in out and "credential" in out


def test_a_line_after_a_redaction_is_taken_only_as_a_folded_keys_would_be() -> None:
    """After a key's lead and a part redacted already, the glued rest and the next full random line are taken; a
    line of words after it, or after a shorter line, is text."""
    text = "token: sk-\n[REDACTED]z1Wc5Yn4Pd6Hs\n0Jf2Gq9Ue3Ko7Xw please keep it\nDone, 3 files changed"
    found = wrapped_keys(text)
    assert "z1Wc5Yn4Pd6Hs0Jf2Gq9Ue3Ko7Xw" in found
    assert not any("please" in f or "Done" in f for f in found)
    assert wrapped_keys("token: sk-\n[REDACTED]\nDone, 3 files changed") <= {"sk-", "sk-\n"}


# words as the lines of prose and code end and open, among them a lead's first characters and a lead's rest
_CUT_WORDS = [*_WORDS] + (
    "s sk gh AI ey x xo e do hf gl sh np SG ya MI k-proj- -proj- p_config p_ za zaSample Iza J yJ oxb- -learn "
    "k_live_ _live_ ithub_pat_ thub_pat_ pat_ hub_ Jhb -proj-Example k-example -the p_hub_cache"
).split()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(_CUT_WORDS), st.sampled_from(["\n", "\\n", "\n    ", " ", "\r\n"])), max_size=60))
def test_generated_lines_cut_where_leads_are_hold_no_wrapped_key(parts: list[tuple[str, str]]) -> None:
    text = "".join(word + sep for word, sep in parts)
    assert wrapped_keys(text) == set()
    assert wrapped_keys(json.dumps({"log": text})) == set()
