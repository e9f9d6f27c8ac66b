"""Settings read from the environment: looking at them works when one is wrong, and names it; running refuses."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import config, ns
from noesis_nb.errors import InvalidOptionError

WRONG = {
    "NOESIS_GOVERNANCE_MODE": ("Audit", "(did you mean 'audit'?)"),
    "NOESIS_GOVERNANCE_FAILURE_POLICY": ("fail-closed", "(did you mean 'fail_closed'?)"),
    "NOESIS_NB_APPROVER": ("Auto", "(did you mean 'auto'?)"),
    "NOESIS_NB_CAPTURE": ("maybe", "use 1/0"),
}


async def _answers(task: str, ctx: Any) -> str:
    return "done"


@pytest.mark.parametrize("variable", sorted(WRONG))
def test_the_settings_show_with_a_wrong_variable_named_while_running_refuses(
    variable: str, runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value, fix = WRONG[variable]
    monkeypatch.setenv(variable, value)
    for show in (ns.get, config.get):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            shown = show()
        said = " ".join(str(w.message) for w in caught)
        assert f"{variable}={value!r}" in said and fix in said, said
        assert shown["timeout_sec"] == 60 and "runs_dir" in shown  # the rest is there to read
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.solve("t", using=_answers, runs_dir=runs_dir)
    assert variable in str(info.value) and fix in str(info.value)
    assert list(runs_dir.iterdir()) == []


def test_every_wrong_variable_is_named_at_once_and_the_dict_holds_what_was_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, (value, _) in WRONG.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("NOESIS_NB_CAPTUR", "0")
    found = config.problems()
    assert [line.split("=")[0].split(" ")[0].lstrip("$") for line in found] == [
        "NOESIS_GOVERNANCE_MODE",
        "NOESIS_GOVERNANCE_FAILURE_POLICY",
        "NOESIS_NB_APPROVER",
        "NOESIS_NB_CAPTURE",
        "NOESIS_NB_CAPTUR",
    ]
    assert "did you mean NOESIS_NB_CAPTURE?" in found[-1]
    with pytest.warns(UserWarning):
        shown = ns.get()
    assert shown["governance_mode"] == "Audit" and shown["governance_failure_policy"] == "fail-closed"
    with pytest.raises(InvalidOptionError, match="NOESIS_GOVERNANCE_MODE='Audit'"):
        config.get("governance_mode")  # the one value a call needs still stops that call


def test_right_settings_show_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOESIS_GOVERNANCE_MODE", "audit")
    monkeypatch.setenv("NOESIS_NB_CAPTURE", "off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ns.get()["governance_mode"] == "audit"
    assert config.problems() == []


@pytest.mark.parametrize(
    ("variable", "meant"),
    [
        ("NOESIS_GOVERNANCE_MOD", "NOESIS_GOVERNANCE_MODE"),
        ("NOESIS_RUN_DIR", "NOESIS_RUNS_DIR"),
        ("NOESIS_NB_RUNS_DIR", "NOESIS_RUNS_DIR"),
        ("NOESIS_APPROVER", "NOESIS_NB_APPROVER"),
    ],
)
def test_a_misspelt_noesis_variable_is_named_with_the_one_meant(
    variable: str, meant: str, runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "_env_checked", False)
    monkeypatch.setenv(variable, "audit")  # NOESIS_GOVERNANCE_MOD=audit would leave governance off, unsaid
    assert [line for line in config.problems() if variable in line] == [
        f"${variable} is not read by noesis_nb (did you mean {meant}?)"
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.solve("t", using=_answers, runs_dir=runs_dir, approver="auto")
    assert any(f"{variable} (did you mean {meant}?)" in str(w.message) for w in caught)


def test_a_noesis_setting_noesis_nb_does_not_implement_is_named_when_set_off_its_default(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "_env_checked", False)
    monkeypatch.setenv("NOESIS_TIMEOUT_SEC", "10")
    monkeypatch.setenv("NOESIS_GOVERNANCE_TIMEOUT_MS", "500")
    monkeypatch.setenv("NOESIS_LEARN_MODE", "record")  # at Noēsis' default: nothing to say
    monkeypatch.setenv("NOESIS_PROMPT_PROVENANCE_ENABLED", "false")
    monkeypatch.setenv("NOESIS_VERBOSE", "1")  # Noēsis' CLI's own
    found = config.problems()
    assert [line.split("=")[0] for line in found] == ["$NOESIS_GOVERNANCE_TIMEOUT_MS", "$NOESIS_TIMEOUT_SEC"], found
    assert "does not implement Noēsis' 'timeout_sec' (it behaves as at its default 60); unset it" in found[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.solve("t", using=_answers, runs_dir=runs_dir)
    said = [str(w.message) for w in caught if "NOESIS_TIMEOUT_SEC" in str(w.message)]
    assert len(said) == 1 and "NOESIS_TIMEOUT_SEC='10'" in said[0], said


def test_noesis_own_variables_are_never_taken_for_misspellings(monkeypatch: pytest.MonkeyPatch) -> None:
    from noesis_nb._envvars import NOESIS_ENV

    for variable in NOESIS_ENV:
        monkeypatch.setenv(variable, "7")
    assert not [line for line in config.problems() if "did you mean" in line]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"governance_mode": "Audit"}, "governance_mode='Audit' (did you mean 'audit'?): use one of 'audit', 'enforce', 'off'"),
        (
            {"governance_failure_policy": "fail-closed"},
            "governance_failure_policy='fail-closed' (did you mean 'fail_closed'?): use one of None, 'fail_closed', 'fail_open'",
        ),
        ({"governance_pause_on_veto": "yes"}, "governance_pause_on_veto='yes': use one of False, True"),
    ],
)
def test_a_wrong_value_set_in_code_says_which_was_meant_as_the_environment_does(given: dict[str, Any], said: str) -> None:
    (key,) = given
    before = ns.get()[key]
    with pytest.raises(InvalidOptionError) as info:
        ns.set(**given)
    assert str(info.value) == said
    assert ns.get()[key] == before  # nothing was set


# a key pasted into the wrong variable: each, sure to be found by the detectors, and where it would have been printed
PASTED = {
    "NOESIS_GOVERNANCE_MODE": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "NOESIS_NB_APPROVER": "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "NOESIS_TIMEOUT_SEC": "AKIAIOSFODNN7EXAMPLF",
    "NOESIS_NB_CAPTURE": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdefgh",
}


def _tail(value: str) -> str:
    return value[-12:]  # no part of the value may show: its tail is enough to find one


def test_a_secret_pasted_into_a_settings_variable_is_redacted_wherever_it_is_named(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable, value in PASTED.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setattr(config, "_env_checked", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shown = ns.get()
        with pytest.raises(InvalidOptionError) as refused:
            noesis_nb.solve("t", using=_answers, runs_dir=runs_dir)
        monkeypatch.delenv("NOESIS_GOVERNANCE_MODE")
        with pytest.raises(InvalidOptionError) as approver:  # the next wrong one, said by start()/solve()
            noesis_nb.solve("t", using=_answers, runs_dir=runs_dir)
    said = [str(w.message) for w in caught] + config.problems() + [str(refused.value), str(approver.value), repr(shown)]
    for variable, value in PASTED.items():
        assert any(variable in text for text in said), variable
        for text in said:
            assert _tail(value) not in text, text
    assert "NOESIS_NB_APPROVER=" in str(approver.value)
    assert "[REDACTED]" in shown["governance_mode"]


def test_the_settings_warnings_point_at_the_users_line(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOESIS_GOVERNANCE_MODE", "Audit")
    for show in (ns.get, config.get):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            show()
        assert [w.filename for w in caught] == [__file__], [(w.filename, w.lineno) for w in caught]
    monkeypatch.delenv("NOESIS_GOVERNANCE_MODE")
    monkeypatch.setenv("NOESIS_TIMEOUT_SEC", "10")
    monkeypatch.setattr(config, "_env_checked", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.solve("t", using=_answers, runs_dir=runs_dir)
    said = [w for w in caught if "NOESIS_TIMEOUT_SEC" in str(w.message)]
    assert [w.filename for w in said] == [__file__], [(w.filename, w.lineno) for w in said]


@pytest.mark.parametrize("where", ["file", "under a file", "link leading nowhere"])
def test_a_runs_dir_that_is_or_sits_under_no_folder_is_refused_when_set(tmp_path: Path, runs_dir: Path, where: str) -> None:
    from noesis_nb.errors import RunsDirError

    blocker = tmp_path / "notes.txt"
    if where == "link leading nowhere":
        blocker.symlink_to(tmp_path / "gone")
    else:
        blocker.write_text("mine")
    path = blocker / "runs" if where == "under a file" else blocker
    ns.set(runs_dir=str(runs_dir))
    with pytest.raises(RunsDirError) as info:
        ns.set(runs_dir=str(path))
    said = str(info.value)
    assert f"runs_dir {str(path)!r}" in said and f"{str(blocker)!r} is" in said and ", not a folder; pass" in said
    assert config.runs_dir() == runs_dir  # the setting stays
    ns.set(runs_dir=str(tmp_path / "new" / "runs"))  # not made yet: fine, the first run makes it


def test_a_runs_dir_that_is_one_runs_folder_is_refused_when_set(tmp_path: Path, runs_dir: Path) -> None:
    """A run's own folder (here a copy of a run Noēsis wrote) set as the runs dir is refused then, not at the next run."""
    import shutil

    from noesis_nb.errors import RunsDirError

    run = tmp_path / "ep_copy"
    shutil.copytree(next((Path(__file__).parent / "fixtures" / "noesis-smoke-run").iterdir()), run)
    ns.set(runs_dir=str(runs_dir))
    with pytest.raises(RunsDirError, match=r"is a run directory .* pass its parent"):
        ns.set(runs_dir=str(run))
    assert config.runs_dir() == runs_dir  # the setting stays
