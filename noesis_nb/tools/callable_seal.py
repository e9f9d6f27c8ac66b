"""A ``python`` draft's ``x-callable`` bound to this user's seal key, so a record edited on disk runs nothing.

The prepared record names the function a draft calls (``module:qualname``) so that another process can import
it and run the draft once it is approved. That name is not part of what the approver reviews (the payload's
fingerprint), and anyone who can write the run's folder could point it elsewhere (``os:system``) before the
approval. The reference is therefore stored with an HMAC of (run, draft, reference) under the user's seal key
(``noesis_nb._sealkey``), and a reference is imported only when that HMAC holds. A draft prepared under another
user's key (or before this check existed) is run by passing its function again: ``callables={draft_id: func}``.
"""

from __future__ import annotations

import hashlib
import hmac

import orjson

from .._sealkey import seal_key
from .types import CallableRef

__all__ = ["sealed_reference", "reference_holds"]

_DOMAIN = "noesis_nb/x-callable/1"


def _mac(run_id: str, draft_id: str, ref: CallableRef) -> str:
    message = orjson.dumps([_DOMAIN, run_id, draft_id, ref.ref, ref.importable])
    return hmac.new(seal_key(), message, hashlib.sha256).hexdigest()


def sealed_reference(run_id: str, draft_id: str, ref: CallableRef) -> CallableRef:
    """``ref`` with the seal that lets a later process import it for this run's draft."""
    return ref.model_copy(update={"seal": _mac(run_id, draft_id, ref)})


def reference_holds(run_id: str, draft_id: str, ref: CallableRef) -> bool:
    """Whether ``ref`` was stored for this draft by this user's noesis_nb, unedited since."""
    return isinstance(ref.seal, str) and hmac.compare_digest(ref.seal, _mac(run_id, draft_id, ref))
