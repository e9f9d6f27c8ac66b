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
