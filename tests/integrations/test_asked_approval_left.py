"""An approval another system asked for, left when its process ended (``asyncio.run`` returned, or kill -9).

The system (an AG-UI server's run, a LangGraph graph) waits for the answer in the process that ran the episode, so
nothing in another process can continue the run. Before: the draft named an internal closure, ``approve_draft``
recorded an approval nothing could run, ``resume_run`` raised ``CallableResolutionError`` naming
``_approvals:request_approval.<locals>.approved`` and the run stayed paused for ever. Now ``approve_draft`` refuses
before it records, naming the limit and how to seal the run (reject, then resume: sealed ``vetoed``), and an
approval recorded before the process died is sealed ``error`` by ``resume_run``, with that reason.
Real processes, the example AG-UI server on 127.0.0.1 and a real LangGraph graph.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noesis_nb

pytest.importorskip("ag_ui.core")
pytest.importorskip("httpx")
pytest.importorskip("langgraph")
pytest.importorskip("noeta.sdk")

REPO = Path(__file__).resolve().parents[2]

_SERVER = textwrap.dedent(
    """
    import json, sys, threading
    from http.server import ThreadingHTTPServer
    sys.path.insert(0, sys.argv[1])
    from agui_http import Agent
    log = sys.argv[2]
    class Logged(Agent):
        def do_POST(self):
            with open(log, "a") as f:
                f.write(self.headers["Content-Length"] + chr(10))
            super().do_POST()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Logged)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """
)

_EPISODE = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    runs, system, then = sys.argv[1], sys.argv[2], sys.argv[3]
    if then == "approve-and-die":  # kill -9 once the approval is recorded, before its answer goes out
        from noesis_nb.runtime.recorder import Recorder
        real = Recorder.emit
        def emit(self, phase, payload, *args, **kwargs):
            if isinstance(payload, dict) and payload.get("event_name") == "tool.execution.started":
                os.kill(os.getpid(), signal.SIGKILL)
            return real(self, phase, payload, *args, **kwargs)
        Recorder.emit = emit
    from noesis_nb.integrations import start
    if system == "agui":
        from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
        adapter = AGUIAdapter(AGUIHttpAgent(sys.argv[4]), resume_style="forwarded_props")
    elif system == "noeta":
        import tempfile
        sys.path.insert(0, sys.argv[4])
        from noeta_fake_provider import options, provider
        from noesis_nb.integrations.noeta import NoetaAdapter
        adapter = NoetaAdapter(options, provider=provider, model="claude-sonnet-5", workspace_dir=tempfile.mkdtemp())
    else:
        sys.path.insert(0, sys.argv[4])
        from langgraph_interrupt import graph
        from noesis_nb.integrations.langgraph import LangGraphAdapter
        adapter = LangGraphAdapter(graph, input_mapper=lambda t: {"task": t})
    async def main():
        handle = start("send the March invoice", using=adapter, runs_dir=runs, approver="ask")
        await handle
        print(handle.episode_id, handle.status, flush=True)
        if then == "approve-and-die":
            handle.approve(approver_id="ana")
        if then != "leave":  # "wait": decided by another process while this one waits
            await handle.wait()
            print(handle.status, handle.result(), flush=True)
    asyncio.run(main())
    """
)

_DECIDE = textwrap.dedent(
    """
    import json, sys, noesis_nb
    run, step = sys.argv[1], sys.argv[2]
    try:
        if step == "approve":
            noesis_nb.approve_draft(run, approver_id="ana")
        elif step == "reject":
            noesis_nb.reject_draft(run, reason="nobody can send it now", approver_id="ana")
        else:
            noesis_nb.resume_run(run)
    except Exception as exc:
        print(json.dumps({"raised": type(exc).__name__, "message": str(exc)}))
    else:
        print(json.dumps({"raised": None}))
    """
)


@pytest.fixture
def agui_server(tmp_path):
    log = tmp_path / "posts.log"
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(REPO / "examples" / "integrations"), str(log)], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/agent/run", log
    finally:
        proc.kill()
        proc.wait()


def _episode(runs: Path, system: str, then: str, where: str) -> tuple[Path, int]:
    done = subprocess.run(
        [sys.executable, "-c", _EPISODE, str(runs), system, then, where], capture_output=True, text=True, timeout=120
    )
    episode_id = done.stdout.split()[0]
    return runs / episode_id, done.returncode


def _step(run: Path, step: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _DECIDE, str(run), step], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _state(run: Path) -> dict:
    return json.loads((run / "state.json").read_text())


def _row(runs: Path, run: Path):
    return noesis_nb.runs_df(runs).set_index("episode_id").loc[run.name]


def _left(system: str, runs: Path, agui_server) -> Path:
    where = agui_server[0] if system == "agui" else str(REPO / "examples" / "integrations")
    run, code = _episode(runs, system, "leave", where)
    assert code == 0
    assert _row(runs, run)["status"] == "paused"
    return run


@pytest.mark.parametrize(
    ("system", "named"), [("agui", "AG-UI agent"), ("langgraph", "LangGraph graph"), ("noeta", "Noeta agent")]
)
def test_approving_a_left_approval_is_refused_unrecorded_and_reject_then_resume_seals_it(system, named, runs_dir, agui_server):
    run = _left(system, runs_dir, agui_server)

    said = _step(run, "approve")
    assert said["raised"] == "AskerGoneError", said
    message = said["message"]
    assert named in message and run.name in message
    assert f"reject_draft('{run.name}'" in message and f"resume_run('{run.name}')" in message
    assert "<locals>" not in message and "_approvals" not in message
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))  # nothing recorded

    assert _step(run, "reject") == {"raised": None}
    assert _step(run, "resume") == {"raised": None}
    row = _row(runs_dir, run)
    assert row["status"] == "vetoed" and bool(row["sealed"])
    assert "nobody can send it now" in _state(run)["outcomes"]["summary"]
    if system == "agui":  # the one run that interrupted; nothing was sent to the server since
        assert len(agui_server[1].read_text().splitlines()) == 1


def test_an_approval_recorded_before_the_process_died_is_sealed_error_saying_why(runs_dir, agui_server):
    run, code = _episode(runs_dir, "agui", "approve-and-die", agui_server[0])
    assert code == -9
    decided = json.loads(next((run / "tool_invocations" / "approvals").glob("*.json")).read_text())
    assert decided["status"] == "approved"

    assert _step(run, "resume") == {"raised": None}
    row = _row(runs_dir, run)
    assert row["status"] == "error" and bool(row["sealed"])
    summary = _state(run)["outcomes"]["summary"]
    assert "AG-UI agent" in summary and "cannot continue" in summary and "<locals>" not in summary
    tools = noesis_nb.tools_df(runs_dir)
    assert list(tools["status"]) == ["failed"]
    assert len(agui_server[1].read_text().splitlines()) == 1  # the answer never went out


def test_approved_from_another_process_while_the_episode_waits_it_goes_on(runs_dir, agui_server):
    proc = subprocess.Popen(
        [sys.executable, "-c", _EPISODE, str(runs_dir), "agui", "wait", agui_server[0]], stdout=subprocess.PIPE, text=True
    )
    try:
        episode_id, status = proc.stdout.readline().split()
        assert status == "paused"
        assert _step(runs_dir / episode_id, "approve") == {"raised": None}  # its process holds the run: recorded
        ended = proc.stdout.readline().strip().split(maxsplit=1)
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    assert ended == ["ok", "Invoice sent."]
    assert len(agui_server[1].read_text().splitlines()) == 2  # the approval went to the server as its resume
