"""The README's API example runs as written (its top-level awaits inside a coroutine, as in a notebook cell)."""

import asyncio
import re
import textwrap
from pathlib import Path

from tests.documented import documented

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


def test_every_name_the_readme_gives_exists():
    """``noesis_nb.x``, ``plots.x``, ``ns.x``, ``frames.x`` and ``%noesis x`` written in the README (or the docs pages
    it links to) resolve: a newcomer copying one never meets an AttributeError or an unknown subcommand."""
    text = documented()
    import importlib

    import noesis_nb

    modules = {name: importlib.import_module(f"noesis_nb.{name}") for name in ("plots", "ns", "frames")}
    modules["noesis_nb"] = noesis_nb
    missing = []
    for owner, name in set(re.findall(r"(?<![\w./-])(noesis_nb|plots|ns|frames)\.([A-Za-z_][A-Za-z0-9_]*)\b", text)):
        module = modules[owner]
        if not hasattr(module, name) and importlib.util.find_spec(f"{module.__name__}.{name}") is None:
            missing.append(f"{owner}.{name}")
    assert not missing, sorted(missing)
    import argparse

    from noesis_nb.magics import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    commands = set(re.findall(r"%noesis ([a-z][a-z-]*)", text))
    assert commands and commands <= set(sub.choices), sorted(commands - set(sub.choices))
