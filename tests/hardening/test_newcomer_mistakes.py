"""Mistakes a newcomer makes in a first notebook: each gets one error naming the value given and the fix,
raised before anything is written (no raw error from a library inside, no silent wrong result)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError

import noesis_nb
import noesis_nb.ns as ns
from noesis_nb import plots
from noesis_nb.errors import InvalidIdError, InvalidOptionError, RunNotFoundError, RunsDirError, UsingResolutionError

# -- using= ---------------------------------------------------------------------------------------------


def test_a_module_given_as_using_is_named_by_its_name_with_the_fix(runs_dir: Path) -> None:
    with pytest.raises(UsingResolutionError) as info:
        noesis_nb.solve("t", using=json, runs_dir=runs_dir)
    message = str(info.value)
    assert message.startswith("using=json is a module;"), message
    assert "json.<function>" in message or "'json:<function>'" in message
    assert list(runs_dir.iterdir()) == []


def test_an_adapter_whose_task_is_keyword_only_is_named_not_called_as_a_factory(runs_dir: Path) -> None:
    def agent(*, task: str) -> str:
        return task

    with pytest.raises(UsingResolutionError, match=r"using='agent' requires the keyword argument\(s\) task"):
        noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert list(runs_dir.iterdir()) == []


def test_an_adapter_taking_star_args_gets_the_task(runs_dir: Path) -> None:
    seen: list[Any] = []

    def agent(*args: Any) -> str:
        seen.append(args)
        return "done"

    episode_id = noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert seen and seen[0][0] == "t"
    assert json.loads((runs_dir / episode_id / "summary.json").read_text())["status"] == "ok"


def test_an_adapter_behind_a_decorator_without_wraps_gets_the_task(runs_dir: Path) -> None:
    def timed(fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:  # no functools.wraps: its signature is (*args, **kwargs)
            return fn(*args, **kwargs)

        return wrapper

    @timed
    def agent(task: str, ctx: Any) -> str:
        return task.upper()

    async def main() -> Any:
        handle = noesis_nb.start("tag it", using=agent, runs_dir=runs_dir)
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "TAG IT"


def test_task_and_using_swapped_are_named_as_swapped(runs_dir: Path) -> None:
    def agent(task: str) -> str:
        return task

    with pytest.raises(InvalidOptionError, match=r"task=agent is a function: .* using=agent\)"):
        noesis_nb.solve(agent, using="Tag release v1.2.0", runs_dir=runs_dir)  # type: ignore[arg-type]
    assert list(runs_dir.iterdir()) == []


def test_an_approver_that_takes_no_argument_is_refused_before_the_run(runs_dir: Path) -> None:
    def approve_everything() -> bool:
        return True

    with pytest.raises(InvalidOptionError, match=r"approver=approve_everything takes no argument.*PendingApproval"):
        noesis_nb.solve("t", using=lambda task: task, runs_dir=runs_dir, approver=approve_everything)
    assert list(runs_dir.iterdir()) == []


def test_an_approver_needing_two_arguments_is_refused_before_the_run(runs_dir: Path) -> None:
    def policy(pending: Any, context: Any) -> bool:
        return True

    with pytest.raises(InvalidOptionError, match=r"approver=policy requires 2 arguments \(pending, context\)"):
        noesis_nb.solve("t", using=lambda task: task, runs_dir=runs_dir, approver=policy)


# -- runs_dir ---------------------------------------------------------------------------------------------


def test_a_runs_dir_that_is_a_file_is_named_a_file(runs_dir: Path) -> None:
    afile = runs_dir / "notes.txt"
    afile.write_text("x")
    with pytest.raises(RunsDirError, match=r"is a file, not a folder"):
        noesis_nb.solve("t", using=lambda task: task, runs_dir=afile)


# -- tools -------------------------------------------------------------------------------------------------


def _error_of(adapter: Any, runs_dir: Path) -> BaseException:
    async def main() -> BaseException:
        handle = noesis_nb.start("t", using=adapter, runs_dir=runs_dir, approver="auto")
        await handle
        assert handle.status == "error"
        with pytest.raises(BaseException) as info:
            handle.result()
        return info.value

    return asyncio.run(main())


def test_a_python_tool_given_fn_as_a_string_is_named(runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("py.cwd", {"args": []}, fn="os.getcwd")

    exc = _error_of(agent, runs_dir)
    assert isinstance(exc, InvalidOptionError), repr(exc)
    assert "fn='os.getcwd' is not callable" in str(exc) and "fn=os.getcwd" in str(exc)


def test_requires_approval_given_as_text_is_refused(runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.ls", {"argv": ["true"]}, requires_approval="no")

    exc = _error_of(agent, runs_dir)
    assert isinstance(exc, InvalidOptionError), repr(exc)
    assert "requires_approval='no'" in str(exc) and "True or False" in str(exc)


# -- approve_draft and friends ---------------------------------------------------------------------------


def test_a_handle_given_where_an_episode_id_goes_names_the_handle_methods(runs_dir: Path) -> None:
    async def main() -> None:
        handle = noesis_nb.start("t", using=lambda task: task, runs_dir=runs_dir)
        await handle
        with pytest.raises(InvalidIdError) as info:
            noesis_nb.approve_draft(handle, approver_id="ana")  # type: ignore[arg-type]
        message = str(info.value)
        assert message.startswith("got an EpisodeHandle"), message
        assert "handle.approve(" in message and "handle.episode_id" in message

    asyncio.run(main())


def test_a_draft_id_given_as_the_episode_names_both(runs_dir: Path) -> None:
    draft = "draft:ep_01K9RBBMXXRSFWR49SXFGF4SPR:req_01K9RBBN0000000000000000"
    with pytest.raises(RunNotFoundError) as info:
        noesis_nb.approve_draft(draft, approver_id="ana", runs_dir=runs_dir)
    message = str(info.value)
    assert "is a draft id" in message
    assert "approve_draft('ep_01K9RBBMXXRSFWR49SXFGF4SPR', draft_id=" in message
    with pytest.raises(
        RunNotFoundError, match=r"is a draft id, not an episode id.*resume_run\('ep_01K9RBBMXXRSFWR49SXFGF4SPR'\)"
    ):
        noesis_nb.resume_run(draft, runs_dir=runs_dir)


# -- the ns facade ---------------------------------------------------------------------------------------


def test_ns_events_called_as_a_function_names_events_read() -> None:
    with pytest.raises(TypeError, match=r"ns\.events\.read\('ep_x'"):
        ns.events("ep_x")
    with pytest.raises(TypeError, match=r"ns\.summary\.read\('ep_x'"):
        ns.summary("ep_x")


def test_ns_set_with_a_near_miss_says_which_setting_was_meant() -> None:
    with pytest.raises(InvalidOptionError, match=r"'governance' \(did you mean 'governance_mode'\?\)"):
        ns.set(governance="audit")
    with pytest.raises(InvalidOptionError, match=r"'runsdir' \(did you mean 'runs_dir'\?\)"):
        ns.set(runsdir="x")


# -- plots -----------------------------------------------------------------------------------------------


def _usage(runs_dir: Path) -> pd.DataFrame:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    return noesis_nb.usage_df(runs_dir)


def test_a_misspelt_by_names_by_and_the_columns_not_the_frame(runs_dir: Path) -> None:
    usage = _usage(runs_dir)
    for plot in (plots.tokens_by, plots.cost_over_time):
        with pytest.raises(ValueError) as info:
            plot(usage, by="modle")
        message = str(info.value)
        assert "by='modle' is not a column" in message and "did you mean 'model'?" in message, message
        assert "pass noesis_nb.usage_df" not in message
    tools = noesis_nb.tools_df(runs_dir)
    with pytest.raises(ValueError, match=r"by='tools' is not a column of the tools_df frame \(did you mean 'tool'\?\)"):
        plots.approval_waits(tools, by="tools")


def test_a_freq_pandas_does_not_know_is_named_with_examples(runs_dir: Path) -> None:
    usage = _usage(runs_dir)
    with pytest.raises(ValueError) as info:
        plots.tokens_over_time(usage, freq="hourly")
    message = str(info.value)
    assert message.startswith("tokens_over_time: freq='hourly' is not a pandas frequency"), message
    assert "'1h'" in message and message.count("hourly") == 1
    for freq in ("1W", "1ME", None, "0h", "-1h"):  # not fixed (a week, a month), none, not positive
        with pytest.raises(ValueError, match=r"tokens_over_time: freq=.* is not a pandas frequency"):
            plots.tokens_over_time(usage, freq=freq)  # type: ignore[arg-type]
    assert plots.tokens_over_time(usage, freq="7D").data


# -- one line in a cell ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "first_line"),
    [
        ("noesis_nb.plots.tokens_by(noesis_nb.tools_df(RUNS))", "InvalidOptionError: tokens_by needs usage_df columns"),
        ("noesis_nb.plots.tokens_by(noesis_nb.usage_df(RUNS), by='modle')", "InvalidOptionError: tokens_by: by='modle'"),
        ("noesis_nb.plots.tokens_over_time(noesis_nb.usage_df(RUNS), freq='hourly')", "InvalidOptionError: tokens_over_time"),
        ("noesis_nb.plots.episode_timeline(noesis_nb.events_df(RUNS), 'ep_nope')", "InvalidOptionError: episode_id='ep_nope'"),
        ("noesis_nb.runs_df(3)", "InvalidOptionError: source=3 (type int) is not a run source"),
        ("noesis_nb.ns.events('ep_x')", "InvalidOptionError: ns.events is not a function"),
    ],
)
def test_a_wrong_argument_in_a_cell_shows_one_line_not_a_traceback(ip: Any, runs_dir: Path, cell: str, first_line: str) -> None:
    from IPython.utils.capture import capture_output

    _usage(runs_dir)
    ip.user_ns.update(noesis_nb=noesis_nb, RUNS=str(runs_dir))
    with capture_output() as out:
        result = ip.run_cell(cell)
    assert isinstance(result.error_in_exec, (ValueError, TypeError))  # still the builtin types code catches
    shown = out.stdout + out.stderr
    assert shown.startswith(first_line), shown
    assert "Traceback" not in shown and "noesis_nb/" not in shown, shown


# -- %noesis -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "first_line", "help_hint"),
    [
        ("lst", "%noesis: unknown subcommand 'lst' (did you mean 'list'?)", "(see %noesis --help)"),
        ("run my_agent task --seed abc", "%noesis run: argument --seed: invalid int value: 'abc'", "(see %noesis run --help)"),
        ("list --limit x", "%noesis list: argument --limit: invalid int value: 'x'", "(see %noesis list --help)"),
        ("show", "%noesis show: the following arguments are required: episode", "(see %noesis show --help)"),
        (
            "--drain 5 stop ep_x",
            "%noesis: --drain goes after the subcommand: %noesis stop … --drain …",
            "(see %noesis --help)",
        ),
        (
            "--runs-dir /tmp/x",
            "%noesis: --runs-dir goes after the subcommand: %noesis <subcommand> … --runs-dir … (run, batch, list,",
            "(see %noesis --help)",
        ),
        (
            "--bogus list",
            "%noesis: --bogus is no option of %noesis list; options go after the subcommand",
            "(see %noesis --help)",
        ),
        (
            "--runs-dir /tmp/x list",
            "%noesis: --runs-dir goes after the subcommand: %noesis list … --runs-dir …",
            "(see %noesis --help)",
        ),
    ],
)
def test_magic_usage_errors_name_the_subcommand_and_its_help(ip: Any, line: str, first_line: str, help_hint: str) -> None:
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", line)
    message = str(info.value)
    assert message.splitlines()[0].startswith(first_line), message
    assert message.splitlines()[-1] == help_hint, message
