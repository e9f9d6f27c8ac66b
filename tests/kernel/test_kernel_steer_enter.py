"""Enter in the steer box, sent to a real kernel exactly as ipywidgets 8's page sends it: a ``submit`` message that can
overtake the update carrying the last letters typed (the page holds an update back while the one before waits)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup()


def _send(kernel: Any, comm_id: str, data: dict[str, Any]) -> None:
    kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))


def _typed(kernel: Any, comm_id: str, value: str) -> None:
    _send(kernel, comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})


def _enter(kernel: Any, comm_id: str) -> None:
    _send(kernel, comm_id, {"method": "custom", "content": {"event": "submit"}})


def test_enter_sends_the_whole_text_once_even_when_its_last_letters_come_after_it(kernel: Any, disk: Any) -> None:
    kernel.run(
        """
        async def enter_agent(task, ctx):
            ctx.emit("reason", {"text": "listening"})
            got = await ctx.next_steer_async(timeout=30)
            again = await ctx.next_steer_async(timeout=2)
            return f"{got.text if got else None}|{again.text if again else None}"
        """
    )
    out = kernel.run(f'h = %noesis run enter_agent "enter k1" --runs-dir {kernel.runs}\nprint(h.episode_id)')
    run_dir = kernel.runs / out["stdout"].strip().splitlines()[-1]
    kernel.wait(lambda: "reason" in disk.names(run_dir), what="the episode to listen")
    box = [cid for cid, s in kernel.widgets("TextModel").items() if "tell the agent" in (s.get("placeholder") or "")][-1]
    _typed(kernel, box, "use sta")
    kernel.pump(1.0)
    assert "steer.sent" not in disk.names(run_dir)  # typing alone sends nothing
    _enter(kernel, box)
    _typed(kernel, box, "use staging")  # the held-back update, after the submit
    _enter(kernel, box)  # Enter held down: a second submit at once
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    assert disk.names(run_dir).count("steer.sent") == 1
    assert kernel.value("h.result()") == "use staging|None"
    assert kernel.widgets("TextModel")[box].get("value") == ""  # the send cleared the box
