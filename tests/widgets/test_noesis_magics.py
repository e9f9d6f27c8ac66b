"""The %noesis magics through IPython's test shell (no kernel), and runs shown from disk."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb import DiskRun, config
from noesis_nb.store import is_sealed, read_events
from noesis_nb.widgets import EpisodeView, handle_mimebundle, show
from tests.ipshell import start_ipython

WIDGET = "application/vnd.jupyter.widget-view+json"


def paused_on_disk(runs_dir: Path, nnb: Any, marker: Path, task: str = "append on disk") -> Path:
    """A run paused for approval whose process is gone: ``solve`` unwinds at the pause."""
    episode_id = noesis_nb.solve(
        task, using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir, approver="ask"
    )
    return runs_dir / episode_id


def test_load_and_unload_register_and_remove_the_magics() -> None:
    shell = start_ipython()
    shell.run_line_magic("load_ext", "noesis_nb")
    assert "noesis" in shell.magics_manager.magics["line"] and "noesis" in shell.magics_manager.magics["cell"]
    shell.run_line_magic("unload_ext", "noesis_nb")
    assert "noesis" not in shell.magics_manager.magics["line"] and "noesis" not in shell.magics_manager.magics["cell"]
    shell.run_line_magic("load_ext", "noesis_nb")  # loads again after an unload
    assert "noesis" in shell.magics_manager.magics["line"]


def test_help_prints_usage(ip: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert ip.run_line_magic("noesis", "--help") is None
    assert "run" in capsys.readouterr().out
    ip.run_line_magic("noesis", "approve --help")
    out = capsys.readouterr().out
    assert "--approver-id" in out and "draft" in out


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "name a subcommand"),
        ("fly", "unknown subcommand 'fly'; use one of run, batch"),
        ("run", "required: using"),
        ("run my_agent", "missing the task"),
        ('run my_agent "unclosed', "No closing quotation"),
        ("run my_agent task --governance maybe", "invalid choice"),
        ("run my_agent task --tag novalue", "is not KEY=VALUE"),
        ("run my_agent task --approver nobody", "--approver 'nobody'"),
        ("list --limit 0", "at least 1"),
        ("show ep_DOES_NOT_EXIST --runs-dir /nonexistent", "ep_DOES_NOT_EXIST"),
        ("approve ep_DOES_NOT_EXIST --runs-dir /nonexistent", "ep_DOES_NOT_EXIST"),
        ("stop ep_NOPE", "is running in this kernel; running: none"),
        ("inbox --approver-id ' '", "--approver-id must name who decides"),
        # an option the subcommand does not know: named with that subcommand's own usage, and the closest option
        (
            "run my_agent task --governence audit",
            "%noesis run: unrecognized arguments: --governence audit (did you mean --governance?)",
        ),
        ("run my_agent task --bogus", "usage: %noesis run [-h]"),
        ("list --limt 3", "%noesis list: unrecognized arguments: --limt 3 (did you mean --limit?)"),
        ("run my_agent summarise the logs", "unrecognized arguments: the logs (quote text that holds spaces"),
        # argparse's own refusals of a value say the fix too: the closest choice, what a number option takes
        (
            "run my_agent task --governance enforced",
            "invalid choice: 'enforced' (choose from 'off', 'audit', 'enforce') (did you mean 'enforce'?)",
        ),
        ("steer ep_x hi --mode next", "(did you mean 'next-item'?)"),
        ("run my_agent task --idle-timeout 2s", "invalid float value: '2s'; pass a number of seconds, e.g. --idle-timeout 30"),
        ("stop ep_x --drain soon", "invalid float value: 'soon'; pass a number of seconds, e.g. --drain 5"),
        ("list --limit ten", "invalid int value: 'ten'; pass a whole number, e.g. --limit 20"),
        # the Python twins' keyword, typed as an option: batch(root=…), inbox(root=…), idle_timeout_s=
        ("inbox --root /tmp/x", "unrecognized arguments: --root /tmp/x (did you mean --runs-dir?)"),
        ("batch tasks my_agent --root /tmp/x", "(did you mean --runs-dir?)"),
    ],
)
def test_bad_input_raises_usage_error_with_the_reason(ip: Any, line: str, reason: str) -> None:
    with pytest.raises(UsageError, match=None) as info:
        ip.run_line_magic("noesis", line)
    assert reason.lower() in str(info.value).lower()


def test_batch_with_the_agent_first_says_the_tasks_come_first(ip: Any) -> None:
    """``%noesis run`` takes the agent first; ``%noesis batch`` the tasks: the swapped order is named with the fix."""
    ip.user_ns.update(tickets=["refund request", "login fails"], janitor=lambda task: task)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", "batch janitor tickets")
    assert "the tasks come first" in str(info.value)
    assert str(info.value).endswith("%noesis batch tickets janitor")


def test_cell_magic_only_for_run(ip: Any) -> None:
    with pytest.raises(UsageError, match="only for 'run'"):
        ip.run_cell_magic("noesis", "list", "body")


def test_run_resolves_notebook_names_displays_once_and_returns_the_handle(ip: Any, runs_dir: Path, comm_log: list) -> None:
    async def my_agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": task})
        return "done"

    ip.user_ns["my_agent"] = my_agent

    async def main() -> Any:
        with capture_output() as captured:
            handle = ip.run_line_magic("noesis", f'run my_agent "say <hi>" --runs-dir {runs_dir} --tag team=a --seed 3')
        assert isinstance(handle, noesis_nb.EpisodeHandle)
        [out] = captured.outputs
        assert {WIDGET, "text/plain", "text/html"} <= set(out.data)
        assert out.data["text/plain"].startswith("EpisodeHandle(status='running'")
        assert set(handle_mimebundle(handle)) == {"text/plain"}  # the cell's Out[] does not show the view twice
        await handle.wait()
        with capture_output():
            cell = ip.run_cell_magic("noesis", f"run my_agent --runs-dir {runs_dir}", "multi\nline task\n")
        await cell.wait()
        return handle, cell

    handle, cell = asyncio.run(main())
    assert handle.status == "ok" and handle.task == "say <hi>"
    assert cell.task == "multi\nline task"
    ip.execution_count += 1  # a later cell: the view is shown in full again
    assert WIDGET in handle_mimebundle(handle)


def test_list_shows_an_escaped_table(ip: Any, runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> str:
        return "ok"

    noesis_nb.solve("<script>x</script>", using=agent, runs_dir=runs_dir)
    table = ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")
    assert len(table) == 1 and table[0]["status"] == "ok"
    assert "&lt;script&gt;" in table._repr_html_() and "<script>" not in table._repr_html_()
    assert "EPISODE_ID" in repr(table)


def test_list_shows_start_times_to_the_second_in_local_time(ip: Any, runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from noesis_nb.widgets.snapshot import local_when

    async def agent(task: str, ctx: Any) -> str:
        return "ok"

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+05:30 all year
    time.tzset()
    try:
        noesis_nb.solve("a task", using=agent, runs_dir=runs_dir)
        table = ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")
        stored = table[0]["started_at"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", stored)  # the row keeps the full value
        shown = local_when(stored)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", shown)
        assert f"<td>{shown}</td>" in table._repr_html_() and repr(table).splitlines()[1].startswith(f"{shown}  ")
        assert stored[:19] not in table._repr_html_() + repr(table)  # neither UTC nor microseconds
        assert local_when("2025-01-01T12:00:05.123456+00:00") == "2025-01-01 17:30:05"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_runs_dir_that_does_not_exist_is_said_so_by_list_and_the_inbox(ip: Any, tmp_path: Path) -> None:
    """A mistyped root must not read as "no runs" / "nothing waits": both name the folder that is not there."""
    missing = tmp_path / "runz"
    table = ip.run_line_magic("noesis", f"list --runs-dir {missing}")
    assert len(table) == 0 and f"{missing} yet (no such folder)" in repr(table)
    assert f"{missing} yet (no such folder)" in table._repr_html_()
    inbox = noesis_nb.inbox(missing)
    assert f"nothing waits for a decision: {missing} does not exist (yet)" in inbox.mimebundle()["text/html"]
    inbox.close()
    missing.mkdir()
    table = ip.run_line_magic("noesis", f"list --runs-dir {missing}")
    assert "no such folder" not in repr(table)
    inbox = noesis_nb.inbox(missing)
    assert "does not exist" not in inbox.mimebundle()["text/html"]
    inbox.close()


def test_list_of_an_empty_folder_gives_its_hint_as_plain_text(ip: Any, tmp_path: Path) -> None:
    """The hint of an empty ``%noesis list`` reads like the other hints: plain words, not italics."""
    empty = tmp_path / "runs"
    empty.mkdir()
    table = ip.run_line_magic("noesis", f"list --runs-dir {empty}")
    html = table._repr_html_()
    assert "no runs in" in html and "start one with noesis_nb.start" in html
    assert not re.search(r"<(i|em)\b|font-style", html), html


def test_runs_dir_sets_the_default(ip: Any, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_line_magic("noesis", f"runs-dir {runs_dir}")
    assert config.runs_dir() == runs_dir and str(runs_dir) in capsys.readouterr().out


def test_approve_on_disk_then_resume(
    ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any, capsys: pytest.CaptureFixture[str], comm_log: list
) -> None:
    marker = tmp_path / "effect.txt"
    run_dir = paused_on_disk(runs_dir, nnb, marker)
    assert DiskRun(run_dir).status == "paused"
    ip.run_line_magic("noesis", f'approve {run_dir.name} --runs-dir {runs_dir} --approver-id ana --reason "ok by me"')
    assert "approved" in capsys.readouterr().out
    [decision] = [json.loads(p.read_text()) for p in (run_dir / "tool_invocations" / "approvals").glob("*.json")]
    assert decision["approver_id"] == "ana" and decision["reason"] == "ok by me"
    with capture_output():
        ip.run_line_magic("noesis", f"resume {run_dir.name} --runs-dir {runs_dir}")
    assert is_sealed(run_dir) and marker.read_text() == "x"
    assert "tool.execution.succeeded" in [(e["payload"] or {}).get("event_name") for e in read_events(run_dir / "events.jsonl")]


def test_resume_before_a_decision_gives_the_magic_that_decides_and_it_works(
    ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any
) -> None:
    """``%noesis resume`` of an undecided run names the magic that decides it (not the Python call), and that line runs."""
    marker = tmp_path / "effect.txt"
    run_dir = paused_on_disk(runs_dir, nnb, marker)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", f"resume {run_dir.name} --runs-dir {runs_dir}")
    said = str(info.value)
    assert "has no decision yet" in said and "approver_id=..." not in said
    fix = re.search(r"%noesis (approve \S+ --resume)", said)
    assert fix is not None, said
    with capture_output():
        ip.run_line_magic("noesis", f"{fix.group(1)} --runs-dir {runs_dir}")
    assert is_sealed(run_dir) and marker.read_text() == "x"


def test_reject_on_disk(ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "effect.txt")
    ip.run_line_magic("noesis", f'reject {run_dir.name} --runs-dir {runs_dir} --reason "too risky"')
    assert capsys.readouterr().out.startswith("rejected by human at ")
    ip.run_line_magic("noesis", f"reject {run_dir.name} --runs-dir {runs_dir}")  # idempotent
    assert "already rejected by human at " in capsys.readouterr().out


def test_show_text_timeline(ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "effect.txt")
    ip.run_line_magic("noesis", f"show {run_dir} --text")
    out = capsys.readouterr().out
    assert "tool.approval.pending" in out and "run.checkpoint" in out


def test_paused_run_from_disk_is_approved_and_resumed_in_the_view(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    marker = tmp_path / "effect.txt"
    run_dir = paused_on_disk(runs_dir, nnb, marker)
    with capture_output() as captured:
        view = show(run_dir.name, runs_dir=runs_dir)
    assert isinstance(view, EpisodeView) and captured.outputs
    assert captured.outputs[0].data["text/plain"] == f"EpisodeRun(status='paused', events={len(view.source.events)}, pending=1)"
    assert view.stop_button.layout.display == "none" and view.resume_button.layout.display == "none"
    card = view.approvals.card()
    card.approve_button.click()
    assert card.approve_button.disabled and "approved</b> by human" in card.body.value
    assert card.controls.layout.display == "none"  # decided: its buttons go away, the decision stays
    assert view.resume_button.layout.display is None  # decided: Resume appears
    with capture_output():
        view.resume_button.click()  # no running loop here: resumes synchronously
    assert marker.read_text() == "x" and is_sealed(run_dir)
    assert view.source.status == "ok" and ">ok<" in view.header.value
    [tool] = [r for r in view.steps.rows() if r.step is not None and r.step.kind == "tool"]
    assert "approved by human" in tool.html.value and "ok</span>: exit 0" in tool.html.value
    tool.toggle.value = True  # expand: the step's raw events
    assert "tool.execution.succeeded" in tool.html.value


def test_refresh_display_updates_the_shown_view_or_shows_it(ip: Any, runs_dir: Path, comm_log: list) -> None:
    from noesis_nb.widgets import display_handle, refresh_display

    async def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "hello"})
        return "done"

    async def main() -> None:
        shown = noesis_nb.start("shown", using=agent, runs_dir=runs_dir)
        with capture_output() as captured:
            handle = display_handle(shown)
            await shown.wait()
            assert refresh_display(shown) is handle
        first, *updates = captured.outputs
        assert first.data["text/plain"].startswith("EpisodeHandle(status='running'")
        assert updates and updates[-1].update and updates[-1].transient == first.transient  # same display id
        assert updates[-1].data["text/plain"] == f"EpisodeHandle(status='ok', events={len(shown.events)}, pending=0)"
        assert ">ok<" in updates[-1].data["text/html"]

        never = noesis_nb.start("never shown", using=agent, runs_dir=runs_dir)
        await never.wait()
        with capture_output() as captured:
            refresh_display(never)
        [out] = captured.outputs
        assert not out.update and WIDGET in out.data and "terminate" in out.data["text/html"]

    asyncio.run(main())


def test_resume_clicked_twice_resumes_once_coalesced_and_leaves_no_stale_error(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    marker = tmp_path / "effect.txt"
    run_dir = paused_on_disk(runs_dir, nnb, marker)

    async def main() -> None:
        view = EpisodeView(DiskRun(run_dir))
        view.approvals.card().approve_button.click()
        await nnb.until(lambda: view.resume_button.layout.display is None)
        redraws = view.redraws
        view.resume_button.click()
        assert view.resume_button.disabled  # while the resume runs
        view.resume_button.click()  # a second click (the browser sends it after the first handler returned)
        resumes = [t for t in asyncio.all_tasks() if t.get_name().startswith("noesis_nb:resume:")]
        assert len(resumes) == 1
        await asyncio.gather(*resumes)
        await nnb.until(lambda: view.settled == "ok")
        await asyncio.sleep(0.3)
        assert marker.read_text() == "x" and is_sealed(run_dir)
        assert view.source.last_error is None and view.message.value == ""
        # ~11 events arrive with the resume: coalesced on the loop, not one redraw each
        assert view.redraws - redraws <= 5, view.redraws - redraws

    asyncio.run(main())


def test_refresh_display_does_not_resend_while_paused(ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    from noesis_nb.widgets import display_handle, refresh_display

    async def main() -> None:
        handle = noesis_nb.start(
            "append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x")), runs_dir=runs_dir, approver="ask"
        )
        with capture_output() as captured:
            display_handle(handle)
            await handle  # paused: calls refresh_display
            assert handle.status == "paused"
            refresh_display(handle)
        assert len(captured.outputs) == 1  # no update that would re-render the cards under the human's cursor
        handle.approve()
        await handle.wait()
        with capture_output() as captured:
            refresh_display(handle)
        assert captured.outputs[-1].update and "status='ok'" in captured.outputs[-1].data["text/plain"]

    asyncio.run(main())


def test_only_cell_driven_renders_wait_for_prices(
    ip: Any, runs_dir: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noesis_nb.widgets import display_handle, refresh_display
    from noesis_nb.widgets.state import CostMeter

    waits: list[int] = []
    monkeypatch.setattr(CostMeter, "wait", classmethod(lambda cls, timeout=10.0: waits.append(1)))
    go = asyncio.Event()

    async def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=2)
        await go.wait()
        return "done"

    async def main() -> None:
        handle = noesis_nb.start("priced", using=agent, runs_dir=runs_dir)
        with capture_output():
            display_handle(handle)
            view = noesis_nb.widgets.view_for(handle)
            await nnb.until(lambda: handle.usage_calls)
            go.set()
            await handle.wait()
            waits.clear()
            await nnb.until(lambda: view.settled == "ok")  # the background settle re-sends the bundle
            assert waits == []  # ... without blocking the kernel loop on the price source
            refresh_display(handle)  # cell-driven: may wait
            assert waits

    asyncio.run(main())


@pytest.mark.parametrize(
    ("line", "reason"), [("run my_agent task --idle-timeout -1", "idle_timeout_s=-1"), ("show ep_NOPE", "ep_NOPE")]
)
def test_own_errors_become_usage_errors(ip: Any, runs_dir: Path, line: str, reason: str) -> None:
    ip.user_ns["my_agent"] = lambda task, ctx: "ok"

    async def main() -> None:
        with pytest.raises(UsageError, match=reason):
            ip.run_line_magic("noesis", line)

    asyncio.run(main())


def test_a_bug_keeps_its_type_and_is_not_a_usage_error(ip: Any, runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import noesis_nb.magics

    def broken(*args: Any, **kwargs: Any) -> Any:
        return {}["missing"]  # a KeyError (a LookupError) deep in a dependency

    monkeypatch.setattr(noesis_nb.magics, "list_runs", broken)
    with pytest.raises(KeyError):
        ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")
    monkeypatch.setattr(noesis_nb.magics, "list_runs", lambda *a, **k: int("not a number"))
    with pytest.raises(ValueError, match="invalid literal") as info:
        ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")
    assert not isinstance(info.value, UsageError)


def test_inbox_shows_every_pending_draft_and_decides_with_the_approver_given(
    ip: Any, runs_dir: Path, nnb: Any, tmp_path: Path, comm_log: list
) -> None:
    runs = [paused_on_disk(runs_dir, nnb, tmp_path / f"m{i}.txt", task=f"append {i}") for i in range(2)]

    async def main() -> Any:  # the inbox follows the runs dir on the notebook's loop
        with capture_output() as shown:
            view = ip.run_line_magic("noesis", f"inbox --runs-dir {runs_dir} --approver-id ana")
        assert shown.outputs, "the magic displays the inbox"
        assert {row.item.episode_id for row in view.rows.values()} == {r.name for r in runs}
        row = next(r for r in view.rows.values() if r.item.episode_id == runs[0].name)
        row.approve_button.click()
        view.close()
        return view

    asyncio.run(main())
    [decision] = [json.loads(p.read_text()) for p in (runs[0] / "tool_invocations" / "approvals").glob("*.json")]
    assert decision["status"] == "approved" and decision["approver_id"] == "ana"
    assert not list((runs[1] / "tool_invocations" / "approvals").glob("*.json"))  # the other one still waits


def test_runs_dir_under_a_file_is_one_error_when_set_and_the_setting_stays(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    ip.run_line_magic("noesis", f"runs-dir {runs_dir}")
    with pytest.raises(UsageError, match=f"runs_dir '{blocker}/runs' cannot be made: '{blocker}' is a file, not a folder"):
        ip.run_line_magic("noesis", f"runs-dir {blocker}/runs")
    assert config.runs_dir() == runs_dir and blocker.read_text() == "mine"


def test_runs_dir_that_is_one_runs_folder_is_one_error_when_set_and_the_setting_stays(
    ip: Any, runs_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "ep_copy"
    shutil.copytree(next((Path(__file__).parents[1] / "fixtures" / "noesis-smoke-run").iterdir()), run)
    ip.run_line_magic("noesis", f"runs-dir {runs_dir}")
    with pytest.raises(UsageError, match=r"is a run directory .* pass its parent"):
        ip.run_line_magic("noesis", f"runs-dir {run}")
    assert config.runs_dir() == runs_dir


def test_runs_dir_not_made_yet_is_said_and_made_by_the_first_run(ip: Any, tmp_path: Path, capsys: Any) -> None:
    later = tmp_path / "later" / "runs"
    ip.run_line_magic("noesis", f"runs-dir {later}")
    assert f"{later} (no such folder yet: the first run makes it)" in capsys.readouterr().out
    episode_id = noesis_nb.solve("first", using=lambda task: "done", runs_dir=None)
    assert (later / episode_id).is_dir()
    ip.run_line_magic("noesis", "runs-dir")
    assert capsys.readouterr().out.strip() == str(later)


_UNWRITABLE = """
import os, sys
from tests.ipshell import run_magic
run_magic("runs-dir " + os.getcwd())  # everything imported before the drop below (the account cannot read the stdlib)
from noesis_nb.secrets.plugins import plugins
plugins()  # the secret detector, imported by the first message that quotes a value
if os.geteuid() == 0:  # root writes every folder: set it as an account that may not
    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
