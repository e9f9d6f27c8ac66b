"""A Noetic log or harness response named by a path that holds a NUL: ``open`` raised a bare ``ValueError``
("embedded null byte") that named neither the path nor the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.integrations.noetic import NoeticLogError, import_noetic, noetic_rows

EVENT = '{"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1"}}\n'


@pytest.mark.parametrize("given", ["stream\x00.jsonl", Path("logs") / "stream\x00.jsonl"], ids=["str", "Path"])
def test_a_log_path_with_a_nul_is_one_clear_error(runs_dir: Path, given: object) -> None:
    with pytest.raises(NoeticLogError, match=r"Noetic log .*stream\\x00\.jsonl.*: a path has no NUL character; pass the path"):
        import_noetic(given, runs_dir=runs_dir)
    assert not runs_dir.exists() or not list(runs_dir.iterdir())  # no run was made


def test_a_harness_response_path_with_a_nul_is_one_clear_error(tmp_path: Path) -> None:
    log = tmp_path / "stream.jsonl"
    log.write_text(EVENT)
    with pytest.raises(NoeticLogError, match=r"Noetic harness response .*: a path has no NUL character"):
        list(noetic_rows(log, harness_response=str(tmp_path / "harness\x00.json")))
