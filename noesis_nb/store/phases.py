"""Event phases: the payload minimum of Noēsis' verb phases, and noesis_nb's own extension phases.

Noēsis' event writer refuses a line whose phase is a verb (``observe``, ``interpret``, ``plan``,
``act``, ``reflect``, ``learn``) without that verb's minimum payload. Any other phase is an
extension it keeps and ignores. noesis_nb writes four:

``model``        one model call with its token usage (``event_name: "model.call"``).
``integration``  one event of another agent system or a recorded trace (AG-UI, Noeta, LangGraph,
                 CrewAI, Noetic, Taisce): ``{event_name: "<source>.<name>", kind, source, …}``.
``steer``        a person's message to a running agent: ``steer.sent`` ``{steer_id, text, mode, sender}``
                 when sent, ``steer.applied`` ``{steer_id, mode, sender, waited_ms}`` (caused by the sent
                 event) when the adapter took it.
``drain``        a graceful stop: ``drain.started`` ``{drain_s, sender, in_flight}``, ``drain.refused``
                 ``{kind, name}`` for a call asked for while draining (never started), ``drain.report``
                 ``{reason, duration_s, finished, cut_off, refused}`` before the run is sealed ``cancelled``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MODEL_PHASE", "INTEGRATION_PHASE", "STEER_PHASE", "DRAIN_PHASE", "VERB_MINIMA", "missing_verb_minimum"]

MODEL_PHASE = "model"
INTEGRATION_PHASE = "integration"
STEER_PHASE = "steer"
DRAIN_PHASE = "drain"

VERB_MINIMA: dict[str, tuple[str, ...]] = {
    "observe": ("task", "tags", "timestamp"),
    "interpret": ("signals",),
    "plan": ("steps",),
    "act": ("input_excerpt", "outcome"),
    "reflect": ("success",),
}
_LEARN_REFERENCE = ("learn_path", "learn_schema", "proposal_ids", "proposal_count")
_LEARN_LEGACY = ("policy_id", "basis", "proposal", "scope")


def missing_verb_minimum(phase: str, payload: Mapping[str, Any]) -> list[str]:
    """The keys a verb-phase payload lacks (``["tool|adapter"]`` for an act without either); [] otherwise."""
    if phase == "learn":
        shape = _LEARN_REFERENCE if ("learn_path" in payload or "learn_schema" in payload) else _LEARN_LEGACY
        return [key for key in shape if key not in payload]
    missing = [key for key in VERB_MINIMA.get(phase, ()) if key not in payload]
    if phase == "act" and "tool" not in payload and "adapter" not in payload:
        missing.append("tool|adapter")
    return missing
