"""The rates file is this user's alone, as the runs index is: 0600 in a 0700 folder (``_cachedir.write_cached``)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from noesis_nb import _genai_rates as genai

from .test_rates_file import _price, root  # noqa: F401  (``root`` is a fixture)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_rates_file_and_its_folder_are_private(root: Path, tmp_path: Path):  # noqa: F811
    cache = tmp_path / "cache"
    _price(root, cache)
    rates = cache / genai.rates_cache_path().name
    assert stat.S_IMODE(rates.stat().st_mode) == 0o600, oct(rates.stat().st_mode)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700, oct(cache.stat().st_mode)
