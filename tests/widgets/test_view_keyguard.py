"""Each view that draws text boxes carries one hidden key guard (``widgets/keyguard.py``), and a kernel without the
``anywidget`` package still draws every view, without a guard. What the guard does in a page is proven in
``tests/browser/test_browser_box_shortcuts.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anywidget

from noesis_nb.widgets import InboxView

REPO = Path(__file__).resolve().parents[2]

WITHOUT_ANYWIDGET = """
import sys
sys.modules["anywidget"] = None  # import anywidget raises ImportError, as where it is not installed
import ipywidgets as w
from noesis_nb.widgets import InboxView
view = InboxView(sys.argv[1])
boxes = [c for c in view.children if "nnb-keyguard" in c._dom_classes]
texts = [c for c in view.children if isinstance(c, w.HBox) for c in c.children if isinstance(c, w.Text)]
print(len(boxes), len(texts), view.text_summary())
"""


def _guards(view: Any) -> list[Any]:
    return [c for c in view.children if "nnb-keyguard" in c._dom_classes]


def test_the_inbox_carries_one_hidden_guard(comm_log: list, tmp_path: Path) -> None:
    view = InboxView(tmp_path)
    [box] = _guards(view)
    assert box.layout.display == "none"  # no space, and no error box where its front end cannot load
    [guard] = box.children
    assert isinstance(guard, anywidget.AnyWidget)


def test_views_are_drawn_without_anywidget(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_ANYWIDGET, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    guards, texts, summary = done.stdout.split(" ", 2)
    assert (guards, texts) == ("0", "1") and "inbox" in summary.lower(), done.stdout
