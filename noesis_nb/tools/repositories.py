"""File-backed repositories under ``<run_dir>/tool_invocations/`` (the Noēsis layout).

    prepared/<draft_id>.json           PreparedToolInvocation     (Noēsis: subprocess, http, mcp)
    x-python/prepared/<draft_id>.json  PreparedToolInvocation     (noesis_nb: the in-process python protocol)
    approvals/<draft_id>.json          ToolApprovalDecision       (Noēsis)
    idempotency/<principal>__<tool_key>__<key>.json               (Noēsis, plus an ``output`` key)
    executions/<draft_id>.json         ToolExecutionResult        (noesis_nb extension)

Noēsis' reader lists ``prepared/*.json`` and raises on a protocol outside subprocess, http and
mcp, so python drafts live in an extension folder it never lists; everything here reads both,
and a python draft an older noesis_nb left under ``prepared/`` moves to the extension folder
the next time it is saved. Every id is checked before it becomes a file name; every write is atomic;
every record is written without the secrets its run has seen (``noesis_nb.secrets``), and a
decision's reason is searched too.
"""

from __future__ import annotations

import builtins
import os
import stat
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from noesis_nb._jsonio import atomic_write_json
from noesis_nb.errors import DecisionFileError, EpisodeStateError, InvalidIdError
from noesis_nb.secrets import for_run as secrets_for_run
from noesis_nb.secrets import keys_hidden, quoted
from noesis_nb.store.layout import PYTHON_PREPARED_DIR
from noesis_nb.store.listing import status_of
from noesis_nb.store.paths import UnsafeRunPathError, run_path
from noesis_nb.store.patience import running_loop, wait_until
from noesis_nb.store.runfiles import what_is
from noesis_nb.store.sealing import refuse_odd_seal

from ._files import (
    check_id,
    claim_file,
    create_exclusive_json,
    note_written,
    quarantine,
    read_json_object,
)
from .draftref import match_draft_ref
from .errors import (
    AmbiguousPreparedToolInvocationError,
    PreparedToolInvocationNotFoundError,
    ToolRecordError,
)
from .payload_seal import SEAL_FIELD
from .redaction import redact_secrets
from .types import (
    IdempotencyDecision,
    IdempotencyEvaluation,
    PreparedInvocationStatus,
    PreparedToolInvocation,
    ToolApprovalDecision,
    ToolExecutionResult,
    ToolProtocol,
)
from .vault import PROCESS_VAULT, DispatchVault

__all__ = [
    "TOOL_INVOCATIONS_DIR",
    "PreparedInvocationRepository",
    "ApprovalDecisionRepository",
    "IdempotencyRepository",
    "ExecutionRepository",
    "resolve_draft_id",
    "UNREADABLE_RECORD",
    "record_problem",
]

TOOL_INVOCATIONS_DIR = "tool_invocations"
# what a view reports instead of raising: a damaged record, a link in its place, a file name that is no id
UNREADABLE_RECORD = (ToolRecordError, DecisionFileError, UnsafeRunPathError, InvalidIdError)


def record_problem(exc: Exception, where: Path, name: str) -> str:
    """The one line a view shows for a tool record it could not read (``where``/``name``: the folder and file)."""
    if isinstance(exc, InvalidIdError):  # never read, never used as a path
        return f"{where}: {quoted(name)} is not named after a draft id ({exc}); it is not read"
    return str(exc).splitlines()[0]


