"""The times the views print and the batch's clock read a stored time without an offset as UTC, in every zone.

``local_time`` (the timeline's clock) and ``local_when`` (the tables of runs) turned a time with an offset into
local time but printed one without an offset as stored: in Tokyo, "asked at 03:00" (UTC) sat beside local times.
The batch's clock read such a time as local time (``fromisoformat(...).timestamp()``). Each runs here in a process
with ``TZ`` set, and must agree with the same instant written with ``Z``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..conftest import REPO

PROBE = """
import json
from noesis_nb.widgets.render import local_time
from noesis_nb.widgets.snapshot import local_when
from noesis_nb.batch.plan import _epoch
out = {}
for name, stamp in (("naive", "2025-06-01T00:30:05.250000"), ("utc", "2025-06-01T00:30:05.250000Z")):
    out[name] = [local_time(stamp), local_when(stamp), _epoch(stamp)]
print(json.dumps(out))
"""


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo", "America/New_York", "Pacific/Kiritimati"])
def test_a_time_without_an_offset_is_the_same_instant_as_with_z(zone: str) -> None:
    env = {**os.environ, "TZ": zone, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["naive"] == seen["utc"], (zone, seen)
    assert seen["utc"][2] == 1748737805.25  # 2025-06-01T00:30:05.25Z
