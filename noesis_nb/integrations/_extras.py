"""Importing an integration's third-party package, with one clear error when the extra is missing.

The core never imports these packages; an integration imports its package only when an
adapter is built, so ``import noesis_nb.integrations.<name>`` itself always works.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from ..errors import MissingExtraError
from ..secrets.quoted import keys_hidden, quoted

__all__ = ["MissingExtraError", "require"]

_PACKAGES = {
    "agui": "ag-ui-protocol",
    "noeta": "noeta-sdk",
    "langgraph": "langgraph",
    "crewai": "crewai",
    "otel": "opentelemetry-exporter-otlp-proto-http",
}


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install 'noesis_nb[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = _PACKAGES.get(extra, extra)
        missing = getattr(exc, "name", None)  # the module not found (ModuleNotFoundError), when it says
        asked = missing is not None and (module == missing or module.startswith(missing + "."))
        if not asked and _found(module):  # the package is there, but something it imports is not (or failed)
            raise MissingExtraError(
                f"{what} needs the {quoted(package)} package, which is installed but could not be imported "
                f"({type(exc).__name__}: {keys_hidden(str(exc))}). Reinstall it with its dependencies: "
                f"pip install --force-reinstall 'noesis_nb[{extra}]'"
            ) from exc
        raise MissingExtraError(
            f"{what} needs the {quoted(package)} package, which is not installed ({keys_hidden(str(exc))}). "
            f"Install it with: pip install 'noesis_nb[{extra}]'"
        ) from exc


def _found(module: str) -> bool:
    """Whether the top-level package of ``module`` is on the path (found, whether or not it imports)."""
    try:
        return importlib.util.find_spec(module.partition(".")[0]) is not None
    except (ImportError, ValueError):
        return False
