"""A legacy ``CUSTOM on_interrupt`` sent beside an interrupt outcome is the same interrupt: asked once, answered
under the outcome's id.

Servers that kept the legacy event on by default (older ag-ui-langgraph, CrewAI endpoints with
``emit_interrupt_outcome=True``) send each interrupt twice: as ``on_interrupt`` (no id) and in the ``RUN_FINISHED``
outcome (with its id). The id made for the legacy copy made two interrupts, one the agent could not be answered
under, and the run ended ``error`` before anyone was asked.
"""

from __future__ import annotations

import json

from noesis_nb.integrations.agui import AGUIAdapter

from .helpers import run
from .test_agui_outcomes import Agent, _done


def _both(ids):
    return [
        {"type": "RUN_STARTED", **ids},
        {"type": "CUSTOM", "name": "on_interrupt", "value": json.dumps({"question": "Delete the staging DB?"})},
        {
            "type": "RUN_FINISHED",
            **ids,
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "lg-int-1", "reason": "human_approval", "message": "Delete the staging DB?"}],
            },
        },
    ]


def test_the_legacy_copy_of_an_outcome_interrupt_is_asked_once(tmp_path):
    agent = Agent(_both, _done)
    handle, asked = run("tidy", AGUIAdapter(agent), tmp_path, decide="approve")
    assert handle.status == "ok" and len(asked) == 1
    resumed = agent.inputs[1].get("resume")
    assert [answer["interruptId"] for answer in resumed] == ["lg-int-1"], resumed


def test_a_legacy_interrupt_alone_is_still_asked(tmp_path):
    def legacy_only(ids):
        value = json.dumps({"question": "Go on?"})
        return [
            {"type": "RUN_STARTED", **ids},
            {"type": "CUSTOM", "name": "on_interrupt", "value": value},
            {"type": "RUN_FINISHED", **ids},
        ]

    handle, asked = run("tidy", AGUIAdapter(Agent(legacy_only, _done)), tmp_path, decide="approve")
    assert len(asked) == 1 and handle.status == "ok"
