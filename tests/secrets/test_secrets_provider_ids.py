"""The ids model providers answer with are no secrets, in any text that holds them.

An agent that returned ``response.id`` (``resp_<48 hex>``, ``msg_01XFDUDY…``, ``chatcmpl-B9MB…``) had it taken for a
random key: the run learned it as a secret and redacted it from the captured call's own ``response_id`` too, so
``usage_df`` lost the id that ties a call to the provider's logs. A key put after a name, or a token of a known
format inside such a word, is still hidden.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets.scan import redact

_ALNUM = string.ascii_letters + string.digits
# each provider's own shape: a prefix and how many of which characters follow it
_SHAPES = {
    "resp_": ("0123456789abcdef", 48),  # OpenAI Responses
    "chatcmpl-": (_ALNUM, 29),  # OpenAI Chat Completions
    "call_": (_ALNUM, 24),  # an OpenAI tool call
    "msg_01": (_ALNUM, 22),  # an Anthropic message
    "toolu_01": (_ALNUM, 22),  # an Anthropic tool use
    "req_011C": (_ALNUM, 20),  # an Anthropic request
}


def _ids() -> st.SearchStrategy[str]:
    return st.sampled_from(sorted(_SHAPES)).flatmap(
        lambda prefix: st.text(alphabet=_SHAPES[prefix][0], min_size=_SHAPES[prefix][1], max_size=_SHAPES[prefix][1]).map(
            lambda tail: prefix + tail
        )
    )


@settings(max_examples=300, deadline=None)
@given(_ids(), st.sampled_from(["{id}", "the answer came in {id}.", "response_id={id}", '{{"last": "{id}"}}']))
def test_a_provider_id_in_any_text_is_kept(provider_id: str, form: str) -> None:
    text = form.format(id=provider_id)
    shown, hits = redact({"result": text})
    assert hits == [] and shown == {"result": text}


def test_a_key_after_a_name_or_a_known_token_in_an_id_shape_is_still_hidden() -> None:
    for text, secret in (
        ("api_key=msg_01XFDUDYJgAACzvnptvVoYEL", "msg_01XFDUDYJgAACzvnptvVoYEL"),
        ("Authorization: Bearer resp_Ab3dEf6hIjKlMnOpQrStUvWx", "resp_Ab3dEf6hIjKlMnOpQrStUvWx"),
        ("ref msg_AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ):
        shown, hits = redact(text)
        assert hits and secret not in shown, shown


def test_an_agent_returning_its_provider_ids_keeps_them_in_the_run(runs_dir: Path) -> None:
    ids = [
        "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    ]

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"calls answered: {', '.join(ids)}"})
        return " ".join(ids)

    episode = noesis_nb.solve("ids", using=agent, runs_dir=runs_dir)
    for name in ("events.jsonl", "summary.json", "state.json"):
        written = (runs_dir / episode / name).read_text()
        assert all(i in written for i in ids) and "[REDACTED]" not in written, name
