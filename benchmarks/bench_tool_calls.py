"""What a tool call that needs approval costs when a policy decides it, per call, against one that needs none.

    python benchmarks/bench_tool_calls.py
    python benchmarks/bench_tool_calls.py --calls 40 --repeat 5

One episode makes ``--calls`` calls of a python tool (no subprocess: the runtime's own writes are what is timed).
The baseline, measured in the same run, is the same episode whose tool needs no approval (``requires_approval=
False``): the tool-contract chain, its records and the act, with no decision. The measured episodes need approval
and a policy decides each (``approver="auto"``, ``"deny"`` and a callable): the approval events and the decision
record on top of the baseline. Reports the median per call over ``--repeat`` episodes and its ratio to the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _noop(text: str) -> str:
    return text


def _agent(calls: int, requires_approval: bool):
    async def agent(task: str, ctx) -> int:
        done = 0
        for n in range(calls):
            try:
                await ctx.tool_async(
                    "bench.noop",
                    {"args": [f"call {n}"]},
                    protocol="python",
                    fn=_noop,
                    effect="write",
                    risk="high",
                    requires_approval=requires_approval,
                )
                done += 1
            except Exception:  # a denied call (ToolRejected): the adapter goes on
                pass
        return done

    return agent


def _per_call(root: Path, calls: int, repeat: int, *, requires_approval: bool, approver) -> float:
    import noesis_nb

    spent = []
    for i in range(repeat):
        runs = root / f"runs-{i}"
        started = time.perf_counter()
        asyncio.run(noesis_nb.solve_async("bench", using=_agent(calls, requires_approval), runs_dir=runs, approver=approver))
        spent.append((time.perf_counter() - started) / calls)
    return statistics.median(spent)


def _reviewer(pending) -> bool:
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _per_call(root / "warm", 2, 1, requires_approval=True, approver="auto")  # imports and first writes
        base = _per_call(root / "base", args.calls, args.repeat, requires_approval=False, approver="auto")
        print(f"{'approval':<22} {'per call':>10} {'ratio':>7}")
        print(f"{'none (baseline)':<22} {base * 1e3:>8.2f}ms {1:>6.1f}x")
        for label, approver in (("policy 'auto'", "auto"), ("policy 'deny'", "deny"), ("policy callable", _reviewer)):
            took = _per_call(
                root / label.replace("'", "").replace(" ", "-"),
                args.calls,
                args.repeat,
                requires_approval=True,
                approver=approver,
            )
            print(f"{label:<22} {took * 1e3:>8.2f}ms {took / base:>6.1f}x")


if __name__ == "__main__":
    main()
