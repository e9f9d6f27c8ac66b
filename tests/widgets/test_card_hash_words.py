"""A card's draft id, fingerprint and impact hash were sha256-like values with nothing saying what they are for: each
now carries a short explanation, under the value (muted) and as its label's tooltip, escaped like all else."""

from __future__ import annotations

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import noesis_nb
from noesis_nb.widgets import cards


class _Details(HTMLParser):
    """Each ``<dt>``'s text and title, and its ``<dd>``'s text, of a card."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "dt":
            self.rows.append({"label": "", "title": dict(attrs).get("title") or "", "value": ""})
        if tag in ("dt", "dd"):
            self._in = "label" if tag == "dt" else "value"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("dt", "dd"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in and self.rows:
            self.rows[-1][self._in] += data


_FIELDS = (
    "tool",
    "effect_kind",
    "risk_tier",
    "protocol",
    "redacted_payload",
    "command_line",
    "requested_at",
    "draft_id",
    "fingerprint",
)


def _rows(markup: str) -> dict[str, dict[str, str]]:
    parser = _Details()
    parser.feed(markup)
    return {r["label"]: r for r in parser.rows}


def test_draft_fingerprint_and_impact_say_what_they_are_for(runs_dir: Path, nnb: Any) -> None:
    import asyncio

    async def main() -> Any:
        handle = noesis_nb.start("write", using=nnb.make_tool_adapter([sys.executable, "-c", "pass"]), runs_dir=runs_dir)
        await nnb.until(lambda: handle.pending)
        pending = handle.pending[0]
        handle.cancel()
        await handle.wait()
        return pending

    pending = asyncio.run(main())
    rows = _rows(cards.pending_html(pending))
    assert "bound to this exact request" in rows["fingerprint"]["value"], rows["fingerprint"]
    for name in ("draft", "fingerprint"):
        row = rows[name]
        assert row["title"] and row["value"].startswith(str(getattr(pending, "draft_id" if name == "draft" else name)))
        assert row["title"] in row["value"], row  # the tooltip says what the muted line says
        assert row["title"] not in str(getattr(pending, "draft_id" if name == "draft" else name))
    for name in ("effect", "risk", "asked at"):  # values that say themselves carry none
        assert not rows[name]["title"], rows[name]
    with_impact = SimpleNamespace(**{f: getattr(pending, f) for f in _FIELDS}, impact_hash="sha256:" + "ab" * 32)
    impact = _rows(cards.pending_html(with_impact))["impact"]
    assert impact["title"] and impact["value"].startswith("sha256:abab") and impact["title"] in impact["value"], impact


def test_the_words_are_escaped_in_the_attribute_and_the_text(monkeypatch: Any) -> None:
    monkeypatch.setitem(cards.HASH_WORDS, "fingerprint", 'a "quoted" <b>word</b> & more')
    markup = cards._hashed("fingerprint", "sha256:00")
    assert "<b>" not in markup and 'title="a &quot;quoted&quot; &lt;b&gt;word&lt;/b&gt; &amp; more"' in markup, markup
    assert html.unescape(re.sub(r"<[^>]+>", " ", markup)).count('a "quoted" <b>word</b> & more') == 1
