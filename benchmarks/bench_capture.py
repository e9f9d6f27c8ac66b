"""Capture overhead: the same ``openai`` SDK call inside an episode with capture on and with capture off.

Two transports: a loopback HTTP server in another process (a real socket, what a local model
server costs at least; in this process it would compete for the GIL) and an in-process mock
transport (no network at all: the worst case for the ratio, since the call is then nothing but
the SDK's own work). Rounds alternate on and off in the same process; the per-call time is the
median over rounds. Real provider calls take hundreds of milliseconds: the absolute cost per call
(the ``+ µs`` figure) is what carries over. Usage: python benchmarks/bench_capture.py [--calls 300] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import noesis_nb

ROOT = Path(__file__).resolve().parents[1]
MSG = [{"role": "user", "content": "hi"}]


def per_call(client, calls: int, runs_dir: str, capture: bool) -> float:
    """Seconds per SDK call, timed inside one episode's adapter."""
    box = {}

    def agent(task, ctx):
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # warm
        t0 = time.perf_counter()
        for _ in range(calls):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        box["t"] = (time.perf_counter() - t0) / calls
        return "ok"

    noesis_nb.solve("bench", using=agent, runs_dir=runs_dir, capture=capture)
    return box["t"]


def measure(name: str, client, calls: int, rounds: int) -> None:
    on, off = [], []
    with tempfile.TemporaryDirectory() as runs:
        for i in range(rounds):  # alternate which goes first, so warm-up and drift fall on both sides
            for capture in (False, True) if i % 2 else (True, False):
                (on if capture else off).append(per_call(client, calls, runs, capture))
        logs = list(Path(runs).glob("*/events.jsonl"))
        model_calls = sum(1 for log in logs for line in log.open() if '"model.call"' in line)
    a, b = statistics.median(off), statistics.median(on)
    print(f"{name}: {b * 1e6:8.1f} µs/call with capture vs {a * 1e6:8.1f} µs without: {b / a:.3f}× (+{(b - a) * 1e6:.1f} µs)")
    assert model_calls == rounds * (calls + 1), f"{model_calls} calls recorded: only the captured rounds record, each call once"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import httpx2
    import openai

    sys.path.insert(0, str(ROOT))
    from tests.capture.provider_stub import DEFAULT, chat_completion

    code = "from tests.capture.provider_stub import ProviderStub; s = ProviderStub(); print(s.url, flush=True); input()"
    server = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        loopback = openai.OpenAI(base_url=url + "/v1", api_key="sk-bench", max_retries=0)
        measure("loopback HTTP server     ", loopback, args.calls, args.rounds)
    finally:
        server.communicate("\n", timeout=10)
    body = json.dumps(chat_completion("gpt-4o-mini", DEFAULT, "0001")).encode()

    def reply(request):
        return httpx2.Response(200, content=body, headers={"content-type": "application/json", "x-request-id": "req_1"})

    mock = openai.OpenAI(
        base_url="http://stub.invalid/v1",
        api_key="sk-bench",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(reply)),
    )
    measure("in-process mock transport", mock, args.calls, args.rounds)


if __name__ == "__main__":
    main()
