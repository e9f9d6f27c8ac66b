"""Giving back the secrets a stored draft lost to redaction, when another process executes it.

A prepared record on disk holds ``"[REDACTED]"`` where its payload had a secret (a whole value,
or part of a string: ``--token=[REDACTED]``). The process that prepared the draft keeps the real
payload in memory; any other process must be given each redacted value, by payload path:

    noesis_nb.resume_run("ep_…", secrets={"kwargs.auth": "…", "argv.3": "…"})
    with supply_secrets({"kwargs.auth": "…"}): execute_prepared_tool_invocation(...)
    NOESIS_NB_SECRET_KWARGS_AUTH=… (an environment variable per path; ``env.NAME`` also reads ``NAME``)

A value is the secret itself (put where the marker is), or the whole original string, or a list
with one value per marker. The request fingerprint then proves the payload is the reviewed one.
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from noesis_nb.errors import InvalidOptionError
from noesis_nb.secrets import keys_hidden

from .errors import SecretUnavailableError
from .redaction import REDACTED_VALUE

__all__ = [
    "supply_secrets",
    "supplied_secrets",
    "check_supplied",
    "secret_env_name",
    "marked_paths",
    "fill_secrets",
    "fill_repeats",
    "missing_message",
]

_SUPPLIED: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar("noesis_nb_secrets", default=None)


@contextmanager
def supply_secrets(secrets: Mapping[str, Any] | None) -> Iterator[None]:
    """Within the block (and tasks and threads it starts), executions may use these redacted values."""
    check_supplied(secrets)
    token = _SUPPLIED.set({**(_SUPPLIED.get() or {}), **(secrets or {})})
    try:
        yield
    finally:
        _SUPPLIED.reset(token)


def check_supplied(secrets: object) -> None:
    """Refuse a ``secrets=`` that is no mapping of payload paths (``'kwargs.auth'``, ``'argv.3'``) to values.

    Called before any run is looked up, so a wrong value is named even when the run needs no secret."""
    fix = "pass a dict of payload path -> value, e.g. {'kwargs.auth': '…'} (the error of a resume names each path it needs)"
    if secrets is None:
        return
    if not isinstance(secrets, Mapping):
        raise InvalidOptionError(f"secrets= takes a mapping, got {type(secrets).__name__}: {fix}")
    for key in secrets:
        if not isinstance(key, str) or not key.strip() or key != key.strip():
            shown = keys_hidden(repr(key))[:80]
            raise InvalidOptionError(f"secrets= has the key {shown}, which names no payload path: {fix}")


def supplied_secrets() -> Mapping[str, Any]:
    return _SUPPLIED.get() or {}


def secret_env_name(path: str) -> str:
    """``kwargs.auth`` → ``NOESIS_NB_SECRET_KWARGS_AUTH``."""
    return "NOESIS_NB_SECRET_" + re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_").upper()


def marked_paths(value: Any, _path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], int]]:
    """(path, number of markers) of every string holding ``"[REDACTED]"``."""
    if isinstance(value, str):
        return [(_path, value.count(REDACTED_VALUE))] if REDACTED_VALUE in value else []
    if isinstance(value, Mapping):
        return [m for k, v in value.items() for m in marked_paths(v, _path + (k,))]
    if isinstance(value, list):
        return [m for i, v in enumerate(value) for m in marked_paths(v, _path + (i,))]
    return []


def dotted(path: tuple[Any, ...]) -> str:
    return ".".join(map(str, path))


def _fill_leaf(template: str, given: Any) -> Any:
    """The leaf rebuilt from ``given``: the secret(s) for the marker(s), or the whole original value."""
    parts = template.split(REDACTED_VALUE)
    if isinstance(given, (list, tuple)) and len(parts) > 2 and all(isinstance(g, str) for g in given):
        if len(given) != len(parts) - 1:
            raise ValueError(f"{len(given)} values for {len(parts) - 1} redacted parts")
        return parts[0] + "".join(g + p for g, p in zip(given, parts[1:]))
    if template == REDACTED_VALUE or not isinstance(given, str):
        return given  # a whole value (any JSON type)
    if given.startswith(parts[0]) and given.endswith(parts[-1]) and len(given) > len(parts[0]) + len(parts[-1]):
        return given  # the whole original string
    if len(parts) == 2:
        return parts[0] + given + parts[1]
    raise ValueError(
        f"{len(parts) - 1} parts of this value are redacted: give a list of {len(parts) - 1} values or the whole original string"
    )


def _set(payload: Any, path: tuple[Any, ...], value: Any) -> None:
    node = payload
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _get(payload: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        payload = payload[part]
    return payload


def fill_secrets(payload: dict[str, Any], supplied: Mapping[str, Any]) -> tuple[dict[str, Any], list[str], list[str]]:
    """Put supplied values (``supplied`` by dotted path, else ``$NOESIS_NB_SECRET_<PATH>``, else ``$NAME``
    for ``env.NAME``) into ``payload`` (a copy is changed). Returns (payload, filled paths, missing paths)."""
    import copy

    payload = copy.deepcopy(payload)
    filled, missing = [], []
    for path, _count in marked_paths(payload):
        key = dotted(path)
        given = supplied.get(key, os.environ.get(secret_env_name(key)))
        if given is None and len(path) == 2 and path[0] == "env" and isinstance(path[1], str):
            given = os.environ.get(path[1])
        if given is None:
            missing.append(key)
            continue
        try:
            _set(payload, path, _fill_leaf(_get(payload, path), given))
        except ValueError as exc:
            raise SecretUnavailableError(f"the secret given for {key!r} does not fit: {keys_hidden(str(exc))}.") from None
        filled.append(key)
    return payload, filled, missing


def _secret_parts(template: str, whole: str) -> list[str]:
    """What the markers of ``template`` stood for in ``whole`` (one marker only; else nothing)."""
    head, _, tail = template.partition(REDACTED_VALUE)
    if REDACTED_VALUE in tail or not whole.startswith(head) or not whole.endswith(tail):
        return []
    return [whole[len(head) : len(whole) - len(tail)]]


def fill_repeats(
    stored: dict[str, Any], payload: dict[str, Any], filled: list[str], missing: list[str], fits: Any, limit: int = 256
) -> dict[str, Any] | None:
    """A payload with each ``missing`` leaf filled from a secret given for another path (one secret often
    appears twice, e.g. in ``env`` and in ``argv``), if some choice makes ``fits(payload)`` true."""
    import copy
    import itertools

    by_path = {dotted(p): p for p, _ in marked_paths(stored)}
    candidates: list[str] = []
    for key in filled:
        template, value = _get(stored, by_path[key]), _get(payload, by_path[key])
        for part in [value] if template == REDACTED_VALUE else _secret_parts(template, value):
            if isinstance(part, str) and part not in candidates:
                candidates.append(part)
    if not candidates or len(candidates) ** len(missing) > limit:
        return None
    for choice in itertools.product(candidates, repeat=len(missing)):
        trial = copy.deepcopy(payload)
        try:
            for key, value in zip(missing, choice):
                _set(trial, by_path[key], _fill_leaf(_get(trial, by_path[key]), value))
        except ValueError:
            continue
        if fits(trial):
            return trial
    return None


def missing_message(draft_id: str, run_id: str, missing: list[str]) -> str:
    example = ", ".join(f"{p!r}: '…'" for p in missing)
    env = ", ".join(secret_env_name(p) for p in missing)
    names = [p.split(".", 1)[1] for p in missing if p.startswith("env.")]
    also = f"; for env entries, setting {', '.join(names)} in this process works too" if names else ""
    return (
        f"draft {draft_id!r} needs {len(missing)} secret(s) that were redacted when it was stored: {', '.join(missing)}. "
        f"This process did not prepare it, so supply them by payload path: "
        f"noesis_nb.resume_run({run_id!r}, secrets={{{example}}}) (or secrets= on execute_prepared_tool_invocation), "
        f"or set the environment variable(s) {env}{also}. Nothing ran; the draft can still be executed."
    )
