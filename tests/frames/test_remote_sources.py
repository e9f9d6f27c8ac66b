"""Runs read through fsspec URLs: a root that is not there is an error, a ``run_dir`` reopens, a query is no glob.

fsspec's ``find`` gives ``{}`` for a missing prefix and for an http server it cannot reach, which read as an
empty frame with no problem; an http path holds its scheme, so ``run_dir`` read ``http://http://…`` and reopened
nothing; a signed URL's ``?sig=…`` was taken as a glob and matched nothing. The servers here are real ones on
127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import fsspec
import pytest

import noesis_nb
from noesis_nb.errors import RunNotFoundError

from .runkit import basic_events, write_run
from .webserver import QuietHandler, WebServers, closed_port

SIG = "sv2025-Kq8ZtW3xYp"  # a signature a presigned / SAS URL carries in its query
EPISODES = ["ep_alpha", "ep_beta", "ep_gamma"]


class _Handler(QuietHandler):
    """A static file server that records each request and, when ``sig`` is set, answers 403 without it."""

    seen: list[str]
    sig: str | None

    def do_GET(self) -> None:
        self.seen.append(self.path)
        if self.sig is not None and parse_qs(urlsplit(self.path).query).get("sig") != [self.sig]:
            self.send_error(403, "signature required")
            return
        super().do_GET()

    def do_HEAD(self) -> None:
        self.do_GET()


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for ep in EPISODES:
        write_run(root, ep, basic_events(ep))
    return root


def _serve(web: WebServers, root: Path, sig: str | None) -> tuple[str, list[str]]:
    seen: list[str] = []
    return web.start(root, _Handler, seen=seen, sig=sig), seen


@pytest.fixture
def served(runs: Path, web: WebServers) -> tuple[str, list[str]]:
    return _serve(web, runs, None)


@pytest.fixture
def signed(runs: Path, web: WebServers) -> tuple[str, list[str]]:
    return _serve(web, runs, SIG)


@pytest.fixture
def in_memory(runs: Path, tmp_path: Path) -> Iterator[str]:
    """The runs copied into fsspec's memory file system under a prefix of this test's own (a word-like name: a
    random hex one reads as a key, which a frame does not show)."""
    fs = fsspec.filesystem("memory")
    prefix = f"/noesis-{tmp_path.name}/runs"
    for path in runs.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{prefix}/{path.relative_to(runs).as_posix()}", path.read_bytes())
    yield f"memory://{prefix}"
    fs.rm(prefix.rsplit("/", 1)[0], recursive=True)


@pytest.mark.parametrize("frame", ["runs_df", "events_df", "tools_df"])
@pytest.mark.parametrize("where", ["refused", "missing_path", "memory"])
def test_a_remote_root_that_is_not_there_is_an_error_naming_it(
    served: tuple[str, list[str]], frame: str, where: str, tmp_path: Path
) -> None:
    url = {
        "refused": f"http://127.0.0.1:{closed_port()}/runs",  # nothing listens there: connection refused
        "missing_path": f"{served[0]}/no-such-runs/",  # the server answers 404
        "memory": f"memory://noesis-{tmp_path.name}/no-such-runs",
    }[where]
    with pytest.raises(RunNotFoundError) as refused:
        getattr(noesis_nb, frame)(url, cache=False)
    message = str(refused.value)
    assert url.rstrip("/").split("://", 1)[1] in message and "check the URL" in message


def test_a_signature_in_an_unreachable_urls_query_is_not_shown() -> None:
    url = f"http://127.0.0.1:{closed_port()}/runs?sig={SIG}"
    with pytest.raises(RunNotFoundError) as refused:
        noesis_nb.runs_df(url, cache=False)
    message = str(refused.value)
    assert SIG not in message and f"127.0.0.1:{url.split(':')[2].split('/')[0]}/runs" in message


def test_an_empty_remote_root_that_is_there_is_an_empty_frame(tmp_path: Path, web: WebServers) -> None:
    (tmp_path / "empty").mkdir()
    url, _ = _serve(web, tmp_path / "empty", None)
    assert len(noesis_nb.runs_df(url + "/", cache=False)) == 0


@pytest.mark.parametrize("kind", ["http", "memory", "file"])
def test_each_rows_run_dir_reopens_its_run(kind: str, served: tuple[str, list[str]], in_memory: str, runs: Path) -> None:
    source = {"http": served[0] + "/", "memory": in_memory, "file": f"file://{runs}"}[kind]
    df = noesis_nb.runs_df(source, cache=False)
    assert sorted(df.episode_id) == EPISODES
    for row in df.itertuples():
        assert "://" not in row.run_dir.split("://", 1)[-1]  # the scheme once
        again = noesis_nb.runs_df(row.run_dir, cache=False)
        assert list(again.episode_id) == [row.episode_id] and list(again.run_dir) == [row.run_dir]
        events = noesis_nb.events_df(row.run_dir, cache=False)
        assert set(events.episode_id) == {row.episode_id} and len(events) == len(basic_events(row.episode_id))


def test_a_query_string_is_sent_with_every_request_and_never_shown(signed: tuple[str, list[str]]) -> None:
    url, seen = signed
    df = noesis_nb.runs_df(f"{url}/?sig={SIG}", cache=False)
    assert sorted(df.episode_id) == EPISODES and df.attrs["errors"] == []
    assert seen and all(parse_qs(urlsplit(p).query).get("sig") == [SIG] for p in seen)
    assert not any(SIG in str(v) for v in df.run_dir) and sorted(df.run_dir) == [f"{url}/{ep}" for ep in EPISODES]
    events = noesis_nb.events_df(f"{url}/?sig={SIG}", cache=False)
    assert sorted(set(events.episode_id)) == EPISODES


@pytest.mark.parametrize(("pattern", "wanted"), [("ep_*ta", ["ep_beta"]), ("ep_[ag]*", ["ep_alpha", "ep_gamma"])])
def test_a_glob_in_the_path_of_a_signed_url_still_globs(signed: tuple[str, list[str]], pattern: str, wanted: list[str]) -> None:
    url, _ = signed
    assert sorted(noesis_nb.runs_df(f"{url}/{pattern}?sig={SIG}", cache=False).episode_id) == wanted
