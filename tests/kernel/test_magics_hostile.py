"""Hostile ``%noesis`` lines through IPython's test shell: each is one clear line, never a traceback or a silent change."""

from __future__ import annotations

import asyncio
import random
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

from noesis_nb._argsplit import split_line


def echo(task: str) -> str:
    return task[:20]


def test_the_line_splits_as_shlex_does() -> None:
    rng = random.Random(7)
    alphabet = ["a", " ", "\t", "\n", '"', "'", "\\", "-", "=", "\x00", "\u202e", "é", "$"]
    for _ in range(20000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        try:
            want: Any = shlex.split(line)
        except ValueError as exc:
            want = str(exc)
        try:
            got: Any = split_line(line)
        except ValueError as exc:
            got = str(exc)
        assert got == want, line


def _calls_to_start(ip: Any, runs_dir: Path, task: str) -> int:
    """How many Python and builtin calls ``%noesis run`` makes before it returns (the kernel's own time), and
    that the run it started ends ok."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    async def main() -> Any:
        sys.setprofile(count)
        try:
            handle = ip.run_line_magic("noesis", f'run echo "{task}" --runs-dir {runs_dir}')
        finally:
            sys.setprofile(None)
        return await handle

    assert asyncio.run(main()).status == "ok"
    return calls


def test_a_task_of_a_megabyte_costs_the_kernel_no_work_per_character(
    ip: Any, runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsing the line and screening the task for secrets read a megabyte-long word at C speed: the magic
    makes as many calls for it as for a word of a kilobyte (``shlex`` once froze the kernel for close to a
    minute, and the randomness rule read such a word character by character, eight calls each).

    The values earlier tests' runs taught this process are set aside: with a few thousand of them a 1 MB text
    compiles them once (``len(values) * len(text) > SEARCHED``), work per value learned, not per character,
    which made the count depend on which tests ran before."""
    from noesis_nb.secrets import guard
    from noesis_nb.secrets.known import Known

    monkeypatch.setattr(guard, "_REGISTRY", type(guard._REGISTRY)())
    monkeypatch.setattr(guard, "_UNION", (guard._VERSION, ()))
    monkeypatch.setattr(guard, "_LAST", ((), Known()))
    ip.user_ns.update(echo=echo)
    _calls_to_start(ip, runs_dir, "warm")  # first imports and caches
    small, large = (_calls_to_start(ip, runs_dir, "x" * size) for size in (1 << 10, 1 << 20))
    assert large < 2 * small, f"a 1 MB task took {large:,} calls to start, a 1 KB one {small:,}"


def test_an_unclosed_quote_in_a_long_line_is_named_short(ip: Any) -> None:
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", 'run echo "' + "y" * 100_000)
    message = str(caught.value)
    assert "No closing quotation" in message and "100010 characters" in message and len(message) < 300


@pytest.mark.parametrize(
    "line, option",
    [
        ('run --seed 3 --seed 4 echo "t"', "--seed"),
        ('run echo "t" --runs-dir=a --runs-dir=b', "--runs-dir"),
        ('run echo "t" --run a --runs-dir b', "--runs-dir"),
        ("list --limit 3 --limit=4", "--limit"),
        ("batch tasks echo --concurrency 2 --concurrency 3", "--concurrency"),
    ],
)
def test_an_option_given_twice_is_refused(ip: Any, line: str, option: str) -> None:
    with pytest.raises(UsageError, match=f"{option} is given twice; give it once"):
        ip.run_line_magic("noesis", line)


def test_a_repeatable_option_may_repeat(ip: Any, runs_dir: Path) -> None:
    ip.user_ns.update(echo=echo)

    async def main() -> Any:
        return await ip.run_line_magic("noesis", f'run echo "t" --tag a=1 --tag b=2 --runs-dir {runs_dir}')

    assert asyncio.run(main()).status == "ok"


@pytest.mark.parametrize("form", ["{name}:agent", "{path}"])
def test_a_module_that_raises_on_import_is_one_line(ip: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    name = f"raises_on_import_{abs(hash(form))}"
    path = tmp_path / f"{name}.py"
    path.write_text("def agent(task):\n    return task\n\nraise RuntimeError('no API key set')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    using = form.format(name=name, path=path)

    async def main() -> None:
        for _ in range(2):  # and again: the half-imported module is not kept
            with pytest.raises(UsageError, match=rf"raised RuntimeError: no API key set at {name}\.py:4; fix the module"):
                ip.run_line_magic("noesis", f'run {using} "t"')

    asyncio.run(main())
    assert name not in sys.modules


@pytest.mark.parametrize(
    "value",
    ['he said "hi"', "it's", "two  spaces", "a'b\"c"],
)
def test_a_dollar_name_is_one_argument_whatever_it_holds(ip: Any, runs_dir: Path, value: str) -> None:
    ip.user_ns.update(echo=echo, my_task=value, where=str(runs_dir))

    async def main() -> Any:
        result = ip.run_cell('%noesis run echo "$my_task" --runs-dir "$where"')
        assert result.error_in_exec is None, result.error_in_exec
        return await result.result

    handle = asyncio.run(main())
    assert handle.result() == value[:20]


def test_braces_expand_and_a_failed_expansion_is_kept_as_typed(ip: Any, runs_dir: Path) -> None:
    ip.user_ns.update(echo=echo, where=str(runs_dir))

    async def main(cell: str) -> Any:
        result = ip.run_cell(cell)
        assert result.error_in_exec is None, result.error_in_exec
        return (await result.result).result()

    assert asyncio.run(main('%noesis run echo "{1+1}" --runs-dir $where')) == "2"
    assert asyncio.run(main('%noesis run echo "costs $5 {nope}" --runs-dir $where')) == "costs $5 {nope}"


def test_a_part_of_an_id_names_the_runs_it_begins(ip: Any, runs_dir: Path) -> None:
    ip.user_ns.update(echo=echo)

    async def main() -> list[str]:
        return [(await ip.run_line_magic("noesis", f'run echo "t{i}" --runs-dir {runs_dir}')).episode_id for i in range(4)]

    ids = sorted(asyncio.run(main()))
    for command in ("show", "approve", "resume"):
        with pytest.raises(UsageError, match=r"it is the start of 4 run id\(s\): .* and 1 more; pass a whole id") as caught:
            ip.run_line_magic("noesis", f"{command} ep_ --runs-dir {runs_dir}")
        assert ids[0] in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(UsageError, match=rf"start of 1 run id\(s\): {ids[0]}; pass a whole id"):
        ip.run_line_magic("noesis", f"show {ids[0][:-1]} --runs-dir {runs_dir}")


@pytest.mark.parametrize("command", ["show", "approve", "reject", "resume"])
def test_a_runs_dir_that_is_a_file_is_named_as_a_file_not_as_holding_no_run(ip: Any, tmp_path: Path, command: str) -> None:
    given = tmp_path / "runs.txt"
    given.write_text("not a folder of runs")
    draft = " d1" if command in ("approve", "reject") else ""
    line = f"{command} ep_01KAAAAAAAAAAAAAAAAAAAAAAA{draft} --runs-dir {given}"
    with pytest.raises(UsageError, match=r"runs_dir '.*runs\.txt' is a file, not a folder; pass the folder that holds"):
        ip.run_line_magic("noesis", line)
    assert given.read_text() == "not a folder of runs"


def test_a_tag_key_given_twice_is_refused_and_nothing_starts(ip: Any, runs_dir: Path) -> None:
    """``--tag k=v --tag k=w`` kept ``w`` without a word; the value (a token, maybe) is not echoed back."""
    ip.user_ns.update(echo=echo)

    async def main() -> None:
        with pytest.raises(UsageError, match=r"--tag team=… is given twice; give each key once") as caught:
            ip.run_line_magic("noesis", f'run echo "t" --tag team=a --tag other=x --tag team=sk-b --runs-dir {runs_dir}')
        assert "sk-b" not in str(caught.value)

    asyncio.run(main())
    assert list(runs_dir.iterdir()) == []


async def _waits(task: str, ctx: Any) -> str:
    await ctx.tool_async("sh.sleep", {"argv": [sys.executable, "-c", "import time; time.sleep(30)"]}, effect="read")
    return task


@pytest.mark.parametrize("drain", ["nan", "inf", "-1"])
def test_a_drain_that_is_no_finite_number_of_seconds_is_refused_and_the_episode_runs_on(
    ip: Any, runs_dir: Path, drain: str
) -> None:
    """``--drain nan`` (or inf) let running calls run however long and recorded ``drain_s`` as null."""
    ip.user_ns.update(waits=_waits)

    async def main() -> Any:
        handle = ip.run_line_magic("noesis", f'run waits "t" --approver auto --runs-dir {runs_dir}')
        while not handle.events or not any(e.get("phase") == "tool" for e in handle.events):
            await asyncio.sleep(0.02)
        with pytest.raises(UsageError, match=f"drain_s={drain}.*a finite number ≥ 0"):
            ip.run_line_magic("noesis", f"stop {handle.episode_id} --drain {drain}")
        assert handle.status == "running" and not handle.draining
        handle.cancel()
        return await handle

    assert asyncio.run(main()).status == "cancelled"
