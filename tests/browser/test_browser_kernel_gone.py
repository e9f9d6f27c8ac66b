"""A view and an inbox whose kernel is shut down, deleted through the server or killed say they lost it, and their
Approve takes no click, key or focus any more.

ipywidgets marks its views disconnected on a restart only: after Kernel → Shut Down Kernel (status "No Kernel"), a
``DELETE /api/kernels/<id>`` (the Running panel of another tab, culling) or a kernel process killed and restarted by
the server, the views looked live and Approve stayed clickable, though README promises the lost-kernel notice for a
shutdown too. The key guard (``widgets/keyguard.py``) now watches the kernel connection and tells the widget manager.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, button, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

_KERNEL_ID = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"
_KERNEL_NAME = "() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayName"


def _shut_down_from_the_menu(page: Any, lab: dict[str, Any]) -> None:
    page.evaluate("window.jupyterapp.commands.execute('kernelmenu:shutdown')")  # Kernel → Shut Down Kernel: no dialog
    page.wait_for_function(f"() => ({_KERNEL_NAME})() === 'No Kernel'", timeout=30_000)


def _deleted_through_the_server(page: Any, lab: dict[str, Any]) -> None:
    kernel = page.evaluate(_KERNEL_ID)
    request = urllib.request.Request(
        f"{lab['base']}/api/kernels/{kernel}", method="DELETE", headers={"Authorization": f"token {lab['token']}"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 204


def _killed_and_restarted_by_the_server(page: Any, lab: dict[str, Any]) -> None:
    page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute(
             {code: 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'})"""
    )


@pytest.mark.parametrize("lose", [_shut_down_from_the_menu, _deleted_through_the_server, _killed_and_restarted_by_the_server])
def test_a_view_whose_kernel_is_gone_says_so_and_approve_is_inert(lab: dict[str, Any], page: Any, lose: Any) -> None:
    name = lose.__name__.strip("_")
    runs = lab["tmp"] / f"runs-{name}"
    setup = f"""%load_ext noesis_nb
import sys
import noesis_nb
RUNS = {str(runs)!r}

async def release(task, ctx):
    return await ctx.tool_async("git.tag", {{"argv": [sys.executable, "-c", "pass"]}}, effect="write", risk="high")"""
    cells = [
        setup,
        'one = noesis_nb.start("tag the release", using=release, approver="ask", runs_dir=RUNS)\none',
        "ib = noesis_nb.inbox(RUNS)\nib",
    ]
    (lab["root"] / f"{name}.ipynb").write_text(json.dumps(notebook(cells)))
    open_notebook(page, lab["base"], lab["token"], f"{name}.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view, inbox = page.locator(".noesis-nb-episode-view").first, page.locator(".noesis-nb-inbox").first
    approve = button(view, "Approve").first
    approve.wait_for(timeout=60_000)
    inbox.get_by_text("1 draft waiting in 1 run").wait_for(timeout=60_000)
    assert not view.locator(".nnb-stale").is_visible()  # with its kernel, no notice
    approve.evaluate("b => b.focus()")
    assert approve.evaluate("b => b === document.activeElement")  # and Approve takes the focus

    lose(page, lab)
    for lost in (view, inbox):  # the server notices a deleted kernel at its next poll of the sessions (~10 s)
        lost.locator(".nnb-stale").first.wait_for(state="visible", timeout=60_000)
        assert "lost its kernel" in lost.locator(".nnb-stale").first.inner_text()
    assert "jupyter-widgets-disconnected" in (view.get_attribute("class") or "")
    assert approve.is_visible()  # still shown (struck through), only out of reach
    assert approve.evaluate("b => getComputedStyle(b).pointerEvents") == "none"
    approve.evaluate("b => { b.blur(); b.focus(); }")
    assert not approve.evaluate("b => b === document.activeElement")  # inert: neither Tab nor a script reach it
