"""An agent whose own import is missing, or that does not parse, is one line naming the user's file, its line, what is
missing and the fix: a file or package path raised the raw ModuleNotFoundError (a 15-line traceback under
``%noesis run``), a SyntaxError was placed at ``<frozen importlib._bootstrap>``, and 'pkg.mod:attr' whose module
exists but imports a missing one said to check the module path."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import UsingResolutionError
from noesis_nb.runtime.resolve import resolve_using

MISSING = "import os\nimport not_installed_zq.sub  # an SDK the user has not installed\n\ndef agent(task, ctx):\n    return 1\n"


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on sys.path holding agents that fail to import, as files, a package and a module."""
    folder = tmp_path / "agents_zq"
    (folder / "pkg").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "bad_import.py").write_text(MISSING)
    (folder / "pkg" / "__init__.py").write_text(MISSING)
    (folder / "bad_syntax.py").write_text("x = 1\n\ndef agent(task, ctx)\n    return 1\n")
    (folder / "bad_name.py").write_text("\nfrom os import no_such_name_zq\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return folder


def refused(using: str) -> str:
    with pytest.raises(UsingResolutionError) as caught:
        resolve_using(using)
    return str(caught.value)


@pytest.mark.parametrize(
    ("using", "where"),
    [("bad_import.py", "bad_import.py:2"), ("pkg", "__init__.py:2"), ("agents_zq.bad_import:agent", "bad_import.py:2")],
)
def test_a_missing_import_names_the_file_line_module_and_fix(agents: Path, using: str, where: str) -> None:
    using = str(agents / using) if not using.startswith("agents_zq.") else using
    message = refused(using)
    assert f"stopped at {where}: module 'not_installed_zq' is not installed" in message, message
    assert "pip install 'not_installed_zq'" in message and "or fix the import" in message
    assert "check the module path" not in message and "\n" not in message


def test_a_syntax_error_is_placed_in_the_users_file(agents: Path) -> None:
    message = refused(str(agents / "bad_syntax.py"))
    assert "raised SyntaxError: expected ':' at bad_syntax.py:3" in message, message
    assert "frozen" not in message


def test_an_import_of_a_missing_name_says_the_import(agents: Path) -> None:
    message = refused(str(agents / "bad_name.py"))
    assert "stopped at bad_name.py:2: ImportError: cannot import name 'no_such_name_zq'" in message, message
    assert "fix that import" in message


def test_a_module_path_that_is_wrong_still_says_so(agents: Path) -> None:
    assert "check the module path" in refused("agents_zq.no_such_module_zq:agent")
    assert "check the module path" in refused("no_such_package_zq.mod:agent")


def test_noesis_run_says_it_in_one_line(ip: Any, agents: Path, tmp_path: Path) -> None:
    """A UsageError is the one line IPython prints for a magic (any other exception is printed as a traceback)."""

    async def main() -> None:
        ip.run_line_magic("noesis", f"run {agents / 'bad_import.py'} 'a task' --runs-dir {tmp_path / 'runs'}")

    with pytest.raises(UsageError) as caught:
        asyncio.run(main())
    said = str(caught.value)
    assert "bad_import.py:2: module 'not_installed_zq' is not installed" in said and "\n" not in said, said


def test_start_refuses_before_anything_runs(agents: Path, tmp_path: Path) -> None:
    async def main() -> None:
        noesis_nb.start("a task", using=str(agents / "bad_import.py"), runs_dir=tmp_path / "runs")

    with pytest.raises(UsingResolutionError, match="bad_import.py:2: module 'not_installed_zq' is not installed"):
        asyncio.run(main())
