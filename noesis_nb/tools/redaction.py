"""Payload redaction: the Noēsis field policy plus a default secret-key redaction.

Secret-looking keys (``password``, ``token``, ``api_key``, ``authorization``, …, at any depth,
including a subprocess ``env``) become ``"[REDACTED]"`` before anything is written or emitted.
The fingerprint is still computed over the real payload, which stays in memory only.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable, Iterable, Mapping

from .fingerprints import request_fingerprint
from .types import PayloadEvidence, PayloadRedactionPolicy

__all__ = [
    "REDACTED_VALUE", "is_secret_key", "redact_secrets", "apply_redaction", "build_payload_evidence",
    "hash_value", "secret_values", "redacted_paths", "scrub",
]

REDACTED_VALUE = "[REDACTED]"
_SECRET_WORDS = {"password", "passwords", "passwd", "secret", "secrets", "token", "apikey",
                 "authorization", "cookie", "cookies", "credential", "credentials", "privatekey", "accesskey"}
_SECRET_PAIRS = {("api", "key"), ("private", "key"), ("access", "key")}
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def is_secret_key(name: str) -> bool:
    """True for keys such as ``GITHUB_TOKEN``, ``apiKey``, ``X-Api-Key``, ``db_password``.

    Keys are split into words (``max_tokens`` is not a secret; ``auth_token`` is).
    """
    words = [w.lower() for w in _WORD.findall(str(name))]
    if any(w in _SECRET_WORDS for w in words):
        return True
    return any(pair in _SECRET_PAIRS for pair in zip(words, words[1:]))


def redact_secrets(value: Any, _path: str = "") -> tuple[Any, list[str]]:
    """Copy of ``value`` with secret-keyed values replaced; also the dotted paths replaced."""
    if isinstance(value, Mapping):
        out, paths = {}, []
        for key, item in value.items():
            path = f"{_path}.{key}" if _path else str(key)
            if is_secret_key(key) and item is not None:
                out[key] = REDACTED_VALUE
                paths.append(path)
            else:
                out[key], sub = redact_secrets(item, path)
                paths.extend(sub)
        return out, paths
    if isinstance(value, (list, tuple)):
        out_list, paths = [], []
        for index, item in enumerate(value):
            new, sub = redact_secrets(item, f"{_path}.{index}" if _path else str(index))
            out_list.append(new)
            paths.extend(sub)
        return out_list, paths
    return value, []


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
    return out


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


def build_payload_evidence(normalized: Mapping[str, Any], policy: PayloadRedactionPolicy | None = None) -> PayloadEvidence:
    """Evidence safe to persist.

    ``normalized_payload`` (stored) has secrets and ``redact_fields`` replaced but keeps
    ``hash_fields`` values, so a draft can still run from disk; ``redacted_payload`` also has
    ``hash_fields`` hashed (over the secret-free value). ``request_fingerprint`` covers the
    real payload. ``redaction_applied`` is true when a rule is configured or a secret was found.
    """
    policy = policy or PayloadRedactionPolicy()
    safe, secret_paths = redact_secrets(normalized)
    return PayloadEvidence(
        normalized_payload=_transform(safe, policy.redact_fields, lambda _v: REDACTED_VALUE),
        redacted_payload=apply_redaction(safe, policy),
        request_fingerprint=request_fingerprint(normalized),
        redaction_applied=bool(policy.redact_fields or policy.hash_fields or secret_paths),
    )


def redacted_paths(value: Any, _path: str = "") -> list[str]:
    """Dotted paths whose value is the ``"[REDACTED]"`` marker."""
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in redacted_paths(v, f"{_path}.{k}" if _path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in redacted_paths(v, f"{_path}.{i}" if _path else str(i))]
    return [_path] if value == REDACTED_VALUE else []


def secret_values(real: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """String values present in ``real`` but redacted in ``stored`` (longest first, ≥ 4 chars)."""
    found: set[str] = set()
    for path in redacted_paths(stored):
        node: Any = real
        for part in path.split("."):
            node = node.get(part) if isinstance(node, Mapping) else (
                node[int(part)] if isinstance(node, list) and part.isdigit() and int(part) < len(node) else None)
        if isinstance(node, str) and len(node) >= 4 and node != REDACTED_VALUE:
            found.add(node)
    return sorted(found, key=len, reverse=True)


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
