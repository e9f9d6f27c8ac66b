"""What a tool's name may hold: one rule for ``ctx.tool`` names and ``ToolInvocationInput.tool``.

A tool's namespace and name become its action candidate's kind (``tool.<namespace>.<name>``, which Noēsis'
checker reads with no blank in it), part of a file name under ``tool_invocations/idempotency/`` and a label
in every view; so each part is letters, digits, ``_`` and ``-`` (a namespace may join such parts with dots),
and a version is letters, digits and ``._+-``. Records read from disk are not judged: another program's
names load as written. A name holding a control or invisible character (``_safetext.unseen_character``, the rule
of every name typed in code) is told which one and where, since it reads as a name the rule takes.
"""

from __future__ import annotations

import re
from typing import Any

from .._safetext import unseen_character, unseen_escaped, unseen_said
from ..errors import InvalidOptionError
from ..ids import ascii_reading, look_alike_said
from ..secrets.quoted import quoted

__all__ = ["NAME_LOOKS_LIKE", "check_tool_identity", "split_tool_name"]

_PART = r"[A-Za-z0-9_-]{1,80}"
_NAMESPACE = re.compile(rf"{_PART}(?:\.{_PART})*")
_NAME = re.compile(_PART)
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}")
_RULES = {"namespace": _NAMESPACE, "name": _NAME, "version": _VERSION}
_LONGEST = 200  # the whole ``namespace.name@version``

NAME_LOOKS_LIKE = (
    "a tool name looks like 'fs.write_file' or 'git.tag@1': letters, digits, '_' and '-', an optional "
    "namespace before the last '.', an optional version after '@', at most 80 characters a part"
)


def split_tool_name(name: Any) -> tuple[str, str, str | None]:
    """``"repo.write_file@1"`` → ``("repo", "write_file", "1")``; a bare name gets namespace ``local``.

    Raises ``InvalidOptionError`` (one line, the name shown cut and escaped) for a name the rule refuses.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidOptionError(f"tool name must be a non-empty string like 'fs.write_file', got {quoted(name, 60)}")
    base, at, version = name.partition("@")
    namespace, dot, short = base.rpartition(".")
    parts = (namespace if dot else "local", short, version if at else None)  # ".fs" has an empty namespace
    if len(name) > _LONGEST or not _fits(*parts):
        shown = unseen_escaped(quoted(name, 60))
        raise InvalidOptionError(f"tool name {shown} cannot be recorded: {NAME_LOOKS_LIKE}{_unseen(name)}")
    return parts


def check_tool_identity(namespace: Any, name: Any, version: Any = None) -> None:
    """Refuse (``InvalidOptionError``) a namespace, name or version outside the rule, naming the value."""
    for what, value in (("namespace", namespace), ("name", name), ("version", version)):
        if value is None and what == "version":
            continue
        if not isinstance(value, str) or not _RULES[what].fullmatch(value):
            unseen = _unseen(value) if isinstance(value, str) else ""
            shown = unseen_escaped(quoted(value, 60))
            raise InvalidOptionError(f"tool {what} {shown} cannot be recorded: {NAME_LOOKS_LIKE}{unseen}")


def _fits(namespace: str, name: str, version: str | None) -> bool:
    return bool(_NAMESPACE.fullmatch(namespace) and _NAME.fullmatch(name) and (version is None or _VERSION.fullmatch(version)))


def _unseen(name: str) -> str:
    """``; it holds the invisible character '\\u200e' (U+200E LEFT-TO-RIGHT MARK) at position 7, …``
    when ``name`` holds a character no name may hold (``unseen_character``), or one drawn like an ASCII letter
    (``ids.look_alike_said``: the Greek ``Α``, a full-width ``ｅ``); "" when it holds neither."""
    ch = unseen_character(name)
    if ch is not None:
        return f"; it {unseen_said(ch, name.index(ch))}, a character no name has"
    # a look-alike or full-width letter typed for an ASCII one: named, with the one to type
    stray = next((c for c in name if ascii_reading(c) is not None and not c.isascii()), None)
    if stray is None:
        return ""
    return f"; it {unseen_said(stray, name.index(stray))}{look_alike_said(stray)}"
