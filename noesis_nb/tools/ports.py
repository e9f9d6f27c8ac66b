"""Authentication, authorisation and preflight ports of ``prepare_tool_invocation``.

A port is a plain callable or a Noēsis-style object (``authenticate(*, security)``,
``authorize(*, request, security)``, ``compute(*, invocation)``). None means allow-all.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from . import events
from .errors import ToolAuthenticationError, ToolAuthorizationError
from .types import SecurityContext, ToolInvocationInput

__all__ = ["port_method", "call_port", "authenticate", "authorize"]


def port_method(port: Any, method: str) -> Callable[..., Any] | None:
    """A Noēsis-style port object's method, or the plain callable itself."""
    return getattr(port, method) if port is not None and hasattr(port, method) else port


def call_port(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call a port by keyword when its signature has those names (Noēsis style), else positionally."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    by_name = all(k in params for k in kwargs) or any(p.kind is p.VAR_KEYWORD for p in params.values())
    return fn(**kwargs) if by_name else fn(*kwargs.values())


def authenticate(authn: Any, inv: ToolInvocationInput, emit: Callable[..., str]) -> SecurityContext:
    """The (possibly enriched) security context; emits ``tool.authn.failed`` before re-raising."""
    if authn is None:
        return inv.security
    try:
        security = call_port(authn, security=inv.security)
    except ToolAuthenticationError as exc:
        emit(events.TOOL_AUTHN_FAILED, inv.request_id, reason_code=exc.reason_code)
        raise
    return security or inv.security


def authorize(authz: Any, inv: ToolInvocationInput, security: SecurityContext, emit: Callable[..., str]) -> None:
    """Raise ToolAuthorizationError when denied (``False`` or a raise); emits ``tool.authz.denied``."""
    if authz is None:
        return
    try:
        allowed = call_port(authz, request=inv, security=security)
        if allowed is False:
            raise ToolAuthorizationError(f"principal {security.principal_id!r} may not call {inv.tool.key} in policy "
                                         f"scope {security.policy_scope!r}; grant it in the authz port or change the scope.")
    except ToolAuthorizationError as exc:
        emit(events.TOOL_AUTHZ_DENIED, inv.request_id, reason_code=exc.reason_code)
        raise
