"""The inbox and the cards on run directories someone else crafted: names read from a draft or a decision
are shown one line, escaped, without secrets, control characters or bidi overrides; a draft file that
holds another draft than its name says is refused, so what a row shows is what its Approve decides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.inbox import PendingScan
from noesis_nb.widgets import InboxView
from noesis_nb.widgets.render import row_html
from tests.hardening.crashkit import tool_agent

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
HIDDEN = ("\x1b[31m", "\u202e", "\x07")  # a terminal escape, a right-to-left override, a bell


@pytest.fixture(scope="module")
def paused_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("inbox-hostile")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(runs / "marker.txt")), runs_dir=runs / "runs", approver="ask")
    return runs / "runs" / ep


def _copy(paused_run: Path, root: Path) -> tuple[Path, Path, dict[str, Any]]:
    run = root / paused_run.name
    shutil.copytree(paused_run, run)
    (draft,) = (run / "tool_invocations" / "prepared").glob("*.json")
    return run, draft, json.loads(draft.read_text())


def _clean(html: str) -> None:
    assert SECRET not in html, "a secret reached the HTML"
    for char in HIDDEN:
        assert char not in html, f"{char!r} reached the HTML"
    assert "<script>" not in html


def test_hostile_tool_names_and_approver_ids_are_shown_clean(paused_run: Path, tmp_path: Path) -> None:
    run, draft, record = _copy(paused_run, tmp_path / "pending")
    record["tool"] = {"namespace": f"fs{HIDDEN[1]}", "name": f"<script>x</script>{HIDDEN[0]}{SECRET}{HIDDEN[2]}", "version": None}
    draft.write_text(json.dumps(record))
    inbox = InboxView(run.parent)
    try:
        [row] = inbox.rows.values()
        _clean(row.body.value)
        _clean(inbox.snapshot_html())
        assert "&lt;script&gt;" in row.body.value and "[REDACTED]" in row.body.value  # shown, escaped and redacted
        _clean(noesis_nb.show(run).mimebundle()["text/html"])
    finally:
        inbox.close()

    decided, draft, record = _copy(paused_run, tmp_path / "decided")
    noesis_nb.approve_draft(decided, approver_id="ana")
    (decision,) = (decided / "tool_invocations" / "approvals").glob("*.json")
    stored = json.loads(decision.read_text())
    stored["approver_id"] = f"<i>{HIDDEN[1]}{SECRET}{HIDDEN[0]}</i>"  # another program's decision file
    decision.write_text(json.dumps(stored))
    html = noesis_nb.show(decided).mimebundle()["text/html"]
    assert "approved</b> by &lt;i&gt;" in html
    _clean(html)


def test_a_decoy_draft_file_is_refused_and_approve_decides_what_the_row_shows(paused_run: Path, tmp_path: Path) -> None:
    run, draft, record = _copy(paused_run, tmp_path)
    decoy = json.loads(json.dumps(record))
    decoy["payload"]["normalized_payload"] = decoy["payload"]["redacted_payload"] = {"argv": ["echo", "HARMLESS"]}
    (draft.parent / "a-decoy.json").write_text(json.dumps(decoy))  # listed first; claims the real draft's id

    inbox = InboxView(run.parent, approver_id="ana")
    try:
        [row] = list(inbox.rows.values())
        assert "HARMLESS" not in row.body.value and "marker.txt" in row.body.value  # the real draft, not the decoy
        assert any("a-decoy.json" in p and record["draft_id"] in p for p in row.source.problems)
        row.approve_button.click()
    finally:
        inbox.close()
    [decision] = (run / "tool_invocations" / "approvals").glob("*.json")
    assert decision.name == draft.name and json.loads(decision.read_text())["status"] == "approved"


@pytest.mark.parametrize("field", ["agent_id", "caused_by", "event_type", "id", "phase"])
def test_an_event_row_shows_no_secret_or_hidden_character_in_any_field(field: str) -> None:
    event: dict[str, Any] = {"id": "e1", "phase": "reason", "payload": {"text": "fine"}}
    event[field] = f"<b>{HIDDEN[1]}{SECRET}{HIDDEN[0]}</b>"
    _clean(row_html(event))


def test_the_text_timeline_sends_no_terminal_escape_or_secret() -> None:
    from noesis_nb.widgets.snapshot import timeline_text

    event = {
        "id": "e1",
        "timestamp": "2026-01-01T00:00:00Z\x1b[2J",
        "phase": "reason\x1b[2J",  # would clear the screen of `%noesis show --text`
        "payload": {"event_name": f"note\x1b]0;retitled\x07{SECRET}", "text": f"a\x1b[31m{HIDDEN[1]}"},
    }
    text = timeline_text([event])
    assert SECRET not in text and "\x1b" not in text and "\x07" not in text and HIDDEN[1] not in text
    assert "reason" in text and "[REDACTED]" in text and len(text.splitlines()) == 1


def test_a_decision_file_naming_another_draft_decides_nothing(paused_run: Path, tmp_path: Path) -> None:
    run, draft, record = _copy(paused_run, tmp_path)
    noesis_nb.approve_draft(run, approver_id="mallory")
    approvals = run / "tool_invocations" / "approvals"
    (real,) = approvals.glob("*.json")
    real.rename(approvals / "a-decoy.json")  # another program's file: its name and its draft disagree

    inbox = InboxView(run.parent, approver_id="ana")
    try:
        [row] = list(inbox.rows.values())  # still pending: the decoy does not decide the draft it names
        assert any("a-decoy.json" in p and record["draft_id"] in p for p in row.source.problems)
        row.approve_button.click()
    finally:
        inbox.close()
    decision = json.loads((approvals / draft.name).read_text())
    assert decision["approver_id"] == "ana" and decision["draft_id"] == record["draft_id"]


def _pending(draft_id: str) -> Any:
    from noesis_nb.runtime.gate import PendingApproval

    return PendingApproval(
        draft_id=draft_id, request_id="r", tool="fs.write", protocol="python", effect_kind="write", risk_tier="high",
        redacted_payload={}, command_line=None, fingerprint="f", impact_hash=None, requested_at="2026-01-01T00:00:00Z",
    )  # fmt: skip


def test_selection_box_names_are_short_clean_and_tell_drafts_apart() -> None:
    """The tick box's name (read aloud, and the browser's tooltip) is the row's visible text, not the raw id."""
    from types import SimpleNamespace

    from noesis_nb.runtime.inboxitems import InboxItem
    from noesis_nb.widgets.inboxrows import make_row

    run_id = f"ep_{HIDDEN[1]}exe.txt{HIDDEN[2]}{HIDDEN[0]} {SECRET}" + "x" * 3000
    source = SimpleNamespace(episode_id=run_id, task="t", using="")
    rows = [make_row(InboxItem(source, _pending(d)), approver_id="ana") for d in ("d1", "d2")]
    names = [row.check.description for row in rows]
    for name in names:
        _clean(name)
        assert len(name) < 400 and "fs.write" in name and name.startswith("select the")
    assert names[0] != names[1], "two drafts of one run must have different names"


