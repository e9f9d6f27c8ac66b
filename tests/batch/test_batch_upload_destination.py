"""An ``upload_to`` whose file system cannot be used here is refused by ``batch(…)`` before anything runs or is
written: without fsspec, or without the package of its protocol, one ``MissingExtraError`` with the install
line; a protocol fsspec does not know, one ``InvalidOptionError``. (Every episode ran, and every copy then
failed with a bare ``ImportError`` named in its entry.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, MissingExtraError


def agent(task, ctx):
    return task


def _refused(tmp_path: Path, url: str, error: type[Exception], match: str) -> None:
    root = tmp_path / "runs"
    with pytest.raises(error, match=match):
        noesis_nb.batch(["one"], using=agent, root=root, batch_id="b1", upload_to=url)
    assert not root.exists() or not any(root.rglob("*")), "nothing is written"


def test_without_fsspec_the_batch_is_refused_naming_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)
    _refused(tmp_path, "s3://bucket/runs", MissingExtraError, r"needs fsspec.*pip install 'noesis_nb\[s3\]'")


def test_a_protocol_whose_package_is_missing_is_named_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gcsfs", None)  # as where it is not installed
    _refused(tmp_path, "gs://bucket/runs", MissingExtraError, r"gs:// file system, which is not installed.*gcsfs")


def test_a_protocol_fsspec_does_not_know_is_named(tmp_path: Path) -> None:
    _refused(tmp_path, "s4://bucket/runs", InvalidOptionError, r"fsspec knows no 's4' file system")


def test_upload_to_naming_the_runs_root_or_a_run_in_it_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """A copy to ``<runs root>/<episode id>`` is the run itself: each file was truncated and written over itself (a
    kill mid-way left the sealed run damaged), and a folder inside a run got files its manifest does not list."""
    import asyncio

    root = tmp_path / "runs"
    root.mkdir()
    made = asyncio.run(_one_batch(root, None))
    run = root / made
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    for url in (f"file://{root}", f"file://{root}/", f"file://{root}/../runs", f"file://{run}", f"file://{run}/copies"):
        with pytest.raises(InvalidOptionError, match="upload_to=.*(the runs root|a run folder)"):
            asyncio.run(_one_batch(root, url, batch_id="b2"))
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    assert not (root / "batches" / "b2.json").exists()
    for inside in (f"file://{root}/exports", f"file://{root}/exports/deeper"):  # copies would be listed as runs again
        with pytest.raises(InvalidOptionError, match="inside the runs root"):
            asyncio.run(_one_batch(root, inside, batch_id="b3"))
    assert not (root / "exports").exists() and not (root / "batches" / "b3.json").exists()
    assert [r["episode_id"] for r in noesis_nb.list_runs(runs_dir=root)] == [made]


def test_upload_run_onto_the_run_itself_is_refused_and_leaves_it_whole(tmp_path: Path) -> None:
    import asyncio

    from noesis_nb.batch.upload import upload_run
    from noesis_nb.store.artifacts import verify_manifest

    root = tmp_path / "runs"
    root.mkdir()
    run = root / asyncio.run(_one_batch(root, None))
    stamps = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    for url, said in ((f"file://{root}", "onto itself"), (f"file://{run}", "is a run folder")):
        with pytest.raises(InvalidOptionError, match=said):
            upload_run(run, url)
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == stamps and verify_manifest(run).ok


async def _one_batch(root: Path, url: str | None, batch_id: str = "b1") -> str:
    done = await noesis_nb.batch(["one"], using=agent, root=root, batch_id=batch_id, upload_to=url).wait()
    (entry,) = done.entries
    assert entry.status == "ok" and entry.error is None, entry
    return str(entry.episode_id)


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def test_upload_run_into_another_sealed_run_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    """A copy of run A into run B (B itself, a folder in it, a folder a link in B leads to) was written into sealed B,
    files its manifest does not list; each is refused, B and A as they were."""
    import asyncio

    from noesis_nb.batch.upload import upload_run
    from noesis_nb.store.artifacts import verify_manifest

    root = tmp_path / "runs"
    root.mkdir()
    a = root / asyncio.run(_one_batch(root, None))
    b = root / asyncio.run(_one_batch(root, None, batch_id="b2"))
    (tmp_path / "link").symlink_to(b)
    before_a, before_b = _files(a), _files(b)
    for url in (f"file://{b}", f"file://{b}/copies", f"file://{b}/copies/deeper/", f"file://{tmp_path}/link/x", f"local://{b}"):
        with pytest.raises(InvalidOptionError, match=r"upload_to=.*a run folder.*file:///srv/run-copies"):
            upload_run(a, url)
    assert _files(b) == before_b and _files(a) == before_a and verify_manifest(b).ok
    assert upload_run(a, f"file://{tmp_path}/copies").endswith(a.name)  # a folder of no run takes the copy
    assert verify_manifest(tmp_path / "copies" / a.name).ok
    upload_run(a, f"file://{tmp_path}/copies")  # the copy made before, itself a run's folder, is written again


def test_batch_upload_to_inside_a_run_of_another_root_is_refused_before_anything_runs(tmp_path: Path) -> None:
    import asyncio

    other = tmp_path / "other"
    other.mkdir()
    sealed = other / asyncio.run(_one_batch(other, None))
    before = _files(sealed)
    root = tmp_path / "runs"
    for url in (f"file://{sealed}", f"file://{sealed}/copies"):
        with pytest.raises(InvalidOptionError, match=r"upload_to=.*a run folder"):
            noesis_nb.batch(["one"], using=agent, root=root, batch_id="b9", upload_to=url)
    assert _files(sealed) == before
    assert not root.exists() or not any(root.rglob("*")), "nothing is written"


def test_a_project_folder_holding_a_stray_state_file_still_takes_copies(tmp_path: Path) -> None:
    """Only a run's own folder above counts (its log, seal or manifest): a project folder with a ``state.json`` of
    its own is no run, and copies in a folder below it are made."""
    import asyncio

    from noesis_nb.batch.upload import upload_run
    from noesis_nb.store.artifacts import verify_manifest

    root = tmp_path / "runs"
    root.mkdir()
    run = root / asyncio.run(_one_batch(root, None))
    project = tmp_path / "project"
    project.mkdir()
    (project / "state.json").write_text('{"lr": 0.1}')
    made = upload_run(run, f"file://{project}/copies")
    assert made.endswith(run.name) and verify_manifest(project / "copies" / run.name).ok
    with pytest.raises(InvalidOptionError, match="is a run folder"):  # the folder itself is listed as a run
        upload_run(run, f"file://{project}")
