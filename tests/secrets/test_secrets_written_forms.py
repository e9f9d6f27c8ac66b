"""A secret holding a quote, a backslash or a non-ASCII letter is hidden in every form routine code writes it in.

An environment secret (``DB_PASSWORD='sunny"meadow"walk-41'``) or a password a run learned was hunted as written,
percent- and base64-encoded: written JSON-escaped (``sunny\\"meadow\\"walk-41``, a JSON document inside a JSON string
escaping it twice), by ``repr`` (backslashes doubled), as ``\\u00fc`` or shell-quoted, it was written in clear to
events.jsonl, state.json, summary.json and the tool's records, and shown by the frames and views. Each value below has a
plain core (``meadow``) that any form of it holds: no file of the run, frame, view or OTLP export may hold it.
"""

from __future__ import annotations

import asyncio
import html
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.errors import InvalidOptionError
from noesis_nb.secrets import quoted, shown
from tests.hardening.secret_corpus import run_files
from tests.hardening.test_secrets import _surfaces

# each value and the plain stretch of it that every form of it keeps
VALUES = {
    'sunny"meadow"walk-41': "meadow",
    'Xq7"Lm2\\p9Kz!vR4wT': "p9Kz!vR4wT",
    'Grüße"Sommer"Kaffee-2024': "Kaffee-2024",
    "pa'ss<wo>rd&Tango-Foxtrot-9": "Tango-Foxtrot-9",
}

# a real process printing the value as programs do: a JSON list, repr, a JSON document quoted in JSON, repr of bytes
_PRINT = r"""
import json, sys
v = sys.argv[1]
print(json.dumps([v]))
print(json.dumps({"config": json.dumps({"item": v})}))
print(repr(v), repr(v.encode()), ascii(v))
"""


def _forms(value: str) -> list[str]:
    """The value as routine code writes it (this test's own list, the oracle)."""
    once = [json.dumps(value), json.dumps(value, ensure_ascii=False), repr(value), ascii(value), repr(value.encode())]
    twice = [json.dumps(json.dumps({"db": {"item": value}})), repr(json.dumps(value)), json.dumps(repr(value))]
    return [*once, *twice, shlex.quote(value), html.escape(value)]


def _agent(value: str, *, named: bool) -> Any:
    async def agent(task: str, ctx: Any) -> str:
        if named:  # a password the run is given under a name saying so: learned as it is
            ctx.emit("note", {"password": value})
        for form in _forms(value):
            ctx.emit("note", {"text": f"config dump: {form}"})
        out = await ctx.tool_async("shell.run", {"argv": [sys.executable, "-c", _PRINT, value]}, effect="read", risk="low")
        return "printed: " + out["stdout"]

    return agent


def _surfaced(run_dir: Path, tmp_path: Path) -> list[tuple[str, bytes]]:
    """Every file of the run, its views, its frames and its OTLP export."""
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs += [("events_df", noesis_nb.events_df(run_dir.parent).to_json(force_ascii=False).encode())]
    blobs += [("tools_df", noesis_nb.tools_df(run_dir.parent).to_json(force_ascii=False).encode())]
    noesis_nb.export_otel(run_dir, path=tmp_path / "spans.json")
    return [*blobs, ("otlp", (tmp_path / "spans.json").read_bytes())]


def _holding(blobs: list[tuple[str, bytes]], core: str) -> list[str]:
    return [where for where, blob in blobs if core.encode() in blob or json.dumps(core).encode()[1:-1] in blob]


def _solve(value: str, runs: Path, *, named: bool) -> Path:
    async def cell() -> Path:
        handle = noesis_nb.start("dump the config", using=_agent(value, named=named), runs_dir=runs, approver="auto")
        await handle
        assert handle.status == "ok", handle.status
        return Path(handle.run_dir)

    return asyncio.run(cell())


@pytest.mark.parametrize("value", list(VALUES))
def test_an_environment_secret_is_hidden_in_every_form_it_is_written_in(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PASSWORD", value)
    run_dir = _solve(value, tmp_path / "runs", named=False)
    written = run_files(run_dir)
    assert any(b"config dump:" in blob for _, blob in written) and any(b"printed:" in blob for _, blob in written)
    assert any(b'"exit_code":0' in blob.replace(b" ", b"") for _, blob in written)  # the process ran
    assert _holding(_surfaced(run_dir, tmp_path), VALUES[value]) == []


@pytest.mark.parametrize("value", list(VALUES))
def test_a_password_the_run_learned_is_hidden_in_every_form_it_is_written_in(value: str, tmp_path: Path) -> None:
    run_dir = _solve(value, tmp_path / "runs", named=True)
    assert _holding(_surfaced(run_dir, tmp_path), VALUES[value]) == []


def test_a_run_written_without_the_variable_is_shown_without_any_form_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader holding the variable sees none of its forms in a run written before it was set (in clear on disk)."""
    value = 'Xq7"Lm2\\p9Kz!vR4wT'
    monkeypatch.delenv("DB_PASSWORD", raising=False)
    run_dir = _solve(value, tmp_path / "runs", named=False)
    on_disk = "\n".join(blob.decode("utf-8", "replace") for _, blob in run_files(run_dir))
    assert "p9Kz!vR4wT" in on_disk  # written in clear: nothing said it was a secret
    monkeypatch.setenv("DB_PASSWORD", value)
    frames = [("events_df", noesis_nb.events_df(run_dir.parent).to_json(force_ascii=False).encode())]
    frames += [("tools_df", noesis_nb.tools_df(run_dir.parent).to_json(force_ascii=False).encode())]
    assert _holding(frames + _surfaces(DiskRun(run_dir)), "p9Kz!vR4wT") == []
    assert all("p9Kz!vR4wT" not in shown(f"dump: {form}") for form in _forms(value))


def test_a_temporary_folder_named_with_a_prefix_is_named_in_the_error(tmp_path: Path) -> None:
    """``mkdtemp(prefix="e8_")`` makes ``e8_zfp728iw``: a path holding it was hidden as a key in the error that names
    it (``upload_to=<a 28-character value that looks like a key, not shown>``), about half the names drawn."""
    targets = ["/tmp/x/e8_zfp728iw_copy", "/data/copies/e8_zfp728iw_copy"]  # a name tempfile made, in a reported case
    for _ in range(20):
        folder = tempfile.mkdtemp(prefix="e8_")
        Path(folder).rmdir()
        targets += [folder, folder + "_copy", "/tmp/x/" + Path(folder).name + "_copy"]

    async def agent(task: str) -> int:
        return 1

    for target in targets:
        with pytest.raises(InvalidOptionError) as raised:
            noesis_nb.batch(["t"], using=agent, root=tmp_path / "root", upload_to=target)
        assert repr(target) in str(raised.value), str(raised.value)
        assert shown(f"copied to {target}") == f"copied to {target}" and quoted(target) == repr(target)


def test_a_key_inside_a_path_is_still_hidden_beside_a_prefixed_temporary_folder(tmp_path: Path) -> None:
    folder = tempfile.mkdtemp(prefix="e8_", dir=tmp_path)
    key = "Qm7Zx2Lk9Vb4Np8Rt3Wy6Hj1Fd5Sg0Ce"
    for path in (f"{folder}/runs/{key}/run.json", f"/tmp/x/e8_zfp728iw_copy/keys/{key}"):
        assert key not in shown(path) and key[:12] not in quoted(path), path
        assert path.split("/runs/")[0].split("/keys/")[0] in shown(path), path  # the folder's path before the key
