"""``resume_run`` refuses a wrong ``checkpoint_id`` or ``using`` the caller gave, in one error naming the value and
the fix, before it looks at the run: ``checkpoint_id=5`` was told "ids read from run files must not contain…",
``checkpoint_id=""`` was taken as None, and a sealed run only warned ``NothingToResume`` whatever was passed."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import InvalidIdError, InvalidOptionError, UsingResolutionError
from noesis_nb.runtime.resume import NothingToResume


def _done(task: str) -> str:
    return "done"


@pytest.fixture
def sealed(runs_dir: Path) -> str:
    return noesis_nb.solve("note", using=_done, runs_dir=runs_dir)


@pytest.mark.parametrize("resume", [noesis_nb.resume_run, ns.resume_run], ids=["noesis_nb", "ns"])
@pytest.mark.parametrize(
    ("given", "error", "named"),
    [
        (5, InvalidOptionError, "checkpoint_id=5 (int)"),
        ("", InvalidOptionError, "checkpoint_id='' (str)"),
        ("   ", InvalidOptionError, "checkpoint_id='   ' (str)"),
        ("/etc", InvalidIdError, "checkpoint_id '/etc'"),
    ],
)
def test_a_wrong_checkpoint_id_is_refused_naming_it_and_the_fix(
    resume: Any, given: object, error: type[Exception], named: str, sealed: str, runs_dir: Path
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NothingToResume warning instead of the error fails the test
        with pytest.raises(error) as raised:
            resume(sealed, checkpoint_id=given, runs_dir=runs_dir)
    said = str(raised.value)
    assert named in said
    assert "leave checkpoint_id out" in said
    assert "read from run files" not in said


@pytest.mark.parametrize("resume", [noesis_nb.resume_run, ns.resume_run], ids=["noesis_nb", "ns"])
def test_a_sealed_run_refuses_a_using_that_is_no_adapter_before_saying_nothing_is_to_resume(
    resume: Any, sealed: str, runs_dir: Path
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UsingResolutionError, match=r"using=5 \(type int\) is no adapter"):
            resume(sealed, using=5, runs_dir=runs_dir)
        with pytest.raises((InvalidIdError, InvalidOptionError), match="checkpoint_id"):
            resume(sealed, using=_done, checkpoint_id="/etc", runs_dir=runs_dir)


def test_good_options_on_a_sealed_run_still_only_say_nothing_is_to_resume(sealed: str, runs_dir: Path) -> None:
    # a well-formed checkpoint id the run does not have is refused (test_resume_write_targets); its own is good
    with pytest.warns(NothingToResume, match="already sealed"):
        assert noesis_nb.resume_run(sealed, using=_done, runs_dir=runs_dir) == sealed
