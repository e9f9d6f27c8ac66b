"""An id that reads as a credential label and its value (``auth:smoke-test``, ``secret:santa``) is refused, and the
refusal says why and which id to pick instead.

The detectors read ``auth:smoke-test`` as the value ``smoke-test`` given to the secret-sounding name ``auth``, as they
read ``password: hunter2``: a run's records would store it ``auth:[REDACTED]`` while its folder kept it in clear, so
the id is refused, as it always was. The message named only "a credential (a token or a password)", which an
id such as ``secret:santa`` is not: it now names the label reading and offers the id with ``-`` for its separator
(``auth-…``, the value not repeated: it may be a password), which the detectors read as no credential (a run made
with it keeps its id in clear everywhere).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError
from noesis_nb.ids import validate_id
from noesis_nb.secrets import RunSecrets

LABELLED = {"auth:smoke-test": "auth", "secret:santa": "secret", "password=letmein": "password"}


@pytest.mark.parametrize("given", sorted(LABELLED))
def test_a_labelled_id_is_refused_saying_it_reads_as_a_label_and_which_id_to_pick(given: str) -> None:
    assert RunSecrets().redact(given) != given  # what run files would store: the refusal agrees with the redactor
    for what in ("episode id", "batch id"):
        with pytest.raises(InvalidIdError) as caught:
            validate_id(given, what=what)
        message = str(caught.value)
        assert "credential label" in message and "'name:value'" in message, message
        assert "store that value redacted" in message, message
        assert f"e.g. '{LABELLED[given]}-…'" in message, message  # the fix, the value not repeated
        assert given.split(LABELLED[given])[1][1:] not in message, message
        assert "a token or a password" not in message, message  # it is neither


def test_a_token_of_a_known_format_is_still_named_as_one() -> None:
    token = "ghp_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    with pytest.raises(InvalidIdError) as caught:
        validate_id(f"run-{token}")
    assert "a token or a password" in str(caught.value) and token not in str(caught.value)


async def agent(task: str, ctx: Any) -> Any:
    ctx.emit("note", {"text": f"running {task}"})
    return "done"


def test_the_offered_id_makes_a_run_that_keeps_it_in_clear(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(InvalidIdError):
        noesis_nb.solve("smoke", using=agent, runs_dir=runs, approver="auto", episode_id="auth:smoke-test")
    assert not runs.exists() or not any(runs.iterdir())  # refused before anything was made
    episode_id = noesis_nb.solve("smoke", using=agent, runs_dir=runs, approver="auto", episode_id="auth-smoke-test")
    assert episode_id == "auth-smoke-test"
    run = runs / episode_id
    events = (run / "events.jsonl").read_text()
    assert '"auth-smoke-test"' in events and "REDACTED" not in events
    assert noesis_nb.ns.summary.read(run)  # read back by its id
