"""An http(s) runs root read as a local one: warm reloads see rewritten logs, listing links are decoded and kept inside
the root, and no error about a URL carries its query string.

Served by real ``http.server`` servers on 127.0.0.1 over hand-written runs: a log rewritten at the same size shows on
a warm reload whatever the server says (a new Last-Modified, a new ETag, or nothing that proves the file unchanged);
percent-encoded folder names give the ids a local read gives; a link leaving the root (``../``, a name holding ``/``
once decoded) is a problem naming it, not a run; two spellings of one name are one run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, RunNotFoundError
from noesis_nb.frames.problems import RunLoadError

from .runkit import basic_events, write_run
from .webserver import QuietHandler, WebServers

Serve = Callable[..., str]


class _Handler(QuietHandler):
    """A static file server. ``headers_kind``: "stock" as shipped; "bare" without Last-Modified (nothing proves a
    file unchanged); "etag" with an ETag of the file's bytes instead; "refuse" answering 403 for events.jsonl.
    ``index`` replaces the root's index page."""

    headers_kind = "stock"
    index: str | None = None
    root_name = ""

    def send_header(self, keyword: str, value: str) -> None:
        if keyword == "Last-Modified" and self.headers_kind != "stock":
            if self.headers_kind == "etag":
                path = self.translate_path(self.path)
                with open(path, "rb") as fh:
                    super().send_header("ETag", '"' + hashlib.sha256(fh.read()).hexdigest()[:16] + '"')
            return
        super().send_header(keyword, value)

    def do_HEAD(self) -> None:
        if self.headers_kind == "refuse" and self.path.split("?")[0].endswith("/events.jsonl"):
            self.send_error(403)
            return
        super().do_HEAD()

    def do_GET(self) -> None:
        if self.headers_kind == "refuse" and self.path.split("?")[0].endswith("/events.jsonl"):
            self.send_error(403)
            return
        if self.index is not None and self.path.split("?")[0] in (f"/{self.root_name}/", f"/{self.root_name}"):
            body = self.index.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@pytest.fixture
def serve(web: WebServers) -> Serve:
    def start(root: Path, headers_kind: str = "stock", index: str | None = None) -> str:
        base = web.start(root.parent, _Handler, headers_kind=headers_kind, index=index, root_name=root.name)
        return f"{base}/{root.name}/"

    return start


def _age(folder: Path, seconds: float) -> None:
    """Set every file's mtime ``seconds`` in the past (a Last-Modified old enough to be trusted)."""
    when = time.time() - seconds
    for path in folder.rglob("*"):
        os.utime(path, (when, when))


def _frames(url: str) -> dict[str, pd.DataFrame]:
    return {
        "runs": noesis_nb.runs_df(url),
        "events": noesis_nb.events_df(url),
        "usage": noesis_nb.usage_df(url),
    }


@pytest.mark.parametrize(
    ("headers_kind", "change"),
    [
        ("stock", "rewrite"),  # Last-Modified moves on
        ("etag", "rewrite"),  # the mtime kept, the ETag moves on
        ("bare", "rewrite"),  # nothing proves the file unchanged: read again
        ("stock", "twin"),  # the run folder replaced by a same-named twin
    ],
)
def test_a_warm_reload_of_an_http_root_equals_a_cold_one_after_a_same_size_rewrite(
    tmp_path: Path, serve: Serve, headers_kind: str, change: str
) -> None:
    root = tmp_path / "runs"
    run = write_run(root, "ep_a", basic_events("ep_a"))
    write_run(root, "ep_b", basic_events("ep_b"))
    _age(root, 600)
    url = serve(root, headers_kind)
    noesis_nb.frames.clear_cache()
    first = _frames(url)
    assert first["runs"].set_index("episode_id").loc["ep_a", "input_tokens"] == 1050

    log = (run / "events.jsonl").read_bytes()
    new = log.replace(b'"input_tokens":1000', b'"input_tokens":9000')
    assert len(new) == len(log) and new != log
    if change == "rewrite":
        stamp = (run / "events.jsonl").stat().st_mtime
        (run / "events.jsonl").write_bytes(new)
        when = stamp + 300 if headers_kind == "stock" else stamp  # the etag and bare servers say no mtime
        os.utime(run / "events.jsonl", (when, when))
    else:
        twin = tmp_path / "twin"
        shutil.copytree(run, twin)
        (twin / "events.jsonl").write_bytes(new)
        _age(twin, 300)
        shutil.rmtree(run)
        twin.rename(run)

    warm = _frames(url)
    noesis_nb.frames.clear_cache()
    cold = _frames(url)
    assert cold["runs"].set_index("episode_id").loc["ep_a", "input_tokens"] == 9050  # the new log, read cold
    for name in warm:
        pd.testing.assert_frame_equal(warm[name], cold[name], obj=name)


