"""IPython's test shell (no kernel) with the noesis_nb extension: one place for the tests of magics and cells."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from IPython.testing import globalipapp
from IPython.utils.capture import capture_output


def start_ipython() -> Any:
    """IPython's test shell (created once per process)."""
    return globalipapp.start_ipython() or globalipapp.get_ipython()


@contextmanager
def noesis_shell() -> Iterator[Any]:
    """The test shell with ``%load_ext noesis_nb`` in effect; unloaded on the way out."""
    shell = start_ipython()
    shell.run_line_magic("load_ext", "noesis_nb")
    try:
        yield shell
    finally:
        shell.run_line_magic("unload_ext", "noesis_nb")


def run_magic(line: str) -> tuple[Any, str]:
    """What ``%noesis <line>`` returns and prints (IPython's one-line error raised as ``UsageError``)."""
    with noesis_shell() as shell, capture_output() as out:
        value = shell.run_line_magic("noesis", line)
    return value, out.stdout + out.stderr
