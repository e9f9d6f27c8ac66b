"""The event frames of a crafted, hostile corpus equal the frames frozen from a known-good builder, line for line.

The expected dump (``tests/fixtures/events_frames/expected.txt.gz``) was made by
``make_expected.py`` with the event builder before its hot path was restructured; each load here
runs in a fresh process, with pyarrow installed and blocked (a default install), with the default
batches and with small ones (runs and chunks straddling batch boundaries). Refrozen once since, deliberately, for
two columns alone: ``usage_df`` gained ``cache_write_1h_input_tokens`` and ``web_search_requests`` (<NA> in every row
of the corpus, which reports none), so ``reprice`` of a frame prices them. And once for one line: ``unpriced_reason``'s
categories gained ``'no price for provider'`` (no row of the corpus has it: its calls name openai or no provider).
"""

from __future__ import annotations

import difflib
import gzip
import importlib.util
import re
from pathlib import Path

import pytest

from .eventcorpus import build

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "events_frames"


def _maker():
    spec = importlib.util.spec_from_file_location("make_expected", FIXTURE / "make_expected.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("frozen") / "runs")


_PRICE_VERSION = re.compile(r"'price_version': 'genai-prices [^']*'")


def _unversioned(dump: str) -> str:
    """The dump with the installed genai-prices version left out: the frames are what is frozen (a fresh install
    takes the newest genai-prices, whose version says nothing of the frames)."""
    return _PRICE_VERSION.sub("'price_version': 'genai-prices (installed)'", dump)


@pytest.mark.parametrize("flags", MAKER.VARIANTS, ids=lambda flags: " ".join(flags) or "default")
def test_frames_equal_the_frozen_ones(corpus: Path, flags: list[str], tmp_path: Path) -> None:
    expected = _unversioned(gzip.decompress((FIXTURE / "expected.txt.gz").read_bytes()).decode("utf-8"))
    got = _unversioned(MAKER.dump_frames(corpus, flags, tmp_path))
    if got != expected:
        diff = difflib.unified_diff(expected.splitlines(), got.splitlines(), "expected", "got", n=2, lineterm="")
        pytest.fail("the frames differ from the frozen ones:\n" + "\n".join(list(diff)[:60]))


def test_the_corpus_is_hostile(corpus: Path) -> None:
    """The dump covers what it is meant to: many problem rows of each kind, and runs of every size."""
    expected = gzip.decompress((FIXTURE / "expected.txt.gz").read_bytes()).decode("utf-8")
    for said in (
        "is not an ISO-8601 time",
        "the log's times go backwards",
        "is the id of the event on line",
        "names episode",
        "payload is",
        "not one of",
        "payload.tool is",
        "exceeds input_tokens",
        "close to 'model.call'",
        "metrics.duration_ms is",
    ):
        assert said in expected, said
    assert len(list(corpus.iterdir())) > 80
