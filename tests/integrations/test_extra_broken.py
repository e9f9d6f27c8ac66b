"""An integration's package that is installed but cannot be imported (a dependency of it missing) is not said
to be missing itself: the message says it could not be imported and how to reinstall it. And one
``MissingExtraError`` class serves the integrations and the frames: catching ``noesis_nb.errors``' catches both."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from noesis_nb import errors
from noesis_nb.integrations import MissingExtraError, require


def test_one_missing_extra_error_for_every_optional_package() -> None:
    assert MissingExtraError is errors.MissingExtraError


def test_an_installed_package_whose_dependency_is_missing_is_named_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "nnb_broken_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import nnb_dependency_nowhere_to_be_found\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nnb_broken_pkg", raising=False)
    with pytest.raises(errors.MissingExtraError) as told:
        require("nnb_broken_pkg.core", "agui", "AGUIAdapter")
    said = str(told.value)
    assert "is installed but could not be imported" in said and "nnb_dependency_nowhere_to_be_found" in said
    assert "pip install --force-reinstall 'noesis_nb[agui]'" in said and "not installed" not in said


def test_a_package_that_is_not_there_is_named_not_installed() -> None:
    with pytest.raises(errors.MissingExtraError, match=r"not installed .*pip install 'noesis_nb\[noeta\]'"):
        require("nnb_package_nowhere_to_be_found.client", "noeta", "NoetaAdapter")
