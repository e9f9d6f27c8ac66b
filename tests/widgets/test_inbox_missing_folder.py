"""An inbox over a folder that does not exist says so wherever it speaks: ``%noesis inbox --runs-dir /srv/rusn`` (a
reviewer's typo) printed "nothing waiting, 0 decided here", read as all done, while ``runs_df``, ``show`` and
``approve_draft`` refuse the same path. The inbox stays usable (it is live: runs written there later appear), so it
names the folder rather than raising."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import noesis_nb


def test_a_mistyped_folder_is_named_in_the_line_and_the_view(tmp_path: Path, nnb: Any, comm_log: list, capsys: Any) -> None:
    typo = tmp_path / "rusn"
    view = noesis_nb.inbox(typo)
    printed = capsys.readouterr().out + view.text_summary()
    assert "rusn" in printed and "does not exist" in printed
    assert "does not exist" in view.header.value


def test_the_magic_names_it_too(ip: Any, tmp_path: Path, nnb: Any, comm_log: list, capsys: Any) -> None:
    view = ip.run_line_magic("noesis", f"inbox --runs-dir {tmp_path / 'rusn'}")
    assert "does not exist" in view.text_summary() + capsys.readouterr().out


def test_the_words_go_once_runs_are_written_there(tmp_path: Path, nnb: Any, comm_log: list) -> None:
    later = tmp_path / "later"
    view = noesis_nb.inbox(later)
    assert "does not exist" in view.text_summary()
    noesis_nb.solve("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x")), runs_dir=later)
    view.scan.poll()
    assert "does not exist" not in view.text_summary()


def test_a_root_made_a_file_is_not_said_to_be_missing(tmp_path: Path, nnb: Any, comm_log: list) -> None:
    root = tmp_path / "runs"
    view = noesis_nb.inbox(root)
    root.write_text("not a folder")
    assert "is not a folder" in view.text_summary() and "does not exist" not in view.text_summary()
