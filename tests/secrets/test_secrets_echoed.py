"""What a call hands back and a cell prints holds no secret the caller typed into it.

A cell ending with ``handle.approve(reason=…)`` or ``handle.steer(…)`` prints the returned ``Decision``
or ``Steer``, and ``%noesis steer`` prints the message it sent: every shape of the secret corpus, in the
reason, the approver, the steer's text and its sender, is redacted there as in the run's files. The
adapter still reads the steer's text as it was sent.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from tests.hardening.secret_corpus import corpus, leaks, run_files
from tests.hardening.test_secrets import echo
from tests.ipshell import run_magic

SHAPES = corpus(random.SystemRandom().randrange(2**32))


def test_a_decision_and_a_steer_print_without_the_secrets_typed_into_them(tmp_path: Path) -> None:
    heard: list[str] = []

    async def agent(task: str, ctx: Any) -> None:
        for _ in range(2 * len(SHAPES)):
            heard.append(str(await ctx.next_steer_async(timeout=30)))
        await ctx.tool_async("py.echo", {"kwargs": {"a": 1}}, fn=echo, effect="write", risk="high")

    async def cell() -> list[tuple[str, bytes]]:
        printed: list[tuple[str, bytes]] = []
        handle = noesis_nb.start("deploy", using=agent, runs_dir=tmp_path)
        for shape in SHAPES:
            sender = f"ops {shape.text}"
            if len(sender) > 200 or not sender.isprintable():  # a sender is one short line (a PEM key is neither)
                with pytest.raises(InvalidOptionError) as refused:
                    handle.steer(f"use {shape.text}", sender=sender)
                printed.append((f"{shape.name}: sender refused", str(refused.value).encode()))
                sender = "ops"
            steer = handle.steer(f"use {shape.text}", sender=sender)
            printed.append((f"{shape.name}: steer", repr(steer).encode()))
            _, out = run_magic(f"steer {handle.episode_id} 'retry with {shape.text}'")
            printed.append((f"{shape.name}: %noesis steer", out.encode()))
        await handle
        text = " ; ".join(s.text for s in SHAPES)
        # an approver is one short line, as a sender is, and holds no credential (refused, as $NOESIS_NB_PRINCIPAL
        # is): each refusal is printed too; one the detectors take for no credential is written redacted
        decision = None
        for approver in (f"ana {text}", *(f"ana {s.text}" for s in SHAPES), "ana"):
            try:
                decision = handle.approve(approver_id=approver, reason=f"fine: {text}")
            except InvalidOptionError as refused:
                printed.append(("approver refused", str(refused).encode()))
                continue
            break
        assert decision is not None and any(what == "approver refused" for what, _ in printed)
        printed.append(("decision", repr(decision).encode()))
        await handle
        assert handle.status == "ok", handle.status
        return printed + run_files(Path(handle.run_dir))

    printed = asyncio.run(cell())
    assert leaks(SHAPES, printed) == []
    assert any("[REDACTED]" in blob.decode() for _, blob in printed)
    assert heard[0] == f"use {SHAPES[0].text}"  # the adapter is told what was sent
