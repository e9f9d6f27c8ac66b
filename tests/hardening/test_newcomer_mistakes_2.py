"""More mistakes of a first notebook: a forgotten ``await``, batch column specs, versioned tool names,
misspelt names and settings. Each gets one error naming the value and the fix, or simply works."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, NotAwaitedError

# -- a forgotten await -------------------------------------------------------------------------------------


def _list_tool(ctx: Any) -> Any:
    return ctx.tool_async("fs.list", {"argv": ["python", "-c", "print('ran')"]})


async def _async_forgets(task: str, ctx: Any) -> str:
    _list_tool(ctx)  # no await
    return "done"


def _sync_forgets(task: str, ctx: Any) -> str:
    _list_tool(ctx)  # a coroutine made in the adapter's thread, never run
    return "done"


async def _async_awaits(task: str, ctx: Any) -> str:
    return str(await _list_tool(ctx))


@pytest.mark.parametrize("adapter", [_async_forgets, _sync_forgets], ids=["async", "sync"])
def test_a_tool_call_never_awaited_ends_the_episode_with_one_error_naming_it(runs_dir: Path, adapter: Any) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("t", using=adapter, runs_dir=runs_dir)
        await handle
        return handle

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        handle = asyncio.run(main())
        gc.collect()
    assert handle.status == "error"
    with pytest.raises(NotAwaitedError) as info:
        handle.result()
    message = str(info.value)
    assert message.startswith("ctx.tool_async('fs.list', …) was never awaited, so the tool never ran"), message
    assert "`await ctx.tool_async('fs.list', …)`" in message
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []  # one message, not two
    events = noesis_nb.events_df(runs_dir)  # the run says it too
    assert events["payload"].astype(str).str.contains("never awaited").any()
    assert not (handle.run_dir / "tool_invocations").exists() or not any((handle.run_dir / "tool_invocations").rglob("*.json"))


def test_an_awaited_tool_call_is_not_named(runs_dir: Path) -> None:
    episode_id = noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode_id]
    assert row["status"] == "ok" and row["tool_calls"] == 1


# -- Column specs --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"name": ""}, "Column name=''"),
        ({"name": "x", "path": "a", "fn": len}, "give exactly one of path="),
        ({"name": "x"}, "give exactly one of path="),
        ({"name": "x", "fn": "len"}, "fn='len' is not callable"),
        ({"name": "x", "path": ["a", "b"]}, "pass a string such as 'a.b'"),
        ({"name": "x", "path": "a", "type": "flaot"}, "type='flaot' is not one of"),
        ({"name": "x", "path": "a", "type": ["float"]}, "type=['float'] is not one of"),  # was a raw 'unhashable type'
        ({"name": "x", "path": "a", "type": float}, "(type='float')"),
    ],
)
def test_a_wrong_column_spec_is_an_invalid_option_named_by_its_value(kwargs: dict[str, Any], names: str) -> None:
    from noesis_nb.frames import Column

    with pytest.raises(InvalidOptionError) as info:
        Column(**kwargs)
    assert names in str(info.value), str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)  # what code catching builtins expects


def test_a_misspelt_column_type_says_which_was_meant() -> None:
    from noesis_nb.frames import Column

    with pytest.raises(InvalidOptionError, match=r"type='flaot' is not one of .* \(did you mean 'float'\?\)$"):
        Column("x", path="summary.metrics.x", type="flaot")


@pytest.mark.parametrize(
    ("columns", "names"),
    [
        ("plan", "columns='plan' is not a list"),
        (["plan"], "takes noesis_nb.frames.Column specs, got 'plan'"),
        ("default", "is a default column; pick another name"),
        ("twice", "two columns are named 'y'"),
    ],
)
def test_wrong_columns_given_to_a_frame_are_invalid_options(runs_dir: Path, columns: Any, names: str) -> None:
    from noesis_nb.frames import Column

    noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)
    specs = {"default": [Column("status", path="a")], "twice": [Column("y", path="a"), Column("y", path="b")]}
    given = specs[columns] if columns in ("default", "twice") else columns
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.runs_df(runs_dir, columns=given)
    assert names in str(info.value), str(info.value)


# -- a versioned tool's name ----------------------------------------------------------------------------------


async def _versioned_writer(task: str, ctx: Any) -> Any:
    import sys

    argv = [sys.executable, "-c", "import sys; sys.exit(3)"]  # fails once approved
    return await ctx.tool_async("fs.write@2", {"argv": argv}, effect="write", risk="high")


@pytest.mark.parametrize("decide", [noesis_nb.reject_draft, noesis_nb.approve_draft], ids=["rejected", "failed"])
def test_a_resumed_versioned_tool_is_named_as_given_while_state_keeps_noesis_form(runs_dir: Path, decide: Any) -> None:
    episode_id = noesis_nb.solve("t", using=_versioned_writer, runs_dir=runs_dir)
    decide(episode_id, runs_dir=runs_dir, approver_id="ana")
    noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    state = json.loads((runs_dir / episode_id / "state.json").read_text())
    message = state["outcomes"]["summary"]
    assert "fs.write@2" in message and "fs.write:2" not in message, message  # as the adapter wrote it, as views show it
    assert set(noesis_nb.tools_df(runs_dir)["tool"]) == {"fs.write@2"}
    if decide is noesis_nb.approve_draft:  # Noēsis' own form stays on disk
        assert "fs.write:2" in [action["tool"] for action in state["outcomes"]["actions"]]


# -- %noesis ---------------------------------------------------------------------------------------------------


def test_a_misspelt_agent_in_noesis_run_says_which_was_meant_without_a_running_loop(ip: Any, runs_dir: Path) -> None:
    from IPython.core.error import UsageError

    ip.user_ns.update(agent=_async_awaits)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", f"run agnt hello --runs-dir {runs_dir}")  # no loop runs in the test shell
    message = str(info.value)
    assert message.startswith("%noesis run: using='agnt' names no agent"), message
    assert "did you mean agent" in message and message.endswith("(defined in this notebook)?"), message
    assert list(runs_dir.iterdir()) == []


# -- a frame's row, column or frame where an id goes ---------------------------------------------------------


def _one_run(runs_dir: Path) -> tuple[str, Any]:
    episode_id = noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)
    return episode_id, noesis_nb.runs_df(runs_dir)


@pytest.mark.parametrize("call", ["show", "resume_run", "approve_draft"])
@pytest.mark.parametrize(
    ("given", "fix"),
    [
        (lambda df: df.iloc[0], "got a frame's row where an episode id or run directory goes; pass row['episode_id'] ("),
        (lambda df: df["episode_id"], "got a Series of 1 value where an episode id or run directory goes; pass one of them"),
        (lambda df: df, "got a DataFrame where an episode id or run directory goes; pass df['episode_id'].iloc[0] ("),
    ],
    ids=["row", "column", "frame"],
)
def test_a_frame_row_column_or_frame_given_as_the_episode_names_the_id_to_pass(
    runs_dir: Path, call: str, given: Any, fix: str
) -> None:
    from noesis_nb.errors import InvalidIdError

    episode_id, df = _one_run(runs_dir)
    kwargs = {"approver_id": "ana"} if call == "approve_draft" else {}
    with pytest.raises(InvalidIdError) as info:
        getattr(noesis_nb, call)(given(df), runs_dir=runs_dir, **kwargs)
    message = str(info.value)
    assert message.startswith(fix) and episode_id in message and "handle." not in message, message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        (lambda df: df.iloc[0], "got a frame's row where episodes= (a list of ids) goes; pass row['episode_id'] ("),
        (lambda df: df, "got a DataFrame where episodes= (a list of ids) goes; pass df['episode_id'] ("),
    ],
    ids=["row", "frame"],
)
def test_a_frame_row_or_frame_given_as_episodes_names_the_column(runs_dir: Path, given: Any, fix: str) -> None:
    episode_id, df = _one_run(runs_dir)
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.events_df(runs_dir, episodes=given(df))
    message = str(info.value)
    assert message.startswith(fix) and episode_id in message, message
    assert set(noesis_nb.events_df(runs_dir, episodes=df["episode_id"])["episode_id"]) == {episode_id}  # a column works


# -- a cell run again, settings from the environment ---------------------------------------------------------


def test_a_cell_with_a_fixed_episode_id_run_again_says_so_and_how_to_get_a_new_id(runs_dir: Path) -> None:
    from noesis_nb.errors import RunExistsError

    first = noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, episode_id="ep_my_first")
    log = (runs_dir / first / "events.jsonl").read_bytes()
    with pytest.raises(RunExistsError) as info:
        noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, episode_id="ep_my_first")  # the cell, run again
    message = str(info.value)
    assert "run ep_my_first already exists" in message and "leave episode_id= out" in message, message
    assert "another process started it" not in message  # it was this notebook
    assert (runs_dir / first / "events.jsonl").read_bytes() == log and sorted(p.name for p in runs_dir.iterdir()) == [first]


@pytest.mark.parametrize(
    ("variable", "value", "first"),
    [
        ("NOESIS_NB_APPROVER", "Auto", "$NOESIS_NB_APPROVER='Auto' (did you mean 'auto'?): use 'ask', 'auto', 'deny'"),
        ("NOESIS_NB_APPROVER", "yes", "$NOESIS_NB_APPROVER='yes': use 'ask', 'auto', 'deny'"),
        ("NOESIS_GOVERNANCE_MODE", "Audit", "$NOESIS_GOVERNANCE_MODE='Audit' (did you mean 'audit'?): use one of"),
    ],
)
def test_a_wrong_setting_from_the_environment_names_the_variable(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, first: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)  # no approver=, no governance=: the call never named it
    assert str(info.value).startswith(first), str(info.value)
    assert list(runs_dir.iterdir()) == []


def test_a_misspelt_environment_variable_is_named_once_with_the_one_meant(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noesis_nb import config

    monkeypatch.setattr(config, "_env_checked", False)
    monkeypatch.setenv("NOESIS_NB_CAPTUR", "0")
    monkeypatch.setenv("NOESIS_NB_MY_OWN_FLAG", "1")  # a name of the user's own: left alone
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)
        noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir)
    said = [str(w.message) for w in caught if "NOESIS_NB_" in str(w.message)]
    assert said == [
        "environment variable NOESIS_NB_CAPTUR (did you mean NOESIS_NB_CAPTURE?) is not read by noesis_nb, so it does nothing"
    ]


@pytest.mark.parametrize(
    ("line", "first_line"),
    [
        (
            "list RUNS",
            "%noesis list: unrecognized arguments: RUNS (a runs folder goes after --runs-dir: %noesis list --runs-dir RUNS)",
        ),
        (
            "inbox RUNS",
            "%noesis inbox: unrecognized arguments: RUNS (a runs folder goes after --runs-dir: %noesis inbox --runs-dir RUNS)",
        ),
        (
            "reject ep_x --runs-dir RUNS abcd",
            "%noesis reject: unrecognized arguments: abcd "
            "(give episode draft before the options: %noesis reject episode draft --…)",
        ),
        ("run agent hello world", "%noesis run: unrecognized arguments: world (quote text that holds spaces: the task, a steer)"),
    ],
)
def test_a_word_where_the_subcommand_takes_an_option_says_where_it_goes(
    ip: Any, runs_dir: Path, line: str, first_line: str
) -> None:
    from IPython.core.error import UsageError

    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", line.replace("RUNS", str(runs_dir)))
    assert str(info.value).splitlines()[0] == first_line.replace("RUNS", str(runs_dir)), str(info.value)
    assert list(runs_dir.iterdir()) == []


# -- an awaited entry point called without await -----------------------------------------------------------------


def test_solve_async_without_await_in_a_cell_shows_how_to_run_it_and_runs_nothing(ip: Any, runs_dir: Path) -> None:
    from IPython.utils.capture import capture_output

    ip.user_ns.update(noesis_nb=noesis_nb, agent=_async_awaits, RUNS=str(runs_dir))
    with capture_output() as out:
        result = ip.run_cell("pending = noesis_nb.solve_async('t', using=agent, runs_dir=RUNS)\npending")
    shown = out.stdout + out.stderr
    assert "not started; write `await noesis_nb.solve_async(…)`" in shown, shown
    assert result.error_in_exec is None and list(runs_dir.iterdir()) == []
    ip.user_ns.pop("pending").close()  # the history keeps it: closed, so it says nothing when the shell is done


def test_solve_async_dropped_unawaited_warns_once_in_its_own_words(runs_dir: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.solve_async("t", using=_async_awaits, runs_dir=runs_dir)  # no await: dropped at once
        noesis_nb.resume_run_async("ep_x", runs_dir=runs_dir)
        gc.collect()
    said = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert said == [
        "noesis_nb.solve_async(…) was never awaited, so nothing ran: write `await noesis_nb.solve_async(…)`",
        "noesis_nb.resume_run_async(…) was never awaited, so nothing ran: write `await noesis_nb.resume_run_async(…)`",
    ], said  # not Python's own "coroutine 'solve_async' was never awaited" as well
    assert list(runs_dir.iterdir()) == []


@pytest.mark.parametrize("how", ["await", "asyncio.run", "task", "gather", "wait_for"])
def test_solve_async_still_runs_however_it_is_awaited(runs_dir: Path, how: str) -> None:
    def call() -> Any:
        return noesis_nb.solve_async("t", using=_async_awaits, runs_dir=runs_dir)

    async def main() -> Any:
        if how == "await":
            return await call()
        if how == "task":
            return await asyncio.create_task(call())
        if how == "gather":
            return (await asyncio.gather(call()))[0]
        return await asyncio.wait_for(call(), 30)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        episode_id = asyncio.run(call()) if how == "asyncio.run" else asyncio.run(main())
        gc.collect()
    assert isinstance(episode_id, str) and episode_id.startswith("ep_")
    assert [str(w.message) for w in caught if "awaited" in str(w.message)] == []


# -- a scorer, governance ----------------------------------------------------------------------------------------


def _one_argument_scorer(result: Any) -> float:
    return 1.0


async def _async_one_argument_scorer(result: Any) -> float:
    return 1.0


async def _batch_started(runs_dir: Path, scorer: Any) -> Any:
    return noesis_nb.batch(["t"], using=_async_awaits, root=runs_dir, score=scorer)


@pytest.mark.parametrize(
    ("scorer", "first"),
    [
        (_one_argument_scorer, "score=_one_argument_scorer takes 1 argument (result); a scorer is called as score(task, result)"),
        (_async_one_argument_scorer, "score=_async_one_argument_scorer takes 1 argument (result); a scorer is called as"),
        (lambda: 1.0, "score=<lambda> takes 0 arguments; a scorer is called as score(task, result)"),
        (lambda task, result, rubric: 1.0, "score=<lambda> requires more arguments (rubric); a scorer is called as"),
    ],
    ids=["one", "async-one", "none", "three"],
)
def test_a_scorer_that_cannot_take_task_and_result_is_refused_before_the_run(runs_dir: Path, scorer: Any, first: str) -> None:
    for run in (
        lambda: noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, score=scorer),
        lambda: asyncio.run(_batch_started(runs_dir, scorer)),
    ):
        with pytest.raises(InvalidOptionError) as info:
            run()
        assert str(info.value).startswith(first), str(info.value)
    assert list(runs_dir.iterdir()) == []


def test_a_scorer_with_defaults_or_star_args_is_taken(runs_dir: Path) -> None:
    noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, score=lambda *parts: 1.0)
    noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, score=lambda task, result, weight=2: weight)
    assert sorted(noesis_nb.runs_df(runs_dir)["score"]) == [1.0, 2.0]


def test_a_misspelt_governance_mode_says_which_was_meant(runs_dir: Path) -> None:
    with pytest.raises(
        InvalidOptionError, match=r"^governance='audti' \(did you mean 'audit'\?\): use 'off', 'audit' or 'enforce'$"
    ):
        noesis_nb.solve("t", using=_async_awaits, runs_dir=runs_dir, governance="audti")


def test_prices_given_a_name_instead_of_a_table_says_genai_prices_is_the_default(runs_dir: Path) -> None:
    _one_run(runs_dir)
    with pytest.raises(FileNotFoundError) as info:
        noesis_nb.usage_df(runs_dir, prices="genai-prices")
    assert str(info.value).endswith("(genai-prices is the default: leave prices= out, or add a table of your own)")
    with pytest.raises(InvalidOptionError, match=r"^prices=3: pass a dict of model"):
        noesis_nb.usage_df(runs_dir, prices=3)


# -- a thread of its own --------------------------------------------------------------------------------------


@pytest.mark.parametrize("call", ["start", "batch"])
def test_start_or_batch_from_a_thread_says_the_thread_runs_no_loop_and_what_to_use(runs_dir: Path, call: str) -> None:
    import threading

    from noesis_nb.errors import EpisodeStateError

    raised: list[BaseException] = []

    def worker() -> None:
        try:
            if call == "start":
                noesis_nb.start("t", using=_async_awaits, runs_dir=runs_dir)
            else:
                noesis_nb.batch(["t"], using=_async_awaits, root=runs_dir)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=worker, name="my-worker")
    thread.start()
    thread.join()
    [error] = raised
    assert isinstance(error, EpisodeStateError)
    assert "this is thread 'my-worker', which runs no loop: call it from the cell itself, or " in str(error), str(error)
    assert ("noesis_nb.solve(...)" if call == "start" else "asyncio.run(main())") in str(error)
    assert list(runs_dir.iterdir()) == []


# -- a python tool that is a lambda, resumed in another process ---------------------------------------------------

_PAUSES = """
import sys
import noesis_nb

