"""The one rule for naming a draft: its whole id, its request id, or a unique part of its request id.

Draft ids look like ``draft:<run_id>:<request_id>``. A reference may be the whole id, the request
id, or a prefix or suffix of the request id of at least ``MIN_PART`` characters past the scheme's
common prefix ``req_`` (every request id noesis_nb makes starts with it, so ``"req_"`` alone, or
``"req_0"``, tells no draft from another). A reference that names nothing (``""``, ``"draft:"``,
``"draft:<run_id>:"``, ``"req_"``) is refused: it must never pick "the only draft" by accident.
"""

from __future__ import annotations

from noesis_nb._safetext import unseen_said, visible
from noesis_nb.errors import InvalidIdError
from noesis_nb.ids import first_outside, outside_message
from noesis_nb.secrets import quoted

__all__ = ["MIN_PART", "SCHEME_PREFIX", "request_part", "run_part", "match_draft_ref"]

MIN_PART = 4
#: what every request id noesis_nb makes starts with (``req_<ULID>``): not counted as part of a reference
SCHEME_PREFIX = "req_"


def request_part(draft_id: str) -> str:
    """The request-id part of ``draft:<run>:<request>`` (the whole id when it has another shape)."""
    parts = draft_id.split(":", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "draft" else draft_id


def run_part(draft_id: object) -> str | None:
    """The run-id part of a whole ``draft:<run>:<request>`` (None for anything else)."""
    if not isinstance(draft_id, str):
        return None
    parts = draft_id.split(":", 2)
    return parts[1] if len(parts) == 3 and parts[0] == "draft" and parts[1] and parts[2] else None


def _core(ref: str) -> str:
    if ref.startswith("draft:"):
        rest = ref[len("draft:") :]
        return rest.split(":", 1)[1] if ":" in rest else rest
    return ref


def match_draft_ref(ref: object, ids: list[str]) -> list[str]:
    """The ids ``ref`` names (exact first). Raises InvalidIdError for a reference that names no draft."""
    if not isinstance(ref, str) or not ref.strip():
        raise InvalidIdError(
            f"draft id {quoted(ref)} names no draft; pass the whole id ('draft:<run>:<request>'), its request id, "
            f"or at least {MIN_PART} characters of the request id — or None for the one pending draft"
        )
    if ref in ids:
        return [ref]
    exact = [d for d in ids if request_part(d) == ref]
    if exact:
        return exact
    if ref != ref.strip():  # pasted with a space or a line end around it: refused as an episode id is (``validate_id``)
        raise InvalidIdError(f"draft reference {quoted(ref, 80)} has white space around it; pass {quoted(ref.strip(), 80)}")
    named = ref[len("draft:") :].split(":", 1) if ref.startswith("draft:") else None
    if named is not None and len(named) == 2 and named[0]:  # ``draft:<run>:<part>``: that run's drafts only
        ids = [d for d in ids if run_part(d) == named[0]]
    core = _core(ref)
    shown = visible(ref, exact=True)
    if shown != ref:  # a control, invisible or filler character: pasted with the id, or forged
        at = next((i for i, (a, b) in enumerate(zip(ref, shown)) if a != b), len(ref) - 1)
        raise InvalidIdError(
            f"draft reference {quoted(shown)} {unseen_said(ref[at], at)}, which no draft id has (shown as \ufffd); "
            "copy the id again from the approval card or %noesis show"
        )
    stray = first_outside(ref)
    if stray is not None and not any(stray[0] in d for d in ids):  # a look-alike or full-width letter typed: no id has it
        raise InvalidIdError(outside_message(ref, "draft reference", copy_from="the approval card or %noesis show"))
    meaningful = core[len(SCHEME_PREFIX) :] if core.startswith(SCHEME_PREFIX) else core
    if len(meaningful) < MIN_PART:
        past = f" past its common prefix {SCHEME_PREFIX!r}" if core.startswith(SCHEME_PREFIX) else ""
        raise InvalidIdError(
            f"draft reference {quoted(ref)} is too short to name a draft unambiguously; give at least {MIN_PART} "
            f"characters of the request id{past} (e.g. {SCHEME_PREFIX}01K9…), or the whole draft id"
        )
    return [d for d in ids if request_part(d).startswith(core) or request_part(d).endswith(core)]
