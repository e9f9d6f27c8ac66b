"""The README's API example runs as written (its top-level awaits inside a coroutine, as in a notebook cell)."""

import asyncio
import re
import textwrap
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_api_at_a_glance_example_runs(runs_dir, monkeypatch):
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(runs_dir))
    section = README.split("## The API at a glance", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    body, last = code.rstrip().rsplit("\n", 1)
    source = "async def main():\n" + textwrap.indent(f"{body}\nreturn {last.split('#')[0].strip()}\n", "    ")
    scope: dict = {}
    exec(compile(source, "<README>", "exec"), scope)
    status, result = asyncio.run(scope["main"]())
    assert (status, result) == ("ok", 0)
    assert (Path.cwd() / "note.md").read_text() == "hi"
    assert len(list(runs_dir.iterdir())) == 1
