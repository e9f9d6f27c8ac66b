"""A key streamed across two events of a run read from disk (one noesis_nb did not seal): ``show`` hides each piece
as the frames do, reading the stream whole (``secrets.records.shown_streams``), not each event alone, where a key's
short first piece (``AKIA`` + 8 characters, ``ghp_`` + 10) passes as no key."""

from __future__ import annotations

import secrets as stdlib_secrets
import string
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from tests.frames.runkit import unsealed_run
from tests.widgets.test_run_fields_never_shown import _widget_state

_ALNUM = string.ascii_letters + string.digits


def _word(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(stdlib_secrets.choice(alphabet) for _ in range(n))


def _shown(run: Path) -> str:
    view = noesis_nb.show(run)
    bundle = view.mimebundle()
    state = _widget_state(view)  # what a saved notebook keeps of the view
    return "\n".join([bundle["text/html"], bundle["text/plain"], state, repr(DiskRun(run).events)])


_KEYS = {
    "aws": (lambda: "AKIA" + _word(16, string.ascii_uppercase + string.digits), (12, 10, 8)),
    "github": (lambda: "ghp_" + _word(36), (14, 12, 22)),
}


@pytest.mark.parametrize("kind", sorted(_KEYS))
def test_the_short_first_piece_of_a_streamed_key_is_hidden_in_the_view(kind: str, tmp_path: Path) -> None:
    make, cuts = _KEYS[kind]
    for cut in cuts:
        key = make()
        head, tail = key[:cut], key[cut:]
        run = unsealed_run(tmp_path / f"{kind}{cut}", f"ep_{kind}_{cut}", [{"delta": "token " + head}, {"delta": tail + " ok"}])
        frame = noesis_nb.events_df(run.parent)
        in_frame = repr(frame.payload.tolist())
        assert head not in in_frame and tail not in in_frame  # the frames hide both pieces
        shown = _shown(run)
        assert head not in shown, f"{kind} key's first {cut} characters shown by the view"
        assert tail not in shown, f"{kind} key's last {len(key) - cut} characters shown by the view"
        assert "token [REDACTED]" in shown and "[REDACTED] ok" in shown  # the words around the key are kept


def test_a_stream_with_no_secret_is_shown_as_written(tmp_path: Path) -> None:
    words = ["The quick brown ", "fox jumps over ", "the lazy dog ", _word(6, string.ascii_lowercase)]
    run = unsealed_run(tmp_path, "ep_prose", [{"delta": w} for w in words])
    events = DiskRun(run).events
    assert [e["payload"]["delta"] for e in events if e["phase"] == "model"] == words
