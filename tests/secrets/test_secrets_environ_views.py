"""Views hide the secrets the reading process's environment holds, in runs a process without them wrote and sealed
(read as they are, screened as written, so never screened for these): ``shown``, ``runs_df`` and ``events_df`` hide
them, also when the variable is set after import (as ``load_dotenv()`` does) and the frames were loaded before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from noesis_nb.secrets.environ import names_secret

_REPO = Path(__file__).resolve().parents[2]
_VALUE = "Sunset!Harbor2024xyz"
_WRITER = r"""
import sys, noesis_nb
noesis_nb.solve("connect with " + sys.argv[2] + " please", using=lambda task, ctx: "ok", runs_dir=sys.argv[1])
"""
_READER = r"""
import json, os, sys, warnings
warnings.simplefilter("ignore")
import noesis_nb
from noesis_nb.secrets import shown

root, value, late = sys.argv[1], sys.argv[2], sys.argv[3] == "late"

def views():
    return {
        "shown": shown("pw is " + value),
        "task": str(noesis_nb.runs_df(root)["task"].iloc[0]),
        "payloads": json.dumps(list(noesis_nb.events_df(root)["payload"]), default=str),
    }

if late:
    views()  # loaded (and kept) before the variable is set
    os.environ["DB_PASSWORD"] = value
print(json.dumps(views()))
"""


def _run(code: str, env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_run_written_without_the_variable_is_shown_without_its_value(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if not names_secret(k)}
    base["PYTHONPATH"] = str(_REPO)
    root = tmp_path / "runs"
    _run(_WRITER, dict(base, NOESIS_NB_CACHE_DIR=str(tmp_path / "c0")), str(root), _VALUE)
    files = [p for p in root.rglob("*") if p.is_file()]
    assert any(_VALUE in p.read_text("utf-8", "replace") for p in files)  # on disk in clear: nothing named it secret
    for label, env in [
        ("held from the start", dict(base, DB_PASSWORD=_VALUE, NOESIS_NB_CACHE_DIR=str(tmp_path / "c1"))),
        ("set after import", dict(base, NOESIS_NB_CACHE_DIR=str(tmp_path / "c2"))),
    ]:
        late = "late" if "DB_PASSWORD" not in env else "start"
        views = json.loads(_run(_READER, env, str(root), _VALUE, late).strip().splitlines()[-1])
        assert views["task"].startswith("connect with "), (label, views)
        for name, text in views.items():
            assert _VALUE not in text, (label, name, text)
