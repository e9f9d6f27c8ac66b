"""The view's header names the adapter and the id as every view names a tool or a model: one bounded line,
secrets removed, every invisible character shown. A run folder can say anything in ``flags.using``: a
3,000-character adapter name holding a token was shown whole, token and all, in the live header and in the
saved snapshot, and ``ad\u2060min`` read as ``admin``."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from tests.frames.runkit import event, write_run

TOKEN = "ghp_" + "Qm7Lx2Vb9Nc4Zr8Tw1Ys6Hd3Kf5Jg0Pa2Ue4"
USING = f"ad\u2060min<b>{'x' * 3000} {TOKEN}"


def _crafted(root: Path) -> Path:
    ep = "ep_crafted_using"
    t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 30, 10)]
    return write_run(
        root,
        ep,
        [event(ep, 0, "start", {"task": "t"}, ts=t[0]), event(ep, 1, "terminate", {"status": "ok"}, ts=t[1])],
        summary={"episode_id": ep, "task": "t", "status": "ok", "started_at": t[0], "duration_sec": 10.0}
        | {"flags": {"using": USING}},
    )


def _headers(text: str) -> list[str]:
    return re.findall(r'<div class="nnb-h">.*?</div>', text, re.S)


def test_the_adapter_name_in_the_header_is_bounded_redacted_and_shows_what_is_hidden(tmp_path: Path, comm_log: list) -> None:
    view: Any = noesis_nb.show(_crafted(tmp_path / "runs"))
    saved = _headers(view.snapshot_html())  # what a saved notebook shows once the kernel is gone
    sent = [str((data.get("state") or {}).get("value") or "") for _, _, _, data in comm_log if isinstance(data, dict)]
    live = [h for value in sent for h in _headers(value)]
    assert saved and live, "the header was neither saved nor sent"
    for header in saved + live:
        shown = html.unescape(re.sub(r"<[^>]+>", "", header))
        assert TOKEN[4:14] not in header and TOKEN[-10:] not in header, header[-200:]
        assert "<b>x" not in header and "&lt;b&gt;" in header
        assert len(header) < 1_000, len(header)
        assert "ad\ufffdmin" in shown, ascii(shown[:60])
