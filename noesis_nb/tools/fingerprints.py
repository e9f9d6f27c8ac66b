"""Fingerprints binding a reviewed request to what executes (Noēsis algorithms)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from noesis_nb._jsonio import canonical_json, sha256_bytes

from .types import PreflightBinding, PreparedToolInvocation, ToolIdentity, ToolProtocol

__all__ = ["request_fingerprint", "tool_key", "default_impact_hash", "default_preflight", "default_candidate_id"]


def request_fingerprint(normalized_payload: Mapping[str, Any]) -> str:
    """``"sha256:" + sha256(canonical_json(normalized_payload))``, as Noēsis stores it."""
    return sha256_bytes(canonical_json(dict(normalized_payload)))


def tool_key(protocol: ToolProtocol | str, tool: ToolIdentity) -> str:
    return tool.tool_key(protocol)


def default_impact_hash(tool: ToolIdentity, redacted_payload: Mapping[str, Any]) -> str:
    """noesis_nb's default impact hash: sha256 of ``{tool, redacted_payload}`` (Noēsis leaves it to adapters)."""
    return sha256_bytes(canonical_json({"tool": tool.model_dump(mode="json"), "redacted_payload": dict(redacted_payload)}))


def default_preflight(prepared: PreparedToolInvocation) -> PreflightBinding:
    """The preflight port used when none is given; prepare calls it for write effects only."""
    impact = default_impact_hash(prepared.tool, prepared.payload.redacted_payload)
    return PreflightBinding(impact_hash=impact, witness={"method": "noesis_nb.default_preflight/1"})


def default_candidate_id(run_id: str, request_id: str, fingerprint: str) -> str:
    """Deterministic action-candidate id (UUIDv5) when the governance context names none."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"noesis_nb:action_candidate:{run_id}:{request_id}:{fingerprint}"))
