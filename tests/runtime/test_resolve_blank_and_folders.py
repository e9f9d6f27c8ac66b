"""``using=`` that is blank or a plain folder is refused naming it and the fix: '' was read as the working folder and
reported as a missing ``__init__.py`` there ("fix the module and run the cell again"), naming neither."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import UsingResolutionError
from noesis_nb.runtime.resolve import resolve_using


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_a_blank_using_is_refused_as_blank(blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsingResolutionError) as caught:
        resolve_using(blank)
    message = str(caught.value)
    assert f"using={blank!r} is blank" in message and "pass a function" in message
    assert "__init__" not in message and "fix the module" not in message


def test_a_folder_with_no_init_is_named_with_a_file_to_pass(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "agent.py").write_text("def agent(task):\n    return task\n\n\ndef make():\n    return agent\n")
    with pytest.raises(UsingResolutionError) as caught:
        resolve_using(str(folder))
    message = str(caught.value)
    assert f"using={str(folder)!r} is a folder with no __init__.py" in message
    assert repr(str(folder / "agent.py")) in message
    assert "fix the module" not in message
    assert resolve_using(str(folder / "agent.py")).label == str(folder / "agent.py")  # the fix it names works


def test_a_package_folder_still_resolves(tmp_path: Path) -> None:
    package = tmp_path / "pkg_agent"
    package.mkdir()
    (package / "__init__.py").write_text("def agent(task):\n    return task.upper()\n\n\ndef make():\n    return agent\n")
    assert noesis_nb.DiskRun(noesis_nb.solve("hi", using=str(package), runs_dir=tmp_path / "runs")).status == "ok"


def test_start_with_a_blank_using_writes_no_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"

    async def main() -> None:
        noesis_nb.start("t", using="", runs_dir=runs)

    with pytest.raises(UsingResolutionError, match="is blank"):
        asyncio.run(main())
    assert not runs.exists() or not os.listdir(runs)
