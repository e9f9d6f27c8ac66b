"""Summary, insight, learn and final: Noēsis' artifact-invariant test (``tests/runtime/test_artifact_invariants.py``),
the summary check of ``noesis view`` (``cli/viewer.py``), and the summary 1.3.0, learn 1.0.0 and final 2.0.0 schemas.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .rundata import Run, Violation, parse_time, payload_of

INSIGHT_KEYS = ("plan_adherence", "tool_coverage", "veto_count", "success", "act_count")
ADAPTER_RESULTS = ("success", "error", "skipped")
OUTCOMES = ("success", "goal_not_achieved", "success_unverified", "error")
FINAL_OUTCOMES = ("success", "failed", "vetoed", "cancelled", "interrupted", "error")
VERIFICATION_STATUSES = ("verified", "unverified", "not_applicable")


def act_count(run: Run) -> int:
    """Act events: every one (the artifact invariant, and the newest fixture), a ``synthetic`` one too; only a run
    of the pre-1.3 writer left its minimal planner's synthetic act out."""
    return sum(
        1
        for e in run.events
        if e.get("phase") == "act" and not (run.legacy and isinstance(e.get("payload"), dict) and e["payload"].get("synthetic"))
    )


def check(run: Run) -> Iterator[Violation]:
    for name, reason in run.doc_errors.items():
        rule = {
            "summary.json": "summary.required",
            "final.json": "final.shape",
            "state.json": "run.state",
            "manifest.json": "manifest.shape",
        }.get(name, "checkpoint.record")
        yield Violation(rule, name, reason)
    yield from _learn_records(run)
    yield from _final(run)
    summary = run.docs.get("summary.json")
    if not isinstance(summary, dict):
        return
    yield from _summary_fields(run, summary)
    metrics = summary.get("metrics") if isinstance(summary.get("metrics"), dict) else {}
    if "act_count" not in metrics and not run.legacy:
        yield Violation(
            "summary.act_count", "summary.json", f"metrics.act_count is missing; the run has {act_count(run)} act event(s)"
        )
    elif "act_count" in metrics and metrics["act_count"] != act_count(run):
        yield Violation(
            "summary.act_count",
            "summary.json",
            f"metrics.act_count is {metrics['act_count']!r} but the run has {act_count(run)} act event(s)",
        )
    yield from _insight(run, metrics)
    yield from _using(run, summary)
    if not run.legacy:
        yield from _learn_links(run)


def _summary_fields(run: Run, summary: dict[str, Any]) -> Iterator[Violation]:
    def fail(message: str) -> Violation:
        return Violation("summary.required", "summary.json", message)

    for key in ("schema_version", "episode_id", "task", "started_at"):
        if key not in summary:
            yield fail(f"missing {key!r} (noesis view requires it)")
    metrics = summary.get("metrics")
    if not isinstance(metrics, dict):
        yield fail("metrics must be an object")
    else:
        for key in ("plan_adherence", "veto_count", "tool_coverage", "success"):
            if key not in metrics:
                yield fail(f"metrics.{key} is missing (noesis view requires it)")
        if metrics.get("latencies") and not isinstance(metrics["latencies"], dict):
            yield fail("metrics.latencies must be an object")
    if run.legacy:
        return

    def schema(message: str) -> Violation:
        return Violation("summary.schema", "summary.json", message + " (summary schema 1.3.0)")

    if summary.get("schema_version") != "1.3.0":
        yield schema(f"schema_version is {summary.get('schema_version')!r}, expected '1.3.0'")
    for key in ("episode_id", "task"):
        if key in summary and not isinstance(summary[key], str):
            yield schema(f"{key} must be a string")
    if "started_at" in summary and parse_time(summary["started_at"]) is None:
        yield schema(f"started_at {summary['started_at']!r} is not a date-time")
    for key, allowed in (("adapter_result", ADAPTER_RESULTS), ("outcome", OUTCOMES)):
        if summary.get(key) not in allowed:
            yield schema(f"{key} is {summary.get(key)!r}, not one of {list(allowed)}")
    yield from (schema(m) for m in _verification(summary.get("verification")))


