"""What quoting a refused value costs: ``secrets.quoted`` vs ``repr(secrets.shown(value))``, in process.

    python benchmarks/bench_quoted.py
    python benchmarks/bench_quoted.py --repeat 500

An error message quotes the value it refuses through ``quoted`` (redacted, key-like words hidden, then cut);
the baseline, measured in the same run, is what a message that only redacted would pay. Values: an id, a
mistyped id, a path, a key, a key glued to other text, a 1 MB value. Reports each value's median per call and
its ratio to the baseline. Only error paths pay this: no event, row or view goes through ``quoted``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _timing import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "ghp_" + "Ab3dX9kQ" * 4 + "Zz1y"
VALUES = {
    "id": "ep_01K9ABCDEFGHJKMNPQRSTVWXYZ",
    "mistyped id": "ep_01M8X2CK8NJ4J5AYTY3105GWQx",
    "path": "/home/user/projects/agent-runs/2026-01-31/my_run",
    "key": KEY,
    "glued key": "x" * 70 + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A",
    "1 MB value": "y" * (1 << 20),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    from noesis_nb.secrets import quoted, shown

    for value in VALUES.values():  # the detectors load and compile once
        quoted(value), shown(value)
    print(f"{'value':<14} {'quoted':>10} {'repr(shown)':>12} {'ratio':>7}")
    for name, value in VALUES.items():
        ours = median(lambda v=value: quoted(v), args.repeat)
        base = median(lambda v=value: repr(shown(v)), args.repeat)
        print(f"{name:<14} {ours * 1e6:>8.0f}µs {base * 1e6:>10.0f}µs {ours / base:>6.1f}x")


if __name__ == "__main__":
    main()
