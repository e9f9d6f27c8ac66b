"""``%noesis run write_note "$undefined_var"`` ran with the literal text ``$undefined_var`` and said nothing: IPython's
rule (a name it cannot find is left as written) is kept, and the magic now says which name was not defined. And
``%noesis run --help`` listed ``--seed SEED`` with no word of what it does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from IPython.utils.capture import capture_output


def test_an_undefined_name_in_an_argument_is_named_and_the_text_kept(ip: Any, tmp_path: Path) -> None:
    ip.user_ns["write_note"] = lambda task: f"noted: {task}"
    ip.user_ns["defined_var"] = "the release notes"

    async def main() -> tuple[Any, Any, str, str]:
        with capture_output() as said:
            first = ip.run_line_magic("noesis", f'run write_note "$undefined_var" --runs-dir {tmp_path}')
            await first.wait()
        with capture_output() as quiet:
            second = ip.run_line_magic("noesis", f'run write_note "$defined_var" --runs-dir {tmp_path}')
            await second.wait()
        return first, second, said.stderr, quiet.stderr

    first, second, said, quiet = asyncio.run(main())
    assert "$undefined_var is not defined" in said and "'$undefined_var' is used as written" in said, said
    assert json.loads((first.run_dir / "state.json").read_text())["goal"]["task"] == "$undefined_var"  # IPython's rule
    assert json.loads((second.run_dir / "state.json").read_text())["goal"]["task"] == "the release notes"
    assert "not defined" not in quiet


def test_run_help_says_what_the_seed_is(ip: Any, capsys: Any) -> None:
    ip.run_line_magic("noesis", "run --help")
    out = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED a whole number recorded with the run and given to the adapter as ctx.seed" in out, out


def test_a_failed_brace_expansion_says_what_failed_and_the_brace_fix(ip: Any) -> None:
    # IPython expands {expr} as well as $name: a failed {…} named a '$' that was not typed, and the $$ fix
    ip.user_ns["x"] = 1
    said = {}
    for word in ["fill in {name}", "a JSON {", "total {x.y}", "cost ${price}"]:
        with capture_output() as out:
            assert ip.magics_manager.registry["NoesisMagics"]._expand(word) == word
        said[word] = out.stderr
    assert "name in {…} is not defined" in said["fill in {name}"] and "$" not in said["fill in {name}"]
    assert "{{ and }}" in said["fill in {name}"] and "$$" not in said["fill in {name}"]
    assert "a lone brace" in said["a JSON {"] and "{{ and }}" in said["a JSON {"]
    assert "has no attribute 'y'" in said["total {x.y}"] and "{{ and }}" in said["total {x.y}"]
    assert "$price is not defined" in said["cost ${price}"] and "$$" in said["cost ${price}"]