def _sent_texts(widget: Any, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every text a widget tree sends to the browser as it is shown (tooltips, descriptions, values)."""
    for name in ("tooltip", "description", "value", "placeholder"):
        text = getattr(widget, name, None)
        if isinstance(text, str):
            out.append((f"{type(widget).__name__}.{name}", text))
    for child in getattr(widget, "children", ()) or ():
        _sent_texts(child, out)
    return out


def test_a_draft_id_with_a_secret_and_a_bidi_override_reaches_no_tooltip(paused_run: Path, tmp_path: Path) -> None:
    """Another program's draft whose id (its file's name) holds a key cannot be decided (a decision would name a file
    with the key in clear): the inbox lists no row for it and reports the file, redacted, nothing hidden sent."""
    run, draft, record = _copy(paused_run, tmp_path)
    record["draft_id"] += f"{HIDDEN[1]}{SECRET}"  # another program's draft, its file named by its id
    draft.unlink()
    (draft.parent / f"{record['draft_id']}.json").write_text(json.dumps(record))
    inbox = InboxView(run.parent)
    try:
        assert not inbox.rows and any("looks like a credential" in p for p in inbox.scan.problems), inbox.scan.problems
        view = noesis_nb.show(run)
        sent = _sent_texts(inbox, []) + _sent_texts(view, [])
        assert any("looks like a credential" in text for _, text in sent)  # said in the inbox, not left out quietly
        dirty = [(where, text) for where, text in sent if SECRET in text or HIDDEN[1] in text]
        assert not dirty, f"sent to the browser as it is: {dirty}"
    finally:
        inbox.close()


def test_a_link_to_a_run_seen_first_hides_nothing_of_the_real_run(paused_run: Path, tmp_path: Path) -> None:
    """A symbolic link planted in another root, looked at first, is refused there; the run it points at still
    shows its draft in its own root's inbox (the two were once one shared source, refused as the link)."""
    run, _, _ = _copy(paused_run, tmp_path / "real")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / run.name).symlink_to(run, target_is_directory=True)
    linked = PendingScan(planted)
    linked.poll()
    assert linked.items == [] and any("symbolic link" in p for p in linked.problems)
    real = PendingScan(run.parent)
    real.poll()
    assert [i.episode_id for i in real.items] == [run.name] and real.problems == []
