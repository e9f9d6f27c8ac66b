"""The ``subprocess`` protocol: run an argv without a shell.

Payload contract: ``argv`` (required, non-empty list of str), ``cwd`` (str), ``env``
(dict of str → str, merged over ``os.environ``; what the OS would refuse to exec is refused when
prepared, see ``exec_checks``), ``timeout_ms`` (int, 0 < ms ≤ ``MAX_TIMEOUT_MS``; default: the
execution context's). Output: ``{argv, cwd, returncode, exit_code, stdout, stderr}``, the
streams decoded and cut to ``MAX_STREAM_CHARS``. ``exit_code`` is the Noēsis name.

Secrets are stored as ``"[REDACTED]"``: secret-looking ``env`` values, values after secret-looking
flags in ``argv`` (``--token=…``, ``--password X``) and credentials found by value anywhere. A draft
executed by a process that did not prepare it takes a redacted ``env`` value from that process's
``os.environ`` (``restore``); other redacted values must be supplied (see ``secret_supply``), else
SecretUnavailableError names them.

The tool's process dies with the process running it (``tethered``): a runner killed mid-call leaves no tool
behind to finish its effect later, after a user has checked and retried.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from typing import Any

from noesis_nb.secrets import quoted

from . import codes, tethered
from ._base import as_json_data, check_keys, make_result
from .errors import InvalidToolPayloadError
from .exec_checks import check_exec
from .redaction import REDACTED_VALUE, is_secret_key
from .shown_shape import is_replaced
from .types import (
    ExecutionStatus,
    PreparedToolInvocation,
    ToolExecutionResult,
    ToolProtocol,
)

__all__ = ["SubprocessProtocol", "render_command_line", "MAX_STREAM_CHARS"]

MAX_STREAM_CHARS = 64 * 1024
# the longest wait ``subprocess`` can make (poll takes an int of ms): a longer one raises OverflowError, never waits
MAX_TIMEOUT_MS = 2**31 - 1
_FIELDS = ("argv", "cwd", "env", "timeout_ms")


def _truncate(text: str | bytes | None) -> str:
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if len(text) <= MAX_STREAM_CHARS:
        return text
    return text[:MAX_STREAM_CHARS] + f"\n…[truncated {len(text) - MAX_STREAM_CHARS} characters]"


class SubprocessProtocol:
    """Handler for ``ToolProtocol.SUBPROCESS``."""

    protocol = ToolProtocol.SUBPROCESS

    def normalize(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        payload = check_keys(payload, _FIELDS, "subprocess")
        argv = payload.get("argv")
        if not isinstance(argv, (list, tuple)) or not argv:
            raise InvalidToolPayloadError(
                f"subprocess payload needs 'argv', a non-empty list of str; got {type(argv).__name__}"
                + (" (empty)" if isinstance(argv, (list, tuple)) else "")
                + "."
            )
        for index, item in enumerate(argv):
            if not isinstance(item, str):
                raise InvalidToolPayloadError(
                    f"argv[{index}] has type {type(item).__name__}; every argv item must be a str (convert numbers with str())."
                )
        if "cwd" in payload and not isinstance(payload["cwd"], str):
            raise InvalidToolPayloadError(f"'cwd' must be a str, got {type(payload['cwd']).__name__}.")
        env = payload.get("env")
        if "env" in payload:
            if not isinstance(env, Mapping):
                raise InvalidToolPayloadError(f"'env' must be a dict of str to str, got {type(env).__name__}.")
            for key, value in env.items():
                if not isinstance(key, str):
                    raise InvalidToolPayloadError(
                        f"env key {quoted(key)} has type {type(key).__name__}; env keys and values must be str."
                    )
                if not isinstance(value, str):
                    raise InvalidToolPayloadError(
                        f"env entry {quoted(key)} has a value of type {type(value).__name__}; env keys and values must be "
                        "str (convert numbers with str())."
                    )
        if "timeout_ms" in payload:
            timeout = payload["timeout_ms"]
            if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
                raise InvalidToolPayloadError(f"'timeout_ms' must be an int > 0, got {quoted(timeout)}.")
            if timeout > MAX_TIMEOUT_MS:
                raise InvalidToolPayloadError(
                    f"'timeout_ms' is {timeout} ms; a subprocess is waited for at most {MAX_TIMEOUT_MS} ms (about 24 "
                    "days), so it could never run with it. Give a smaller timeout in ms (seconds × 1000)."
                )
        check_exec(argv, payload.get("cwd"), env)
        return as_json_data(dict(payload), "payload")

    def restore(self, stored: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Fill ``env`` values stored as ``"[REDACTED]"`` from this process's ``os.environ`` (those set there)."""
        env = stored.get("env")
        if not isinstance(env, dict):
            return stored, []
        filled = [k for k, v in env.items() if v == REDACTED_VALUE and k in os.environ]
        return {**stored, "env": {k: os.environ[k] if k in filled else v for k, v in env.items()}}, [f"env.{k}" for k in filled]

    def execute(
        self, prepared: PreparedToolInvocation, payload: dict[str, Any], func: Callable[..., Any] | None = None
    ) -> ToolExecutionResult:
        argv, cwd = list(payload["argv"]), payload.get("cwd")
        env = {**os.environ, **payload["env"]} if payload.get("env") else None
        timeout_ms = payload.get("timeout_ms") or prepared.execution.timeout_ms
        base = {"argv": argv, "cwd": cwd}
        try:  # a draft rebuilt from disk (a secret given back, an edited record) is checked again before it runs
            check_exec(argv, cwd, payload.get("env"))
        except InvalidToolPayloadError as exc:
            return make_result(prepared, ExecutionStatus.FAILED, exc.reason_code, {**base, "error": str(exc)})
        try:
            done = tethered.run_tethered(
                argv, cwd=cwd, env=env, timeout=min(timeout_ms, MAX_TIMEOUT_MS) / 1000 if timeout_ms and timeout_ms > 0 else None
            )
        except OSError as exc:  # missing binary, bad cwd, permission denied
            return make_result(
                prepared, ExecutionStatus.FAILED, codes.TOOL_TRANSPORT_ERROR, {**base, "error": f"{type(exc).__name__}: {exc}"}
            )
        if done.returncode is None:
            return make_result(
                prepared,
                ExecutionStatus.FAILED,
                codes.TOOL_TIMEOUT,
                {**base, "timeout_ms": timeout_ms, "stdout": _truncate(done.stdout), "stderr": _truncate(done.stderr)},
            )
        output = {
            **base,
            "returncode": done.returncode,
            "exit_code": done.returncode,
            "stdout": _truncate(done.stdout),
            "stderr": _truncate(done.stderr),
        }
        if done.returncode != 0:
            return make_result(prepared, ExecutionStatus.FAILED, codes.TOOL_EXECUTION_FAILED, output)
        return make_result(prepared, ExecutionStatus.SUCCEEDED, None, output)


