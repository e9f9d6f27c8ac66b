"""Two real kernels show the same paused run: a click in one updates the other's view within 2 s, and
the other's now-stale buttons do not decide again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, kernel_class: Any) -> Iterator[tuple[Any, Any]]:
    tmp = tmp_path_factory.mktemp("two")
    a, b = kernel_class(tmp), kernel_class(tmp)  # one runs dir, two processes
    try:
        a.setup()
        b.setup()
        yield a, b
    finally:
        a.stop()
        b.stop()


def html(kernel: Any) -> list[str]:
    return [str(s.get("value") or "") for s in kernel.widgets("HTMLModel").values()]


def start(kernel: Any, task: str) -> str:
    out = kernel.run(f'h = %noesis run tool_agent "{task}" --runs-dir {kernel.runs}\nprint(h.episode_id)')
    return str(out["stdout"].strip().splitlines()[-1])


def seen_within(kernel: Any, predicate: Any, seconds: float, what: str) -> float:
    """Pump ``kernel``'s iopub until ``predicate()``; return how long it took (fails after ``seconds`` + slack)."""
    started = time.monotonic()
    kernel.wait(predicate, timeout=seconds + 5, what=what)
    return time.monotonic() - started


def test_a_click_in_one_kernel_updates_the_other_and_its_buttons_stop_acting(pair: tuple[Any, Any], disk: Any) -> None:
    a, b = pair
    episode = start(a, "two t1")  # live and paused in kernel A
    run_dir: Path = a.runs / episode
    a_approve = a.button("Approve", episode)
    b.run(f"v = noesis_nb.show({episode!r}, runs_dir=RUNS)")  # the same run from disk in kernel B
    b_approve, b_reject = b.button("Approve", episode), b.button("Reject", episode)

    a.click(a_approve)
    a.wait(lambda: disk.decisions(run_dir), what="the decision on disk")
    took = seen_within(
        b, lambda: b.widgets()[b_approve].get("disabled") and any("approved</b> by human" in v for v in html(b)), 2, "B's view"
    )
    assert took < 2.0, f"kernel B's view followed after {took:.2f} s"
    b.wait(lambda: any(">ok<" in v for v in html(b)), what="B's view to show the run sealed ok")

    b.click(b_approve)  # stale buttons: nothing is decided again
    b.click(b_reject)
    b.pump(1.0)
    assert [d["status"] for d in disk.decisions(run_dir)] == ["approved"]
    assert disk.names(run_dir).count("tool.execution.succeeded") == 1
    assert not any("could not" in v for v in html(b))


def test_a_click_on_the_disk_view_reaches_the_live_kernel(pair: tuple[Any, Any], disk: Any) -> None:
    a, b = pair
    episode = start(a, "two t2")
    run_dir: Path = a.runs / episode
    a_approve = a.button("Approve", episode)
    b.run(f"v = noesis_nb.show({episode!r}, runs_dir=RUNS)")
    b.click(b.button("Approve", episode))
    b.wait(lambda: disk.decisions(run_dir), what="B's decision on disk")
    took = seen_within(a, lambda: a.widgets()[a_approve].get("disabled"), 2, "A's live view to take B's decision")
    assert took < 2.0, f"kernel A's view followed after {took:.2f} s"
    a.wait(lambda: (run_dir / "manifest.json").exists(), what="A's episode to finish and seal")
    a.click(a_approve)
    a.pump(1.0)
    assert [d["status"] for d in disk.decisions(run_dir)] == ["approved"]
    assert a.value("h.status") == "ok" and (a.mark / "t2").read_text() == "x"
