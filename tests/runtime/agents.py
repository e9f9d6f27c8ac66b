"""Small adapters used by the runtime tests (module-level so another process can import them)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_argv(path: Path, text: str) -> list[str]:
    """A subprocess argv that appends ``text`` to ``path`` (so executions can be counted)."""
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')"
    return [sys.executable, "-c", code, str(path), text]


def make_writer(path: Path, *, handle_rejection: bool = False):
    async def writer(task, ctx):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=150, cached_input_tokens=1000)
        try:
            out = await ctx.tool_async("fs.append", {"argv": write_argv(path, task)}, effect="write", risk="high")
        except Exception as exc:  # ToolRejected when a human said no
            if handle_rejection:
                return {"rejected": str(exc)}
            raise
        return {"stdout": out["stdout"], "returncode": out["returncode"]}

    return writer


def sync_writer_factory(path: Path):
    def sync_writer(task, ctx):
        out = ctx.tool("fs.append", {"argv": write_argv(path, task)}, effect="write", risk="high")
        return out["returncode"]

    return sync_writer


def append_line(path: str, text: str) -> str:
    """A python-protocol tool importable from another process."""
    with open(path, "a") as fh:
        fh.write(text + "\n")
    return f"appended {text}"


def paused_on_disk(runs_dir: Path, out: Path) -> tuple[Path, str]:
    """A run ``solve`` left paused on its one draft (``make_writer(out)``): its folder and the draft's id."""
    import warnings

    import noesis_nb

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pause is said as a warning
        episode = noesis_nb.solve("one", using=make_writer(out), runs_dir=runs_dir)
    run_dir = runs_dir / episode
    (draft,) = [p.stem for p in (run_dir / "tool_invocations" / "prepared").glob("*.json")]
    return run_dir, draft
