"""Reading name/value pairs written as text stays linear on a long line of prose that names a secret.

One line holding ``password`` once and ``value:`` many times (``password reset flow: step 0 value: ok step 1 value:
ok …``, ordinary in a tool's log) sent the reversed pair's pattern back through every shorter cut of each value, each
with its 200 characters between: 5.6 KB took 16.8 s to screen, 100 KB did not end in 300 s. CPU time, so load does not
move the bound; the same text at a quarter of the length bounds the growth."""

from __future__ import annotations

import time

from noesis_nb.secrets import pairs
from noesis_nb.secrets.text import find_in_text


def _cpu(fn, text: str) -> float:
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        fn(text)
        best = min(best, time.process_time() - started)
    return best


def test_a_long_line_of_values_without_a_name_after_is_read_in_linear_time() -> None:
    long = "password reset flow: " + " ".join(f"step {i} value: ok" for i in range(6000))  # ~110 KB, one line
    short = "password reset flow: " + " ".join(f"step {i} value: ok" for i in range(1500))
    assert list(pairs.named_values(long)) == []
    took_long, took_short = _cpu(lambda t: list(pairs.named_values(t)), long), _cpu(lambda t: list(pairs.named_values(t)), short)
    assert took_long < 2.0, f"{took_long:.2f} s CPU for {len(long)} characters"
    assert took_long < 8 * took_short + 0.05, (took_long, took_short)  # quadratic would be 16x
    assert _cpu(find_in_text, long) < 4.0


def test_the_pairs_are_still_found_around_such_a_line() -> None:
    noise = " ".join(f"step {i} value: ok" for i in range(3000))
    text = f"{noise}\n- name: DB_PASSWORD\n  value: Zorblax-71Qw\n{noise}\n" + '{"value": "Quibble-93Xr", "name": "API_TOKEN"}'
    assert set(pairs.named_values(text)) == {"Zorblax-71Qw", "Quibble-93Xr"}
