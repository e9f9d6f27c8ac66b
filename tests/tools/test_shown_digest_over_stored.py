"""A draft prepared with a field policy shows each ``hash_fields`` digest over the value its stored
``normalized_payload`` holds at that path, for every nesting of ``redact_fields`` and ``hash_fields``: a value the
policy redacts that also stands inside a hashed field is out of the digest as it is out of the stored value. The
draft is approved and resumed from a real paused run, and the run passes Noēsis' validators.

A draft the previous release wrote (its digest over the value before that redaction) is still approved; a digest
over another value where the stored one can be hashed again, or a text dressed as a digest, is still refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import tools as tc
from noesis_nb.runtime.resume import paused_on
from noesis_nb.tools import PayloadIntegrityError
from noesis_nb.tools.types import PayloadRedactionPolicy
from tests.compat.checker import check_run

SECRET = "s3cr3t-abcdefgh"


def write_call(path: str, secret: str, label: str, opts: dict[str, str], where: str = "") -> str:
    """The tool: writes what it was given (the real values, not the stored ones)."""
    Path(path).write_text(f"{opts['code']} {secret} {label}")
    return "written"


def _args(out: Path) -> list[str]:
    return [str(out), SECRET, f"--label={SECRET}"]


# (redact_fields, hash_fields, the paths that show a digest, the paths the policy shows redacted)
NESTINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "redact-inside-hash": (("kwargs.opts.code",), ("kwargs.opts", "args"), ("kwargs.opts", "args"), ()),
    "hash-inside-redact": (("kwargs.opts",), ("kwargs.opts.code", "args"), ("args",), ("kwargs.opts",)),
    "same-path": (("kwargs.opts.code",), ("kwargs.opts.code", "args"), ("args",), ("kwargs.opts.code",)),
    "list-item-in-hashed-list": (("args.1",), ("args",), ("args",), ()),
}


def _payload(out: Path) -> dict[str, Any]:
    return {"args": _args(out), "kwargs": {"opts": {"code": SECRET, "note": f"x-{SECRET}"}}}


def _paused(runs_dir: Path, out: Path, policy: PayloadRedactionPolicy, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real run paused on a draft its episode prepared with ``policy`` (the notebook's ``ctx.tool_async`` takes no
    field policy: the one a Noēsis caller gives is added to the real invocation, and the real writer writes it)."""
    prepare = tc.prepare_tool_invocation

    def with_policy(invocation: Any, **ports: Any) -> Any:
        return prepare(invocation.model_copy(update={"redaction_policy": policy}), **ports)

    monkeypatch.setattr(tc, "prepare_tool_invocation", with_policy)

    async def writer(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.write", _payload(out), fn=write_call, effect="write", risk="high")

    episode = noesis_nb.solve("note", using=writer, runs_dir=runs_dir)
    monkeypatch.setattr(tc, "prepare_tool_invocation", prepare)
    run = runs_dir / episode
    assert paused_on(run) is not None
    return run


def _draft(run: Path) -> Path:
    (draft,) = run.glob("tool_invocations/**/prepared/*.json")  # python drafts: under x-python/
    return draft


def _at(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _sha(value: Any) -> str:
    """Noēsis' hash rule, taken here from its definition: ``"sha256:" + sha256(repr(value))``."""
    return "sha256:" + hashlib.sha256(repr(value).encode("utf-8")).hexdigest()


def _set(record: dict[str, Any], path: str, shown: str) -> None:
    *parents, last = path.split(".")
    node = record["payload"]["redacted_payload"]
    for part in parents:
        node = node[part]
    node[last] = shown


@pytest.mark.parametrize("nesting", sorted(NESTINGS))
def test_each_shown_digest_is_over_the_stored_value_and_the_draft_runs(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nesting: str
) -> None:
    redact, hashed, digests, redacted = NESTINGS[nesting]
    out = tmp_path / "out.txt"
    run = _paused(runs_dir, out, PayloadRedactionPolicy(redact_fields=redact, hash_fields=hashed), monkeypatch)
    record = json.loads(_draft(run).read_text())
    stored, shown = record["payload"]["normalized_payload"], record["payload"]["redacted_payload"]
    assert SECRET not in json.dumps(record)
    for path in digests:  # the secret stood at this path in the call: the digest is over what is stored there now
        assert _at(stored, path) != _at(_payload(out), path)
        assert _at(shown, path) == _sha(_at(stored, path)), path
    for path in redacted:
        assert _at(shown, path) == _at(stored, path) == "[REDACTED]"

    noesis_nb.approve_draft(run, approver_id="ana")  # refused as "edited" before, or taken with the exception
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert out.read_text() == f"{SECRET} {SECRET} --label={SECRET}"  # the real call ran, once
    assert json.loads((run / "summary.json").read_text())["status"] == "ok"
    assert check_run(run) == []


def _old_draft(runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, Any]]:
    """A draft as the previous release wrote it: ``args`` hashed over the value before the secret the policy
    redacts in ``kwargs.opts`` was scrubbed from it (what ``apply_redaction`` of the secret-free payload gave)."""
    out = tmp_path / "out.txt"
    policy = PayloadRedactionPolicy(redact_fields=("kwargs.opts.code",), hash_fields=("args", "kwargs.where"))
    prepare = tc.prepare_tool_invocation

    def with_where(invocation: Any, **ports: Any) -> Any:
        payload = {**invocation.payload, "kwargs": {**invocation.payload["kwargs"], "where": str(tmp_path)}}
        return prepare(invocation.model_copy(update={"payload": payload}), **ports)

    monkeypatch.setattr(tc, "prepare_tool_invocation", with_where)
    run = _paused(runs_dir, out, policy, monkeypatch)
    draft = _draft(run)
    record = json.loads(draft.read_text())
    old = _sha(_args(out))  # over the real args: the secret stands in them twice
    assert record["payload"]["redacted_payload"]["args"] != old
    _set(record, "args", old)
    draft.write_text(json.dumps(record))
    return run, out, record


def test_a_draft_the_previous_release_wrote_is_still_approved_and_runs(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, out, _ = _old_draft(runs_dir, tmp_path, monkeypatch)
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert out.read_text() == f"{SECRET} {SECRET} --label={SECRET}"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("kwargs.where", "over another folder"),  # its stored value holds no marker: the digest is taken again
        ("args", "sha256:echo safe"),  # a text to trust where a digest stood
        ("args", "sha256:" + "A" * 64),  # not a digest this writer (or the previous one) gives
    ],
)
def test_a_digest_over_something_else_is_still_refused(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, shown: str
) -> None:
    run, out, record = _old_draft(runs_dir, tmp_path, monkeypatch)
    _set(record, path, _sha(str(tmp_path / "elsewhere")) if shown == "over another folder" else shown)
    _draft(run).write_text(json.dumps(record))
    with pytest.raises(PayloadIntegrityError, match="does not show what it runs"):
        noesis_nb.approve_draft(run, approver_id="ana")
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))
    assert not out.exists()
