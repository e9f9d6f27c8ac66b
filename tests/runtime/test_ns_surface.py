"""The Noēsis facade's edges: what noesis_nb does not implement is refused one way everywhere, and settings are real."""

from __future__ import annotations

import pytest

from noesis_nb import config, ns
from noesis_nb.errors import InvalidOptionError, NoesisNbError, UnsupportedFeatureError


def _agent(task: str) -> str:
    return "done"


NOT_IMPLEMENTED_KEYWORDS = [
    ("solve", {"verify": ["x"]}),
    ("solve", {"context": object()}),
    ("solve", {"workspace": "/tmp"}),
    ("solve", {"process": "nightly"}),
    ("run", {"verify": ["x"]}),
    ("resume_run", {"caused_by": "ev-1"}),
    ("resume_run", {"context": object()}),
    ("resume_run", {"verify": ["x"]}),
    ("interrupt", {"workspace": "/tmp"}),
    ("checkpoint", {"context": object()}),
    ("resume", {"context": object()}),
    ("list_runs", {"context": object()}),
    ("last", {"context": object()}),
    ("paths", {"context": object()}),
    ("set", {"context": object()}),
]


@pytest.mark.parametrize(("call", "given"), NOT_IMPLEMENTED_KEYWORDS, ids=lambda v: v if isinstance(v, str) else next(iter(v)))
def test_every_call_refuses_an_unimplemented_noesis_keyword_the_same_way(call: str, given: dict, runs_dir) -> None:
    ns.set(runs_dir=str(runs_dir))
    args = {
        "solve": (("t",), {"using": _agent}),
        "run": (("t",), {}),
        "resume_run": (("ep_x",), {}),
        "interrupt": (("ep_x",), {}),
        "checkpoint": (("ep_x",), {}),
        "resume": (("ep_x",), {"checkpoint_id": "chk_1"}),
        "list_runs": ((), {}),
        "last": ((), {}),
        "paths": (("ep_x",), {}),
        "set": ((), {}),
    }[call]
    with pytest.raises(UnsupportedFeatureError, match=rf"ns\.{call}\({next(iter(given))}=") as info:
        getattr(ns, call)(*args[0], **args[1], **given)
    assert isinstance(info.value, NotImplementedError) and isinstance(info.value, NoesisNbError)
    assert list(runs_dir.iterdir()) == [], "nothing may be written before the refusal"


def test_noesis_defaults_pass_through_at_their_default_value(runs_dir) -> None:
    ep = ns.solve("t", using=_agent, intuition=True, verify=None, context=None, workspace=None, process=None, runs_dir=runs_dir)
    assert ns.summary.read(ep, context=None)["status"] == "ok"


def test_settings_noesis_names_but_noesis_nb_does_not_implement_accept_only_their_default() -> None:
    ns.set(planner_mode=config.NOT_IMPLEMENTED["planner_mode"], timeout_sec=60)  # Noēsis code setting defaults runs
    with pytest.raises(UnsupportedFeatureError, match="planner_mode='meta'"):
        ns.set(planner_mode="meta")
    with pytest.raises(InvalidOptionError, match="unknown setting"):
        ns.set(no_such_setting=1)
    with pytest.raises(InvalidOptionError, match="governance_mode='sometimes'"):
        ns.set(governance_mode="sometimes")
    assert ns.get()["timeout_sec"] == 60 and ns.get()["governance_mode"] == "off"
    ns.set(governance_mode="audit")
    assert ns.get()["governance_mode"] == "audit" and config.get("governance_mode") == "audit"


def test_the_atool_spelling_still_works_but_says_it_is_deprecated(runs_dir, tmp_path) -> None:
    import noesis_nb

    async def agent(task, ctx):
        return (await ctx.atool("local.echo", {"args": [3]}, fn=lambda x: x * 2))["result"]

    with pytest.warns(DeprecationWarning, match="tool_async"):
        ep = noesis_nb.solve("double", using=agent, runs_dir=runs_dir)
    assert (runs_dir / ep / "manifest.json").exists()


def test_a_wrong_tool_option_names_the_value_and_the_choices(runs_dir) -> None:
    import noesis_nb

    async def agent(task, ctx):
        return await ctx.tool_async("fs.write", {"argv": ["true"]}, effect="delete")

    ep = noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert ns.summary.read(ep)["status"] == "error"
    events = ns.events.read(ep)
    act = next(e for e in events if e["phase"] == "act")
    assert act["payload"]["error"]["type"] == "InvalidOptionError" and "['read', 'write']" in act["payload"]["error"]["message"]


def test_the_summary_of_a_paused_run_says_it_is_paused_and_how_to_continue(runs_dir, tmp_path) -> None:
    """Noēsis-compatible code catches FileNotFoundError; the message tells a person what to do next."""
    import sys

    import noesis_nb
    from noesis_nb.errors import SummaryNotWrittenError

    async def writer(task, ctx):
        argv = [sys.executable, "-c", f"open({str(tmp_path / 'out.txt')!r}, 'w').write('x')"]
        return await ctx.tool_async("fs.write", {"argv": argv}, effect="write", risk="high")

    ns.set(runs_dir=str(runs_dir))
    episode = ns.solve("write a file", using=writer, approver="ask")  # pauses on disk for a person
    with pytest.raises(FileNotFoundError) as caught:
        ns.summary.read(episode)
    error = caught.value
    assert isinstance(error, SummaryNotWrittenError) and isinstance(error, NoesisNbError)
    assert error.status == "paused" and error.episode_id == episode
    message = str(error)
    assert f"run {episode} is paused" in message
    assert f"noesis_nb.approve_draft({episode!r}" in message and f"resume_run({episode!r})" in message
    noesis_nb.approve_draft(episode, approver_id="ana")
    noesis_nb.resume_run(episode)  # what the message says works
    assert ns.summary.read(episode)["status"] == "ok"