def _named_runs(root: Path) -> None:
    for name in ("ep_plain", "ep_run ü", "ep_a+b", "ep_100%"):
        write_run(root, name, basic_events(name), summary={"episode_id": name, "status": "ok", "task": "t"})


def test_percent_encoded_folder_names_give_the_ids_a_local_read_gives(tmp_path: Path, serve: Serve) -> None:
    root = tmp_path / "runs"
    _named_runs(root)
    url = serve(root)
    local = noesis_nb.runs_df(root, cache=False)
    remote = noesis_nb.runs_df(url, cache=False)
    assert sorted(remote["episode_id"]) == sorted(local["episode_id"]) == sorted(os.listdir(root))
    assert sorted(e["reason"] for e in remote.attrs["errors"]) == sorted(e["reason"] for e in local.attrs["errors"])
    assert not [e for e in remote.attrs["errors"] if "names episode" in e["reason"]]
    by_id = remote.set_index("episode_id")["input_tokens"]
    assert by_id.to_dict() == local.set_index("episode_id")["input_tokens"].to_dict()
    events = noesis_nb.events_df(url, cache=False)
    assert sorted(events["episode_id"].unique()) == sorted(os.listdir(root))


def test_listing_links_leaving_the_root_are_problems_and_two_spellings_of_a_name_one_run(tmp_path: Path, serve: Serve) -> None:
    site = tmp_path / "site"
    root = site / "root"
    write_run(site, "ep_parent", basic_events("ep_parent"))
    write_run(root, "ep_inside", basic_events("ep_inside"))
    write_run(root / "sub", "ep_deep", basic_events("ep_deep"))  # reached through the link below as ep_deep's folder
    index = (
        '<html><body><a href="ep_inside/">ep_inside/</a> <a href="ep_%69nside/">again</a> '
        '<a href="../ep_parent/">up</a> <a href="sub%2Fep_deep/">slash</a></body></html>'
    )
    url = serve(root, index=index)
    for frame in (
        noesis_nb.runs_df(url, cache=False),
        noesis_nb.events_df(url, cache=False),
        noesis_nb.usage_df(url, cache=False),
    ):
        assert set(frame["episode_id"]) == {"ep_inside"}
        assert not any("/../" in d for d in frame.get("run_dir", pd.Series(dtype=object)))
        refused = {e["path"]: e["reason"] for e in frame.attrs["errors"]}
        up = [p for p in refused if p.endswith("/root/../ep_parent")]
        slash = [p for p in refused if p.endswith("/root/sub%2Fep_deep")]
        assert up and "out of the root" in refused[up[0]] and "not followed" in refused[up[0]], refused
        assert slash and "path separator" in refused[slash[0]], refused
    runs = noesis_nb.runs_df(url, cache=False)
    assert len(runs) == 1 and runs["input_tokens"].iloc[0] == 1050  # read once, never counted twice


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return seen


def test_no_error_about_an_http_source_carries_its_query_string(tmp_path: Path, serve: Serve) -> None:
    sig = "Zq81mVbT3LkP0xW9sRfE7yUhJcN2aDgQ"
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a"))
    url = serve(root)
    missing = url.replace("/runs/", "/no-such-root") + f"?sig={sig}&se=2030-01-01"
    with pytest.raises(RunNotFoundError) as got:
        noesis_nb.runs_df(missing, cache=False)
    printed = "".join(traceback.format_exception(got.value))
    assert sig not in printed and all(sig not in str(e) and sig not in repr(e.args) for e in _chain(got.value))
    refusing = serve(root, "refuse")  # events.jsonl listed, then answered 403
    with pytest.raises(RunLoadError) as got_strict:
        noesis_nb.events_df(refusing + f"?sig={sig}", cache=False, strict=True)
    assert "403" in str(got_strict.value)
    printed = "".join(traceback.format_exception(got_strict.value))
    assert sig not in printed and all(sig not in str(e) for e in _chain(got_strict.value))


def test_show_of_an_http_run_says_it_needs_a_local_run_directory(tmp_path: Path, serve: Serve) -> None:
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a"))
    url = serve(root) + "ep_a?sig=Zq81mVbT3LkP0xW9sRfE7yUhJcN2aDgQ"
    with pytest.raises(InvalidIdError) as got:
        noesis_nb.show(url)
    said = str(got.value)
    assert "is a URL" in said and "this machine" in said and "runs_df" in said and "copy" in said
    assert "nothing is there" not in said and "Zq81mVbT3LkP0xW9" not in said
