"""Splitting a magic's line into arguments as ``shlex.split`` does, in linear time.

``shlex`` grows each token a character at a time, so a long quoted task (a pasted document of a
megabyte) took close to a minute and held the kernel meanwhile; a regular expression scans it at once.
"""

from __future__ import annotations

import re

__all__ = ["split_line"]

_PIECE = re.compile(
    r"""(?P<space>[ \t\r\n]+)"""
    r"""|'(?P<single>[^']*)'"""
    r"""|"(?P<double>(?:[^"\\]|\\.)*)\""""
    r"""|\\(?P<escaped>.)"""
    r"""|(?P<bare>[^ \t\r\n'"\\]+)"""
    r"""|(?P<open>['"])"""
    r"""|(?P<trailing>\\)$""",
    re.DOTALL,
)
_OPEN_DOUBLE = re.compile(r'(?:[^"\\]|\\.)*\\', re.DOTALL)  # an unclosed "… that ends in a lone \\
_IN_DOUBLE = re.compile(r"\\([\\\"])")  # inside double quotes only \\ and \" are escapes (POSIX shlex)


def split_line(line: str) -> list[str]:
    """``shlex.split(line)``: POSIX quoting, no comments; ``ValueError`` for an unclosed quote or a lone ``\\`` at the end."""
    tokens: list[str] = []
    current: list[str] | None = None
    for match in _PIECE.finditer(line):
        kind = match.lastgroup or ""
        if kind == "space":
            if current is not None:
                tokens.append("".join(current))
            current = None
            continue
        if kind == "open":
            ends_in_escape = match.group(kind) == '"' and _OPEN_DOUBLE.fullmatch(line, match.end())
            raise ValueError("No escaped character" if ends_in_escape else "No closing quotation")
        if kind == "trailing":
            raise ValueError("No escaped character")
        text = match.group(kind)
        current = current if current is not None else []
        current.append(_IN_DOUBLE.sub(r"\1", text) if kind == "double" else text)
    if current is not None:
        tokens.append("".join(current))
    return tokens
