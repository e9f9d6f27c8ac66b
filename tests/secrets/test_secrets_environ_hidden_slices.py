"""A frame's column hidden of the environment's secrets is tested slice by slice: a column past the walk's budget
(10,000 containers, ~5,400 event payloads) had every row scrubbed one by one (3x the cost), though few held one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from noesis_nb.secrets import display
from noesis_nb.secrets.display import environ_hidden
from noesis_nb.secrets.environ import environ_secrets
from noesis_nb.secrets.guard import RunSecrets

_SECRET = "Tr0ub4dor&3xyzzyPlughQ"


def _row(i: int, secret: bool) -> dict[str, Any]:
    text = f"step {i} said {_SECRET}" if secret else f"step {i} said nothing much"
    return {"text": text, "chunks": [{"type": "text", "text": f"part {i}"}, {"n": i}], "tags": ["a", str(i)]}


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> RunSecrets:
    monkeypatch.setenv("SLICES_DB_PASSWORD", _SECRET)
    reference = RunSecrets()
    reference.learn_environ(environ_secrets())
    return reference


@pytest.mark.parametrize("seed", range(4))
def test_slices_hide_what_scrubbing_every_row_hides(guard: RunSecrets, seed: int) -> None:
    size = display._SLICE
    rng = random.Random(seed)
    count = size * 3 + rng.randrange(size)
    # the secret at each slice's first and last row, and at a few rows drawn at random
    holding = {0, size - 1, size, 2 * size - 1, 2 * size, count - 1} | {rng.randrange(count) for _ in range(5)}
    values: list[Any] = [_row(i, i in holding) for i in range(count)]
    values += [f"plain text {i}" for i in range(size)] + [f"text {_SECRET[:5]}-{_SECRET[5:]}", f"{_SECRET} text"]
    out = environ_hidden(values)
    assert out is not None
    assert out == [guard.scrub(value) for value in values]
    assert sum(_SECRET in str(value) for value in out) == 0


def test_a_long_column_scrubs_only_the_slices_holding_a_secret(guard: RunSecrets, monkeypatch: pytest.MonkeyPatch) -> None:
    count = 12_000  # ~24,000 containers: past the walk's budget in one text
    holding = {7, 11_000}
    values = [_row(i, i in holding) for i in range(count)]
    scrubbed: list[Any] = []
    scrub = RunSecrets.scrub

    def counted(self: RunSecrets, value: Any) -> Any:
        scrubbed.append(value)
        return scrub(self, value)

    monkeypatch.setattr(RunSecrets, "scrub", counted)
    out = environ_hidden(values)
    assert out is not None
    changed = [i for i, (a, b) in enumerate(zip(out, values)) if a is not b]
    assert changed == sorted(holding)
    assert _SECRET not in str([out[i] for i in holding])
    assert len(scrubbed) < count // 10  # the slices holding it, not all 12,000 rows
