"""A ``str`` subclass cannot hide its own secret from the screen.

An agent's text may be a ``str`` subclass whose methods lie (``isascii``, ``encode``, ``find``, ``__iter__``,
``__getitem__``, ``__str__``, ``__eq__``/``__hash__``, ``lower``, ``__len__``): the JSON writers read its real
characters, so the screen must read those too. Each run is real, on disk; every file of it is read back raw.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb.scripted import ScriptedModel
from noesis_nb.secrets import find_in_text, quoted, redact
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.render import row_html

from .hostile_str import AWS, GITHUB, HOSTILE, IDS, KEY, TOKENS, LiesAll, LiesEq, LiesFind, LiesIter, hostile_text


def _json(value: Any) -> bytes:
    """``value`` as the run's writers put it on disk: its real characters, whatever its methods say."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _leaks(root: Path) -> list[str]:
    """The files under ``root`` whose raw bytes hold any of the tokens' distinctive parts."""
    return [
        f"{path.name}: {token[:12]}"
        for path in sorted(root.rglob("*"))
        if path.is_file()
        for token in TOKENS
        if token[4:].encode() in path.read_bytes()
    ]


def _run(runs_dir: Path, agent: Any) -> Path:
    episode = noesis_nb.solve("go", using=agent, runs_dir=runs_dir, approver="auto")
    return runs_dir / episode


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_the_screen_reads_the_characters_a_subclass_holds(cls: type[str]) -> None:
    for token in TOKENS:
        text = hostile_text(cls, token)
        assert token in find_in_text(text)
        redacted, _ = redact({"note": text, "items": ["a", text], text: "v"})
        assert token.encode() not in _json(redacted)


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_an_emitted_payload_field_key_and_list_item_never_reach_the_disk(tmp_path: Path, cls: type[str]) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": hostile_text(cls, KEY)})
        ctx.emit("note", {hostile_text(cls, AWS): "value"})
        ctx.emit("note", {"items": ["first", {"deep": (hostile_text(cls, GITHUB),)}]})
        return "ok"

    run_dir = _run(tmp_path, agent)
    assert _leaks(tmp_path) == []
    assert (run_dir / "events.jsonl").read_bytes().count(b"[REDACTED]") >= 3


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_a_tool_argument_value_and_key_never_reach_the_disk(tmp_path: Path, cls: type[str]) -> None:
    def echo(**kwargs: Any) -> str:
        return "done"

    def agent(task: str, ctx: Any) -> str:
        args = {"text": hostile_text(cls, KEY), "list": [hostile_text(cls, GITHUB)], hostile_text(cls, AWS): 1}
        return ctx.tool("notes.save", {"kwargs": args}, protocol="python", fn=echo)

    run_dir = _run(tmp_path, agent)
    assert (run_dir / "tool_invocations").is_dir()
    assert _leaks(tmp_path) == []


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_a_model_completion_and_a_result_never_reach_the_disk(tmp_path: Path, cls: type[str]) -> None:
    model = ScriptedModel([hostile_text(cls, KEY)])

    def agent(task: str, ctx: Any) -> Any:
        model.complete("plan", ctx)
        return {"answer": hostile_text(cls, GITHUB), hostile_text(cls, AWS): ["x"]}

    _run(tmp_path, agent)
    assert model.calls == 1
    assert _leaks(tmp_path) == []


@pytest.mark.parametrize("cls", [LiesFind, LiesIter, LiesAll], ids=["LiesFind", "LiesIter", "LiesAll"])
def test_the_live_view_shows_no_token(tmp_path: Path, cls: type[str]) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": hostile_text(cls, KEY), hostile_text(cls, AWS): [hostile_text(cls, GITHUB)]})
        return "ok"

    async def main() -> list[str]:
        handle = noesis_nb.start("go", using=agent, runs_dir=tmp_path)
        await asyncio.wait_for(handle.wait(), 60)
        view = EpisodeView(handle)
        view.flush()
        html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in handle.events)]
        view.close()
        return html

    html = "".join(asyncio.run(main()))
    assert "note" in html
    assert not [t for t in TOKENS if t[4:] in html]
    assert _leaks(tmp_path) == []


class PassesForK0(LiesEq):
    """A key that says it is ``k0``, a key judged before."""

    def __hash__(self) -> int:
        return hash("k0")


def test_a_key_passing_for_one_judged_before_is_read_in_a_flat_payload(tmp_path: Path) -> None:
    """A flat payload of 8+ plain keys is judged key by key from cached verdicts; a subclass key that hashes and
    compares as a cached key would take that key's verdict, and be written as the token it holds."""
    plain = {f"k{i}": i for i in range(10)}

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("metrics", dict(plain))
        ctx.emit("metrics", {PassesForK0(f"key {KEY}"): 0, **{k: v for k, v in plain.items() if k != "k0"}})
        return "ok"

    _run(tmp_path, agent)
    assert _leaks(tmp_path) == []


class HidingDict(dict[str, Any]):
    """A payload whose own methods show only a plain field; its real items are written."""

    def items(self) -> Any:
        return iter([("text", "plain")])

    def keys(self) -> Any:
        return iter(["text"])

    def values(self) -> Any:
        return iter(["plain"])

    def __iter__(self) -> Any:
        return iter(["text"])

    def __len__(self) -> int:
        return 1


class HidingList(list[Any]):
    def __iter__(self) -> Any:
        return iter(["plain"])


def test_a_dict_or_list_subclass_hiding_its_items_never_reaches_the_disk(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", HidingDict({"text": "plain", "hidden": f"deploy with {KEY}"}))
        ctx.emit("note", {"items": HidingList(["plain", LiesAll(f"deploy with {GITHUB}")])})
        return "ok"

    _run(tmp_path, agent)
    assert _leaks(tmp_path) == []
    redacted, _ = redact({"a": HidingDict({"hidden": AWS}), "b": HidingList([AWS])})
    assert AWS.encode() not in _json(redacted)


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_a_message_quoting_a_subclass_names_no_token(cls: type[str]) -> None:
    """``quoted`` names a bad value in an error message: a subclass saying it equals its redacted text was quoted
    whole, token and all."""
    for token in TOKENS:
        text = hostile_text(cls, token)
        for message in (quoted(text, 200), quoted(text, 20), quoted([text], 200), quoted({text: 1}, 200)):
            assert token[4:] not in str.__str__(message)
