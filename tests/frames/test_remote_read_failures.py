"""A file an http listing names but that cannot be read is a problem naming it and the status, never an absent file.

Served by real http servers on 127.0.0.1 over a run the engine wrote and sealed: a file answering 404 (an expired
link), 403, 500 or a connection dropped mid-body leaves what it holds unknown (NA tokens, NaN cost), said once; a
stock ``http.server`` (whose listing gives no sizes) serves a sealed run that reads as it does on disk; a run document
the server says is past ``MAX_DOCUMENT_BYTES`` is refused before its body is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames.problems import RunLoadError
from noesis_nb.store.runfiles import MAX_DOCUMENT_BYTES

from .runkit import llm_adapter
from .webserver import Answer, WebServers


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A runs root holding one run the engine wrote and sealed, with model calls and tokens."""
    root = tmp_path_factory.mktemp("served") / "runs"
    ep = noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=root)
    return root, ep


@pytest.fixture
def serve(web: WebServers) -> Callable[[Path, Answer | None], tuple[str, list[str]]]:
    """Serve a runs root, ``answer`` taking requests over; gives its URL and the request lines ("GET /path")."""

    def start(root: Path, answer: Answer | None) -> tuple[str, list[str]]:
        seen: list[str] = []
        return web.serve_root(root, answer, seen), seen

    return start


def _fail_events(how: str) -> Answer:
    def answer(h: SimpleHTTPRequestHandler, head: bool) -> bool:
        if not h.path.split("?")[0].endswith("/events.jsonl"):
            return False
        if how == "drop":  # the body cut short of the length promised
            h.send_response(200)
            h.send_header("Content-Length", "100000")
            h.end_headers()
            if not head:
                h.wfile.write(b'{"episode_id": "ep_')
                h.wfile.flush()
                h.close_connection = True
            return True
        h.send_error(int(how))
        return True

    return answer


@pytest.mark.parametrize(("how", "said"), [("404", "404"), ("403", "HTTP 403"), ("500", "HTTP 500"), ("drop", "Error")])
def test_a_listed_file_that_cannot_be_read_is_a_problem_and_its_figures_unknown(
    sealed: tuple[Path, str], serve: Any, how: str, said: str
) -> None:
    root, ep = sealed
    clean_url, _ = serve(root, None)
    clean = noesis_nb.runs_df(clean_url, cache=False)
    assert clean.attrs["errors"] == [] and clean["input_tokens"].iloc[0] > 0  # the same run, readable, has tokens

    url, _ = serve(root, _fail_events(how))
    runs = noesis_nb.runs_df(url, cache=False)
    events = noesis_nb.events_df(url, cache=False)
    usage = noesis_nb.usage_df(url, cache=False)
    for frame in (runs, events, usage):
        reasons = [e["reason"] for e in frame.attrs["errors"] if e["path"].endswith(f"{ep}/events.jsonl")]
        failed = [r for r in reasons if "reading it failed" in r]
        assert len(failed) == 1, frame.attrs["errors"]  # said, and said once
        assert said in failed[0] and "unknown" in failed[0] and "expired" in failed[0]
        assert not [r for r in reasons if r.startswith("listed in manifest.json but missing")]  # listed: not gone
    row = runs.iloc[0]
    assert row["episode_id"] == ep
    assert pd.isna(row["model_calls"]) and pd.isna(row["input_tokens"]) and pd.isna(row["cost_usd"])  # never 0
    with pytest.raises(RunLoadError, match="events.jsonl"):
        noesis_nb.events_df(url, cache=False, strict=True)


def test_a_sealed_run_served_by_a_stock_http_server_reads_as_on_disk(sealed: tuple[Path, str], serve: Any) -> None:
    root, ep = sealed
    url, _ = serve(root, None)  # SimpleHTTPRequestHandler as it is: its index pages give no file sizes
    remote = noesis_nb.runs_df(url, cache=False)
    local = noesis_nb.runs_df(root, cache=False)
    assert remote.attrs["errors"] == [] and local.attrs["errors"] == []
    assert bool(remote["manifest_ok"].iloc[0]) is True
    for column in ("episode_id", "status", "model_calls", "input_tokens", "output_tokens", "cost_usd"):
        assert remote[column].iloc[0] == local[column].iloc[0], column


def test_a_run_document_past_the_limit_is_refused_before_its_body_is_asked_for(sealed: tuple[Path, str], serve: Any) -> None:
    root, ep = sealed
    huge = MAX_DOCUMENT_BYTES + 1

    def answer(h: SimpleHTTPRequestHandler, head: bool) -> bool:
        if not h.path.split("?")[0].endswith("/summary.json"):
            return False
        h.send_response(200)
        h.send_header("Content-Length", str(huge))
        h.end_headers()
        if not head:  # what a download would start with: cut short, so a reader that asks fails fast
            h.wfile.write(b" " * 4096)
            h.close_connection = True
        return True

    url, seen = serve(root, answer)
    runs = noesis_nb.runs_df(url, cache=False)
    assert not [line for line in seen if line.startswith("GET ") and line.endswith("/summary.json")]
    reasons = [e["reason"] for e in runs.attrs["errors"] if e["path"].endswith(f"{ep}/summary.json")]
    refused = [r for r in reasons if "more than a run document is read at" in r]
    assert len(refused) == 1 and "MAX_DOCUMENT_BYTES" in refused[0] and "not read" in refused[0]
