"""What the OS refuses to ``exec``, checked when a subprocess payload is prepared and again before it runs.

A payload that can never run must not wait for a human's approval and then fail with Python's bare
``ValueError: embedded null byte``. Refused here, each naming the part and the fix: a NUL in an argv
item, the cwd, an env name or value; an env name that is empty or holds '='; an empty program or cwd;
text the file system encoding cannot pass; and, where the limits are known, a program or cwd path past
``PATH_MAX``, one string longer than Linux's per-string limit (``MAX_ARG_STRLEN``) or argv and environment
together past ``ARG_MAX``.
What depends on the machine at run time (the program or cwd not existing yet) is left to the run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from noesis_nb.secrets import quoted

from .errors import InvalidToolPayloadError

__all__ = ["check_exec", "single_string_limit", "total_limit", "path_limit"]

_POINTER_BYTES = 8
_LARGE_DATA_FIX = "pass large data through a file (write it first, then give the file's path)"


def single_string_limit() -> int | None:
    """Bytes one argv item or ``KEY=value`` may take with its NUL (Linux: 32 pages), or None when unknown."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return 32 * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None


def total_limit() -> int | None:
    """``ARG_MAX``: bytes argv and environment may take together, or None when the system does not say."""
    try:
        limit = os.sysconf("SC_ARG_MAX")
    except (AttributeError, ValueError, OSError):
        return None
    return limit if limit > 0 else None


def path_limit() -> int | None:
    """``PATH_MAX``: bytes a path passed to the kernel may take with its NUL (Linux: any file system), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (ValueError, OSError):
        return None


def _check_path_length(data: bytes, where: str) -> None:
    limit = path_limit()
    if limit is not None and len(data) >= limit:
        raise InvalidToolPayloadError(
            f"{where} is a path of {len(data)} bytes; the OS refuses one of {limit} bytes or more (File name too long), "
            "so this payload could never run. Give a shorter path (a relative one with a nearer 'cwd', or a link to it)."
        )


def _encoded(text: str, where: str, fix: str) -> bytes:
    """``text`` as the OS receives it, or InvalidToolPayloadError naming ``where`` and the fix."""
    nul = text.find("\x00")
    if nul >= 0:
        raise InvalidToolPayloadError(
            f"{where} contains a NUL character (\\x00) at index {nul}; the OS cannot pass it to a program, so this "
            f"payload could never run. {fix}"
        )
    try:
        return os.fsencode(text)
    except UnicodeEncodeError as exc:
        raise InvalidToolPayloadError(
            f"{where} holds character U+{ord(text[exc.start]):04X} at index {exc.start}, which the file system "
            f"encoding ({sys.getfilesystemencoding()}) cannot pass to a program; remove or replace it."
        ) from None


def _check_size(size: int, where: str) -> None:
    limit = single_string_limit()
    if limit is not None and size > limit:
        raise InvalidToolPayloadError(
            f"{where} is {size - 1} bytes; the OS refuses one argument or environment entry over {limit - 1} bytes "
            f"(Argument list too long), so this payload could never run. Instead, {_LARGE_DATA_FIX}."
        )


def check_exec(argv: Sequence[str], cwd: str | None, env: Mapping[str, str] | None) -> None:
    """Raise InvalidToolPayloadError when ``execve`` would refuse this argv, cwd and env (merged over ``os.environ``).

    Expects the types already checked (str items, str keys and values).
    """
    total = 0
    for index, item in enumerate(argv):
        where = f"argv[{index}]"
        if index == 0 and not item:
            raise InvalidToolPayloadError("argv[0] is empty; it must name the program to run (a path, or a name on PATH).")
        data = _encoded(item, where, f"Remove it from {where}; pass binary data through a file.")
        if index == 0:
            _check_path_length(data, "argv[0]")
        size = len(data) + 1
        _check_size(size, where)
        total += size + _POINTER_BYTES
    if cwd is not None:
        if not cwd:
            raise InvalidToolPayloadError("'cwd' is empty; give a folder, or leave 'cwd' out to run in the current folder.")
        _check_path_length(_encoded(cwd, "'cwd'", "Give the folder's path without it."), "'cwd'")
    for key, value in (env or {}).items():
        if not key:
            raise InvalidToolPayloadError("env has an empty name; every env key must be a variable name such as 'HOME'.")
        where = f"env key {quoted(key)}"
        name = _encoded(key, where, "Rename the variable without it.")
        if b"=" in name:
            raise InvalidToolPayloadError(
                f"{where} contains '='; the OS reads a variable's name up to the first '=', so it cannot be set. "
                "Use the bare name as the key and put everything after '=' in its value."
            )
        data = _encoded(value, f"env value of {quoted(key)}", "Remove it from the value; pass binary data through a file.")
        _check_size(len(name) + len(data) + 2, f"env entry {quoted(key)}")
    merged = {**os.environ, **(env or {})}
    total += sum(len(os.fsencode(k)) + len(os.fsencode(v)) + 2 + _POINTER_BYTES for k, v in merged.items())
    limit = total_limit()
    if limit is not None and total > limit:
        raise InvalidToolPayloadError(
            f"argv and env take {total} bytes together with this process's environment; the OS refuses more than "
            f"{limit} (ARG_MAX: Argument list too long), so this payload could never run. Instead, {_LARGE_DATA_FIX}."
        )
