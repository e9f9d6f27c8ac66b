"""A secret a user hands over by mistake is never said back in the error about it, or in a rejection.

Every shape of the generated corpus (fresh random values each session): pasted as ``ScriptedModel``'s replies (a
str where a list belongs), or as one of them (bytes, not text), and quoted by a reviewer in the reason a tool call
was rejected, which the adapter's ``ToolRejected`` carries. The error's text, repr and traceback are searched for
every 8-character piece of the secret.
"""

from __future__ import annotations

import random
import traceback

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, ToolRejected
from noesis_nb.scripted import ScriptedModel
from tests.hardening.secret_corpus import corpus, leaks
from tests.runtime.agents import write_argv

SHAPES = corpus(random.SystemRandom().randrange(2**32))


def _shown(error: BaseException) -> list[tuple[str, bytes]]:
    return [
        ("str", str(error).encode()),
        ("repr", repr(error).encode()),
        ("traceback", "".join(traceback.format_exception(error)).encode()),
    ]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_scripted_model_never_echoes_the_replies_it_refuses(shape):
    for replies in (shape.text, ["Plan: look", shape.text.encode()], ("ok", {"note": shape.text})):
        with pytest.raises(InvalidOptionError) as refused:
            ScriptedModel(replies)
        assert "replies" in str(refused.value)  # still says what was wrong
        assert leaks([shape], _shown(refused.value)) == []


def test_a_rejection_reason_quoting_a_secret_is_redacted_where_the_adapter_sees_it(tmp_path):
    seen: list[BaseException] = []
    shape_of = {}

    def reviewer(pending):
        shape = SHAPES[len(shape_of) % len(SHAPES)]
        shape_of[pending.draft_id] = shape
        return {"approve": False, "reason": f"no: this would send {shape.text} to the server"}

    async def agent(task, ctx):
        for i in range(len(SHAPES)):
            try:
                await ctx.tool_async("fs.append", {"argv": write_argv(tmp_path / f"o{i}.txt", task)}, effect="write", risk="high")
            except ToolRejected as exc:
                seen.append(exc)
        return "done"

    noesis_nb.solve("rejections", using=agent, runs_dir=tmp_path / "runs", approver=reviewer)
    assert len(seen) == len(SHAPES)
    for exc in seen:
        shape = shape_of[exc.draft_id]
        assert "was rejected: no: this would send" in str(exc)  # the reviewer's words are still there
        assert leaks([shape], _shown(exc)) == [], shape.name
