"""The built-in pre-act governor (Noēsis' ``governance.rules`` policy) and its event payloads."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

__all__ = ["GovernanceDecision", "evaluate_rules", "effective_failure_policy", "MODES"]

MODES = ("off", "audit", "enforce")
POLICY_ID, POLICY_VERSION = "governance.rules", "1.0.0"

_RULES: tuple[tuple[str, re.Pattern[str], str, float, str], ...] = (
    ("veto", re.compile(r"danger", re.I), "rules.veto.danger", 0.95, "Task mentions danger; vetoing before act."),
    (
        "veto",
        re.compile(r"\b(veto|destroy|shutdown|wipe)\b", re.I),
        "rules.veto.protected",
        0.9,
        "Task names a protected operation.",
    ),
    (
        "audit",
        re.compile(r"\b(write|delete|drop)\b", re.I),
        "rules.audit.sensitive",
        0.6,
        "Task names a sensitive operation; audited.",
    ),
)


def effective_failure_policy(mode: str, policy: str | None) -> str | None:
    """The failure policy a governed run applies: the one set, else ``fail_closed`` when enforcing and
    ``fail_open`` when auditing. The governance event and the summary's ``flags`` both state it, as Noēsis'
    own runs do; with governance off nothing applies one, and the summary keeps what was set (None if nothing)."""
    if mode == "off":
        return policy
    return policy or ("fail_closed" if mode == "enforce" else "fail_open")


@dataclass(frozen=True)
class GovernanceDecision:
    decision: str  # allow | audit | veto
    rule_id: str
    score: float
    message: str

    def payload(self, *, mode: str, enforced: bool, failure_policy: str) -> dict[str, Any]:
        return {
            "schema_version": "governance/1.0.0",
            "governance_id": f"gov-{uuid.uuid4().hex[:12]}",
            "decision_id": str(uuid.uuid4()),
            "decision": self.decision,
            "rule_id": self.rule_id,
            "score": self.score,
            "message": self.message,
            "policy_id": POLICY_ID,
            "policy_version": POLICY_VERSION,
            "policy_kind": "rules",
            "mode": mode,
            "failure_policy": failure_policy,
            "enforced": enforced,
        }


def evaluate_rules(texts: list[str]) -> GovernanceDecision:
    """The first matching rule over the goal and plan steps; a veto beats an audit."""
    joined = "\n".join(texts)
    for decision, pattern, rule_id, score, message in _RULES:
        if decision == "veto" and pattern.search(joined):
            return GovernanceDecision(decision, rule_id, score, message)
    for decision, pattern, rule_id, score, message in _RULES:
        if decision == "audit" and pattern.search(joined):
            return GovernanceDecision(decision, rule_id, score, message)
    return GovernanceDecision("allow", "rules.allow.default", 0.1, "No rule matched; allowed.")
