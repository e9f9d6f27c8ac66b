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

An adapter's own phase is open too, but one a case, a dropped letter or a swap away from a known phase
(``obsreve``, ``Act``) is a slip: nothing would count or check it as the phase meant, so ``slipped_phase`` names it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

__all__ = [
    "MODEL_PHASE",
    "INTEGRATION_PHASE",
    "STEER_PHASE",
    "DRAIN_PHASE",
    "NOESIS_PHASES",
    "OWN_PHASES",
    "KNOWN_PHASES",
    "VERB_MINIMA",
    "missing_verb_minimum",
    "slipped_phase",
]

MODEL_PHASE = "model"
INTEGRATION_PHASE = "integration"
STEER_PHASE = "steer"
DRAIN_PHASE = "drain"

#: Noēsis' canonical phases (its ``docs/reference/events.mdx``) and the tool-contract bridge's ``tool``
NOESIS_PHASES = (
    *("start", "observe", "interpret", "plan", "direction", "governance", "action_candidate", "act", "reflect"),
    *("learn", "runtime", "terminate", "insight", "memory", "intuition", "reason", "error", "tool"),
)
OWN_PHASES = (MODEL_PHASE, INTEGRATION_PHASE, STEER_PHASE, DRAIN_PHASE)
KNOWN_PHASES = _KNOWN = frozenset((*NOESIS_PHASES, *OWN_PHASES))  # every phase Noēsis or noesis_nb writes
# a one-letter slip is judged against names of six letters or more: shorter ones are a letter from words
# that may well be phases of their own (``act``/``art``, ``plan``/``play``, ``learn``/``lean``, ``drain``/``train``)
_SLIP_TARGETS = tuple(p for p in (*NOESIS_PHASES, *OWN_PHASES) if len(p) >= 6)

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


@functools.lru_cache(maxsize=512)  # an adapter writes the same few phases over and over
def slipped_phase(phase: str) -> str | None:
    """The known phase ``phase`` looks like a slip of, or None (a known phase, or a name of its own).

    A slip: the same name but for case, spaces, ``-`` for ``_``, camelCase or an invisible character
    (``Observe``, ``action-candidate``, ``ActionCandidate``, ``observe\\u200b``); or, for a name of six letters
    or more, one letter dropped or two neighbours swapped (``reflct``, ``obsreve``). A letter replaced or added
    makes words of their own too often to be refused (``season``, ``deflect``, ``treason``, ``acts``).
    """
    if phase in _KNOWN:
        return None
    folded = _folded(phase)
    if folded in _KNOWN:
        return folded
    return next((known for known in _SLIP_TARGETS if _one_slip(folded, known)), None)


def _folded(phase: str) -> str:
    """``phase`` without invisible characters, in lower snake case (``ActionCandidate`` → ``action_candidate``)."""
    visible = "".join(c for c in phase if unicodedata.category(c) not in ("Cf", "Cc", "Zl", "Zp")).strip()
    snake = _CAMEL.sub("_", visible) if not visible.isupper() else visible
    return snake.lower().replace("-", "_").replace(" ", "_")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _one_slip(typed: str, known: str) -> bool:
    """Whether ``typed`` is ``known`` with one letter dropped, or two neighbouring letters swapped."""
    if len(typed) == len(known) - 1:
        return any(known[:i] + known[i + 1 :] == typed for i in range(len(known)))
    if len(typed) != len(known):
        return False
    diffs = [i for i, (a, b) in enumerate(zip(typed, known)) if a != b]
    return (
        len(diffs) == 2 and diffs[1] == diffs[0] + 1 and typed[diffs[0]] == known[diffs[1]] and typed[diffs[1]] == known[diffs[0]]
    )
