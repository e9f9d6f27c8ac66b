"""A paused tool draft whose payload held a secret keeps no hash of that secret on disk.

The stored ``request_fingerprint`` is the sha256 of the stored (redacted) payload, as the Noēsis format
defines it; a plain hash of the real payload would let a word list recover the secret from the run's files.
Another process given the secret back still runs the draft (checked against a keyed seal), and one given a
wrong value is refused. Real processes, real files, a real subprocess tool.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

SECRET = "Summer2024!"

PAUSE = r"""
import asyncio, sys, noesis_nb as nb
async def agent(task, ctx):
    code = "import os, sys; open(sys.argv[1], 'w').write(os.environ['DB_PASSWORD'])"
    argv = [sys.executable, "-c", code, sys.argv[2]]
    return await ctx.tool_async("db.connect", {"argv": argv, "env": {"DB_PASSWORD": sys.argv[3]}}, effect="write", risk="high")
async def main():
    handle = nb.start("connect", agent, runs_dir=sys.argv[1], approver="ask")
    await handle
    print(handle.status)
asyncio.run(main())
"""

RESUME = r"""
import sys, glob, noesis_nb as nb
run = glob.glob(sys.argv[1] + "/ep_*")[0]
nb.approve_draft(run)
try:
    nb.resume_run(run, secrets={"env.DB_PASSWORD": sys.argv[2]})
    print("RAN")
except Exception as exc:
    print("REFUSED", type(exc).__name__)
"""


def _canonical_sha(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _run(code: str, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_no_hash_of_the_secret_on_disk_and_the_secret_given_back_still_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DB_PASSWORD"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # one user's seal key, shared by both processes
    root, out = tmp_path / "runs", tmp_path / "effect.txt"
    assert _run(PAUSE, str(root), str(out), SECRET, env=env) == "paused"
    [run] = list(root.glob("ep_*"))
    [draft] = list((run / "tool_invocations" / "prepared").glob("*.json"))
    record = json.loads(draft.read_text())
    stored = record["payload"]["normalized_payload"]
    assert stored["env"] == {"DB_PASSWORD": "[REDACTED]"}
    assert record["payload"]["request_fingerprint"] == "sha256:" + _canonical_sha(stored)

    real = {**stored, "env": {"DB_PASSWORD": SECRET}}
    digests = {
        _canonical_sha(real),
        _canonical_sha(record["payload"]["redacted_payload"] | {"env": {"DB_PASSWORD": SECRET}}),
        hashlib.sha256(SECRET.encode()).hexdigest(),
        hashlib.sha256(repr(SECRET).encode()).hexdigest(),
    }
    files = [p for p in run.rglob("*") if p.is_file()]
    found = [(p.name, d) for p in files for d in digests if d.encode() in p.read_bytes() or SECRET.encode() in p.read_bytes()]
    assert found == []

    assert _run(RESUME, str(root), "Winter2023!", env=env) == "REFUSED PayloadIntegrityError"
    assert not out.exists()
    assert _run(RESUME, str(root), SECRET, env=env) == "RAN"
    assert out.read_text() == SECRET
