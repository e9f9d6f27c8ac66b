"""A path with a space, typed without quotes, splits in two: the error says to quote it and shows it quoted.

``%noesis show /tmp/my runs/ep_x`` takes ``/tmp/my`` as the episode and ``runs/ep_x`` as a word too many. The
error used to say "give episode before the options" (there were none) or, after ``--runs-dir``, to put the
second half after ``--runs-dir``: neither is the fix. Two ids (``show ep_a ep_b``) are not a path cut in two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

from noesis_nb._safetext import magic_word


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("show DIR/my runs/ep_x", '(a path that holds spaces is one argument: put it in quotes: "DIR/my runs/ep_x")'),
        ("show DIR/a b c --text", '(a path that holds spaces is one argument: put it in quotes: "DIR/a b c")'),
        ("list --runs-dir DIR/my runs", '(a path that holds spaces is one argument: put it in quotes: "DIR/my runs")'),
        ("inbox --runs-dir DIR/my runs", '(a path that holds spaces is one argument: put it in quotes: "DIR/my runs")'),
        ("list --runs-dir=DIR/my runs", '(a path that holds spaces is one argument: put it in quotes: "DIR/my runs")'),
        ("runs-dir DIR/my runs", '(a path that holds spaces is one argument: put it in quotes: "DIR/my runs")'),
        ("stop DIR/my run", '(a path that holds spaces is one argument: put it in quotes: "DIR/my run")'),
        ("approve DIR/my runs/ep_x draft_1 x", "(a path that holds spaces is one argument: put it in quotes)"),
        ("show ep_a ep_b", "(%noesis show takes episode: one value each)"),
    ],
)
def test_a_path_split_at_a_space_is_named_quoted(ip: Any, tmp_path: Path, line: str, hint: str) -> None:
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", line.replace("DIR", str(tmp_path)))
    first = str(info.value).splitlines()[0]
    assert first.endswith(hint.replace("DIR", str(tmp_path))), first
    assert "before the options" not in first and "goes after --runs-dir" not in first
    assert list(tmp_path.iterdir()) == []  # nothing was made or run


@pytest.mark.parametrize("folder", ["my runs", "runs_{1}", "runs_$x"])
def test_the_runs_dir_hint_is_a_line_that_works_as_typed(ip: Any, tmp_path: Path, folder: str) -> None:
    """``%noesis list "<folder>"`` is told to put the folder after --runs-dir: the line it shows, typed as shown,
    lists that folder (quoted when it holds a space, ``{…}`` and ``$name`` doubled as the magic reads them)."""
    runs = tmp_path / folder
    runs.mkdir()
    ip.user_ns["x"] = "elsewhere"
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", f"list {magic_word(str(runs))}")
    shown = str(info.value).splitlines()[0].split("(a runs folder goes after --runs-dir: ", 1)[1].removesuffix(")")
    table = ip.run_line_magic("noesis", shown.removeprefix("%noesis "))
    assert table.where == str(runs) or str(runs) in repr(table), (shown, repr(table)[:200])
