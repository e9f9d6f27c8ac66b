"""Importing an integration's third-party package, with one clear error when the extra is missing.

The core never imports these packages; an integration imports its package only when an
adapter is built, so ``import noesis_nb.integrations.<name>`` itself always works.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import NoesisNbError
from ..secrets.quoted import keys_hidden, quoted

__all__ = ["MissingExtraError", "require"]

_PACKAGES = {
    "agui": "ag-ui-protocol",
    "noeta": "noeta-sdk",
    "langgraph": "langgraph",
    "crewai": "crewai",
    "otel": "opentelemetry-exporter-otlp-proto-http",
}


class MissingExtraError(NoesisNbError, ImportError):
    """An integration was used without its optional package; the message has the install line."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install 'noesis_nb[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = _PACKAGES.get(extra, extra)
        raise MissingExtraError(
            f"{what} needs the {quoted(package)} package, which is not installed ({keys_hidden(str(exc))}). "
            f"Install it with: pip install 'noesis_nb[{extra}]'"
        ) from exc
