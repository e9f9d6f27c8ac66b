"""Recorded traces as runs: a Noetic stream log (+ HarnessResponse) and a Taisce transcript.

Both become sealed Noēsis runs, so ``runs_df`` / ``events_df`` / ``usage_df`` and the view load
them. The Taisce memory injection is an untrusted ``memory`` row, never the user's words.
"""

import json

from noesis_nb import events_df
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.taisce import MEMORY_PREFIX, import_taisce

noetic_log = [  # what a few lines of TypeScript write from getFullStream()
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1"}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "The build "}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "is green."}},
    {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 812}},
]
harness_response = {"usage": {"inputTokens": 1400, "outputTokens": 60}, "cost": 0.0031, "text": "The build is green."}

transcript = [
    {
        "role": "user",
        "name": "taisce",
        "additional_kwargs": {"taisce.untrusted": True},
        "content": MEMORY_PREFIX
        + "\n"
        + json.dumps(
            {
                "watermark": {"stored": 40, "formed": 38, "parked": 0},
                "plan": {"degraded": False},
                "facts": [{"statement": "Ana prefers tea"}],
                "reports": [],
                "passages": [],
            }
        ),
    },
    {"role": "user", "content": "What should I bring Ana?"},
    {"role": "assistant", "content": "Tea."},
]

if __name__ == "__main__":
    noetic = import_noetic(noetic_log, harness_response, task="check the build", runs_dir="runs")
    taisce = import_taisce(transcript, task="gift idea", runs_dir="runs")
    for episode in (noetic, taisce):
        df = events_df(f"runs/{episode}")
        mine = df["payload"].map(lambda p: isinstance(p, dict) and p.get("source") in ("noetic", "taisce"))
        print(episode, df[mine][["phase", "event_name"]].to_string())
