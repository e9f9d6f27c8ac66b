"""A seal vouches only for a log the sealing process wrote whole, screening each line as it wrote it.

``resume_run`` and the lifecycle calls (``ns``) continue a run whose lines another process wrote: a
noesis_nb process killed with SIGKILL, or anyone who could write into the runs directory; and another
process may append to a run while it is live. Those lines were never screened by the process that
seals the run, so its seal must not make the frames read them as written: a token put into the log
stays redacted after the run is sealed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson

import noesis_nb
from noesis_nb.store import read_json

HELPER = Path(__file__).with_name("killed_run.py")
TOKEN = "ghp_" + "Q7r8A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"


def _killed_run(root: Path) -> Path:
    """A run whose process was killed with SIGKILL while its adapter ran, as the process left it."""
    done = subprocess.run([sys.executable, str(HELPER), str(root)], capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    (run,) = [p for p in root.iterdir() if p.name.startswith("ep_")]
    assert not (run / "final.json").exists()
    return run


def _plant(run: Path | str, text: str) -> None:
    """Append one well-formed event, written by someone other than noesis_nb, holding ``text``."""
    log = Path(run) / "events.jsonl"
    last = orjson.loads(log.read_bytes().splitlines()[-1])
    event = {**last, "id": last["id"][:-6] + "f00d01", "phase": "reason", "payload": {"note": text}}
    with open(log, "ab") as fh:
        fh.write(orjson.dumps(event) + b"\n")


def _in_another_process(helper: str, *args: str) -> None:
    """Call one of this module's helpers in a process of its own (someone else writing into the run)."""
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parents[2])!r}); "
    code += f"from tests.secrets.test_secrets_resumed_runs import {helper}; {helper}(*{args!r})"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def _shown(root: Path) -> str:
    return noesis_nb.events_df(root)["payload"].map(json.dumps).str.cat()


def test_a_token_planted_in_a_killed_run_stays_redacted_after_resume_run_seals_it(tmp_path: Path) -> None:
    run = _killed_run(tmp_path)
    _plant(run, f"deploy with {TOKEN} please")
    assert TOKEN not in _shown(tmp_path)  # unsealed: screened as it is read

    noesis_nb.resume_run(run.name, runs_dir=tmp_path)  # sealed ``error``: its process was lost

    assert (run / "manifest.json").exists()
    shown = _shown(tmp_path)
    assert TOKEN not in shown and "deploy with" in shown  # the token redacted, the rest of the text kept
    assert "thinking before the kill" in shown


def test_a_token_another_process_appends_to_a_live_run_stays_redacted_after_the_seal(tmp_path: Path) -> None:
    def agent(task: str, ctx: object) -> str:
        (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
        _in_another_process("_plant", str(run), f"use {TOKEN} now")
        return "ok"

    ep = noesis_nb.solve("a task", using=agent, runs_dir=tmp_path)

    assert (tmp_path / ep / "manifest.json").exists()
    shown = _shown(tmp_path)
    assert TOKEN not in shown and "use " in shown


def _plant_record(run: str, token: str) -> None:
    """Copy the run's prepared tool record under a new draft id (named as its file is), its request id holding
    ``token``."""
    (record,) = Path(run, "tool_invocations", "prepared").iterdir()
    doc = json.loads(record.read_text())
    doc["draft_id"] = doc["draft_id"].replace(doc["request_id"], "req_planted")
    doc["request_id"] = f"req_planted {token}"
    record.with_name(doc["draft_id"] + ".json").write_text(json.dumps(doc))


def test_a_tool_record_another_process_puts_into_a_live_run_stays_redacted_after_the_seal(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.tool("fs.echo", {"argv": [sys.executable, "-c", "print('hi')"]}, effect="read", risk="low")
        (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
        _in_another_process("_plant_record", str(run), TOKEN)
        return "ok"

    ep = noesis_nb.solve("a task", using=agent, runs_dir=tmp_path)

    frame = noesis_nb.tools_df(tmp_path)
    assert len(frame) == 2 and (tmp_path / ep / "manifest.json").exists()
    shown = frame.astype(str).to_csv()
    assert TOKEN not in shown and "req_planted" in shown
    sealed = read_json(tmp_path / ep / "final.json")["x-noesis_nb"]["seal"]["tools"]
    assert len(sealed) == 2  # the records this process wrote are still vouched for


def test_the_random_draft_id_of_an_unscreened_tool_record_is_kept_as_the_events_show_it(tmp_path: Path) -> None:
    """An unscreened record's draft id is judged as an id (token shapes), as the events' ``draft_id`` is: Noēsis
    names drafts ``draft:<run>:<request id>``, and a random request id is no secret."""
    request_id = uuid.uuid4().hex

    def agent(task: str, ctx: Any) -> str:
        ctx.tool("fs.echo", {"argv": [sys.executable, "-c", "print('hi')"]}, effect="read", risk="low")
        (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
        (record,) = Path(run, "tool_invocations", "prepared").iterdir()
        text, old = record.read_text(), json.loads(record.read_text())["request_id"]
        record.with_name(record.name.replace(old, request_id)).write_text(text.replace(old, request_id))
        return "ok"

    noesis_nb.solve("a task", using=agent, runs_dir=tmp_path)

    drafts = noesis_nb.tools_df(tmp_path)["draft_id"].astype(str).tolist()
    assert len(drafts) == 2 and any(d.endswith(request_id) for d in drafts), drafts


def test_a_run_written_whole_by_one_process_is_still_sealed(tmp_path: Path) -> None:
    ep = noesis_nb.solve("a task", using=lambda task, ctx: "ok", runs_dir=tmp_path)
    final = read_json(tmp_path / ep / "final.json")
    assert isinstance(final["x-noesis_nb"].get("seal"), dict)


def test_a_resumed_run_carries_no_seal(tmp_path: Path) -> None:
    run = _killed_run(tmp_path)
    noesis_nb.resume_run(run.name, runs_dir=tmp_path)
    final = read_json(run / "final.json")
    assert "x-noesis_nb" in final and "seal" not in final["x-noesis_nb"]
