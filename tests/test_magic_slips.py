"""Two ``%noesis`` slips a newcomer makes, each answered with the line that fixes it.

``--approver autoo`` got no ``did you mean 'auto'`` (``start(approver="autoo")`` does), and ``%noesis batch
my_agent`` (the agent alone, as ``%noesis run`` takes it) was told ``required: using``, when the agent had
been read as the tasks.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from noesis_nb.magics import parse_line


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


@pytest.mark.parametrize(
    "line, owners",
    [
        ('run my_agent "t" --approver-id ana', "%noesis inbox, %noesis approve, %noesis reject"),
        ("list --reason slow", "%noesis approve, %noesis reject"),
        ("show ep_x --limit 3", "%noesis list"),
    ],
)
def test_an_option_of_another_subcommand_is_named_where_it_belongs_not_as_a_look_alike(ip: Any, line: str, owners: str) -> None:
    """``%noesis run … --approver-id ana`` was answered ``did you mean --approver?``: the approval policy (ask, auto,
    deny), not who decides, and ``--approver ana`` then failed as an unknown policy."""
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", line)
    option = line.split(" --", 1)[1].split()[0]
    first = str(caught.value).splitlines()[0]
    assert f"--{option} belongs to {owners}" in first and "did you mean" not in first, first


def test_who_decides_in_a_run_names_the_variable_and_tells_the_policy_apart(ip: Any) -> None:
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", 'run my_agent "t" --approver-id ana')
    assert "$NOESIS_NB_APPROVER_ID" in str(caught.value) and "--approver here is the policy" in str(caught.value)


def test_an_option_after_the_double_dash_is_told_to_come_before_it(ip: Any) -> None:
    """``--`` ends the options: ``--seed 3`` after it is two values, and 'did you mean --seed?' repeated what was typed."""
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", "run my_agent x -- --seed 3")
    said = str(caught.value).splitlines()[0]
    assert "did you mean" not in said, said
    assert "after -- every word is read as a value" in said and "%noesis run my_agent x --seed 3" in said, said
    fixed = said.rsplit("%noesis ", 1)[1].rstrip(")")
    assert parse_line(fixed).seed == 3  # the line it gives reads the seed


@pytest.mark.parametrize(
    "line, hint",
    [
        ('RUN my_agent "t"', "unknown subcommand 'RUN' (did you mean 'run'?)"),
        ("Lsit", "unknown subcommand 'Lsit' (did you mean 'list'?)"),
        ('run my_agent "t" --SEED 3', "--SEED 3 (did you mean --seed?)"),
        ("batch tasks my_agent --Root runs", "--Root runs (did you mean --runs-dir?)"),
        ('run my_agent "t" --approver AUTOO', "--approver 'AUTOO' (did you mean 'auto'?)"),
        ('run my_agent "t" --governance ENFORCED', "(did you mean 'enforce'?)"),
        ('steer ep_x "s" --mode NEXT-ITEMS', "(did you mean 'next-item'?)"),
        ('run MY_AGENT "t"', "did you mean my_agent (defined in this notebook)?"),
    ],
)
def test_a_slip_in_capitals_gets_the_same_did_you_mean_as_one_in_small_letters(ip: Any, line: str, hint: str) -> None:
    ip.user_ns["my_agent"] = lambda task, ctx: task
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", line)
    assert hint in str(caught.value)