def render_command_line(payload: Mapping[str, Any]) -> str:
    """Shell-like display of a subprocess payload: ``cd <cwd> && KEY=val … argv``.

    Secret-looking or already redacted env values show as ``KEY=[REDACTED]``, and the interpreter
    running this process (``sys.executable``) shows as ``python``. A field a policy replaced whole
    (``redact_fields`` / ``hash_fields``) shows as ``env=[REDACTED]`` / ``argv=sha256:…``, as does one
    of another type (such a draft is refused, ``shown_shape``). For display only: the payload, its
    fingerprint and what runs are unchanged.
    """
    parts = []
    cwd, env, timeout, argv = (payload.get(name) for name in ("cwd", "env", "timeout_ms", "argv"))
    if isinstance(cwd, str) and cwd and not is_replaced(cwd):
        parts.append(f"cd {shlex.quote(cwd)} &&")
    elif cwd:
        parts.append(f"cwd={_whole(cwd)}")
    if isinstance(env, Mapping):
        for key, value in env.items():
            shown = REDACTED_VALUE if is_secret_key(str(key)) or value == REDACTED_VALUE else shlex.quote(str(value))
            parts.append(f"{key}={shown}")
    elif env:
        parts.append(f"env={_whole(env)}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)):
        parts.append(f"timeout_ms={_whole(timeout)}")
    if isinstance(argv, (list, tuple)):
        args = [str(a) for a in argv]
        if args and args[0] == sys.executable:
            args[0] = "python"
        parts.append(shlex.join(args))
    elif argv is not None:
        parts.append(f"argv={_whole(argv)}")
    return " ".join(parts)


def _whole(value: Any) -> str:
    """A field shown whole: the marker or digest as it stands, anything else quoted as one shell word."""
    return value if is_replaced(value) else shlex.quote(value if isinstance(value, str) else json.dumps(value, default=str))
