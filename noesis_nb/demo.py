"""``python -m noesis_nb.demo``: run an episode whose agent asks for a write tool, approve it through
the API, and print the run directory and what is in it. No network, no API key.

A mistake in its arguments (a ``--runs-dir`` that is a file or not writable) ends on one line naming the value
and the fix, as ``--help`` does, not on a traceback."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from pathlib import Path

from ._envvars import path_from_env
from .errors import NoesisNbError
from .runtime.api import start
from .scripted import note_writer
from .store import read_events, verify_manifest


async def _run(runs_dir: str | Path, notes_dir: Path) -> None:
    handle = start("Write a short note about noesis_nb", using=note_writer(notes_dir), runs_dir=runs_dir)
    await handle  # returns when the episode pauses for a human
    print(f"episode {handle.episode_id} is {handle.status}")
    for pending in handle.pending:
        print(f"  waiting for approval: {pending.tool} ({pending.effect_kind}, risk {pending.risk_tier})")
        print(f"  command: {(pending.command_line or '')[:100]}…")
    decision = handle.approve(approver_id="demo", reason="approved from the demo script")
    print(f"approved by {decision.approver_id}; continuing")
    await handle.wait()
    print(f"episode finished: {handle.status}; result: {handle.result()['summary']}")
    usage = handle.usage
    inp, out = ("unknown" if usage[k] is None else usage[k] for k in ("input_tokens", "output_tokens"))  # None: not reported
    print(f"model calls: {usage['model_calls']}, input tokens: {inp}, output tokens: {out}")
    print(f"\nrun directory: {handle.run_dir}")
    for path in sorted(p for p in handle.run_dir.rglob("*") if p.is_file()):
        print(f"  {path.relative_to(handle.run_dir)}  ({path.stat().st_size} bytes)")
    names = [
        e.get("event_type") or e["payload"].get("event_name") or e["phase"] for e in read_events(handle.run_dir / "events.jsonl")
    ]
    print(f"\n{len(names)} events: {' → '.join(names)}")
    print(f"manifest: {verify_manifest(handle.run_dir).status}; note written: {(notes_dir / 'note.md').exists()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m noesis_nb.demo",
        description="Run an episode whose agent asks for a write tool, approve it through the API, and print the "
        "run directory and what is in it. No network, no API key.",
    )
    parser.add_argument(  # as typed: '' is refused as start(runs_dir='') refuses it, not read as the working folder
        "--runs-dir", default=None, help="where run directories go (default: $NOESIS_RUNS_DIR if set, else a temp dir)"
    )
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="noesis_nb-demo-"))
    kept = False  # the temp folder stays only when the runs are in it
    try:
        configured = path_from_env("NOESIS_RUNS_DIR")  # the runs dir every noesis_nb call here would use
        if args.runs_dir is not None:
            runs_dir: str | Path = args.runs_dir
        elif configured:
            runs_dir = Path(configured).expanduser()
        else:
            runs_dir, kept = base / "episodes", True
        asyncio.run(_run(runs_dir, base / "notes"))
    except NoesisNbError as exc:  # a runs dir refused, a run that could not be written: say it, exit 1
        parser.exit(1, f"{parser.prog}: {type(exc).__name__}: {_as_typed(str(exc), args.runs_dir is not None)}\n")
    finally:
        if not kept:  # the demo's note only: nothing of it is left in the temp dir
            shutil.rmtree(base, ignore_errors=True)


def _as_typed(said: str, given: bool) -> str:
    """The library's words for its runs dir (``runs_dir '…'``, ``pass runs_dir= …``) as this command takes it,
    ``--runs-dir``: the fix a newcomer at a shell can type (the value as named when it came from this option)."""
    said = said.replace("pass runs_dir= ", "pass --runs-dir ")
    return "--runs-dir " + said.removeprefix("runs_dir ") if given and said.startswith("runs_dir ") else said


if __name__ == "__main__":
    main()
