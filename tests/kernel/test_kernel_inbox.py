"""The approvals inbox in a real kernel, driven by the comm messages a frontend sends: ticks, clicks, text."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.kernel


def update(kernel: Any, comm_id: str, state: dict[str, Any]) -> None:
    """What a frontend sends when a person ticks a box or types in a field."""
    data = {"method": "update", "state": state, "buffer_paths": []}
    kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))


def test_a_selection_and_a_single_reject_decided_from_the_inbox(kernel: Any, disk: Any) -> None:
    kernel.setup()
    ids = kernel.run(
        "hs = [noesis_nb.start(f'inbox k{i}', using=tool_agent, runs_dir=RUNS) for i in range(3)]\n"
        "print(' '.join(h.episode_id for h in hs))"
    )["stdout"].split()
    kernel.run("for h in hs:\n    await h\nassert [h.status for h in hs] == ['paused'] * 3")
    out = kernel.run("ib = noesis_nb.inbox(RUNS)")
    [bundle] = [o["data"] for o in out["outputs"]]
    assert bundle["text/plain"] == "InboxView: 3 drafts waiting in 3 runs, 0 decided here"
    assert all(i in bundle["text/html"] for i in ids)

    boxes = list(kernel.widgets("CheckboxModel"))
    assert len(boxes) == 3  # one a row, oldest first
    update(kernel, boxes[0], {"value": True})
    update(kernel, boxes[1], {"value": True})
    kernel.click(kernel.button("Approve selected…"))
    confirm = kernel.button("Confirm: approve 2")
    assert all(not disk.decisions(kernel.runs / i) for i in ids)  # asking decided nothing
    kernel.click(confirm)
    for episode in ids[:2]:
        run_dir = kernel.runs / episode
        kernel.wait(lambda run_dir=run_dir: (run_dir / "manifest.json").exists(), what=f"{episode} to continue and seal")
        assert [d["status"] for d in disk.decisions(run_dir)] == ["approved"]
    assert (kernel.mark / "k0").read_text() == (kernel.mark / "k1").read_text() == "x"
    assert not disk.decisions(kernel.runs / ids[2])

    # the rows' own reasons (the inbox's shared one, in its toolbar, is named "reason for the selection")
    reasons = [cid for cid, s in kernel.widgets("TextModel").items() if s.get("description") == "reason for the decision"]
    update(kernel, reasons[2], {"value": "not this one"})
    kernel.click(kernel.button("Reject", ids[2]))
    run_dir = kernel.runs / ids[2]
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the rejected run to end")
    [decision] = disk.decisions(run_dir)
    assert decision["status"] == "rejected" and decision["reason"] == "not this one"
    assert not (kernel.mark / "k2").exists()

    def frontend_says() -> bool:  # the state the frontend received
        values = [str(s.get("value") or "") for s in kernel.widgets("HTMLModel").values()]
        return sum("approved</b> by human" in v for v in values) >= 2 and any("rejected</b> by human" in v for v in values)

    kernel.wait(frontend_says, what="the decisions in the inbox's rows")
    assert kernel.value("ib.text_summary()") == "InboxView: nothing waiting, 3 decided here"
