"""Re-execute the notebooks in place so their committed outputs are current.

Runs each notebook top to bottom with nbclient (approvals by the ``auto`` policy, as in CI),
then removes saved widget state so GitHub and nbviewer show the ``text/html`` snapshots, and
writes this machine's interpreter path as ``python`` in the saved outputs (tool command lines
show it); tools are asked for by principal ``user:notebook``, so no local account is named.
Usage: python scripts/execute_notebooks.py [notebooks/quickstart.ipynb ...]
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    os.environ["NOESIS_NB_APPROVER"] = "auto"
    os.environ["NOESIS_NB_PRINCIPAL"] = "user:notebook"  # saved outputs name no local account
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}, store_widget_state=False
    )
    client.execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            _generic_paths(output)
    nbformat.write(nb, path)
    print(f"{path.relative_to(ROOT)}: {len(nb.cells)} cells, {path.stat().st_size // 1024} KiB")


_CUT = re.compile("|".join(re.escape(sys.executable[:n]) + "(?=…)" for n in range(len(sys.executable) - 1, 5, -1)))


def _generic_paths(node: object) -> None:
    """Replace the interpreter path by ``python`` in every string of an output, in place (also where a view cut it
    short with ``…``), so no machine path is saved."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(items):
        if isinstance(value, str):
            node[key] = _CUT.sub("python", value.replace(sys.executable, "python"))  # type: ignore[index]
        else:
            _generic_paths(value)


def main(argv: list[str]) -> None:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
