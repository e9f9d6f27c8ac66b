"""Walking an http(s) root's index pages, served by a real ``http.server`` on 127.0.0.1: a link that is no URL at all
(``http://[bad/x``, which urllib refuses as an "Invalid IPv6 URL") is one refused link, named in a problem row, and the
runs beside it load; the whole walk asks at most ``PAGES_AT_ONCE`` requests of the server at once (pages and the
questions whether a link is a folder together), however many pages it reads.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import fsspec
import pytest

import noesis_nb
from noesis_nb.frames import weblisting

from .runkit import basic_events, write_run


class _Counting(SimpleHTTPRequestHandler):
    """A stock static server that counts the requests it is answering at once (each held ``hold`` seconds)."""

    lock = threading.Lock()
    now = 0
    most = 0
    hold = 0.0

    def handle_one_request(self) -> None:
        cls = type(self)
        with cls.lock:
            cls.now += 1
            cls.most = max(cls.most, cls.now)
        self._counted = True
        try:
            time.sleep(cls.hold)
            super().handle_one_request()
        finally:
            self._answered()

    def end_headers(self) -> None:
        # a request stops counting as its answer starts: once the client has it, it may ask again at once, before
        # this thread (slow under load) came back to count the request done, which read as one request too many
        self._answered()
        super().end_headers()

    def _answered(self) -> None:
        if getattr(self, "_counted", False):
            self._counted = False
            cls = type(self)
            with cls.lock:
                cls.now -= 1

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, type[_Counting]]]:
    """(the URL of ``tmp_path`` served by a real server, its handler class holding the counts)."""
    handler = type("Handler", (_Counting,), {"lock": threading.Lock(), "now": 0, "most": 0, "hold": 0.0})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()
    httpd.server_close()


BAD_LINKS = ["http://[bad/x", "//[::1/y", "https://[v1.x/ep_z/"]


def test_a_link_that_is_no_url_is_a_problem_row_and_the_other_runs_load(
    tmp_path: Path, served: tuple[str, type[_Counting]]
) -> None:
    url, _ = served
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        write_run(root, ep, basic_events(ep), summary={"episode_id": ep, "status": "ok", "task": "t"})
    links = ["ep_a/", *BAD_LINKS, "ep_b"]  # ep_b without its ``/``: asked whether it is a folder
    (root / "index.html").write_text("<html><body>" + " ".join(f'<a href="{x}">{x}</a>' for x in links) + "</body></html>")
    frame = noesis_nb.runs_df(url + "/runs")
    assert sorted(frame.episode_id) == ["ep_a", "ep_b"]
    problems = {e["path"]: e["reason"] for e in frame.attrs["errors"]}
    for link in ("http://[bad/x", "http://[::1/y", "https://[v1.x/ep_z/"):
        said = [why for path, why in problems.items() if link.rstrip("/") in path]
        assert said and "no valid URL" in said[0], (link, problems)


def test_the_walk_itself_keeps_each_bad_link_refused(tmp_path: Path, served: tuple[str, type[_Counting]]) -> None:
    url, _ = served
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a"))
    (root / "index.html").write_text("".join(f'<a href="{x}">x</a>' for x in ["ep_a/", *BAD_LINKS]))
    files, refused, unlisted, _root = weblisting.walk(fsspec.filesystem("http"), url + "/runs", 30)
    assert f"{url}/runs/ep_a/events.jsonl" in files and unlisted == {}
    assert sorted(refused) == sorted(["http://[bad/x", "http://[::1/y", "https://[v1.x/ep_z/"])


def test_the_whole_walk_asks_at_most_pages_at_once_requests_together(tmp_path: Path, served: tuple[str, type[_Counting]]) -> None:
    url, handler = served
    root = tmp_path / "runs"
    labels, per_label = 12, 16
    for i in range(labels):
        label = root / f"label_{i}"
        names = [f"ep_{i}_{j}" for j in range(per_label)]
        for name in names:
            write_run(label, name, basic_events(name))
        # folders linked without their ``/``: each is asked (HEAD) whether it is one
        (label / "index.html").write_text("".join(f'<a href="{n}">{n}</a>' for n in names))
    handler.hold = 0.02  # each answer takes a moment, so requests made together overlap at the server
    files, refused, unlisted, _root = weblisting.walk(fsspec.filesystem("http"), url + "/runs", 60)
    assert (refused, unlisted) == ({}, {})
    assert len(files) == labels * per_label
    assert 2 <= handler.most <= weblisting.PAGES_AT_ONCE, handler.most
