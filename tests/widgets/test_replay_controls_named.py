"""A replay's controls in ipywidgets 8: the label of a control given no ``tooltip`` gets the hover text "null" (the
label's title is set from it), as the slider's "events" label did; the speed buttons had no name of their group.
Every labelled control a replay view shows now has hover words of its own, and the speed buttons are named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from noesis_nb.widgets.replayview import ReplayView

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ADR008_RUN = FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow"


def _tree(widget: Any) -> list[Any]:
    out = [widget]
    for child in getattr(widget, "children", ()):
        out.extend(_tree(child))
    return out


def test_every_shown_label_has_hover_words_and_the_speed_buttons_a_name(comm_log: list) -> None:
    replay = ReplayView(ADR008_RUN)
    labelled = [
        x
        for x in _tree(replay)
        if isinstance(x, w.widgets.widget_description.DescriptionWidget)
        and x.description
        and "nnb-named" not in x._dom_classes  # a label kept out of sight: no one hovers it
    ]
    assert replay.slider in labelled and replay.speed in labelled
    for control in labelled:
        sent = control.get_state()
        assert isinstance(sent.get("tooltip"), str) and sent["tooltip"].strip(), (control.description, sent.get("tooltip"))
    assert replay.speed.description == "speed"
    assert len(replay.speed.tooltips) == len(replay.speed.options)  # each speed button says what it does
    replay.play_button.value = False
    assert replay.play_button.description == "Play"  # its state is in its name: Pause while it plays
