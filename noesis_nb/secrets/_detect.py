"""Import detect-secrets without its process-wide side effect on warnings.

Its logger is made at import with ``logging.captureWarnings(True)``: from then on every warning in the
process (``DecisionStands``, ``RunRecovered``, a user's own ``warnings.warn``) went to the ``py.warnings``
logger, which prints nothing unless logging is configured, and a ``catch_warnings(record=True)`` block
around the first scan recorded nothing. The import is undone on that point only.
"""

from __future__ import annotations

import logging
import warnings
from functools import lru_cache

__all__ = ["load"]


@lru_cache(maxsize=1)
def load() -> None:
    """Import ``detect_secrets`` once, leaving ``warnings.showwarning`` as it was (unless it was captured already)."""
    before = warnings.showwarning
    import detect_secrets.core.log  # noqa: F401  (the module whose import captures warnings)

    if warnings.showwarning is not before:  # captured by that import, not by the program before it
        logging.captureWarnings(False)  # logging's own record of the capture is cleared too: a later call works
        warnings.showwarning = before
