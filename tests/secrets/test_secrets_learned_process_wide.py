"""A value one run learns is secret to every later run of the process, and to runs beside it.

Learned by an episode (under a secret-looking key, found by a detector in prose, in a tool's payload or its
result), the value was hunted only for the rest of that run: a later episode in the same kernel writing it where
nothing marks it (an innocent key, prose, a tool's result, a model's reply) wrote it bare to its events.jsonl, and
``events_df`` showed it. Every file of the later run is read as bytes here. A process that never learned the value
(another kernel) is not expected to know it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.scripted import ScriptedModel
from noesis_nb.secrets import redact

# values no detector finds by themselves: only what a run learned makes them secret
VALUE = "plum-orchard-lantern-42"
OTHER = "tangerine-sunset-88"


def _bytes_of(run_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


def _bare_in(run_dir: Path, value: str) -> list[str]:
    """The files of ``run_dir`` that hold ``value`` as written (it is plain ASCII: every written form holds it)."""
    return [name for name, data in _bytes_of(run_dir).items() if value.encode() in data]


def _shown(runs_dir: Path, value: str) -> list[str]:
    """The cells of ``events_df`` that show ``value``."""
    frame = noesis_nb.events_df(runs_dir)
    return [str(cell) for column in frame.columns for cell in frame[column] if value in str(cell)]


def _ok(**kw: Any) -> str:
    return "connected"


# each way a run learns a value: what episode 1 does with it
LEARNERS: dict[str, Callable[[Any, str], None]] = {
    "secret-looking key": lambda ctx, v: ctx.emit("note", {"db_password": v}),
    "api_key in a nested field": lambda ctx, v: ctx.emit("config", {"client": {"api_key": v, "region": "eu"}}),
    "detector in prose": lambda ctx, v: ctx.emit("note", {"text": f"connect with postgres://bob:{v}@db.internal/app"}),
    "export line in prose": lambda ctx, v: ctx.emit("note", {"text": f"run export GITHUB_TOKEN={v} before the deploy"}),
    "tool payload": lambda ctx, v: ctx.tool("db.connect", {"kwargs": {"password": v}}, protocol="python", fn=_ok),
    "tool result": lambda ctx, v: ctx.tool("vault.read", {"kwargs": {}}, protocol="python", fn=lambda: {"token": v}),
}


def _emits(value: str) -> Callable[[str, Any], str]:
    """Episode 2: the value where nothing marks it secret."""

    def agent(task: str, ctx: Any) -> str:
        model = ScriptedModel([f"I will use {value} as the project label."])
        reply = model.complete(task, ctx)
        ctx.emit("note", {"label": value})  # an innocent key
        ctx.emit("note", {"text": f"the last deploy used {value} and worked"})  # prose
        ctx.emit("model", {"text": reply})  # a model's reply
        ctx.tool("labels.get", {"kwargs": {}}, protocol="python", fn=lambda: f"label: {value}")  # a tool's result
        return f"done with {value}"

    return agent


def test_the_values_are_not_secret_by_themselves(tmp_path: Path) -> None:
    """Without a run that learned them, they are written as given: what the tests below hide, only learning hides."""
    for value in (VALUE, OTHER):
        assert redact({"label": value, "text": f"used {value} today"})[0] == {"label": value, "text": f"used {value} today"}
    episode = noesis_nb.solve("label", using=_emits(OTHER), runs_dir=tmp_path, approver="auto")
    assert "events.jsonl" in _bare_in(tmp_path / episode, OTHER)


@pytest.mark.parametrize("way", list(LEARNERS))
def test_a_value_learned_by_one_run_is_never_written_bare_by_a_later_run(tmp_path: Path, way: str) -> None:
    def learns(task: str, ctx: Any) -> str:
        LEARNERS[way](ctx, VALUE)
        return "ok"

    first = noesis_nb.solve("learn", using=learns, runs_dir=tmp_path, approver="auto")
    assert _bare_in(tmp_path / first, VALUE) == []  # the first run learned it
    second = noesis_nb.solve("use it", using=_emits(VALUE), runs_dir=tmp_path, approver="auto")
    run_dir = tmp_path / second
    files = _bytes_of(run_dir)
    assert "events.jsonl" in files and b"[REDACTED]" in files["events.jsonl"]
    assert _bare_in(run_dir, VALUE) == []
    assert _shown(tmp_path, VALUE) == []
    assert "the last deploy used [REDACTED] and worked" in files["events.jsonl"].decode()


def test_a_value_learned_while_a_later_run_already_wrote_it_is_swept_from_that_run(tmp_path: Path) -> None:
    """Run 2 writes the value before run 1 (on another thread) learns it: its files are cleaned when it ends."""
    written, learned = threading.Event(), threading.Event()
    ids: dict[str, str] = {}

    def writes_first(task: str, ctx: Any) -> str:
        ctx.emit("note", {"label": VALUE})
        written.set()
        assert learned.wait(60)
        ctx.emit("note", {"text": f"and again {VALUE}"})
        return "ok"

    def learns(task: str, ctx: Any) -> str:
        assert written.wait(60)
        ctx.emit("note", {"api_key": VALUE})
        learned.set()
        return "ok"

    def run(name: str, agent: Any) -> None:
        ids[name] = noesis_nb.solve(name, using=agent, runs_dir=tmp_path)

    threads = [threading.Thread(target=run, args=(n, a)) for n, a in (("writes", writes_first), ("learns", learns))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert set(ids) == {"writes", "learns"}
    for episode in ids.values():
        assert _bare_in(tmp_path / episode, VALUE) == []
    assert _shown(tmp_path, VALUE) == []


def test_two_episodes_on_one_loop_share_what_either_learns(tmp_path: Path) -> None:
    """Two episodes running beside each other on one event loop: each learns a value the other then writes."""

    async def main() -> list[str]:
        a_learned, b_learned, b_wrote = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def first(task: str, ctx: Any) -> str:
            ctx.emit("note", {"password": VALUE})
            a_learned.set()
            await b_learned.wait()
            ctx.emit("note", {"text": f"the other run's {OTHER} is here"})
            await b_wrote.wait()
            return "ok"

        async def second(task: str, ctx: Any) -> str:
            await a_learned.wait()
            ctx.emit("note", {"label": VALUE})
            ctx.emit("note", {"secret_token": OTHER})
            b_learned.set()
            b_wrote.set()
            return f"wrote {VALUE}"

        return list(
            await asyncio.wait_for(
                asyncio.gather(
                    noesis_nb.solve_async("a", first, runs_dir=tmp_path),
                    noesis_nb.solve_async("b", second, runs_dir=tmp_path),
                ),
                120,
            )
        )

    episodes = asyncio.run(main())
    for episode in episodes:
        for value in (VALUE, OTHER):
            assert _bare_in(tmp_path / episode, value) == [], (episode, value)
    events = (tmp_path / episodes[0]).joinpath("events.jsonl").read_text()
    assert "the other run's [REDACTED] is here" in events
    assert _shown(tmp_path, VALUE) == [] and _shown(tmp_path, OTHER) == []


def test_a_run_ended_before_the_value_was_learned_is_shown_without_it(tmp_path: Path) -> None:
    """Its files are left as written (nothing made them secret then); ``events_df`` hides the value once learned."""
    before = noesis_nb.solve("label", using=_emits(VALUE), runs_dir=tmp_path / "old")
    assert "events.jsonl" in _bare_in(tmp_path / "old" / before, VALUE)
    assert _shown(tmp_path / "old", VALUE)  # nothing learned it yet: shown as written

    def learns(task: str, ctx: Any) -> str:
        ctx.emit("note", {"client_secret": VALUE})
        return "ok"

    noesis_nb.solve("learn", using=learns, runs_dir=tmp_path / "new")
    assert "events.jsonl" in _bare_in(tmp_path / "old" / before, VALUE)  # not rewritten
    assert _shown(tmp_path / "old", VALUE) == []
    frame = noesis_nb.events_df(tmp_path / "old")
    assert any("the last deploy used [REDACTED] and worked" in str(p) for p in frame["payload"])


def test_past_the_bound_the_values_kept_stay_and_a_new_one_stays_with_its_run() -> None:
    """The process keeps ``KEEP_CHARS`` characters of values: the first kept stay known to every new run; one learned
    past the bound is hidden by the run that learned it, not by a new one, and one warning says so."""
    from noesis_nb.secrets import RunSecrets, shared

    filler = [f"{n:06d}-" + "q7Zx" * 248 for n in range(shared.KEEP_CHARS // 999)]  # 999 characters each
    first = RunSecrets("ep_first")
    first.learn(filler[:10])
    shared.share(filler[10:])
    with pytest.warns(RuntimeWarning, match="secret values"):
        first.learn([VALUE])
    assert first.scrub_text(f"label {VALUE}") == "label [REDACTED]"
    later = RunSecrets("ep_later")
    assert later.scrub_text(f"label {VALUE}") == f"label {VALUE}"
    assert later.scrub_text(f"a {filler[0]} b {filler[-1]} c") == "a [REDACTED] b [REDACTED] c"
