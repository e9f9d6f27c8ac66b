"""Whether a draft's payloads read as its protocol's payload, so a view can show them and a run can execute them.

A field policy (``redact_fields`` / ``hash_fields``) may replace any field whole, at any depth: the shown payload
then holds ``"[REDACTED]"`` or a ``sha256:`` digest where the protocol has a list, a dict or a number, and the
stored one ``"[REDACTED]"`` (its value given back before it runs). Anything else of another type (a list where a
dict is expected, a number where a str is) is no payload this package wrote: ``shape_problem`` names it, and the
draft is refused unseen (``shown_check``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .redaction import REDACTED_VALUE

__all__ = ["is_replaced", "shape_problem"]

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")  # what ``redaction.hash_value`` gives


def is_replaced(value: Any, *, digest: bool = True) -> bool:
    """``value`` stands for a field a policy replaced whole: ``"[REDACTED]"``, or (``digest``) a ``sha256:`` digest."""
    return isinstance(value, str) and (value == REDACTED_VALUE or (digest and _DIGEST.fullmatch(value) is not None))


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _str_dict(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# protocol → field → (holds the field's value, what it should be). Only a field present is checked: a Noēsis caller
# may bring its own normalizer (``normalize_payload``) and payload fields; the built-in handler refuses a missing one.
_FIELDS: dict[str, dict[str, tuple[Any, str]]] = {
    "subprocess": {
        "argv": (_str_list, "a list of str"),
        "cwd": (lambda v: isinstance(v, str), "a str"),
        "env": (_str_dict, "a dict of str to str"),
        "timeout_ms": (_int, "an int"),
    },
    "python": {
        "args": (lambda v: isinstance(v, list), "a list"),
        "kwargs": (lambda v: isinstance(v, Mapping), "a dict"),
    },
}


def shape_problem(protocol: str, shown: Any, runs: Any) -> str | None:
    """Why the draft's shown payload (``shown``) or the one it runs (``runs``) is not its protocol's payload, else None.

    A field replaced whole is accepted: by ``"[REDACTED]"`` or a digest in ``shown``, by ``"[REDACTED]"`` in ``runs``.
    """
    fields = _FIELDS.get(protocol)
    if fields is None:  # a protocol this package has no handler for: nothing to read field by field
        return None
    for which, payload in (("shown", shown), ("stored", runs)):
        if not isinstance(payload, Mapping):
            return f"unreadable: its {which} payload is a {type(payload).__name__}, not a dict of the {protocol} payload's fields"
        for name, (holds, wanted) in fields.items():
            if name not in payload:
                continue
            value = payload[name]
            if holds(value) or is_replaced(value, digest=which == "shown"):
                continue
            return (
                f"unreadable: its {which} {name!r} is a {type(value).__name__} (not shown), where a {protocol} draft "
                f"holds {wanted} (or the field replaced whole by {REDACTED_VALUE} or a sha256: digest)"
            )
    return None
