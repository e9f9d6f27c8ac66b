"""Where tool drafts live under ``tool_invocations/`` (shared by the tool contract, the frames and the view).

Noēsis' reader lists ``prepared/*.json`` and raises on any protocol but subprocess, http and
mcp, so noesis_nb's in-process ``python`` drafts live in an extension folder it never lists.
"""

from __future__ import annotations

__all__ = ["PYTHON_PREPARED_DIR", "PREPARED_DIRS"]

PYTHON_PREPARED_DIR = "x-python/prepared"
PREPARED_DIRS = ("prepared", PYTHON_PREPARED_DIR)