def shout(text):
    return text.upper()

async def agent(task, ctx):
    fn = shout if sys.argv[2] == "top-level" else (lambda text: text.upper())
    return await ctx.tool_async("py.shout", {"args": ["hi"]}, fn=fn, effect="write", risk="high")

print(noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1]))
"""

_RESUMES = """
import sys
import noesis_nb

def shout(text):
    return text.upper()

noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[1], tools={"py.shout": shout})
"""


@pytest.mark.parametrize("tool", ["lambda", "top-level"])
def test_a_notebook_tool_resumed_in_another_process_says_what_can_be_done(runs_dir: Path, tmp_path: Path, tool: str) -> None:
    import os
    import subprocess
    import sys

    from noesis_nb.tools.errors import CallableResolutionError

    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(Path(noesis_nb.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
    )

    def python(source: str, *args: str) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "script.py"
        script.write_text(source)
        return subprocess.run(
            [sys.executable, str(script), str(runs_dir), *args], capture_output=True, text=True, env=env, timeout=120
        )

    episode_id = python(_PAUSES, tool).stdout.strip().splitlines()[-1]
    noesis_nb.approve_draft(episode_id, runs_dir=runs_dir, approver_id="ana")
    with pytest.raises(CallableResolutionError) as info:
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir)  # this process never had the notebook's function
    message = str(info.value)
    assert "callables=" not in message, message
    if tool == "lambda":
        assert "It exists only in the process that prepared it: resume the run there" in message, message
        return
    assert message.endswith(f"resume_run({episode_id!r}, tools={{'py.shout': <the function>}})"), message
    done = python(_RESUMES, episode_id)  # the advice, followed where the function is defined the same way
    assert done.returncode == 0, done.stderr
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode_id]
    assert row["status"] == "ok" and row["sealed"]


@pytest.mark.parametrize("how", ["wait_for 0", "task cancelled", "closed"])
def test_a_tool_call_cancelled_or_closed_before_it_started_is_no_forgotten_await(tmp_path: Path, how: str) -> None:
    """An adapter that gives up on a call before it starts (a timeout of 0, a cancelled task, a coroutine it
    closes) did await or drop it on purpose: its episode ends as the adapter says, not with NotAwaitedError."""
    aio = asyncio

    async def agent(task: str, ctx: Any) -> str:
        call = ctx.tool_async("notes.read", {"argv": [sys.executable, "-c", "pass"]})
        if how == "wait_for 0":
            try:
                await aio.wait_for(call, timeout=0)
            except TimeoutError:
                return "fallback"
        elif how == "task cancelled":
            running = aio.ensure_future(call)
            running.cancel()
            try:
                await running
            except aio.CancelledError:
                return "fallback"
        else:
            call.close()
            return "fallback"
        return "ran"

    episode_id = noesis_nb.solve("read the notes", using=agent, runs_dir=tmp_path)
    final = json.loads((tmp_path / episode_id / "final.json").read_text())
    assert final["outcome"] == "success", final


def test_the_async_entry_points_still_read_as_coroutine_functions() -> None:
    """Code that asks before it awaits (a framework wrapping a callable as a node or a tool) must await them."""
    from noesis_nb.runtime.context import EpisodeContext

    aio = asyncio

    for fn in (noesis_nb.solve_async, noesis_nb.resume_run_async, EpisodeContext.tool_async):
        assert aio.iscoroutinefunction(fn), fn
