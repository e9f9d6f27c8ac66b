"""The tours' saved results read as a newcomer expects: a table shows as a table.

A DataFrame returned inside a tuple is printed as text, its columns wrapped with a trailing backslash
(pandas' mark for "continued below"), which reads as noise in JupyterLab, on GitHub and in nbviewer.
"""

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
WRAPPED = re.compile(r" \\$", re.M)  # pandas' text repr wraps wide frames with a trailing " \"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_saved_table_is_wrapped_text(path):
    nb = nbformat.read(path, as_version=4)
    results = [(n, o["data"]) for n, c in enumerate(nb.cells) if c.cell_type == "code" for o in c.outputs if "data" in o]
    texts = [(n, "".join(data.get("text/plain", ""))) for n, data in results if "text/html" not in data]
    wrapped = [(n, text[:80]) for n, text in texts if WRAPPED.search(text)]
    assert wrapped == [], "return the DataFrame alone as the cell's value (print the rest) so it shows as a table"