try:
    run_magic("runs-dir " + sys.argv[1])
except Exception as exc:
    print(type(exc).__name__, exc)
"""


_SHUT = itertools.count()


def test_runs_dir_that_cannot_be_made_here_is_one_error_when_set(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    # outside the test's private tmp (the other account reaches it), named without random letters: a path
    # part that reads random is hidden from messages like a key
    base = Path(tempfile.gettempdir()) / f"shut-{os.getpid()}-{next(_SHUT)}"
    shutil.rmtree(base, ignore_errors=True)  # left by an earlier process of the same id
    base.mkdir()
    try:
        (base / "home").mkdir(mode=0o777)
        (base / "home").chmod(0o777)
        (base / "shut").mkdir(mode=0o555)
        base.chmod(0o755)
        repo = Path(__file__).resolve().parents[2]
        got = subprocess.run(
            [sys.executable, "-c", _UNWRITABLE, str(base / "shut" / "runs")],
            env={**os.environ, "PYTHONPATH": str(repo), "HOME": str(base / "home"), "NOESIS_NB_CACHE_DIR": str(base / "home")},
            cwd=base / "home",
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    said = got.stdout.strip().splitlines()[-1] if got.stdout.strip() else got.stderr
    assert said.startswith("UsageError"), said
    assert f"runs_dir '{base}/shut/runs' cannot be made: '{base}/shut' may not be written by this user" in said
