"""Once this process has learned a value (a run's client key, a password an episode named), every frame hides it
in its text columns, on every load. A warm load serves the same cached payloads in new columns: each was judged
again (one JSON pass over every payload), which made a warm ``events_df`` of 1,000 runs ~6× slower than with
nothing learned. What was judged free of the same learned values is not judged again; a value learned since is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .runkit import basic_events, write_run

CHILD = """
import sys, warnings
warnings.simplefilter("ignore")
import orjson
import noesis_nb
from noesis_nb.frames import learnedtext
from noesis_nb.secrets import guard
root, first, second = sys.argv[1], sys.argv[2], sys.argv[3]
judged = []
real = orjson.dumps

class Counted:
    JSONDecodeError = orjson.JSONDecodeError
    JSONEncodeError = orjson.JSONEncodeError
    loads = staticmethod(orjson.loads)

    @staticmethod
    def dumps(obj, *args, **kwargs):
        judged.append(1)
        return real(obj, *args, **kwargs)

learnedtext.orjson = Counted
guard.for_run("ep_elsewhere_1").learn([first])
noesis_nb.events_df(root)
judged.clear()
df = noesis_nb.events_df(root)
print("warm", sum(judged), first in repr(df.payload.tolist()))
guard.for_run("ep_elsewhere_2").learn([second])
judged.clear()
df = noesis_nb.events_df(root)
print("learned", sum(judged) > 0, second in repr(df.payload.tolist()))
"""


def test_a_warm_load_judges_no_payload_again_and_a_value_learned_since_is_hidden(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    first, second = "plainword-Kestrel-44-orchid", "plainword-Heron-71-tulip"
    for n in range(40):
        ep = f"ep_warm_{n:03d}"
        events = basic_events(ep)
        events[0]["payload"]["task"] = f"task {n}: {second if n == 7 else 'nothing'}"
        write_run(root, ep, events)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), first, second], capture_output=True, text=True, timeout=300, check=True
    ).stdout.split("\n")
    assert out[0] == "warm 0 False", out  # every payload was judged on the first load: no JSON pass again
    assert out[1] == "learned True False", out  # the value learned since is looked for, and hidden
