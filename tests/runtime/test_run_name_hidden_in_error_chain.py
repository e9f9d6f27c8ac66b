"""``approve_draft``, ``reject_draft`` and ``resume_run`` of a run folder named with a credential name it as views show
it (``[REDACTED:<mark>]``) in their errors (``run_name_shown``). Only the escaping error's own arguments were rewritten:
the file an ``OSError`` names (``RunWriteError.filename``, which code reads to find the file), the errors it carries
(a suppressed context: ``exc.__context__``), their ``path`` attributes and notes kept the real folder name. Each
error below is a real one: a write the process's file size limit refuses (in a child process), a draft file that is
a folder; the secret must appear nowhere in the traceback nor in any text or path the errors of the chain hold.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import string
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"

#: a child process: the file size limit (RLIMIT_FSIZE) set below what the call writes, ``SIGXFSZ`` ignored so the
#: write fails with EFBIG; prints the traceback and everything the errors of the chain hold, as JSON
CHILD = r"""
import json, resource, signal, sys, traceback
from pathlib import Path
import noesis_nb
from tests.runtime.test_run_name_hidden_in_error_chain import chain_texts, paused

folder, call, limit = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
try:
    if call == "approve_draft":
        noesis_nb.approve_draft(folder, approver_id="me")
    else:
        noesis_nb.resume_run(folder, using=paused)
except Exception as exc:
    said = {"type": type(exc).__name__, "traceback": "".join(traceback.format_exception(exc)), "chain": chain_texts(exc)}
else:
    said = {"type": None}
print(json.dumps(said))
"""


def paused(task: str, ctx: Any) -> Any:
    return ctx.tool("w", {"argv": ["true"]}, effect="write", risk="high")


def chain_texts(exc: BaseException) -> list[str]:
    """Each error ``exc`` carries (itself, causes and contexts, suppressed too) as its type, arguments, notes,
    ``OSError`` fields and attributes."""
    texts, todo, seen = [], [exc], set()
    while todo:
        err = todo.pop()
        if id(err) in seen:
            continue
        seen.add(id(err))
        fields = {name: getattr(err, name, None) for name in ("strerror", "filename", "filename2", "__notes__")}
        texts.append(f"{type(err).__name__} {err.args!r} {fields!r} {vars(err) if hasattr(err, '__dict__') else {}!r}")
        todo += [e for e in (err.__cause__, err.__context__) if e is not None]
    return texts


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "Zq" + "".join(random.choices(string.ascii_letters + string.digits, k=18))
    monkeypatch.setenv("ACME_API_KEY", value)  # learned by every run from the environment
    return value


def _folder(runs_dir: Path, value: str) -> Path:
    """A paused run copied to a folder named with ``value``."""
    made = noesis_nb.solve("t", using=paused, runs_dir=runs_dir, approver="ask")
    folder = runs_dir / f"run-{value}"
    shutil.copytree(runs_dir / made, folder)
    shutil.rmtree(runs_dir / made)
    return folder


def _in_child(folder: Path, call: str, limit: int) -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), call, str(limit)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return said


@pytest.mark.parametrize("kind", ["token", "environment"])
@pytest.mark.parametrize("call", ["approve_draft", "resume_run"])
def test_a_refused_write_names_the_folder_as_views_show_it_in_the_whole_error(
    runs_dir: Path, secret: str, kind: str, call: str
) -> None:
    value = TOKEN if kind == "token" else secret
    folder = _folder(runs_dir, value)
    if call == "resume_run":
        noesis_nb.approve_draft(folder, approver_id="me")  # resuming, it appends to its log: refused
    said = _in_child(folder, call, limit=300)
    assert said["type"] == "RunWriteError", said
    assert "[REDACTED:" in said["traceback"], said["traceback"][-600:]
    assert value not in said["traceback"], said["traceback"][-600:]
    leaks = [text for text in said["chain"] if value in text]
    assert leaks == [], leaks  # on the code before: RunWriteError's filename, and the chain's


@pytest.mark.parametrize("call", ["approve_draft", "reject_draft", "resume_run"])
def test_an_unreadable_draft_names_the_folder_as_views_show_it_in_the_whole_error(runs_dir: Path, call: str) -> None:
    folder = _folder(runs_dir, TOKEN)
    draft = next((folder / "tool_invocations" / "prepared").iterdir())
    draft.unlink()
    draft.mkdir()  # a folder where the draft's file goes: its read is refused
    calls = {
        "approve_draft": lambda: noesis_nb.approve_draft(folder, approver_id="me"),
        "reject_draft": lambda: noesis_nb.reject_draft(folder, approver_id="me"),
        "resume_run": lambda: noesis_nb.resume_run(folder, using=paused),
    }
    with pytest.raises(noesis_nb.errors.NoesisNbError) as caught:
        calls[call]()
    printed = "".join(traceback.format_exception(caught.value))
    assert "[REDACTED:" in printed and TOKEN not in printed, printed[-600:]
    leaks = [text for text in chain_texts(caught.value) if TOKEN in text]
    assert leaks == [], leaks  # on the code before: the unreadable file's path, in the context


def test_a_missing_draft_names_the_folder_as_views_show_it_in_the_whole_error(runs_dir: Path) -> None:
    folder = _folder(runs_dir, TOKEN)
    with pytest.raises(noesis_nb.errors.NoesisNbError) as caught:
        noesis_nb.approve_draft(folder, draft_id="draft:nope", approver_id="me")
    printed = "".join(traceback.format_exception(caught.value))
    assert TOKEN not in printed, printed[-600:]
    assert [text for text in chain_texts(caught.value) if TOKEN in text] == []


def test_a_disk_runs_problems_and_its_resume_error_name_the_folder_as_views_show_it(runs_dir: Path) -> None:
    cut = _folder(runs_dir, TOKEN)
    log = cut / "events.jsonl"
    log.write_bytes(log.read_bytes() + b"{not json\n")  # a line a view leaves out, naming the file
    problems = noesis_nb.DiskRun(cut).problems
    assert problems and "[REDACTED:" in problems[0], problems
    assert TOKEN not in " ".join(problems), problems  # on the code before: the log's path in clear

    broken = runs_dir / f"again-{TOKEN}"
    shutil.copytree(cut, broken)
    log = broken / "events.jsonl"
    log.write_bytes(log.read_bytes().rsplit(b"{not json", 1)[0])
    noesis_nb.approve_draft(broken, approver_id="me")
    (broken / "state.json").unlink()
    (broken / "state.json").mkdir()  # its resume stops: the state cannot be read
    run = noesis_nb.DiskRun(broken, using=paused)

    async def resumed() -> None:
        run.resume()  # on the running loop: a task, whose error ``last_error`` says
        while run._resume_task is not None and not run._resume_task.done():
            await asyncio.sleep(0.02)

    asyncio.run(resumed())
    assert run.last_error is not None and "state.json" in run.last_error, run.last_error
    assert "[REDACTED:" in run.last_error and TOKEN not in run.last_error, run.last_error
