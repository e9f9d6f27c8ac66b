"""The caller's options are checked before anything is looked up, by every public call the same way: a call naming
an unknown episode and a wrong option said "no run 'ep_…'" (fix that, retry, and be refused again for the option),
``ns.resume_run`` took ``tools=5`` on a sealed run without a word (``resume_run`` refused it), and a finished
handle answered a blank steer with its state instead of the blank text."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import InvalidIdError, InvalidOptionError, RunSealedError, UsingResolutionError

UNKNOWN = "ep_01K9ZZZZZZZZZZZZZZZZZZZZZZ"


def _done(task: str) -> str:
    return "done"


def _resume_async(episode: str, **options: Any) -> str:
    return asyncio.run(noesis_nb.resume_run_async(episode, **options))


RESUMES = [noesis_nb.resume_run, ns.resume_run, _resume_async]
BAD_RESUME_OPTIONS = [
    ({"tools": 5}, InvalidOptionError, "tools=5"),
    ({"tools": {"fs.write": "not callable"}}, InvalidOptionError, "tools="),
    ({"unknown_outcome": "maybe"}, InvalidOptionError, "unknown_outcome='maybe'"),
    ({"checkpoint_id": 5}, InvalidOptionError, "checkpoint_id=5"),
    ({"checkpoint_id": "../../etc"}, InvalidIdError, "checkpoint_id"),
    # using= that names no adapter on its face, whatever the run: refused before the run is looked up
    ({"using": ""}, UsingResolutionError, "using='' is blank"),
    ({"using": "   "}, UsingResolutionError, "using='   ' is blank"),
    ({"using": "pkg.mod:"}, UsingResolutionError, "using='pkg.mod:' is no file here, and not a 'module:attribute' path"),
    ({"using": ":make"}, UsingResolutionError, "using=':make' is no file here"),
    ({"using": "my pkg:make"}, UsingResolutionError, "'my pkg' where a Python name belongs"),
    ({"using": "agents/nowhere.py"}, UsingResolutionError, "using='agents/nowhere.py' names no agent"),
    ({"using": "pkg\x00:make"}, UsingResolutionError, "holds a NUL"),
    ({"using": int}, UsingResolutionError, "using=int is a class"),
    ({"using": warnings}, UsingResolutionError, "using=warnings is a module"),
    ({"using": [_done]}, UsingResolutionError, "using= got a list"),
    ({"using": 5}, UsingResolutionError, "using=5"),
]


@pytest.mark.parametrize("resume", RESUMES, ids=["resume_run", "ns.resume_run", "resume_run_async"])
@pytest.mark.parametrize(("given", "error", "named"), BAD_RESUME_OPTIONS, ids=lambda v: repr(v)[:30])
def test_a_resume_refuses_a_wrong_option_before_looking_the_episode_up(
    resume: Any, given: dict[str, Any], error: type[Exception], named: str, runs_dir: Path
) -> None:
    with pytest.raises(error, match=named.replace("(", r"\(")) as raised:
        resume(UNKNOWN, runs_dir=runs_dir, **given)
    assert UNKNOWN not in str(raised.value)


@pytest.mark.parametrize("resume", RESUMES, ids=["resume_run", "ns.resume_run", "resume_run_async"])
def test_a_resume_refuses_a_coroutine_as_using_before_the_lookup_and_closes_it(resume: Any, runs_dir: Path) -> None:
    async def agent(task: str) -> str:
        return "done"

    never_awaited = agent("x")
    with pytest.raises(UsingResolutionError, match=r"got a coroutine \(.*agent\(\.\.\.\) called, not awaited\)"):
        resume(UNKNOWN, runs_dir=runs_dir, using=never_awaited)
    assert never_awaited.cr_frame is None  # closed: Python does not warn of a coroutine never awaited


@pytest.mark.parametrize("resume", RESUMES, ids=["resume_run", "ns.resume_run", "resume_run_async"])
def test_a_resume_checks_a_well_formed_using_only_once_the_run_needs_it(resume: Any, runs_dir: Path) -> None:
    """What a well-formed name resolves to is the run's business: a sealed run needs no adapter, so a module that
    does not exist is never imported for it (and an unknown run is said as such)."""
    sealed = noesis_nb.solve("note", using=_done, runs_dir=runs_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if resume is ns.resume_run:  # as Noēsis: a sealed run is refused (RunSealedError), its adapter never looked for
            with pytest.raises(RunSealedError, match=f"run {sealed} is sealed"):
                resume(sealed, using="no_such_module_here:make", runs_dir=runs_dir)
        else:
            assert resume(sealed, using="no_such_module_here:make", runs_dir=runs_dir) == sealed
    with pytest.raises(Exception, match=UNKNOWN):
        resume(UNKNOWN, runs_dir=runs_dir, using="no_such_module_here:make")


@pytest.mark.parametrize("resume", RESUMES, ids=["resume_run", "ns.resume_run", "resume_run_async"])
def test_every_resume_entry_refuses_tools_that_are_no_dict_of_callables_on_a_sealed_run(resume: Any, runs_dir: Path) -> None:
    sealed = noesis_nb.solve("note", using=_done, runs_dir=runs_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "nothing to resume" instead of the refusal fails the test
        with pytest.raises(InvalidOptionError, match=r"tools=5: pass a dict of tool name -> callable"):
            resume(sealed, tools=5, runs_dir=runs_dir)


@pytest.mark.parametrize("decide", [noesis_nb.approve_draft, noesis_nb.reject_draft], ids=["approve", "reject"])
@pytest.mark.parametrize(
    ("given", "error", "named"),
    [
        ({"draft_id": ""}, InvalidIdError, "draft id '' names no draft"),
        ({"draft_id": "   "}, InvalidIdError, "names no draft"),
        ({"draft_id": 5}, InvalidIdError, "draft id 5 names no draft"),
        ({"approver_id": ""}, InvalidOptionError, "approver_id"),
        ({"reason": 7}, InvalidOptionError, "reason=7"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_a_decision_refuses_a_wrong_option_before_looking_the_episode_up(
    decide: Any, given: dict[str, Any], error: type[Exception], named: str, runs_dir: Path
) -> None:
    options = {"approver_id": "ana", **given}
    draft_id = options.pop("draft_id", None)
    with pytest.raises(error, match=named) as raised:
        decide(UNKNOWN, draft_id, runs_dir=runs_dir, **options)
    assert UNKNOWN not in str(raised.value)


def test_a_finished_handle_refuses_a_wrong_option_before_saying_it_has_ended(runs_dir: Path) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("note", using=_done, runs_dir=runs_dir)
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.done()
    with pytest.raises(InvalidOptionError, match="steer text must be a non-empty string"):
        handle.steer("   ")
    with pytest.raises(InvalidOptionError, match="mode"):
        handle.steer("go on", mode="sideways")
    with pytest.raises(InvalidIdError, match="names no draft"):
        handle.approve("")
    with pytest.raises(InvalidOptionError, match="reason="):
        handle.reject(reason=3)


def test_a_stop_during_a_drain_refuses_a_wrong_drain_instead_of_ignoring_it(runs_dir: Path) -> None:
    async def _waits(task: str) -> str:
        await asyncio.sleep(30)
        return "never"

    async def main() -> Any:
        handle = noesis_nb.start("wait", using=_waits, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        handle.cancel(drain_s=20)
        assert handle.draining
        with pytest.raises(InvalidOptionError, match="drain_s=-1"):
            await handle.stop(drain_s=-1)
        handle.cancel()  # a second stop ends the drain at once
        await handle.wait()
        return handle

    assert asyncio.run(main()).status == "cancelled"


def test_the_steer_magic_refuses_blank_text_before_looking_the_episode_up(ip: Any) -> None:
    with pytest.raises((UsageError, InvalidOptionError), match="steer text must be a non-empty string") as raised:
        ip.run_line_magic("noesis", f'steer {UNKNOWN} "   "')
    assert "running in this kernel" not in str(raised.value)


@pytest.mark.parametrize("drain", ["-1", "nan", "1e400"])
def test_the_stop_magic_refuses_a_wrong_drain_before_looking_the_episode_up(ip: Any, drain: str) -> None:
    with pytest.raises(UsageError, match=r"%noesis stop: drain_s=(-1\.0|nan|inf): give the seconds") as raised:
        ip.run_line_magic("noesis", f"stop {UNKNOWN} --drain {drain}")
    assert "running in this kernel" not in str(raised.value)


def test_ns_resume_run_names_an_unknown_option_and_what_it_takes(runs_dir: Path) -> None:
    with pytest.raises(
        InvalidOptionError, match=r"ns\.resume_run: unknown option\(s\) 'bogus'; it takes checkpoint_id"
    ) as raised:
        ns.resume_run(UNKNOWN, bogus=1, runs_dir=runs_dir)
    assert "resume_blocking" not in str(raised.value) and "unknown_outcome" in str(raised.value)


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_run_on_disk_refuses_a_wrong_option_before_saying_it_has_ended(verb: str, runs_dir: Path) -> None:
    from noesis_nb.runtime.diskrun import DiskRun

    run = DiskRun(runs_dir / noesis_nb.solve("note", using=_done, runs_dir=runs_dir))
    with pytest.raises(InvalidOptionError, match="reason=5"):
        getattr(run, verb)(reason=5)
    with pytest.raises(InvalidIdError, match="names no draft"):
        getattr(run, verb)("  ", approver_id="ana")


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"seed": "x"}, "seed="),
        ({"tags": 5}, "tags=5"),
        ({"governance": "enforced"}, "governance="),
        ({"score_timeout_s": -1}, "score_timeout_s=-1"),
    ],
    ids=["seed", "tags", "governance", "score_timeout_s"],
)
def test_a_run_refuses_a_wrong_option_before_resolving_using(given: dict[str, Any], named: str, runs_dir: Path) -> None:
    """``using='my_agent'`` is looked up (imported); a wrong option beside it is the caller's to fix first."""
    with pytest.raises(InvalidOptionError, match=named):
        noesis_nb.solve("t", using="no_such_agent_anywhere", runs_dir=runs_dir, **given)
    assert list(runs_dir.iterdir()) == []


def test_the_inbox_refuses_a_wrong_approver_before_looking_at_its_root(tmp_path: Path) -> None:
    from noesis_nb.widgets import inbox

    not_a_folder = tmp_path / "runs.txt"
    not_a_folder.write_text("not a runs root")
    with pytest.raises(InvalidOptionError, match="approver_id=5"):
        inbox(not_a_folder, approver_id=5)  # type: ignore[arg-type]
