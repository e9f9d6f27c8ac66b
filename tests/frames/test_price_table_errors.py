"""Every complaint about ``prices=`` is one noesis_nb error: one line in a cell, naming the value and the fix.

``usage_df(prices={"gpt-4o": {"inputs": 2.0, …}})`` (a typo), a missing file or a malformed table raised a bare
``ValueError`` / ``FileNotFoundError``: the message was right, but a cell showed it as a traceback through
``cost.py``, where every other wrong option is the one ``Type: message`` line. The old types still catch them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError

ROW = {"input": 2.0, "output": 8.0}


@pytest.mark.parametrize(
    ("prices", "kind", "says"),
    [
        ({"gpt-4o": {"inputs": 2.0, "output": 8.0}}, ValueError, "did you mean 'input'"),
        ({"gpt-4o": {"output": 8.0}}, ValueError, "lacks ['input']"),
        ({"gpt-4o": {"input": "cheap", "output": 8.0}}, ValueError, "is not a price"),
        ({"gpt-4o": 2.0}, ValueError, "must be a mapping"),
    ],
    ids=["typo", "missing", "not-a-number", "not-a-mapping"],
)
def test_a_wrong_price_dict(runs_dir: Path, prices, kind, says):
    noesis_nb.solve("t", using=lambda task: 1, runs_dir=runs_dir)
    with pytest.raises(kind) as caught:
        noesis_nb.usage_df(runs_dir, prices=prices)
    assert isinstance(caught.value, NoesisNbError), type(caught.value).__mro__
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("name", "content", "kind", "says"),
    [
        ("missing.yaml", None, FileNotFoundError, "does not exist"),
        ("latin1.yaml", b"gpt-4o: {input: 2, output: 8}  # \xe9t\xe9\n", ValueError, "not UTF-8"),
        ("no-header.csv", b"gpt-4o,2,8\n", ValueError, "needs a header"),
        ("broken.yaml", b"gpt-4o: {input: 2\n", ValueError, "not YAML"),
        ("list.yaml", b"- gpt-4o\n", ValueError, "expected a mapping"),
    ],
)
def test_a_wrong_price_file(runs_dir: Path, tmp_path: Path, name, content, kind, says):
    noesis_nb.solve("t", using=lambda task: 1, runs_dir=runs_dir)
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(kind) as caught:
        noesis_nb.usage_df(runs_dir, prices=path)
    assert isinstance(caught.value, NoesisNbError), type(caught.value).__mro__
    assert says in str(caught.value)
