"""What a view's HTML reads with its kernel and once the kernel is gone, as the stylesheet shows it: ``nnb-if-live``
parts only with the kernel, ``nnb-if-stale`` parts and the ``nnb-stale`` notice only without it."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_VOID = {"br", "img", "hr", "input", "meta", "link", "wbr"}


class _Reader(HTMLParser):
    def __init__(self, hidden: set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden, self.depth, self.text = hidden, 0, []  # depth: how deep inside a hidden part

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        if self.depth or classes & self.hidden or tag in ("style", "script"):
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in _VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.text.append(data)


def _read(markup: str, hidden: set[str]) -> str:
    reader = _Reader(hidden)
    reader.feed(markup)
    return re.sub(r"\s+", " ", "".join(reader.text)).strip()


def with_kernel(markup: str) -> str:
    """The text shown while the view has its kernel."""
    return _read(markup, {"nnb-if-stale", "nnb-stale"})


def without_kernel(markup: str) -> str:
    """The text shown once the view lost its kernel (restarted or shut down)."""
    return _read(markup, {"nnb-if-live"})


def codes(markup: str) -> list[str]:
    """Every ``<code>`` of ``markup``, unescaped (the commands it gives)."""
    return [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", markup)]


SETUP = ("%load_ext noesis_nb", "import noesis_nb")  # what a restarted kernel needs first (every notice says so)


def commands(markup: str) -> list[str]:
    """The commands ``markup`` gives for its run, past the two every notice opens with (``SETUP``), which it must."""
    found = codes(markup)
    assert found[:2] == list(SETUP), found
    return found[2:]
