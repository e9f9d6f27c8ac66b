"""The texts ``store.shownnames`` keeps shown across a value learned or a run registered are exactly those ``shown``
still shows alike: each text it gives after the change is what ``secrets.shown`` gives now, for texts holding the
value whole, a cut-off start of it, the value behind escapes, and texts holding none of it."""

from __future__ import annotations

import secrets
from pathlib import Path

from noesis_nb.secrets import for_run
from noesis_nb.secrets.display import made_here, shown
from noesis_nb.secrets.hiddenparts import holds_hidden, unmarked
from noesis_nb.store.shownnames import shown_id


def test_a_value_learned_after_texts_were_shown_is_redacted_wherever_shown_would(tmp_path: Path) -> None:
    value = "Vq" + secrets.token_hex(8)  # new to this process
    escaped = "".join(f"\\u{ord(c):04x}" for c in value)
    texts = {
        "whole": f"ep_old_{value}_run",
        "cut": f"ep_old_{value[:10]}",  # a cut-off start at the text's end
        "cut_ellipsis": f"ep_old_{value[:12]}...",
        "escaped": f"ep_old_{escaped}",
        "plain": "ep_20251104_155501_000001",
        "near": f"ep_old_{value[:5]}_run",  # too little of it to be a sign
    }
    before = {k: shown_id(t) for k, t in texts.items()}
    assert all(before[k] == texts[k] for k in texts)  # nothing known of it: names
    for_run(tmp_path / "other").learn([value])
    after = {k: shown_id(t) for k, t in texts.items()}
    assert {k: unmarked(s) for k, s in after.items()} == {k: shown(t) for k, t in texts.items()}  # but its marks
    for kind in ("whole", "cut", "cut_ellipsis", "escaped"):
        assert holds_hidden(after[kind]) and value[:8] not in after[kind], kind
    assert after["plain"] == texts["plain"] and after["near"] == texts["near"]


def test_a_run_registered_after_its_id_was_shown_is_kept_whole_as_shown_keeps_it(tmp_path: Path) -> None:
    name = "ep_" + "ghp" + "_" + secrets.token_hex(18)  # a folder named with a credential
    assert holds_hidden(shown_id(name)) and unmarked(shown_id(f"{name}.old")) == shown(f"{name}.old")
    for_run(tmp_path / name)  # a run only read by this process: no public name (``public_run_ids``)
    assert shown_id(name) != name
    made_here(name)  # a run this process made: its id is public, kept whole where a text quotes it
    assert shown_id(name) == shown(name) and shown_id(f"{name}.old") == shown(f"{name}.old")
    assert shown_id(name) == name
