"""``validate_checkpoint`` reads the files it binds as run files: a FIFO, a device behind a symlink or a huge
file planted as ``state.json`` after the run was opened is one ``CheckpointConsistencyError`` naming it,
never a read that blocks forever or takes the process's memory."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import CheckpointConsistencyError
from noesis_nb.runtime.recorder import Recorder
from noesis_nb.runtime.resume import find_checkpoint, validate_checkpoint
from noesis_nb.store.runfiles import MAX_DOCUMENT_BYTES

from .agents import make_writer


def _raised_unblocked(call: Callable[[], object], fifo: Path, what: str) -> BaseException | None:
    """What ``call()`` raised (None: nothing), run in a thread; fails the test when it blocks on ``fifo``
    (the FIFO is then opened for writing, so the reader gets its end and the thread finishes)."""
    got: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            got.append(None)
        except BaseException as exc:  # reported to the caller
            got.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        with open(fifo, "wb"):
            pass
        worker.join(5)
        pytest.fail(f"{what} blocked reading {fifo.name}")
    return got[0] if got else None


def _plant_fifo(path: Path) -> None:
    os.mkfifo(path)


def _plant_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _plant_huge(path: Path) -> None:
    with open(path, "wb") as fh:  # sparse: claims more than a run document is read at, holds nothing
        fh.truncate(MAX_DOCUMENT_BYTES + 1)


def _plant_link_out(path: Path) -> None:
    outside = path.parent.parent.parent / "elsewhere.json"
    outside.write_text(path.with_name("state.json.kept").read_text())
    path.symlink_to(outside)


@pytest.mark.parametrize(
    ("plant", "said"),
    [
        (_plant_fifo, "a FIFO"),
        (_plant_dev_zero, "state.json cannot be read"),
        (_plant_huge, "more than a run document is read at"),
        (_plant_link_out, "state.json cannot be read"),
    ],
    ids=["fifo", "symlink-to-dev-zero", "huge-sparse", "symlink-out-of-the-run"],
)
def test_a_special_state_file_is_one_clear_error_not_a_hang(runs_dir: Path, tmp_path: Path, plant, said: str) -> None:
    ns.set(runs_dir=str(runs_dir))
    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"))  # pauses on its tool draft
    record = ns.events.read(ep)[-1]["payload"]  # the run.checkpoint of its pause
    rec = Recorder.reopen(runs_dir / ep)
    try:
        checkpoint = find_checkpoint(rec, record["checkpoint_id"])
        state = runs_dir / ep / "state.json"
        state.rename(state.with_name("state.json.kept"))
        plant(state)  # after the run was opened (its own read of state.json passed): the file changed meanwhile
        raised = _raised_unblocked(lambda: validate_checkpoint(rec, checkpoint), state, "validate_checkpoint")
        assert isinstance(raised, CheckpointConsistencyError), raised
        message = str(raised)
        assert f"checkpoint {record['checkpoint_id']} of run" in message and "state.json" in message, message
        assert said in message and "restore the changed file" in message, message
    finally:
        rec.close_without_sealing()


def test_the_state_hash_a_checkpoint_binds_refuses_a_fifo_instead_of_blocking(runs_dir: Path, tmp_path: Path) -> None:
    from noesis_nb.store.runfiles import UnreadableRunFile

    ns.set(runs_dir=str(runs_dir))
    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"))
    rec = Recorder.reopen(runs_dir / ep)
    try:
        state = runs_dir / ep / "state.json"
        state.unlink()
        os.mkfifo(state)
        raised = _raised_unblocked(rec.state_hash, state, "state_hash")
        assert isinstance(raised, UnreadableRunFile) and "a FIFO (named pipe), not a file" in str(raised), raised
    finally:
        rec.close_without_sealing()
