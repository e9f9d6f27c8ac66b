"""Each call of the public API the README writes out binds to the function's signature: a newcomer copying
``approve_draft(ep)`` met ``TypeError: missing 1 required keyword-only argument: 'approver_id'``."""

from __future__ import annotations

import ast
import inspect
import re

import noesis_nb
from tests.documented import documented

README = documented()  # the README and the docs pages it links to

#: README names for the handle's methods (``handle.approve()``, ``h.cancel()``)
_HANDLES = {"handle", "h"}


def _snippets() -> list[str]:
    """Inline code spans and the lines of python code blocks."""
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", README, flags=re.S))
    return inline + [line for block in blocks for line in block.splitlines()]


def _calls(snippet: str) -> list[ast.Call]:
    text = snippet.replace("…", "...").split("#", 1)[0].strip()
    text = re.sub(r"^await\s+", "", text)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _target(call: ast.Call):
    func = call.func
    if isinstance(func, ast.Name) and func.id in noesis_nb._LAZY:
        return getattr(noesis_nb, func.id), False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "noesis_nb" and func.attr in noesis_nb._LAZY:
            return getattr(noesis_nb, func.attr), False
        if func.value.id in _HANDLES and hasattr(noesis_nb.EpisodeHandle, func.attr):
            return getattr(noesis_nb.EpisodeHandle, func.attr), True
    return None, False


def _elided(call: ast.Call) -> bool:
    """``f(...)``, ``f(x, **opts)`` or ``f()`` naming the function: the README leaves the arguments out on purpose."""
    if not call.args and not call.keywords:
        return True
    args = [*call.args, *(k.value for k in call.keywords)]
    return (
        any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in call.args)
        or any(k.arg is None for k in call.keywords)
        or any(isinstance(a, ast.Starred) for a in args)
    )


def test_every_api_call_written_in_the_readme_binds() -> None:
    wrong, checked = [], 0
    for snippet in _snippets():
        for call in _calls(snippet):
            function, method = _target(call)
            if function is None or not callable(function) or _elided(call):
                continue
            try:
                signature = inspect.signature(function)
            except (TypeError, ValueError):
                continue
            positional = [object()] * (len(call.args) + (1 if method else 0))
            try:
                signature.bind(*positional, **{k.arg: object() for k in call.keywords if k.arg})
            except TypeError as exc:
                wrong.append(f"{ast.unparse(call)}: {exc}")
            checked += 1
    assert checked > 20  # the README's calls were found
    assert not wrong, wrong
