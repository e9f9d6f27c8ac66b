"""A secret-looking word that is a key opening a nested object or array (``'../../etc/passwd': {'sha256': …}``,
``"token": []``) gives no value: a problem message quoting such a manifest shows it whole. A short value written
after such a word is still a secret, and so is a quoted one."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.secrets import REDACTED_VALUE, find_in_text, redact


@pytest.mark.parametrize(
    "text",
    [
        "files is {'../../etc/passwd': {'sha256': 'abc', 'size': 1}}",
        "{'passwd': {'a': 1}}",
        '{"token": []}',
        '{"api_key": {}}',
        "{'password': ['x', 'y']}",
    ],
)
def test_a_nested_container_is_no_value(text: str) -> None:
    assert find_in_text(text) == set()
    assert redact(text)[0] == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("{'passwd': 'hunter2xyz'}", "hunter2xyz"),
        ("password: {", "{"),
        ("password={x", "{x"),
        ("password=[ab", "[ab"),
        ('{"token": "{q"}', "{q"),
    ],
)
def test_short_and_quoted_values_stay_secret(text: str, secret: str) -> None:
    shown = redact(text)[0]
    assert REDACTED_VALUE in shown and secret not in shown.replace("password", "").replace("token", "")


def test_manifest_problem_shows_the_path(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "ep_manifest"
    run.mkdir(parents=True)
    start = {"id": "e0", "timestamp": "2025-11-11T02:19:10+00:00", "episode_id": "ep_manifest", "phase": "start"}
    (run / "events.jsonl").write_text(json.dumps({**start, "agent_id": "system", "payload": {"task": "t"}}) + "\n")
    (run / "manifest.json").write_text('{"files": {"../../etc/passwd": {"sha256": "x", "size": 1}}, "events": 5}')
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = noesis_nb.runs_df(run.parent, cache=False)
    reasons = [p["reason"] for p in frame.attrs["errors"] if p["path"].endswith("manifest.json")]
    about_files = [r for r in reasons if r.startswith("files is")]
    assert about_files and all("'../../etc/passwd': {" in r and REDACTED_VALUE not in r for r in about_files), reasons
