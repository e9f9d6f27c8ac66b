"""Two ``%noesis`` slips a newcomer makes, each answered with the line that fixes it.

``--approver autoo`` got no ``did you mean 'auto'`` (``start(approver="autoo")`` does), and ``%noesis batch
my_agent`` (the agent alone, as ``%noesis run`` takes it) was told ``required: using``, when the agent had
been read as the tasks.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError


def test_a_misspelt_approver_policy_is_named(ip: Any) -> None:
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", 'run my_agent "t" --approver autoo')
    assert "--approver 'autoo' (did you mean 'auto'?)" in str(caught.value)


def test_batch_given_only_the_agent_says_the_tasks_come_first(ip: Any) -> None:
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", "batch my_agent")
    assert "the tasks come first, then the agent(s): %noesis batch <tasks> <agent>" in str(caught.value)
