"""A keyed seal of a draft's real payload, so secrets given back in another process can be checked offline-safely.

A stored draft holds its payload with secrets replaced by ``"[REDACTED]"``, and its ``request_fingerprint`` is
the sha256 of exactly that stored payload (the Noēsis definition). A plain hash of the real payload would let
anyone holding the run's files test guesses of the secret, so the real payload is bound instead by an HMAC
under this user's seal key (``noesis_nb._sealkey``), kept outside the run. A process of the same user that is
given the secrets back (``secret_supply``) rebuilds the payload and checks it against this seal.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from noesis_nb._jsonio import canonical_json

from .._sealkey import seal_key

__all__ = ["SEAL_FIELD", "payload_seal", "seal_holds"]

SEAL_FIELD = "x-payload_seal"  # where prepared and idempotency records keep it
_DOMAIN = b"noesis_nb/x-payload_seal/2\x00"


def payload_seal(run_id: str, payload: Mapping[str, Any]) -> str:
    """``hmac-sha256:<hex>`` of (run, canonical payload) under the user's seal key. Not bound to one draft, so two
    drafts of the run with one real payload have one seal (what an idempotency key compares)."""
    message = _DOMAIN + canonical_json([run_id, dict(payload)])
    return "hmac-sha256:" + hmac.new(seal_key(), message, hashlib.sha256).hexdigest()


def seal_holds(seal: object, run_id: str, payload: Mapping[str, Any]) -> bool:
    """Whether ``payload`` is the one ``seal`` was made over (by this user's noesis_nb)."""
    return isinstance(seal, str) and hmac.compare_digest(seal, payload_seal(run_id, payload))
