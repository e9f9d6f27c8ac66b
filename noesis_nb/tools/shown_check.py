"""Whether a draft shows what it runs: a person approves its ``redacted_payload``, ``normalized_payload`` executes.

A draft noesis_nb writes shows the redaction of what it stores to run (``redaction.build_payload_evidence``): the
same values, with secrets as ``"[REDACTED]"`` in both and ``hash_fields`` hashed (``hash_value``) in the shown one
only. A record whose shown payload is not that (edited, or crafted in a shared runs folder) would have a person
approve one command and run another; so would a default impact hash (``default_preflight``) over another payload
(checked when the shown payload holds no ``"[REDACTED]"``: the hash is taken before the save's last redaction).
So would one whose payloads are not its protocol's (``shown_shape``: a list where a dict is expected).
Such a draft is refused (``PayloadIntegrityError``) before anything runs, and views show it as refused.
"""

from __future__ import annotations

import re
from typing import Any

from noesis_nb._jsonio import canonical_json

from .errors import PayloadIntegrityError
from .fingerprints import default_impact_hash
from .redaction import REDACTED_VALUE, hash_value, redact_secrets
from .shown_shape import shape_problem
from .types import PreparedToolInvocation

__all__ = ["DEFAULT_PREFLIGHT_METHOD", "shown_mismatch", "check_shown"]

DEFAULT_PREFLIGHT_METHOD = "noesis_nb.default_preflight/1"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")  # what ``hash_value`` gives


def shown_mismatch(prepared: PreparedToolInvocation) -> str | None:
    """Why the draft does not show what it runs, or None when it does."""
    shown, runs = prepared.payload.redacted_payload, prepared.payload.normalized_payload
    unreadable = shape_problem(str(getattr(prepared.protocol, "value", prepared.protocol)), shown, runs)
    if unreadable is not None:  # a field of another type than its protocol's (not one a policy replaced whole)
        return unreadable
    if canonical_json(shown) != canonical_json(runs):
        redacted, _ = redact_secrets(runs)  # a writer storing the real secrets to run shows them redacted
        if not _shows(shown, runs, redacted):
            return (
                "its redacted_payload (what is shown for approval) is not the redaction of its normalized_payload "
                "(what would run)"
            )
    binding = prepared.preflight
    witness = binding.witness if binding is not None else None
    # taken before the save's last redaction (``repositories``), which can only add markers: exact when none shows
    exact = REDACTED_VALUE not in canonical_json(shown).decode("utf-8", "replace")
    if binding is not None and exact and isinstance(witness, dict) and witness.get("method") == DEFAULT_PREFLIGHT_METHOD:
        if binding.impact_hash != default_impact_hash(prepared.tool, shown):
            return "its preflight impact_hash was not computed over the payload it shows"
    return None


def check_shown(prepared: PreparedToolInvocation, where: object) -> None:
    """Raise PayloadIntegrityError naming ``where`` (the draft's file) when the draft does not show what it runs."""
    why = shown_mismatch(prepared)
    if why is not None:
        raise PayloadIntegrityError(
            f"{where}: draft {prepared.key!r} does not show what it runs: {why}; the record was edited after it was "
            f"prepared. It is not executed: do not approve it; reject it (reject_draft(..., draft_id={prepared.key!r})), "
            "keep the file as the record of the edit, and prepare the call again."
        )


def _shows(shown: Any, runs: Any, redacted: Any) -> bool:
    """``shown`` is ``runs`` (or its redaction ``redacted``) leaf by leaf, a leaf possibly hashed (``hash_fields``)."""
    if isinstance(shown, dict):
        if isinstance(runs, dict) and isinstance(redacted, dict) and shown.keys() == runs.keys() == redacted.keys():
            return all(_shows(shown[k], runs[k], redacted[k]) for k in shown)
        return isinstance(redacted, dict) and shown.keys() == redacted.keys() and _shows_as(shown, redacted)
    if isinstance(shown, list):
        return (
            isinstance(runs, list)
            and isinstance(redacted, list)
            and len(shown) == len(runs) == len(redacted)
            and all(_shows(s, n, r) for s, n, r in zip(shown, runs, redacted))
        )
    return (
        _same(shown, runs)
        or _same(shown, redacted)
        or _hashed(shown, runs)
        or _hashed(shown, redacted)
        or _hashed_before_save(shown, runs)
    )


def _hashed_before_save(shown: Any, value: Any) -> bool:
    """A digest over a value the save then redacted further: kept only for drafts the previous release wrote (they may
    wait paused in a runs folder). It hashed ``hash_fields`` before a field policy's secret standing in the hashed
    field too was scrubbed from it, so its hash cannot be taken again; the writer now hashes the stored value
    (``_hashed`` checks it exactly). Only a digest's own form is accepted there: it shows no command to trust."""
    return (
        isinstance(shown, str)
        and _DIGEST.fullmatch(shown) is not None
        and REDACTED_VALUE in canonical_json([value]).decode("utf-8", "replace")
    )


def _shows_as(shown: dict[str, Any], redacted: dict[str, Any]) -> bool:
    return all(_shows(shown[k], redacted[k], redacted[k]) for k in shown)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and canonical_json([a]) == canonical_json([b])


def _hashed(shown: Any, value: Any) -> bool:
    return isinstance(shown, str) and shown.startswith("sha256:") and shown == hash_value(value)
