"""What prepare and execute share: the two spellings of each port, vault scoping, and model coercion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import ToolRecordError
from .ports import port_method
from .vault import PROCESS_VAULT, DispatchVault

__all__ = ["Emit", "recorder_emit"]

Emit = Callable[..., Any]


def recorder_emit(event_recorder: Any, run_id: str) -> Emit:
    """An ``emit`` that forwards each event to a Noēsis ``ToolEventRecorderPort`` (or a callable)."""
    record = port_method(event_recorder, "record")
    if record is None:
        raise TypeError("event_recorder= needs a ToolEventRecorderPort (an object with record(...)) or a callable")

    def emit(event_name: str, request_id: str, **extra: Any) -> Any:
        return record(run_id=run_id, request_id=request_id, event_name=event_name, payload=extra)

    return emit


def _one(fn: str, name: str, value: Any, noesis_name: str, noesis_value: Any, *, required: bool = False) -> Any:
    """The port given under either of its two names."""
    if value is not None and noesis_value is not None:
        raise TypeError(
            f"{fn}() got both {name}= and {noesis_name}=; they name the same port (noesis_nb and Noēsis spelling), so pass one."
        )
    if required and value is None and noesis_value is None:
        raise TypeError(f"{fn}() needs {name}= (or its Noēsis name {noesis_name}=).")
    return value if value is not None else noesis_value


def _vault(repo: Any) -> DispatchVault:
    return getattr(repo, "vault", PROCESS_VAULT)


def _scope(repo: Any) -> Path:
    """Vault scope of a repository: its run directory, or (a port without one) its identity."""
    run_dir = getattr(repo, "run_dir", None)
    return Path(run_dir) if run_dir is not None else Path(f"<{type(repo).__qualname__}@{id(repo):x}>")


def _coerce(model: Any, value: Any, where: str) -> Any:
    """``value`` as the noesis_nb model (a port written for Noēsis may return its own objects)."""
    if value is None or isinstance(value, model):
        return value
    try:
        return model.model_validate(value, from_attributes=True)
    except ValidationError as exc:
        raise ToolRecordError(f"{where} returned a {type(value).__name__} that is not a {model.__name__}: {exc}") from None
