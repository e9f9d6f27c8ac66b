"""An http(s) root's index page is read whole and its links found in time linear in the page.

A stock ``http.server`` root of 3000 runs, served on 127.0.0.1, lists every one (a single buffered read once kept the
first few hundred, the rest silently absent); a page past ``MAX_PAGE_BYTES`` is refused, not cut; hostile pages
(``<a`` and a long run of spaces, ``<a`` repeated, ``href=`` without quotes) are scanned within a CPU-time budget.
"""

from __future__ import annotations

import time
from pathlib import Path

import fsspec
import pytest

from noesis_nb.frames import weblisting

from .webserver import WebServers


@pytest.fixture
def served(tmp_path: Path, web: WebServers) -> str:
    """The URL of ``tmp_path`` served by a real stock server."""
    return web.start(tmp_path)


def test_a_long_index_page_is_read_whole(tmp_path: Path, served: str) -> None:
    names = {f"ep_{i:026d}" for i in range(3000)}
    for name in names:
        (tmp_path / "runs" / name).mkdir(parents=True)
        (tmp_path / "runs" / name / "events.jsonl").write_text("{}\n")
    files, refused, unlisted, _root = weblisting.walk(fsspec.filesystem("http"), served + "/runs/", 30)
    walked = {url.split("/")[-2] for url in files}
    assert sorted(names - walked)[:3] == [] and len(walked) == 3000
    assert refused == {} and unlisted == {}


def test_an_index_page_past_the_limit_is_refused(tmp_path: Path, served: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "runs" / "ep_a").mkdir(parents=True)
    (tmp_path / "runs" / "ep_a" / "index.html").write_text("<html>" + "x" * 300_000 + "</html>")
    monkeypatch.setattr(weblisting, "MAX_PAGE_BYTES", 200_000)
    files, refused, unlisted, _root = weblisting.walk(fsspec.filesystem("http"), served + "/runs/", 30)
    assert files == {}
    assert "larger than 200,000 bytes" in unlisted[served + "/runs/ep_a"]


HOSTILE = {
    "<a and spaces": "<a " + " " * 1500,
    "<a and a megabyte of spaces": "<a " + " " * (1 << 20) + ">",
    "<a repeated": "<a " * (1 << 18),
    "href= without quotes": "<a href=x " * (1 << 17),
    "href and spaces": "<a href" + " " * (1 << 20),
}


@pytest.mark.parametrize("page", HOSTILE.values(), ids=list(HOSTILE))
def test_links_of_a_hostile_page_take_linear_time(page: str) -> None:
    began = time.process_time()
    weblisting._links(page)
    assert time.process_time() - began < 1.0  # about 0.03 s here: 30x headroom


def test_links_are_still_found() -> None:
    page = '<a href="ep_1/">1</a> <A class=c HREF = \'ep_2/\'> <a\nhref="ep_3">3</a> see http://h/x'
    assert weblisting._links(page) == [("ep_1/", True), ("ep_2/", True), ("ep_3", True), ("http://h/x", False)]
