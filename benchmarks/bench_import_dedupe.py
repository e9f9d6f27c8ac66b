"""What the trace import's de-dup search costs as a root grows: its search vs a scan of the root alone.

    python benchmarks/bench_import_dedupe.py               # a root of 5,000 imported runs
    python benchmarks/bench_import_dedupe.py --runs 20000

Before an import makes a run it searches the root for a run of the same trace (``_dedupe.imported_before``).
The runs' tags are kept in this user's cache, so a search reads only the runs made since the last one and
the candidates; what is left grows with the root is the scan that lists its runs (one stat per run). The
baseline is measured in the same run: that scan alone, and reading every run's ``state.json`` (the search as
it was). Prints the median of a search that finds nothing (a new trace) and of one that finds the last run,
each as a ratio of the scan.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import median  # noqa: E402


def make_root(runs: int, root: Path) -> str:
    """``runs`` sealed imported runs (copies of one, each with its own id and digest); the last one's digest."""
    import warnings

    from noesis_nb.integrations.noetic import import_noetic

    warnings.simplefilter("ignore")
    log = [
        {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1"}},
        {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}},
    ]
    first = root / import_noetic(log, runs_dir=root)
    digest = ""
    for n in range(runs - 1):
        run = root / f"ep_copy{n:06d}"
        shutil.copytree(first, run)
        state = json.loads((run / "state.json").read_text())
        digest = state["episode"]["tags"]["trace_digest"] = f"sha256:{n:064x}"
        state["episode"]["id"] = run.name
        (run / "state.json").write_text(json.dumps(state))
    return digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NOESIS_NB_CACHE_DIR"] = str(Path(tmp) / "cache")
        from noesis_nb.integrations._dedupe import _state, imported_before
        from noesis_nb.store.scan import scan_run_dirs_with_stats

        root = Path(tmp) / "runs"
        last = make_root(args.runs, root)
        imported_before(root, "sha256:first")  # the first search reads every run once
        scan = median(lambda: scan_run_dirs_with_stats(str(root)), args.repeat)
        every = median(lambda: [_state(p) for p, _ in scan_run_dirs_with_stats(str(root))], args.repeat)
        miss = median(lambda: imported_before(root, "sha256:" + "f" * 64), args.repeat)
        hit = median(lambda: imported_before(root, last), args.repeat)
        print(f"{args.runs} runs: scan {scan * 1e3:.1f} ms (the baseline)")
        print(f"  reading every state.json (the search as it was): {every / scan:.2f}x")
        print(f"  search, nothing found: {miss / scan:.2f}x")
        print(f"  search, the last run found: {hit / scan:.2f}x")


if __name__ == "__main__":
    main()
