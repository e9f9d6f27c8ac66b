"""The label of a phase is worked out in one pass, whatever the phase: a crafted phase of quotes (run files are
anyone's to write) cost a pass per pair of quotes, on every row of every redraw of the view."""

from __future__ import annotations

import sys

from noesis_nb.widgets.render import phase_label


def _lines_run(phase: str) -> int:
    """How many lines of ``phase_label`` run for ``phase`` (its own lines only, not the calls it makes)."""
    count = 0
    code = phase_label.__code__

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code is code:
            if event == "line":
                count += 1
            return tracer
        return None

    sys.settrace(tracer)
    try:
        phase_label(phase)
    finally:
        sys.settrace(None)
    return count


def test_a_phase_of_many_quotes_is_labelled_in_as_many_steps_as_a_short_one():
    short = _lines_run("'x'")
    assert _lines_run("'" * 20_000) <= short + 2
    assert _lines_run("'" * 5_000 + "proposal" + "'" * 5_000) <= short + 2


def test_labels_are_kept():
    assert phase_label("action_candidate") == "proposal"
    assert phase_label("proposal") == "'proposal'"  # an adapter's own phase named like the label reads quoted
    assert phase_label("'proposal'") == "''proposal''"
    assert phase_label("''proposal'") == "''proposal'"  # unbalanced: no label inside, shown as stored
    assert phase_label("'" * 6) == "'" * 6
    assert phase_label("reason") == "reason"
    assert phase_label(None) == "?"
