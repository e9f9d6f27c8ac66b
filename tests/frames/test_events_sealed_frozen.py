"""A cold ``events_df`` of sealed, changed, torn, other systems' and Noēsis runs says what the release before its
per-run cuts said, value for value and problem for problem; and a run whose events all name it costs no byte count.

The expected dump (``tests/fixtures/events_frames/sealed_expected.txt.gz``) was made from ``sealedcorpus``'s corpus
by the event loader as it was before a cold load stopped counting each log's bytes for the episode its events name
(the same dump with pyarrow, without it, and with small batches). Each load here runs in a fresh process. Refrozen
for one value since, deliberately: the ``tool`` of the Noēsis smoke run's synthetic act, which names it under
``adapter`` (Noēsis' act rule: ``tool`` or ``adapter``), was <NA> and is its adapter.
"""

from __future__ import annotations

import difflib
import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from noesis_nb.frames import LoadProblemsWarning, eventblocks, events_df

from .sealedcorpus import build

REPO = Path(__file__).resolve().parents[2]
EXPECTED = REPO / "tests" / "fixtures" / "events_frames" / "sealed_expected.txt.gz"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("sealed") / "runs")


@pytest.mark.parametrize("flags", [[], ["--no-pyarrow", "--small-batches"]], ids=["default", "no-pyarrow small batches"])
def test_event_frames_equal_the_frozen_ones(corpus: Path, flags: list[str], tmp_path: Path) -> None:
    out = tmp_path / "frames.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "tests.frames.sealedcorpus", str(corpus), str(out), *flags]
    subprocess.run(command, check=True, cwd=REPO, env=env)
    expected = gzip.decompress(EXPECTED.read_bytes()).decode("utf-8")
    got = out.read_text(encoding="utf-8")
    if got != expected:
        diff = difflib.unified_diff(expected.splitlines(), got.splitlines(), "expected", "got", n=2, lineterm="")
        pytest.fail("the event frames differ from the frozen ones:\n" + "\n".join(list(diff)[:60]))


def test_the_frozen_dump_holds_each_kind_of_run() -> None:
    """The dump covers what it is meant to: each change since a seal, a cut line, another episode, other systems."""
    expected = gzip.decompress(EXPECTED.read_bytes()).decode("utf-8")
    for said in (
        "ep_100_appended/events.jsonl', 'line': None, 'reason': '8294 bytes, but manifest.json lists 8121",
        "ep_101_summary_rewritten/summary.json', 'line': None, 'reason': '82 bytes, but manifest.json lists 130",
        "ep_102_manifest_edited/events.jsonl', 'line': None",
        "ep_103_cut_after_seal/events.jsonl', 'line': 30, 'reason': 'the last line is cut off",
        "ep_104_sealed_torn/events.jsonl', 'line': 30",
        "ep_130_other_episode/events.jsonl', 'line': 5, 'reason': \"names episode 'ep_999_elsewhere'",
        """categories ["str:'agui'", "str:'crewai'", "str:'langgraph'", "str:'noesis'", "str:'noesis_nb'", "str:'noeta'"]""",
        "str:'ep_01K9RBBMXXRSFWR49SXFGF4SPR'",
        "str:'ep_adr008_allow'",
    ):
        assert said in expected, said


def test_a_cold_load_counts_no_bytes_of_a_log_whose_events_all_name_its_run(corpus: Path, monkeypatch) -> None:
    """Each event's ``episode_id`` is read anyway; only a log where one names another run (or none) is counted
    byte by byte, as before, so what is reported is unchanged (``ep_131``: the count, not the events, decides)."""
    counted: list[str] = []
    real = eventblocks.names_only

    def names_only(data: bytes, episode: str, lines: int) -> bool:  # the real count, each call noted
        counted.append(episode)
        return real(data, episode, lines)

    monkeypatch.setattr(eventblocks, "names_only", names_only)
    with pytest.warns(LoadProblemsWarning):
        df = events_df(corpus, cache=False, progress=False)
    assert sorted(counted) == ["ep_130_other_episode", "ep_131_named_in_payload"]
    assert df.attrs["runs"] == 77
    named = [p for p in df.attrs["errors"] if "names episode" in p["reason"] or "names no episode" in p["reason"]]
    assert [(Path(p["path"]).parent.name, p["line"]) for p in named] == [("ep_130_other_episode", 5)]
