"""The secret screen takes time linear in the text's length, whatever the text.

Every event, tool output and foreign frame is screened on the kernel's thread: a pattern that retries a
long scan from every start froze it for minutes (``secret_`` repeated over 40 KB took 9 minutes). The
screen is timed in a child process, so a slow pattern fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# each shape repeated to the text's length; then the shapes that are one start followed by a long run
_UNITS = [
    "secret_",
    "sk-",
    "sk-a",
    "sk-ant-",
    "//a",
    "eyJ",
    "eyJa",
    "AKIA",
    "ghp_",
    "://a:",
    "://a@",
    "https://",
    "https://a:",
    "AIza",
    "glpat-a",
    "password: .",
    "password'a",
    'api_key:"',
    "curl -u ",
    "mysql -p ",
    "Call `foo()` then `bar` and password ",  # Markdown with inline code: a backtick opens a compared value
    "password `a ",  # a backtick opening a value no ``X`;`` closes, after every keyword of a long stretch
    "secret `a` ",
    "\n pwd`a",
]
_RUNS = ["cl_key" + " ", "ibm_cloud_key" + " ", "sl_key" + " ", "password" + " ", "curl -u ="]

_CHILD = """
import json, sys, time
from noesis_nb.secrets.text import find_in_text
units, runs, sizes = json.loads(sys.argv[1])
times = {}
for name, texts in (("unit", units), ("run", runs)):
    for u in texts:
        for size in sizes:
            text = (u * (size // len(u) + 1))[:size] if name == "unit" else (u + u[-1] * size)[:size] + "x"
            start = time.perf_counter()
            find_in_text(text)
            times.setdefault(u, []).append(time.perf_counter() - start)
print(json.dumps(times))
"""


@pytest.mark.parametrize("chunk", [_UNITS[:12], _UNITS[12:] + _RUNS])
def test_screen_time_grows_linearly_on_adversarial_text(chunk: list[str]) -> None:
    """Each shape at 100 KB takes less than 8 times as long as at 25 KB (a quadratic pattern takes 16
    times, and took minutes), with half a second of slack for a loaded machine."""
    units = [u for u in chunk if u in _UNITS]
    runs = [u for u in chunk if u in _RUNS]
    args = json.dumps([units, runs, [25_000, 100_000]])
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD, args], capture_output=True, text=True, timeout=120, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"screening 25 KB and 100 KB texts of {chunk} took over 2 minutes")
    for unit, (small, large) in json.loads(out.stdout).items():
        assert large < 8 * small + 0.5, f"{unit!r}: {small:.2f} s at 25 KB, {large:.2f} s at 100 KB"


_WIDEN_CHILD = """
import json, sys, time
from noesis_nb.secrets.linear import widen_all
times = []
for size in json.loads(sys.argv[1]):
    keys = [f"AKIA{n * 7919:016d}" for n in range(size // 21)]
    text = " ".join(keys)
    start = time.perf_counter()
    widen_all(text, keys)
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def test_widening_time_grows_linearly_with_distinct_values() -> None:
    """Widening 400 KB of distinct access keys, each a value found, takes less than 8 times as long as 100 KB
    (a search of the text per value takes 16 times: 32,000 keys in 670 KB took 20 s)."""
    args = json.dumps([100_000, 400_000])
    try:
        out = subprocess.run([sys.executable, "-c", _WIDEN_CHILD, args], capture_output=True, text=True, timeout=120, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail("widening 100 KB and 400 KB of distinct keys took over 2 minutes")
    small, large = json.loads(out.stdout)
    assert large < 8 * small + 0.5, f"{small:.2f} s at 100 KB, {large:.2f} s at 400 KB"
