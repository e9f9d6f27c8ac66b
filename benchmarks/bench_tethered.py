"""What running a tool tethered costs: the Linux watchdog against the ``/bin/sh`` one and a plain child.

    python benchmarks/bench_tethered.py            # 40 runs of each
    python benchmarks/bench_tethered.py --repeat 100

Each row is the median wall time of running ``true`` (a tool that does nothing, so the figure is the overhead),
measured in this run: a plain ``subprocess.run`` (the baseline), the ``/bin/sh`` watchdog leading a process group
(kept where there is no subreaper), and the Linux subreaper watchdog (a Python process). The ratios say what
tethering adds; a tool doing real work pays the same absolute overhead.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import median

from noesis_nb.tools import tethered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=40)
    repeat = parser.parse_args().repeat
    argv = ["true"]
    plain = median(lambda: subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True), repeat)
    rows = [("plain subprocess.run (baseline)", plain)]
    rows.append(
        ("/bin/sh watchdog, process group", median(lambda: tethered._run_grouped(argv, cwd=None, env=None, timeout=60), repeat))
    )
    if tethered._subreaper_possible():
        rows.append(
            ("subreaper watchdog (Linux)", median(lambda: tethered.run_tethered(argv, cwd=None, env=None, timeout=60), repeat))
        )
    else:
        print("no subreaper watchdog here (not Linux, or no usable Python executable)")
    sh = rows[1][1]
    print(f"{'path':34} {'median ms':>10} {'× baseline':>11} {'× /bin/sh':>10}")
    for name, seconds in rows:
        print(f"{name:34} {seconds * 1000:10.2f} {seconds / plain:11.2f} {seconds / sh:10.2f}")


if __name__ == "__main__":
    main()
