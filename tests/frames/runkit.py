"""Hand-written run directories in both Noēsis serialisations, and a set of engine-written runs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import string
from pathlib import Path
from typing import Any

SMOKE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-smoke-run"


def dump_line(event: dict[str, Any], style: str) -> str:
    """``old``: json.dumps defaults (", ", ": "), insertion order; ``new``: sorted keys, compact, raw UTF-8."""
    if style == "old":
        return json.dumps(event) + "\n"
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def event(ep: str, n: int, phase: str, payload: dict[str, Any], *, ts: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{ep}-e{n}",
        "timestamp": ts,
        "episode_id": ep,
        "agent_id": extra.pop("agent_id", "system"),
        "phase": phase,
        "payload": payload,
        "evidence_ids": [],
        **extra,
    }


def fresh_password() -> str:
    """A fresh password no detector finds alone (letters and digits, 12 of them), unknown to the process."""
    alphabet = string.ascii_letters + string.digits
    while True:
        value = "".join(secrets.choice(alphabet) for _ in range(12))
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value):
            return value


def write_run(
    root: Path,
    ep: str,
    events: list[dict[str, Any]],
    *,
    style: str = "new",
    summary: dict[str, Any] | None = None,
    state: dict[str, Any] | None = None,
    final: dict[str, Any] | None = None,
    manifest: bool = False,
    extra_lines: list[bytes] = (),
) -> Path:
    run = root / ep
    run.mkdir(parents=True)
    with open(run / "events.jsonl", "w", encoding="utf-8") as fh:
        for e in events:
            fh.write(dump_line(e, style))
    if extra_lines:
        with open(run / "events.jsonl", "ab") as fh:
            for line in extra_lines:
                fh.write(line)
    for name, doc in (("summary.json", summary), ("state.json", state), ("final.json", final)):
        if doc is not None:
            (run / name).write_text(json.dumps(doc, indent=2 if style == "old" else None))
    if manifest:
        files = []
        for path in sorted(p for p in run.rglob("*") if p.is_file()):
            data = path.read_bytes()
            files.append(
                {
                    "name": path.relative_to(run).as_posix(),
                    "sha256": "sha256:" + hashlib.sha256(data).hexdigest(),
                    "size_bytes": len(data),
                    "kind": "attachment",
                }
            )
        (run / "manifest.json").write_text(json.dumps({"schema_version": "manifest/1.0", "episode_id": ep, "files": files}))
    return run


def one_field_run(root: Path, ep: str, key: str, values: list[Any]) -> Path:
    """A run of one ``act`` event per value, each holding it as ``payload[key]``, its summary's ``metrics[key]`` the
    first value: a field of untrusted JSON, for the extra columns' readings of odd values."""
    run = root / ep
    run.mkdir(parents=True)
    lines = [event(ep, i, "act", {key: value}, ts=f"2025-01-01T00:00:{i:02d}.000000+00:00") for i, value in enumerate(values)]
    (run / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (run / "summary.json").write_text(json.dumps({"episode_id": ep, "metrics": {key: values[0]}}))
    return run


def unsealed_run(root: Path, ep: str, payloads: list[dict[str, Any]], *, style: str = "old") -> Path:
    """A run as another program writes it (not sealed by noesis_nb): start, a ``model`` event per payload, terminate
    (event 30), with its summary and state."""

    def numbered(n: int, phase: str, payload: dict[str, Any]) -> dict[str, Any]:
        ts = f"2026-12-07T07:00:{n:02d}.000000+00:00"
        return event(ep, n, phase, payload, ts=ts, id=f"00000000-0000-4000-8000-{n:012x}")

    events = [numbered(1, "start", {"task": "t", "using": "agent", "seed": 0})]
    events += [numbered(2 + i, "model", p) for i, p in enumerate(payloads)]
    events.append(numbered(30, "terminate", {"status": "ok", "message": "done"}))
    summary = {
        "episode_id": ep,
        "status": "ok",
        "task": "t",
        "started_at": "2026-12-07T07:00:00+00:00",
        "schema_version": "1.3.0",
    }
    state = {"episode": {"id": ep, "tags": {}}, "goal": {"task": "t"}}
    return write_run(root, ep, events, style=style, summary=summary, state=state)


def model_call(ep: str, n: int, ts: str, model: str, provider: str | None, **tokens: Any) -> dict[str, Any]:
    payload = {
        "event_name": "model.call",
        "model": model,
        "provider": provider,
        "input_tokens": None,
        "output_tokens": None,
        "cached_input_tokens": None,
        "cache_write_input_tokens": None,
        "reasoning_tokens": None,
        "latency_ms": None,
        "cost_usd": None,
    }
    payload.update(tokens)
    return event(ep, n, "model", payload, ts=ts, agent_id=f"model:{provider}")


def basic_events(ep: str, *, status: str = "ok", day: str = "2025-03-01") -> list[dict[str, Any]]:
    """start, plan, two model calls, an act, terminate: 6 events, 10 s apart."""
    t = [f"{day}T10:00:{s:02d}.000000+00:00" for s in range(0, 60, 10)]
    return [
        event(ep, 0, "start", {"task": f"task of {ep}", "seed": 0, "using": "hand"}, ts=t[0]),
        event(
            ep,
            1,
            "plan",
            {"steps": ["act:do it"]},
            ts=t[1],
            caused_by=f"{ep}-e0",
            metrics={"started_at": t[1], "completed_at": t[1], "duration_ms": 2.5},
        ),
        model_call(ep, 2, t[2], "gpt-4o", "openai", input_tokens=1000, output_tokens=100, cached_input_tokens=400),
        model_call(ep, 3, t[3], "my-private-model", "acme", input_tokens=50, output_tokens=5),
        event(
            ep, 4, "act", {"input_excerpt": "do it", "outcome": status, "tool": "adapter:hand"}, ts=t[4], agent_id="adapter:hand"
        ),
        event(ep, 5, "terminate", {"status": status, "message": "done"}, ts=t[5]),
    ]


def hand_summary(
    ep: str,
    *,
    task: str,
    success: Any = True,
    status: str | None = None,
    tags: dict | None = None,
    started_at: str = "2025-03-01T10:00:00+00:00",
    duration: float = 50.0,
    veto: int = 0,
    mode: str | None = None,
) -> dict:
    doc = {
        "schema_version": "1.2.0",
        "episode_id": ep,
        "task": task,
        "started_at": started_at,
        "duration_sec": duration,
        "flags": {"using": "hand", **({"governance_mode": mode} if mode else {})},
        "metrics": {"success": success, "veto_count": veto, "act_count": 1},
        "tags": tags or {},
    }
    if status:
        doc["status"] = status
    return doc


# -- engine-written runs -----------------------------------------------------------------------
def add_one(x: int) -> int:
    return x + 1


def llm_adapter(task: str, ctx: Any) -> str:
    ctx.model_call(
        "gpt-4o",
        provider="openai",
        input_tokens=1000,
        output_tokens=100,
        cached_input_tokens=400,
        reasoning_tokens=20,
        latency_ms=500.0,
        cost_usd=0.5,
    )
    ctx.model_call(
        "claude-sonnet-4-20250514",
        provider="anthropic",
        input_tokens=2000,
        output_tokens=300,
        cached_input_tokens=500,
        cache_write_input_tokens=200,
    )
    return "answered"


def writer_adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100, cached_input_tokens=400)
    return ctx.tool("fs.write@1", {"kwargs": {"x": 1}}, protocol="python", fn=add_one, effect="write", risk="high")