def _verification(value: Any) -> Iterator[str]:
    if not isinstance(value, dict):
        yield f"verification must be an object, got {value!r}"
        return
    for key in ("provided", "passed", "assertions", "workspace_diff", "snapshots", "policy"):
        if key not in value:
            yield f"verification.{key} is missing"
    if "provided" in value and not isinstance(value["provided"], bool):
        yield "verification.provided must be a bool"
    if "passed" in value and value["passed"] is not None and not isinstance(value["passed"], bool):
        yield "verification.passed must be a bool or null"
    assertions = value.get("assertions", [])
    if not isinstance(assertions, list) or not all(
        isinstance(a, dict) and isinstance(a.get("name"), str) and isinstance(a.get("passed"), bool) for a in assertions
    ):
        yield "verification.assertions must be a list of {name: str, passed: bool}"
    for key in ("workspace_diff", "snapshots"):
        if key in value and value[key] is not None and not isinstance(value[key], dict):
            yield f"verification.{key} must be an object or null"
    policy = value.get("policy")
    if "policy" in value and not (
        isinstance(policy, dict) and isinstance(policy.get("ignore"), list) and isinstance(policy.get("symlinks"), str)
    ):
        yield "verification.policy must be {ignore: [str], symlinks: str}"


def _insight(run: Run, metrics: dict[str, Any]) -> Iterator[Violation]:
    insights = [i for i, e in enumerate(run.events) if e.get("phase") == "insight"]
    if not insights:
        if not run.legacy:
            yield Violation(
                "insight.payload",
                "events.jsonl",
                "a sealed run has no insight event (Noēsis appends one when it writes summary.json)",
            )
        return
    i = insights[-1]
    payload = run.events[i].get("payload")
    if not isinstance(payload, dict):
        return
    if run.legacy and "metrics" not in payload and "summary_path" not in payload:
        return  # the pre-1.3 writer put summary metrics inline
    expected = {key: metrics.get(key) for key in INSIGHT_KEYS}
    problems = []
    if set(payload) != {"metrics", "summary_path"}:
        problems.append(f"payload keys are {sorted(payload)}, expected exactly ['metrics', 'summary_path']")
    if payload.get("summary_path") != "summary.json":
        problems.append(f"summary_path is {payload.get('summary_path')!r}, expected 'summary.json'")
    if payload.get("metrics") != expected:
        problems.append(
            f"metrics {json.dumps(payload.get('metrics'), sort_keys=True, default=str)} != "
            f"{json.dumps(expected, sort_keys=True, default=str)} taken from summary.metrics"
        )
    for problem in problems:
        yield Violation("insight.payload", message=f"last insight: {problem}", **run.where(i))


def _using(run: Run, summary: dict[str, Any]) -> Iterator[Violation]:
    state = run.docs.get("state.json")
    episode = state.get("episode") if isinstance(state, dict) else None
    using = episode.get("using") if isinstance(episode, dict) else None
    if not isinstance(using, str) or not using.strip():
        return
    display = using.split("adapter:", 1)[1] if using.startswith("adapter:") else using
    flags = summary.get("flags") if isinstance(summary.get("flags"), dict) else {}
    if flags.get("using") != display:
        yield Violation(
            "summary.using",
            "summary.json",
            f"flags.using is {flags.get('using')!r}; state.episode.using {using!r} displays as {display!r}",
        )
    starts = [i for i, e in enumerate(run.events) if e.get("phase") == "start"]
    if starts:
        payload = payload_of(run.events[starts[-1]])
        if payload.get("using") != display:
            yield Violation(
                "summary.using",
                message=f"start payload using is {payload.get('using')!r}, expected {display!r}",
                **run.where(starts[-1]),
            )


