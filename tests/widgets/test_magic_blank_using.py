"""``%noesis run "" "<task>"``: a blank agent is named as blank, not as a missing ``__init__.py`` in the working folder."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError


@pytest.mark.parametrize("using", ['""', "' '", "."])
def test_run_with_a_blank_or_folder_agent_names_it(ip: Any, runs_dir: Path, using: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(runs_dir.parent)

    async def main() -> None:
        ip.run_line_magic("noesis", f'run {using} "write the notes" --runs-dir {runs_dir}')

    with pytest.raises(UsageError) as caught:
        asyncio.run(main())
    message = str(caught.value)
    assert message.startswith("%noesis run: using=")
    assert ("is blank" in message) if using != "." else ("is a folder with no __init__.py" in message)
    assert "fix the module" not in message
    assert list(runs_dir.iterdir()) == []  # nothing was started
