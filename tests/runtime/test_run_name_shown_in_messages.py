"""A run folder named with a credential shows as ``[REDACTED:<mark>]`` in ``runs_df``, and that shown path opens the
run. ``approve_draft``, ``reject_draft`` and ``resume_run`` of it (by the shown path or the real one) named the folder
in clear in their errors, their warnings and the id ``resume_run`` returns: each names it as views show it now.
"""

from __future__ import annotations

import random
import shutil
import string
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "Zq" + "".join(random.choices(string.ascii_letters + string.digits, k=18))
    monkeypatch.setenv("ACME_API_KEY", value)
    return value


def _done(task: str, ctx: Any) -> int:
    return 1


def _paused(task: str, ctx: Any) -> Any:
    return ctx.tool("w", {"argv": ["true"]}, effect="write", risk="high")


def _said(call: Callable[[], Any]) -> str:
    """What a cell calling ``call`` shows: its value or error, and its warnings."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            out = repr(call())
        except Exception as exc:  # what the cell shows
            out = f"{type(exc).__name__}: {exc}"
    return " | ".join([out, *(str(w.message) for w in said)])


CALLS: dict[str, Callable[[Path], Any]] = {
    "approve_draft": noesis_nb.approve_draft,
    "reject_draft": noesis_nb.reject_draft,
    "resume_run": noesis_nb.resume_run,
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("kind", ["token", "environment"])
@pytest.mark.parametrize("run", ["sealed", "paused"])
def test_a_credential_named_folder_is_named_as_views_show_it(runs_dir: Path, secret: str, call: str, kind: str, run: str) -> None:
    value = TOKEN if kind == "token" else secret
    made = noesis_nb.solve("t", using=_done if run == "sealed" else _paused, runs_dir=runs_dir, approver="ask")
    folder = runs_dir / f"run-{value}"
    shutil.copytree(runs_dir / made, folder)
    shown = [p for p in noesis_nb.runs_df(runs_dir)["run_dir"] if "[REDACTED:" in p]
    assert len(shown) == 1, shown
    for target in (folder, Path(shown[0])):  # the real path, and the one runs_df shows
        text = _said(lambda target=target: CALLS[call](target))
        assert value not in text and value[4:20] not in text, text