def _learn_ids(run: Run) -> tuple[set[str], list[tuple[int, str]]]:
    path, ids, problems = run.path / "learn.jsonl", set(), []
    if not path.is_file():
        return ids, problems
    for number, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            problems.append((number, "not a UTF-8 JSON line"))
            continue
        if not isinstance(record, dict):
            problems.append((number, "not a JSON object"))
            continue
        missing = [k for k in ("schema_version", "id", "episode_id", "agent_id", "timestamp", "payload") if k not in record]
        if missing:
            problems.append((number, f"missing {missing}"))
        if record.get("schema_version", "learn/1.0") != "learn/1.0" or not isinstance(record.get("payload", {}), dict):
            problems.append((number, "schema_version must be 'learn/1.0' and payload an object"))
        if isinstance(record.get("id"), str):
            ids.add(record["id"])
    return ids, problems


def _learn_records(run: Run) -> Iterator[Violation]:
    for number, problem in _learn_ids(run)[1]:
        yield Violation("learn.records", "learn.jsonl", problem + " (learn schema 1.0.0)", line=number)


def _learn_links(run: Run) -> Iterator[Violation]:
    ids = _learn_ids(run)[0]
    learns = [i for i, e in enumerate(run.events) if e.get("phase") == "learn" and isinstance(e.get("payload"), dict)]
    for i in learns:
        payload = run.events[i]["payload"]
        if payload.get("learn_path") != "learn.jsonl" or payload.get("learn_schema") != "learn/1.0":
            yield Violation(
                "learn.links",
                message="learn event must point at learn_path 'learn.jsonl', learn_schema 'learn/1.0'",
                **run.where(i),
            )
        proposals = payload.get("proposal_ids") if isinstance(payload.get("proposal_ids"), list) else []
        unknown = [p for p in proposals if not isinstance(p, str) or p not in ids]
        if unknown:
            yield Violation("learn.links", message=f"proposal_ids {unknown} are not records of learn.jsonl", **run.where(i))
    if not any(run.events[i]["payload"].get("learn_path") == "learn.jsonl" for i in learns):
        return
    state, manifest = run.docs.get("state.json") or {}, run.docs.get("manifest.json")
    links = state.get("links") if isinstance(state.get("links"), dict) else {}
    if not run.exists("learn.jsonl"):
        yield Violation("learn.links", "learn.jsonl", "a learn event points at learn.jsonl, which does not exist")
    if links.get("learn") != "learn.jsonl":
        yield Violation("learn.links", "state.json", "links.learn must be 'learn.jsonl' when a learn event points at it")
    files = manifest.get("files") if isinstance(manifest, dict) and isinstance(manifest.get("files"), list) else None
    if files is not None and not any(
        isinstance(f, dict) and f.get("name") == "learn.jsonl" and f.get("kind") == "learn" for f in files
    ):
        yield Violation("learn.links", "manifest.json", "learn.jsonl must be listed with kind 'learn'")


def _final(run: Run) -> Iterator[Violation]:
    final = run.docs.get("final.json")
    if not isinstance(final, dict):
        return

    def fail(message: str) -> Violation:
        return Violation("final.shape", "final.json", message + " (final schema 2.0.0)")

    if final.get("schema_version") != "final/2.0.0":
        yield fail(f"schema_version is {final.get('schema_version')!r}, expected 'final/2.0.0'")
    if final.get("episode_id") != run.episode_id:
        yield fail(f"episode_id {final.get('episode_id')!r} is not this run's ({run.episode_id!r})")
    if not isinstance(final.get("process_id"), str):
        yield fail("process_id must be a string")
    run_index = final.get("run_index")
    if not (isinstance(run_index, int) and not isinstance(run_index, bool) and run_index >= 1):
        yield fail(f"run_index must be an int >= 1, got {run_index!r}")
    if parse_time(final.get("finalized_at")) is None:
        yield fail(f"finalized_at {final.get('finalized_at')!r} is not a date-time")
    if final.get("outcome") not in FINAL_OUTCOMES:
        yield fail(f"outcome {final.get('outcome')!r} is not one of {list(FINAL_OUTCOMES)}")
    if final.get("verification_status") not in VERIFICATION_STATUSES:
        yield fail(f"verification_status {final.get('verification_status')!r} is not one of {list(VERIFICATION_STATUSES)}")
