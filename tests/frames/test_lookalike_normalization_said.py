"""Two run folders whose names differ only in Unicode normalization (NFC ``ep_café``, NFD ``ep_cafe`` + U+0301) read as
one id: the look-alike left out is said with both names escaped and the normalization difference named, so a reader
can tell which folder to rename (printed plainly, the two names look the same)."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest

import noesis_nb

from .runkit import llm_adapter

COMPOSED = unicodedata.normalize("NFC", "ep_caf\u00e9")
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("nfd") / "runs"
    ep = noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=root)
    return root, ep


@pytest.mark.parametrize("names", [(COMPOSED, DECOMPOSED), (DECOMPOSED, COMPOSED)])
def test_a_normalization_twin_is_said_escaped_with_the_difference(
    genuine: tuple[Path, str], tmp_path: Path, names: tuple[str, str]
) -> None:
    src, ep = genuine
    root = tmp_path / "runs"
    for name in names:
        shutil.copytree(src / ep, root / name)
    runs = noesis_nb.runs_df(root, cache=False)
    assert len(runs) == 1
    said = [e for e in runs.attrs["errors"] if "left out" in e["reason"]]
    assert len(said) == 1, runs.attrs["errors"]
    reason = said[0]["reason"]
    left_out = Path(said[0]["path"]).name
    assert left_out in names
    written = left_out.encode("ascii", "backslashreplace").decode()  # 'ep_cafe\u0301' or 'ep_caf\xe9'
    assert written.replace("\\xe9", "\\u00e9") in reason, reason
    assert "ep_cafe\\u0301" in reason and "ep_caf\\u00e9" in reason, reason
    assert "Unicode normalization" in reason and "NFD" in reason and "NFC" in reason
    assert "U+0301 COMBINING ACUTE ACCENT" in reason
