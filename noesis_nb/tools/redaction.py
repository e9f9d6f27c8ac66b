"""Payload redaction: the Noēsis field policy plus secret detection by name and by value.

Before anything is written or emitted, secrets become ``"[REDACTED]"``: values under secret-looking
keys (``password``, ``token``, ``api_key``, ``authorization``, ``auth``, …, at any depth, including a
subprocess ``env``), values after secret-looking flags in an ``argv`` (``--token=…``, ``--password X``),
and credentials found by value anywhere (``ghp_…``, ``postgres://u:pass@…``, ``Bearer …``, JWTs, PEM keys,
random-looking strings; see ``noesis_nb.secrets``). The fingerprint is the sha256 of the stored,
secret-free payload (as Noēsis defines it), never of the real one: a plain hash of secret bytes on disk
would let a word list recover them. The real payload stays in memory (``vault``) and is bound by a keyed
seal (``payload_seal``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from noesis_nb.secrets import REDACTED_VALUE, RunSecrets, is_secret_key, leaf_strings
from noesis_nb.secrets import redact as _detect_and_redact
from noesis_nb.secrets.names import hunted

from .fingerprints import request_fingerprint
from .types import PayloadEvidence, PayloadRedactionPolicy

__all__ = [
    "REDACTED_VALUE",
    "is_secret_key",
    "redact_secrets",
    "apply_redaction",
    "build_payload_evidence",
    "hash_value",
    "secret_values",
    "redacted_paths",
    "scrub",
]


def redact_secrets(value: Any, _path: str = "") -> tuple[Any, list[str]]:
    """Copy of ``value`` with every secret (by name or by value) replaced; also the dotted paths changed."""
    out, paths, _ = _redacted(value, _path)
    return out, paths


def _redacted(value: Any, _path: str = "") -> tuple[Any, list[str], list[str]]:
    """``redact_secrets`` and every value its hits name: also those a secret reads as decoded, which are in no
    string of ``value`` (``correct horse`` of ``password=correct+horse``, ``p@ss`` of ``password%3Dp%40ss``)."""
    out, hits = _detect_and_redact(value)
    paths = sorted({".".join(map(str, h.path)) for h in hits})
    found = [v for h in hits for v in h.values]
    return (out if hits else _copy(value)), [f"{_path}.{p}" if _path else p for p in paths], found


def hash_value(value: Any) -> str:
    """Noēsis hash rule: ``"sha256:" + sha256(repr(value))``."""
    return "sha256:" + hashlib.sha256(repr(value).encode("utf-8")).hexdigest()


def _transform(payload: Mapping[str, Any], fields: Iterable[str], fn: Callable[[Any], Any]) -> dict[str, Any]:
    out = _copy(payload)
    for field in fields:
        if field in out:  # a top-level key, even one containing dots
            out[field] = fn(out[field])
            continue
        parts = field.split(".")
        node: Any = out
        for part in parts[:-1]:
            node = _child(node, part)
            if node is None:
                break
        else:
            last = parts[-1]
            if isinstance(node, dict) and last in node:
                node[last] = fn(node[last])
            elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
                node[int(last)] = fn(node[int(last)])
    result: dict[str, Any] = out
    return result


def _child(node: Any, part: str) -> Any:
    if isinstance(node, dict):
        child = node.get(part)
    elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
        child = node[int(part)]
    else:
        return None
    return child if isinstance(child, (dict, list)) else None


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value


def apply_redaction(payload: Mapping[str, Any], policy: PayloadRedactionPolicy | None) -> dict[str, Any]:
    """Noēsis field policy: ``redact_fields`` → ``"[REDACTED]"``, ``hash_fields`` → ``hash_value``."""
    policy = policy or PayloadRedactionPolicy()
    out = _transform(payload, policy.redact_fields, lambda _v: REDACTED_VALUE)
    return _transform(out, [f for f in policy.hash_fields if f not in policy.redact_fields], hash_value)


def build_payload_evidence(
    normalized: Mapping[str, Any], policy: PayloadRedactionPolicy | None = None, *, secrets: RunSecrets | None = None
) -> PayloadEvidence:
    """Evidence safe to persist. ``secrets`` (the run's) learns what is found and redacts what it knew before.

    ``normalized_payload`` (stored) has secrets and ``redact_fields`` replaced but keeps
    ``hash_fields`` values, so a draft can still run from disk; ``redacted_payload`` is it with
    ``hash_fields`` hashed, each digest over the value stored at its path (a reader takes it again).
    ``request_fingerprint`` is the sha256 of the stored ``normalized_payload`` (what a reviewer sees and
    Noēsis checks), so it holds no hash of a secret. ``redaction_applied`` is true when a rule is configured
    or a secret was found.
    """
    policy = policy or PayloadRedactionPolicy()
    safe, secret_paths, found = _redacted(normalized)
    secrets = secrets if secrets is not None else RunSecrets()
    secrets.learn([*_changed_values(normalized, safe), *found])
    scrubbed = secrets.scrub(safe)  # a value found in one place is redacted in every other place too
    secret_paths = secret_paths or ([] if scrubbed is safe else ["known"])
    safe = scrubbed
    stored = _transform(safe, policy.redact_fields, lambda _v: REDACTED_VALUE)
    secrets.learn(_changed_values(normalized, stored))  # what the policy redacts stays out of everything else too
    stored = secrets.scrub(stored)  # here as well (a hashed field holding it): the save scrubs it so in any case
    stored, _ = redact_secrets(stored)  # the guard a save applies again: the fingerprint covers the stored bytes
    return PayloadEvidence(
        normalized_payload=stored,
        redacted_payload=apply_redaction(stored, policy),  # each digest over the value stored at its path
        request_fingerprint=request_fingerprint(stored),
        redaction_applied=bool(policy.redact_fields or policy.hash_fields or secret_paths),
    )


def redacted_paths(value: Any, _path: str = "") -> list[str]:
    """Dotted paths whose string holds the ``"[REDACTED]"`` marker."""
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in redacted_paths(v, f"{_path}.{k}" if _path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in redacted_paths(v, f"{_path}.{i}" if _path else str(i))]
    return [_path] if isinstance(value, str) and REDACTED_VALUE in value else []


def _hunted_under(key: Any, real: Any, value: str) -> bool:
    return not (isinstance(key, str) and isinstance(real, str)) or hunted(value, key)


def _changed_values(real: Any, stored: Any) -> list[str]:
    """The secret strings of ``real`` that ``stored`` redacts (whole leaves, or the parts a marker replaced)."""
    if isinstance(stored, str) and REDACTED_VALUE in stored:
        if stored == REDACTED_VALUE or not isinstance(real, str):
            return list(leaf_strings(real))
        return _between(stored, real)
    if isinstance(real, Mapping) and isinstance(stored, Mapping):
        # a leaf's value that is a word of its own name (``{"POSTGRES_PASSWORD": "postgres"}``) is hidden there only
        found = [v for k in real if k in stored for v in _changed_values(real[k], stored[k]) if _hunted_under(k, real[k], v)]
        # a key that held a secret is renamed (``{"[REDACTED]": …}``), keeping its order among the renamed ones
        renamed, names = [k for k in real if k not in stored], [k for k in stored if k not in real]
        if renamed and len(renamed) == len(names):
            pairs = zip(renamed, names)
            found += [v for rk, sk in pairs for v in (*_changed_values(rk, sk), *_changed_values(real[rk], stored[sk]))]
        return found
    if isinstance(real, (list, tuple)) and isinstance(stored, (list, tuple)):
        return [v for a, b in zip(real, stored) for v in _changed_values(a, b)]
    return []


def _between(template: str, real: str) -> list[str]:
    """The substrings of ``real`` that the markers of ``template`` stand for (greedy left to right)."""
    parts = template.split(REDACTED_VALUE)
    if not real.startswith(parts[0]) or not real.endswith(parts[-1]):
        return []
    out: list[str] = []
    pos = len(parts[0])
    for part in parts[1:-1]:
        nxt = real.find(part, pos + 1) if part else pos
        if nxt < 0:
            return out
        out.append(real[pos:nxt])
        pos = nxt + len(part)
    out.append(real[pos : len(real) - len(parts[-1])] if parts[-1] else real[pos:])
    return [v for v in out if v]


def secret_values(real: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """Strings present in ``real`` but redacted in ``stored``, longest first (to scrub from tool output)."""
    return sorted({v for v in _changed_values(real, stored) if len(v) >= 4}, key=len, reverse=True)


def scrub(value: Any, secrets: list[str]) -> Any:
    """Replace every occurrence of the given secret strings inside ``value`` (e.g. tool output)."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED_VALUE)
        return value
    if isinstance(value, Mapping):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, secrets) for v in value]
    return value