def replay_adapter(task: str, ctx: Any) -> Any:
    first = ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one, idempotency_key="same")
    second = ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one, idempotency_key="same")
    return [first, second]


def failing_adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("unknown-model-xyz", provider="nowhere", input_tokens=10, output_tokens=1)
    raise RuntimeError("adapter blew up")


async def _slow_adapter(task: str, ctx: Any) -> Any:
    await asyncio.sleep(30)


def model_calls_run(runs_dir: Path, calls: int, task: str = "a run of many model calls") -> Path:
    """A finished run of ``calls`` model calls, written by the engine (``start``) as fast as it writes them; its folder."""
    import noesis_nb

    def agent(task: str, ctx: Any) -> str:
        for _ in range(calls):
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
        return "ok"

    async def main() -> Path:
        handle = noesis_nb.start(task, using=agent, runs_dir=runs_dir)
        await handle
        return Path(handle.run_dir)

    return asyncio.run(main())


def make_engine_runs(runs: Path) -> dict[str, str]:
    """Episode ids by scenario, all written by noesis_nb's engine under ``runs``."""
    import noesis_nb

    ids = {
        "success": noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=runs, tags={"team": "search", "n": 1}),
        "failure": noesis_nb.solve("fail please", using=failing_adapter, runs_dir=runs),
        "veto_enforce": noesis_nb.solve("danger: wipe it", using=llm_adapter, runs_dir=runs, governance="enforce"),
        "veto_audit": noesis_nb.solve("danger: wipe it", using=llm_adapter, runs_dir=runs, governance="audit"),
        "paused": noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask"),
        "approved": noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask"),
        "rejected": noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask"),
        "replayed": noesis_nb.solve("add twice", using=replay_adapter, runs_dir=runs),
    }
    noesis_nb.approve_draft(ids["approved"], approver_id="ops", reason="looks fine", runs_dir=runs)
    noesis_nb.resume_run(ids["approved"], runs_dir=runs)
    noesis_nb.reject_draft(ids["rejected"], approver_id="ops", reason="no writes on friday", runs_dir=runs)
    noesis_nb.resume_run(ids["rejected"], runs_dir=runs)

    async def cancelled() -> str:
        handle = noesis_nb.start("wait forever", using=_slow_adapter, runs_dir=runs)
        await asyncio.sleep(0.2)
        handle.cancel()
        for _ in range(200):
            if handle.done():
                break
            await asyncio.sleep(0.02)
        return handle.episode_id

    ids["cancelled"] = asyncio.run(cancelled())
    return ids
