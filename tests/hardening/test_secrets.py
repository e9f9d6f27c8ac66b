"""Issue 9 item 7: no secret reaches a run directory or a rendered view, whatever entry it comes through.

27 secret shapes (tests/hardening/secret_corpus.py) go through every entry an agent has: subprocess
argv and env (real subprocesses, through shim executables named like the real programs), a Python
tool's kwargs, model-call payloads, ``ctx.emit`` payloads, the adapter's result and its exception.
Episodes run for real (``start`` with a human clicking, ``solve`` with auto-approval, a paused
``solve`` resumed by another process); then every file of the run and every HTML surface (the
view's snapshot, the widget's HTML, approval cards, timeline rows) is searched for each secret and
each 8-character fragment of it. The run must also stay useful: the non-secrets it holds survive,
and it passes its own manifest check and readers.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.store import read_events, verify_manifest

from .report import figures
from .secret_corpus import corpus, leaks, run_files
from .secret_tools import calls

SEED = int(os.environ.get("NOESIS_NB_SECRET_SEED", "7"))
SHAPES = corpus(SEED)
REPO = Path(__file__).resolve().parents[2]
MODEL = "claude-sonnet-4-5-20250929"
KEEP = ["git", "commit", "-m", "fix bug in parser"]  # an ordinary command line that must stay as it is


def _shims(tmp: Path) -> str:
    """A PATH whose programs (gh, aws, curl, mysql, …) print how many arguments they got, then their arguments."""
    bindir = tmp / "bin"
    bindir.mkdir()
    for name in {s.argv[0] for s in SHAPES} | {"git"}:
        path = bindir / name
        path.write_text(f"#!{sys.executable}\nimport sys\nprint(len(sys.argv) - 1, *sys.argv[1:])\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"


def echo(**kwargs):
    """A python tool (module level: importable) that returns what it was given."""
    return {"got": kwargs}


def _agent(path: str, *, fail: bool = False, tool_effect: str = "write"):
    text = " ; ".join(s.text for s in SHAPES)

    async def agent(task, ctx):
        ctx.emit("reason", {"text": f"plan: {text}"})
        ctx.emit("note", {"request": {s.name: s.kwargs for s in SHAPES}, "env": {k: v for s in SHAPES for k, v in s.env.items()}})
        ctx.emit(
            "model",
            {
                "event_name": "model.call",
                "model": MODEL,
                "provider": "anthropic",
                "input_tokens": 1234,
                "output_tokens": 56,
                "messages": [{"role": "user", "content": text}],
            },
        )
        ctx.model_call(MODEL, provider="anthropic", input_tokens=1234, output_tokens=56)
        outputs = []
        for shape in SHAPES:
            outputs.append(
                await ctx.tool_async(
                    f"shell.{shape.name}",
                    {"argv": shape.argv, "env": {**shape.env, "PATH": path}},
                    effect=tool_effect,
                    risk="high",
                )
            )
        outputs.append(await ctx.tool_async("shell.git", {"argv": KEEP, "env": {"PATH": path}}, effect=tool_effect, risk="high"))
        got = await ctx.tool_async(
            "py.echo", {"kwargs": {s.name: s.kwargs for s in SHAPES}}, fn=echo, effect=tool_effect, risk="high"
        )
        if fail:
            raise RuntimeError(f"upstream refused: {text}")
        return {"summary": f"done: {text}", "stdout": [o["stdout"] for o in outputs], "echo": got}

    return agent


def _html_values(widget) -> list[str]:
    out = [widget.value] if hasattr(widget, "value") and isinstance(widget.value, str) else []
    for child in getattr(widget, "children", ()) or ():
        out.extend(_html_values(child))
    return out


def _surfaces(source, *, rows: bool = True) -> list[tuple[str, bytes]]:
    """Every HTML a user can see of ``source``: snapshot, widget HTML (header, cards, timeline), each row."""
    from noesis_nb.widgets import EpisodeView
    from noesis_nb.widgets.cards import pending_html
    from noesis_nb.widgets.render import row_html

    view = EpisodeView(source)
    view.flush()
    html = [("snapshot", view.snapshot_html()), ("text/html", view.mimebundle(widget=False)["text/html"])]
    html += [(f"widget[{i}]", v) for i, v in enumerate(_html_values(view))]
    html += [(f"card {p.draft_id}", pending_html(p)) for p in source.pending]
    html += [(f"row {e.get('id')}", row_html(e)) for e in (source.events if rows else ())]
    view.close()
    return [(where, text.encode()) for where, text in html]


def _assert_useful(run_dir: Path, *, status: str) -> None:
    """No over-redaction: what the runtime and the ordinary tool call wrote is intact, and the run checks out."""
    assert verify_manifest(run_dir).ok
    events = read_events(run_dir / "events.jsonl", strict=True)
    model = [e for e in events if e["phase"] == "model" and e["payload"].get("event_name") == "model.call"]
    assert {e["payload"]["model"] for e in model} == {MODEL} and all(e["payload"]["input_tokens"] == 1234 for e in model)
    assert all("REDACTED" not in json.dumps({k: v for k, v in e.items() if k != "payload"}) for e in events)  # ids, times
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == status and summary["episode_id"] == run_dir.name
    assert summary["x-noesis_nb"]["usage"]["input_tokens"] == 1234 * len(model)  # token counts add up
    prepared = [json.loads(p.read_text()) for p in (run_dir / "tool_invocations" / "prepared").glob("*.json")]
    git = [p for p in prepared if p["tool"]["name"] == "git"]
    assert git and git[0]["payload"]["normalized_payload"]["argv"] == KEEP and not git[0]["payload"]["redaction_applied"]
    assert all(
        p["payload"]["request_fingerprint"].startswith("sha256:") and "REDACTED" not in p["payload"]["request_fingerprint"]
        for p in prepared
    )
    frames = noesis_nb.events_df(run_dir.parent)
    assert len(frames[frames["episode_id"] == run_dir.name]) == len(events)


_SEARCHED = {"shapes": len(SHAPES), "files and surfaces searched": 0, "secrets found": 0}


def _assert_clean(blobs: list[tuple[str, bytes]]) -> None:
    found = leaks(SHAPES, blobs)
    assert found == [], f"secrets found (seed {SEED}): {found[:20]}"
    if not _SEARCHED["files and surfaces searched"]:
        figures("secrets kept out of runs and views", _SEARCHED)  # the count below grows in place
    _SEARCHED["files and surfaces searched"] += len(blobs)


def test_corpus_has_twenty_shapes_or_more():
    assert len(SHAPES) >= 20 and len({s.name for s in SHAPES}) == len(SHAPES)


def test_start_with_human_approvals_leaves_no_secret_on_disk_or_in_any_view(tmp_path):
    path = _shims(tmp_path)
    seen: list[tuple[str, bytes]] = []

    async def main():
        handle = noesis_nb.start("ship the release", using=_agent(path), runs_dir=tmp_path / "runs")
        while not handle.done():
            await handle
            if handle.pending:
                seen.extend(_surfaces(handle, rows=False))  # the paused view: approval card, snapshot, widget
                for pending in handle.pending:
                    handle.approve(pending.draft_id, approver_id="ana", reason="looks fine")
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok", handle.result() if handle.status == "error" else handle.status
    run_dir = Path(handle.run_dir)
    stdout = handle.result()["stdout"]
    assert stdout[-1].split()[0] == str(len(KEEP) - 1)  # the tools really ran, with every argument
    assert [int(line.split()[0]) for line in stdout[:-1]] == [len(s.argv) - 1 for s in SHAPES]
    _assert_clean(run_files(run_dir) + seen + _surfaces(handle) + _surfaces(DiskRun(run_dir)))
    _assert_useful(run_dir, status="ok")


def test_solve_with_auto_approval_and_an_exception_leaves_no_secret(tmp_path):
    path = _shims(tmp_path)
    episode_id = noesis_nb.solve("ship the release", using=_agent(path, fail=True), runs_dir=tmp_path / "runs", approver="auto")
    run_dir = tmp_path / "runs" / episode_id
    terminate = [e for e in read_events(run_dir / "events.jsonl", strict=True) if e["phase"] == "terminate"]
    assert terminate[0]["payload"]["message"].startswith("upstream refused: ")  # the message is kept, minus secrets
    _assert_clean(run_files(run_dir) + _surfaces(DiskRun(run_dir)))
    _assert_useful(run_dir, status="error")


RESUME = textwrap.dedent("""
    import json, sys, warnings
    import noesis_nb
    from noesis_nb.tools import SecretUnavailableError
    run_dir, secret = sys.argv[1], sys.argv[2]
    noesis_nb.approve_draft(run_dir, approver_id="bob")
    before = open(run_dir + "/events.jsonl", "rb").read()
    try:
        noesis_nb.resume_run(run_dir)
        print(json.dumps({"first": "resumed"}))
    except SecretUnavailableError as exc:
        same = open(run_dir + "/events.jsonl", "rb").read() == before
        noesis_nb.resume_run(run_dir, secrets={"kwargs.auth": secret})
        print(json.dumps({"first": str(exc), "unchanged": same}))
