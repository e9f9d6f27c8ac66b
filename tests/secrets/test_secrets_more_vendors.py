"""Keys of vendors the detectors did not know are found bare, in prose, after a name and in a real run's files:
Atlassian API tokens (``ATATT3…``), Heroku's (``HRKU-`` then a UUID or ``AA…``: a UUID alone stays an id),
Microsoft Entra client secrets (``~`` and ``.`` cut them into short words the prefilter passed by), Terraform
Cloud's and Airtable's, each with its id part. They were written in clear in events.jsonl, state.json and the
tool records, and shown in the view."""

from __future__ import annotations

import random
import string
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import shown

_R = random.Random(20261205)
_A = string.ascii_letters + string.digits
_H = "0123456789abcdef"


def _r(n: int, alphabet: str = _A) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


KEYS = {
    "atlassian": "ATATT3xFfGF0" + _r(180, _A + "_-=") + "=" + _r(8, _H.upper()),
    "atlassian_ctt": "ATCTT3xFfGN0" + _r(120, _A + "_-"),
    "heroku_uuid": "HRKU-" + "-".join(_r(n, _H) for n in (8, 4, 4, 4, 12)),
    "heroku_aa": "HRKU-AA" + _r(58, _A + "_-"),
    "entra": _r(3, _A) + "8Q~" + _r(34, _A + "_.~-"),
    "terraform": _r(14) + ".atlasv1." + _r(67),
    "airtable": "pat" + _r(14) + "." + _r(64, _H),
}


@pytest.mark.parametrize("name", sorted(KEYS))
@pytest.mark.parametrize("template", ["{k}", "note: {k} ok", "TOKEN={k}", '{{"v": "{k}"}}'])
def test_found_wherever_it_is_written(name: str, template: str) -> None:
    key = KEYS[name]
    out = shown(template.format(k=key))
    assert "[REDACTED]" in out
    assert not any(key[i : i + 10] in out for i in range(0, len(key) - 10)), out


def test_a_uuid_alone_stays_an_id() -> None:
    uuid = "a333e62b-0b0b-04f2-b5ea-f170cd7312ec"
    assert shown(f"request {uuid} done") == f"request {uuid} done"


def test_none_reaches_a_run_file(runs_dir: Path) -> None:
    keys = list(KEYS.values())

    def agent(task: str, ctx: Any) -> Any:
        ctx.emit("note", {"text": " and ".join(keys)})
        return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass", *keys]}, effect="write", risk="high")

    episode = noesis_nb.solve("use the keys", using=agent, runs_dir=runs_dir, approver="auto")
    for path in (runs_dir / episode).rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for key in keys:
                assert not any(key[i : i + 10] in text for i in range(0, len(key) - 10, 5)), (path.name, key[:12])
