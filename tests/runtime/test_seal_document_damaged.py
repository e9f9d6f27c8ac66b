"""A run whose ``final.json`` or ``manifest.json`` is a regular file holding no JSON object (cut short, emptied,
garbled) cannot tell whether it ended: approve_draft and resume_run both refuse it with the same SealDocumentError
naming the damaged document and the fix, and write nothing (before, approve_draft called the run sealed and
resume_run asked for approve_draft first, a loop; or resume_run returned as if it had done its work). The fix said,
done, works: the document moved out, the run decides, resumes and seals whole."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import verify_manifest
from noesis_nb.store.sealing import SealDocumentError

from .agents import paused_on_disk

_DAMAGE = {"cut_short": b'{"schema_version": "man', "empty": b"", "not_an_object": b"[1, 2]"}


def _files(run: Path) -> dict[str, bytes]:
    return {p.relative_to(run).as_posix(): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
@pytest.mark.parametrize("document", ["final.json", "manifest.json"])
def test_a_damaged_seal_document_is_one_refusal_with_its_fix(tmp_path: Path, document: str, damage: str) -> None:
    out = tmp_path / "out.txt"
    run, _ = paused_on_disk(tmp_path / "runs", out)
    (run / document).write_bytes(_DAMAGE[damage])
    before = _files(run)

    said = []
    for call in (
        lambda: noesis_nb.approve_draft(run, approver_id="ana"),
        lambda: noesis_nb.resume_run(run),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a call that returns with a warning instead of refusing fails here
            with pytest.raises(SealDocumentError) as caught:
                call()
        said.append(str(caught.value))
    assert said[0] == said[1]  # the same error from both: no loop of contradictory advice
    assert str(run / document) in said[0] and "no JSON object" in said[0]
    assert f"Move {run / document} out of the run folder" in said[0]
    assert _files(run) == before and not out.exists()

    shutil.move(str(run / document), str(tmp_path / document))  # the fix it names
    noesis_nb.approve_draft(run, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert out.read_text() == "one\n"
    assert (run / "final.json").is_file() and verify_manifest(run).ok


def test_a_sealed_run_with_its_manifest_cut_short_is_sealed_again_once_it_is_moved_out(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / noesis_nb.solve("t", using=lambda task, ctx: "done", runs_dir=root)
    final = (run / "final.json").read_bytes()
    (run / "manifest.json").write_bytes((run / "manifest.json").read_bytes()[:40])

    with pytest.raises(SealDocumentError) as caught:
        noesis_nb.resume_run(run)
    assert str(run / "manifest.json") in str(caught.value)

    (run / "manifest.json").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert (run / "final.json").read_bytes() == final and verify_manifest(run).ok