class _Repository:
    folder = ""

    def __init__(self, run_dir: Path | str):
        self.run_dir = Path(run_dir)
        self.root = self.run_dir / TOOL_INVOCATIONS_DIR / self.folder

    def path_for(self, draft_id: str) -> Path:
        """The record's file; no link on the way (a crafted run cannot send reads or writes elsewhere)."""
        return self._file(f"{check_id(draft_id)}.json")

    def _file(self, name: str) -> Path:
        return run_path(self.run_dir, TOOL_INVOCATIONS_DIR, self.folder, name)

    def _safe(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` without the run's known secrets (and with any found in a free-text ``reason``)."""
        secrets = secrets_for_run(self.run_dir)
        if isinstance(record.get("reason"), str):
            record = {**record, "reason": secrets.redact(record["reason"])}
        scrubbed: dict[str, Any] = secrets.scrub(record)
        return scrubbed


M = TypeVar("M", bound=BaseModel)


def _load(path: Path, model: type[M]) -> M | None:
    try:
        data = read_json_object(path)
        return None if data is None else model.model_validate(data)
    except (ValueError, ValidationError) as exc:
        raise ToolRecordError(
            f"{path}: {keys_hidden(str(exc))}. Restore {path.name} from a backup of the run; to keep this copy for a look, "
            "move it out of the run folder (it records what was prepared and decided: never delete it)"
        ) from None


class PreparedInvocationRepository(_Repository):
    """Prepared drafts (``root``: Noēsis' protocols; ``python_root``: the python protocol).

    ``vault`` keeps real payloads of drafts prepared in this process.
    """

    folder = "prepared"

    def __init__(self, run_dir: Path | str, *, vault: DispatchVault = PROCESS_VAULT):
        super().__init__(run_dir)
        self.python_root = self.run_dir / TOOL_INVOCATIONS_DIR / PYTHON_PREPARED_DIR
        self.vault = vault

    @property
    def roots(self) -> tuple[Path, Path]:
        return self.python_root, self.root

    def path_for(self, draft_id: str, protocol: ToolProtocol | str | None = None) -> Path:
        """Where a draft of ``protocol`` is stored; without one, where the draft is (else ``prepared/``).

        No link on the way in either folder (a crafted run cannot send reads or writes elsewhere)."""
        name = f"{check_id(draft_id)}.json"
        python = run_path(self.run_dir, TOOL_INVOCATIONS_DIR, *PYTHON_PREPARED_DIR.split("/"), name)
        plain = self._file(name)
        if protocol is not None:
            return python if ToolProtocol(protocol) is ToolProtocol.PYTHON else plain
        there = [path for path in (python, plain) if os.path.lexists(path)]  # a FIFO or folder there is read (and named)
        return next((path for path in there if path.is_file()), there[0] if there else plain)

    def save(self, prepared: PreparedToolInvocation) -> Path:
        """Write the record in its protocol's folder; secret-keyed values are redacted again as a last guard."""
        record = prepared.record()
        record["payload"]["normalized_payload"], _ = redact_secrets(record["payload"]["normalized_payload"])
        record["payload"]["redacted_payload"], _ = redact_secrets(record["payload"]["redacted_payload"])
        path = self.path_for(prepared.key, prepared.protocol)
        atomic_write_json(path, self._safe(record))
        note_written(path)
        for other in (self.path_for(prepared.key, ToolProtocol.PYTHON), self.path_for(prepared.key, ToolProtocol.SUBPROCESS)):
            if other != path:  # a copy in the other folder is an older save of this draft
                other.unlink(missing_ok=True)
        return path

    def get(self, run_id: str | None, draft_id: str) -> PreparedToolInvocation | None:
        """The draft, or None if absent or (when ``run_id`` is given) owned by another run.

        A file holding another draft than its name says is refused: a view would show its content
        while a decision named after it binds the other draft."""
        path = self.path_for(draft_id)
        prepared = _load(path, PreparedToolInvocation)
        if prepared is not None and prepared.key != draft_id:
            raise ToolRecordError(
                f"{path}: holds draft {quoted(prepared.key)}, not {quoted(draft_id)} as its name says. If it was renamed "
                f"by hand, move it back to {prepared.key}.json; else restore {path.name} from a backup of the run "
                "(keep this copy: move it out of the run folder, never delete it)"
            )
        if prepared is None or (run_id is not None and prepared.run_id != run_id):
            return None
        return prepared

    def load(self, *, run_id: str, draft_id: str) -> PreparedToolInvocation | None:
        """Noēsis port name for ``get``."""
        return self.get(run_id, draft_id)

    def draft_ids(self) -> list[str]:
        return sorted({p.name[:-5] for root in self.roots if root.is_dir() for p in root.glob("*.json")})

    def list(self) -> list[PreparedToolInvocation]:
        return [p for p in (self.get(None, d) for d in self.draft_ids()) if p is not None]

    def readable(self, problems: builtins.list[str]) -> builtins.list[PreparedToolInvocation]:
        """Every draft that reads; each one that does not is named in ``problems`` instead of raising
        (a view of a damaged run still shows the rest of it)."""
        drafts = []
        for draft_id in self.draft_ids():
            try:
                prepared = self.get(None, draft_id)
            except UNREADABLE_RECORD as exc:
                problems.append(record_problem(exc, self.run_dir / TOOL_INVOCATIONS_DIR, f"{draft_id}.json"))
                continue
            if prepared is not None:
                drafts.append(prepared)
        return drafts

    def find_pending(self, run_id: str | None = None) -> PreparedToolInvocation | None:
        """The one ``pending_approval`` draft of the run, None if there is none."""
        pending = [
            p
            for p in self.list()
            if p.status is PreparedInvocationStatus.PENDING_APPROVAL and (run_id is None or p.run_id == run_id)
        ]
        if len(pending) > 1:
            names = ", ".join(p.key for p in pending)
            raise AmbiguousPreparedToolInvocationError(
                f"run {run_id or self.run_dir.name!r} has {len(pending)} drafts pending approval ({names}); "
                "only one may be pending. "
                "Name the draft explicitly."
            )
        return pending[0] if pending else None

    def load_pending_for_run(self, *, run_id: str) -> PreparedToolInvocation | None:
        return self.find_pending(run_id)


class ApprovalDecisionRepository(_Repository):
    folder = "approvals"

    def save(self, decision: ToolApprovalDecision) -> Path:
        """Overwrite the decision file (Noēsis semantics). Prefer ``create`` for human decisions."""
        path = self.path_for(decision.draft_id or decision.request_id)
        atomic_write_json(path, self._safe(decision.record()))
        note_written(path)
        return path

    def create(self, decision: ToolApprovalDecision, *, wait_s: float = 5.0) -> tuple[ToolApprovalDecision, bool]:
        """Persist ``decision`` unless the draft already has one; return ``(stored, created)``.

        When another writer claimed the file first, its decision is read; plain code waits up to ``wait_s`` for it
        to be written, a thread running an event loop never does (``store.patience``)."""
        key = decision.draft_id or decision.request_id
        path = self.path_for(key)
        try:
            existing = self._read(path, key)
        except DecisionFileError:  # not a decision on this draft: keep it aside, and let this valid one take its place
            # (only if what is moved is still bad: another process may have put a valid decision there meanwhile)
            quarantine(path, still_bad=lambda moved: self._read(moved, key) is None)
            existing = self._read(path, key)
        if existing is not None:
            return existing, False
        if create_exclusive_json(path, self._safe(decision.record())):
            return decision, True
        if running_loop() is None:  # plain code waits a moment for the writer that claimed it; a kernel's loop never sleeps
            wait_until(lambda: self._read(path, key) is not None, wait_s)
        existing = self._read(path, key)
        if existing is None:
            raise DecisionFileError(
                f"{path}: another writer claimed this decision but has not written it; decide again in a moment "
                f"(if this repeats, delete {path.name}.lock and decide again)."
            )
        return existing, False

    def get(self, run_id: str | None, draft_id: str) -> ToolApprovalDecision | None:
        """The decision on ``draft_id``, or None if absent or (when ``run_id`` is given) owned by another run.

        A file holding the decision on another draft than its name says is refused: the inbox would
        count that other draft as decided while a resume of this one read the file as its approval."""
        decision = self._read(self.path_for(draft_id), draft_id)
        if decision is None or (run_id is not None and decision.run_id != run_id):
            return None
        return decision

    def load(self, *, run_id: str, draft_id: str) -> ToolApprovalDecision | None:
        return self.get(run_id, draft_id)

    @staticmethod
    def _read(path: Path, key: str) -> ToolApprovalDecision | None:
        decision = ApprovalDecisionRepository._parse(path)
        if decision is not None and decision.draft_id is not None and decision.draft_id != key:
            raise DecisionFileError(
                f"{path}: holds the decision on draft {quoted(decision.draft_id)}, not {quoted(key)} "
                f"as its name says. {_decide_again(path, key)}"
            )
        return decision

    @staticmethod
    def _parse(path: Path) -> ToolApprovalDecision | None:
        try:
            data = read_json_object(path)
        except ValueError as exc:
            raise DecisionFileError(f"{path}: {keys_hidden(str(exc))}. {_decide_again(path, None)}") from None
        if data is None:
            return None
        try:
            return ToolApprovalDecision.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}"
                + (f" (got {quoted(e['input'])})" if e["type"] != "missing" else "")
                for e in exc.errors()
            )
            raise DecisionFileError(
                f"{path}: not a valid approval decision ({problems}). Fields decision_id, run_id, request_id "
                f"and status ('approved' or 'rejected') are required. {_decide_again(path, None)}"
            ) from None


def _decide_again(path: Path, draft_id: str | None) -> str:
    """The fix for a decision file that is no decision on its draft: deciding again moves it aside by itself (nothing
    is ever deleted by hand)."""
    run = quoted(path.parent.parent.parent.name)
    draft = quoted(draft_id if draft_id is not None else path.name.removesuffix(".json"))
    return (
        f"Decide the draft again: approve_draft({run}, {draft}, approver_id=...) or reject_draft(...) moves this file "
        f"aside (kept as {path.name}.invalid-<time>) and records the decision in its place; or restore the file "
        "from a copy of the run"
    )


class IdempotencyRepository(_Repository):
    folder = "idempotency"

    def path_for_key(self, principal_id: str, tool_key: str, idempotency_key: str) -> Path:
        parts = (
            check_id(principal_id, "principal_id"),
            check_id(tool_key, "tool key"),
            check_id(idempotency_key.replace("/", "_"), "idempotency_key"),
        )
        name = "__".join(parts) + ".json"
        if len(name.encode()) > 240:
            raise InvalidIdError(
                f"idempotency file name {quoted(name)} is longer than 240 bytes; use a shorter principal_id or idempotency_key."
            )
        return self._file(name)

    def _path(self, prepared: PreparedToolInvocation) -> Path | None:
        key = prepared.execution.idempotency_key
        if not key:
            return None
        return self.path_for_key(prepared.security.principal_id, prepared.tool.tool_key(prepared.protocol), key)

    def evaluate(self, invocation: PreparedToolInvocation) -> IdempotencyEvaluation:
        """``new`` (no key or unseen), ``replay`` (same fingerprint) or ``conflict``.

        ``IdempotencyStorePort``: Noēsis calls ``evaluate(invocation=...)``."""
        fingerprint = invocation.payload.request_fingerprint
        path = self._path(invocation)
        entry = _load(path, _IdempotencyFile) if path else None
        if entry is None:
            return IdempotencyEvaluation(decision=IdempotencyDecision.NEW, fingerprint=fingerprint)
        # one stored fingerprint may stand for payloads that differ in a redacted secret: their keyed seals differ
        if entry.fingerprint == fingerprint and (entry.model_extra or {}).get(SEAL_FIELD) == invocation.x_payload_seal:
            return IdempotencyEvaluation(
                decision=IdempotencyDecision.REPLAY,
                fingerprint=fingerprint,
                replayed_execution_id=entry.execution_id,
                output=entry.output,
            )
        return IdempotencyEvaluation(decision=IdempotencyDecision.CONFLICT, fingerprint=fingerprint)

    def record(self, invocation: PreparedToolInvocation, result: ToolExecutionResult) -> None:
        """Remember the result under the invocation's idempotency key (nothing without a key)."""
        path = self._path(invocation)
        if path is None:
            return
        atomic_write_json(
            path,
            self._safe(
                {
                    "principal_id": invocation.security.principal_id,
                    "tool_key": invocation.tool.tool_key(invocation.protocol),
                    "idempotency_key": invocation.execution.idempotency_key,
                    "fingerprint": invocation.payload.request_fingerprint,
                    "execution_id": result.execution_id,
                    "output": result.output,
                    **({SEAL_FIELD: invocation.x_payload_seal} if invocation.x_payload_seal is not None else {}),
                }
            ),
        )
        note_written(path)


class ExecutionRepository(_Repository):
    """One result per executed draft, so a draft never dispatches twice (noesis_nb extension)."""

    folder = "executions"

    def get(self, draft_id: str) -> ToolExecutionResult | None:
        return _load(self.path_for(draft_id), ToolExecutionResult)

    def save(self, draft_id: str, result: ToolExecutionResult) -> None:
        path = self.path_for(draft_id)
        atomic_write_json(path, self._safe(result.record()))
        note_written(path)

    def claim_path(self, draft_id: str) -> Path:
        return self._file(f"{check_id(draft_id)}.claim")

    def claimed(self, draft_id: str) -> bool:
        """Whether the draft was handed to its tool (its claim exists); a planted folder, FIFO or link there is refused."""
        path = self.claim_path(draft_id)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(mode):
            raise EpisodeStateError(
                f"{path} is {what_is(mode) if not stat.S_ISLNK(mode) else 'a symbolic link'}, not a claim: noesis_nb "
                "makes a draft's claim only as an empty regular file, the moment it hands the draft to its tool. "
                "Move it out of the run folder (it is not part of the run) and try again."
            )
        return True

    def claim(self, draft_id: str) -> bool:
        """Take the right to dispatch this draft (exclusive create); False if already taken."""
        if claim_file(self.claim_path(draft_id)):
            return True
        self.claimed(draft_id)  # taken: by a claim, or refused when something else stands there
        return False

    def release(self, draft_id: str) -> None:
        if self.claimed(draft_id):
            self.claim_path(draft_id).unlink(missing_ok=True)


def _nothing_pending(run: Path, where: Path, listing: str) -> str:
    """Why nothing can be decided in an unsealed run with no draft pending, said by what the run is now: a draft id
    helps only where the run is paused with drafts that could be named."""
    status = status_of(run)
    if status == "lost":
        return (
            f"run {run.name} is lost (its process stopped while it ran) and no draft waits for a decision "
            f"(drafts: {listing}): settle it with resume_run({run.name!r}) or %noesis resume {run.name}"
        )
    if status == "running":
        return (
            f"run {run.name} is running in the process that writes it, not waiting for a decision (drafts: {listing}); "
            "a draft can be decided once the run pauses on it"
        )
    if status == "paused" and listing == "none":  # paused through ns.interrupt / ns.checkpoint: no id would help
        return (
            f"run {run.name} is paused and made no tool drafts, so no draft waits for a decision (a pause made "
            f"through ns.interrupt / ns.checkpoint waits for none): resume_run({run.name!r}) settles it"
        )
    return f"no draft is pending approval in {where}; drafts: {listing}. Pass a draft id."


class _IdempotencyFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    principal_id: str
    tool_key: str
    idempotency_key: str
    fingerprint: str
    execution_id: str
    output: dict[str, Any] | None = None


def resolve_draft_id(run_dir: Path | str, ref: str | None = None) -> str:
    """Find one draft: ``None`` → the single pending draft; else the draft ``ref`` names (see ``draftref``)."""
    repo = PreparedInvocationRepository(run_dir)
    ids = repo.draft_ids()
    listing = ", ".join(ids) or "none"
    if ref is None:
        pending = repo.find_pending()
        if pending is None:
            run = Path(run_dir)
            # as every writer counts a seal (lstat): a link or folder in its place is refused by name, never followed
            if refuse_odd_seal(run).ended:  # "pass a draft id" would not help
                made = f"its drafts ({listing}) were decided or ended with it" if ids else "it made no tool drafts"
                raise PreparedToolInvocationNotFoundError(f"run {run.name} is sealed and {made}: there is nothing to decide")
            raise PreparedToolInvocationNotFoundError(_nothing_pending(run, repo.root.parent, listing))
        return pending.key
    matches = match_draft_ref(ref, ids)
    if not matches:
        raise PreparedToolInvocationNotFoundError(f"no draft matches {quoted(ref)} in {repo.root.parent}; drafts: {listing}.")
    if len(matches) > 1:
        raise AmbiguousPreparedToolInvocationError(
            f"{quoted(ref)} matches {len(matches)} drafts ({', '.join(matches)}); give more of the id."
        )
    return matches[0]