""")


def call_with_auth(task, ctx):
    """A sync adapter whose python tool takes an ``auth`` argument (paused for approval by ``solve``)."""
    from .secret_tools import call_api

    out = ctx.tool(
        "api.call",
        {"kwargs": {"url": "https://api.example.com/v1", "auth": SHAPES[0].value, "marker": ctx.tags["marker"]}},
        fn=call_api,
        effect="write",
        risk="high",
    )
    return {"answer": f"api said: {out['result']['echo']}"}


def test_paused_python_tool_with_a_redacted_auth_is_resumed_by_another_process(tmp_path):
    marker = tmp_path / "calls.jsonl"
    episode_id = noesis_nb.solve("call the api", using=call_with_auth, runs_dir=tmp_path / "runs", tags={"marker": str(marker)})
    run_dir = tmp_path / "runs" / episode_id
    assert not (run_dir / "final.json").exists() and calls(marker) == 0  # paused on the draft
    _assert_clean(run_files(run_dir) + _surfaces(DiskRun(run_dir)))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", RESUME, str(run_dir), SHAPES[0].value],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    # the error names the missing secret by path and says exactly how to supply it; nothing was written
    assert "kwargs.auth" in report["first"] and f"resume_run({episode_id!r}, secrets=" in report["first"]
    assert "NOESIS_NB_SECRET_KWARGS_AUTH" in report["first"] and report["unchanged"] is True
    assert calls(marker) == 1 and (run_dir / "final.json").exists()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "ok" and "[REDACTED]" in json.dumps(summary["answer"])
    assert verify_manifest(run_dir).ok
    _assert_clean(run_files(run_dir) + _surfaces(DiskRun(run_dir)))


def test_secret_can_also_come_from_an_environment_variable_named_in_the_error(tmp_path):
    marker = tmp_path / "calls.jsonl"
    episode_id = noesis_nb.solve("call the api", using=call_with_auth, runs_dir=tmp_path / "runs", tags={"marker": str(marker)})
    run_dir = tmp_path / "runs" / episode_id
    code = "import noesis_nb, sys; noesis_nb.approve_draft(sys.argv[1], approver_id='bob'); noesis_nb.resume_run(sys.argv[1])"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_SECRET_KWARGS_AUTH": SHAPES[0].value}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(run_dir)], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert calls(marker) == 1 and json.loads((run_dir / "summary.json").read_text())["status"] == "ok"
    _assert_clean(run_files(run_dir))


def test_a_wrong_secret_is_refused_and_the_run_stays_resumable(tmp_path):
    marker = tmp_path / "calls.jsonl"
    episode_id = noesis_nb.solve("call the api", using=call_with_auth, runs_dir=tmp_path / "runs", tags={"marker": str(marker)})
    run_dir = tmp_path / "runs" / episode_id
    noesis_nb.approve_draft(run_dir, approver_id="bob")
    from noesis_nb.tools import PROCESS_VAULT, PayloadIntegrityError

    PROCESS_VAULT.clear()  # as in another process: the real payload is not in memory
    before = (run_dir / "events.jsonl").read_bytes()
    with pytest.raises(PayloadIntegrityError, match="kwargs.auth"):
        noesis_nb.resume_run(run_dir, secrets={"kwargs.auth": "not-the-secret"})
    assert (run_dir / "events.jsonl").read_bytes() == before and calls(marker) == 0
    noesis_nb.resume_run(run_dir, secrets={"kwargs.auth": SHAPES[0].value})
    assert calls(marker) == 1 and json.loads((run_dir / "summary.json").read_text())["status"] == "ok"
    _assert_clean(run_files(run_dir))


LOW = "staple" + "".join(c for c in SHAPES[0].value.lower() if c.isalpha())[-10:]  # nothing marks it where it first appears


def test_a_value_learned_late_is_swept_from_lines_written_before(tmp_path):
    """The adapter mentions a value in prose (undetectable), later hands it over as ``password``: the sealed
    run holds it nowhere, earlier lines included, and its earlier checkpoint digests stay irrelevant (sealed)."""

    async def agent(task, ctx):
        ctx.emit("reason", {"text": f"remember {LOW} for later"})
        return {"password": LOW, "note": "x" * 385 + SHAPES[1].value}  # also cut by the 400-character message

    episode_id = noesis_nb.solve("late", using=agent, runs_dir=tmp_path / "runs")
    run_dir = tmp_path / "runs" / episode_id
    blobs = run_files(run_dir)
    assert not [w for w, b in blobs if LOW.encode() in b or LOW[:8].encode() in b]
    _assert_clean(blobs)
    reason = next(e for e in read_events(run_dir / "events.jsonl", strict=True) if e["phase"] == "reason")
    assert reason["payload"]["text"] == "remember [REDACTED] for later"
    assert verify_manifest(run_dir).ok


def late_then_pause(task, ctx):
    ctx.emit("reason", {"text": f"will use {LOW}"})
    return ctx.tool(
        "shell.echo", {"argv": [sys.executable, "-c", "print('ok')"], "env": {"APP_PASSWORD": LOW}}, effect="write", risk="high"
    )


def test_a_value_learned_at_a_pause_is_swept_before_the_checkpoint_so_the_run_resumes(tmp_path, monkeypatch):
    episode_id = noesis_nb.solve("late pause", using=late_then_pause, runs_dir=tmp_path / "runs")
    run_dir = tmp_path / "runs" / episode_id
    assert not (run_dir / "final.json").exists()
    assert not [w for w, b in run_files(run_dir) if LOW[:8].encode() in b]
    env = {**os.environ, "PYTHONPATH": str(REPO), "APP_PASSWORD": LOW}  # the env secret, from the environment
    code = "import noesis_nb, sys; noesis_nb.approve_draft(sys.argv[1], approver_id='bob'); noesis_nb.resume_run(sys.argv[1])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(run_dir)], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]  # the checkpoint was written after the sweep: it validates
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "ok"
    assert not [w for w, b in run_files(run_dir) if LOW[:8].encode() in b]


def test_a_short_secret_in_the_result_is_redacted_in_the_summary_message_and_state(tmp_path):
    def agent(task, ctx):
        return {"password": "ab#12", "detail": "ok"}  # too short to hunt elsewhere, but named

    episode_id = noesis_nb.solve("short", using=agent, runs_dir=tmp_path / "runs")
    run_dir = tmp_path / "runs" / episode_id
    assert not [w for w, b in run_files(run_dir) if b"ab#12" in b]
    assert json.loads((run_dir / "summary.json").read_text())["answer"] == {"result": {"password": "[REDACTED]", "detail": "ok"}}
