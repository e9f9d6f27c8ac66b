"""Capture overhead: the same ``openai`` SDK call inside an episode with capture on and with capture off.

Two transports: a loopback HTTP server in another process (a real socket that stays open between
calls, as providers and local model servers keep it; in this process the server would compete for
the GIL) and an in-process mock transport (no network at all: the worst case for the ratio, since
the call is then nothing but the SDK's own work). Three arms: the bare call (no episode), the call
inside an episode with capture off, and with capture on; the target compares on with off (the
same episode, so only capture differs), and bare is printed to show what the episode itself adds.
Rounds run the three arms in the same process, in each of their six orderings in turn, so each arm
goes first as often and capture on runs before and after capture off equally often: the machine's
drift and one arm's leftovers (garbage, writes) fall on every side. Each on-round is paired with the
off-round of the same round. Printed: the median per-call
time of each arm, the medians of the paired ratios, and the best-of ratio (fastest on-round over
fastest off-round: the least disturbed by other load).
Then capture's own work per call, alone: the wrapper's start and its recording of a parsed
response, inside an episode, with no SDK call around it; and the same work timed in place, inside
real SDK calls, split into capture's own code and the event's write; and the write alone, a model.call beside a
small engine event, right after an SDK call (cold caches) and back to back. Real provider calls take hundreds of
milliseconds: the absolute cost per call (the ``+ µs`` figures) is what carries over.
A peer arm, when ``opentelemetry-instrumentation-openai-v2`` and ``opentelemetry-sdk`` are installed (no dependency of
noesis_nb; skipped with a note otherwise): the same bare call with the OpenTelemetry OpenAI instrumentation on, a real
``TracerProvider`` exporting each span to memory, its overhead printed beside capture's.
Usage: python benchmarks/bench_capture.py [--calls 100] [--rounds 31] [--short-key] [--no-peer]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import noesis_nb

ROOT = Path(__file__).resolve().parents[1]
MSG = [{"role": "user", "content": "hi"}]


CPU: dict[str, list[float]] = {}  # the calling thread's CPU seconds per call, by arm (``measure``)


def timed(client, calls: int, spin_s: float = 0.0, arm: str | None = None) -> float:
    """Seconds per SDK call, after one warm-up call (``spin_s``: a busy wait after each call).

    With ``arm``, the calling thread's CPU time per call is noted too: on a shared machine the
    wall clock also counts the waits for a core, which fall on the arms unevenly."""
    client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # warm
    c0 = time.thread_time()
    t0 = time.perf_counter()
    for _ in range(calls):
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        if spin_s:
            until = time.perf_counter() + spin_s
            while time.perf_counter() < until:
                pass
    wall = (time.perf_counter() - t0) / calls
    if arm is not None:
        CPU.setdefault(arm, []).append((time.thread_time() - c0) / calls)
    return wall


def per_call(client, calls: int, runs_dir: str, capture: bool, spin_s: float = 0.0, arm: str | None = None) -> float:
    """Seconds per SDK call, timed inside one episode's adapter."""
    box = {}

    def agent(task, ctx):
        box["t"] = timed(client, calls, spin_s, arm)
        return "ok"

    noesis_nb.solve("bench", using=agent, runs_dir=runs_dir, capture=capture)
    return box["t"]


class Peer:
    """The OpenTelemetry OpenAI instrumentation (``opentelemetry-instrumentation-openai-v2``) around the same bare call:
    a real ``TracerProvider`` whose spans go, one by one as they end, to an in-memory exporter (cleared after each
    round). Instrumented for its round only (it wraps ``Completions.create`` of every client). None when the packages
    are not installed: they are no dependency of noesis_nb, only a baseline here."""

    def __init__(self) -> None:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.instrumentor = OpenAIInstrumentor()

    @classmethod
    def load(cls) -> Peer | None:
        try:
            return cls()
        except ImportError as exc:
            print(f"peer arm skipped: the OpenTelemetry OpenAI instrumentation is not installed ({exc.name})")
            return None

    def timed(self, client, calls: int) -> float:
        """``timed`` with the instrumentation on; checks it made one span per call."""
        self.instrumentor.instrument(tracer_provider=self.provider)
        try:
            t = timed(client, calls, arm="otel")
        finally:
            self.instrumentor.uninstrument()
        spans = len(self.exporter.get_finished_spans())
        self.exporter.clear()
        assert spans == calls + 1, f"the OpenTelemetry instrumentation made {spans} spans for {calls + 1} calls"
        return t


def measure(name: str, client, calls: int, rounds: int, peer: Peer | None = None) -> None:
    arms: dict[str, list[float]] = {"bare": [], "off": [], "on": []}
    order = list(arms)
    # every ordering of the three arms in turn: each arm goes first, and capture on runs before and after
    # capture off, equally often (a rotation alone put "off" before "on" in two rounds of three)
    orderings = list(itertools.permutations(order))
    otel: list[float] = []
    CPU.clear()
    with tempfile.TemporaryDirectory() as runs:
        for i in range(rounds):
            ordering = list(orderings[i % len(orderings)])
            if peer is not None:  # the peer's bare call, in each of the four places in turn
                ordering.insert(i % 4, "otel")
            for arm in ordering:
                if arm == "otel":
                    assert peer is not None
                    otel.append(peer.timed(client, calls))
                    continue
                t = timed(client, calls, arm=arm) if arm == "bare" else per_call(client, calls, runs, arm == "on", arm=arm)
                arms[arm].append(t)
        logs = list(Path(runs).glob("*/events.jsonl"))
        model_calls = sum(1 for log in logs for line in log.open() if '"model.call"' in line)
    bare, off, on = (statistics.median(arms[k]) for k in order)
    paired = statistics.median(x / y for x, y in zip(arms["on"], arms["off"]))
    episode = statistics.median(x / y for x, y in zip(arms["off"], arms["bare"]))
    best = min(arms["on"]) / min(arms["off"])
    print(
        f"{name}: {on * 1e6:8.1f} µs/call with capture vs {off * 1e6:8.1f} µs without (+{(on - off) * 1e6:.1f} µs); "
        f"paired median {paired:.3f}×, best-of {best:.3f}× (+{(min(arms['on']) - min(arms['off'])) * 1e6:.1f} µs); "
        f"bare call, no episode: {bare * 1e6:.1f} µs (episode without capture {episode:.3f}× of it)"
    )
    cpu = {k: statistics.median(v) for k, v in CPU.items()}
    cpu_paired = statistics.median(x / y for x, y in zip(CPU["on"], CPU["off"]))
    print(
        f"{' ' * len(name)}  CPU of the calling thread: {cpu['on'] * 1e6:8.1f} µs/call with capture vs {cpu['off'] * 1e6:8.1f} "
        f"µs without (+{(cpu['on'] - cpu['off']) * 1e6:.1f} µs), paired median {cpu_paired:.3f}×; bare {cpu['bare'] * 1e6:.1f} µs"
    )
    if otel:  # the peer's overhead on the bare call, as ours is on the episode's call without capture
        peer_paired = statistics.median(x / y for x, y in zip(otel, arms["bare"]))
        peer_cpu = statistics.median(x / y for x, y in zip(CPU["otel"], CPU["bare"]))
        peer_on = statistics.median(otel)
        print(
            f"{' ' * len(name)}  peer, OpenTelemetry OpenAI instrumentation (a TracerProvider, spans to memory) on the bare "
            f"call: {peer_on * 1e6:8.1f} µs/call vs {bare * 1e6:8.1f} µs (+{(peer_on - bare) * 1e6:.1f}"
            f" µs), paired median {peer_paired:.3f}×, CPU +{(statistics.median(CPU['otel']) - cpu['bare']) * 1e6:.1f} µs "
            f"({peer_cpu:.3f}×); capture: paired median {paired:.3f}×, CPU {cpu_paired:.3f}×"
        )
    assert model_calls == rounds * (calls + 1), f"{model_calls} calls recorded: only the captured rounds record, each call once"


def own_work(calls: int) -> None:
    """Capture's own work per call: the wrapper's start and the recording of a parsed response, with no SDK call."""
    from openai._models import FinalRequestOptions
    from openai.types.chat import ChatCompletion

    from noesis_nb.capture import hooks
    from tests.capture.provider_stub import DEFAULT, chat_completion

    # a response and request id of their real shape, new for each call as a server's are: the same id every time
    # would be judged once and remembered (``secrets.text``), a cost real calls pay each time
    responses = []
    for i in range(calls + 100):
        response = ChatCompletion.model_validate(chat_completion("gpt-4o-mini", DEFAULT, f"{i:04x}{'5e' * 14}"))
        response._request_id = f"req_{i:04x}{'7a' * 14}"
        responses.append(response)
    options = FinalRequestOptions.construct(
        method="post", url="/chat/completions", json_data={"model": "gpt-4o-mini", "messages": MSG}
    )
    box: dict[str, float] = {}

    def agent(task, ctx):
        for response in responses[:100]:  # warm
            hooks._returned(hooks._begin("openai", (None, options), {}), response, (None, None))
        t0 = time.perf_counter()
        for response in responses[100:]:
            hooks._returned(hooks._begin("openai", (None, options), {}), response, (None, None))
        box["t"] = (time.perf_counter() - t0) / calls
        return "ok"

    with tempfile.TemporaryDirectory() as runs:
        times = []
        for _ in range(5):
            noesis_nb.solve("bench", using=agent, runs_dir=runs)
            times.append(box["t"])
    median, best = statistics.median(times) * 1e6, min(times) * 1e6
    print(
        f"capture's own work per call (wrapper start + one model.call event written): median {median:.1f} µs, best {best:.1f} µs"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument(
        "--short-key",
        action="store_true",
        help="give the clients the 8-character key 'sk-bench' (too short to be learned) as earlier runs did",
    )
    parser.add_argument("--no-peer", action="store_true", help="leave out the OpenTelemetry instrumentation's arm")
    args = parser.parse_args()
    # a key as long as a provider's: the run learns it (a client's key is a secret the run never holds), so every event
    # of the episode is screened for it, as in a real agent's run
    key = "sk-bench" if args.short_key else "sk-" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=48))
    print(f"clients' API key: {len(key)} characters ({'not learned' if args.short_key else 'learned by the run'})")
    import httpx2
    import openai

    sys.path.insert(0, str(ROOT))
    from tests.capture.provider_stub import DEFAULT, chat_completion

    peer = None if args.no_peer else Peer.load()

    code = (
        "from tests.capture.provider_stub import ProviderStub; "
        "s = ProviderStub(keep_alive=True); print(s.url, flush=True); input()"
    )
    server = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        loopback = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
        measure("loopback HTTP server     ", loopback, args.calls, args.rounds, peer)
    finally:
        server.communicate("\n", timeout=10)
    serial = itertools.count()

    def reply(request):  # ids new for each call, as a server's are (one id on every call is a shared id, said apart)
        i = next(serial)
        body = json.dumps(chat_completion("gpt-4o-mini", DEFAULT, f"{i:04x}{'5e' * 14}")).encode()
        headers = {"content-type": "application/json", "x-request-id": f"req_{i:04x}{'7a' * 14}"}
        return httpx2.Response(200, content=body, headers=headers)

    mock = openai.OpenAI(
        base_url="http://stub.invalid/v1",
        api_key=key,
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(reply)),
    )
    measure("in-process mock transport", mock, args.calls, args.rounds, peer)
    own_work(2000)
    in_place(mock, args.calls, args.rounds)
    writes(mock, args.calls, args.rounds)
    between_calls(mock, args.calls, args.rounds)


def in_place(client, calls: int, rounds: int) -> None:
    """Capture's time inside real SDK calls (mock transport), split: its start and its reading of the response, and
    the event's write (the recorder's screen, line and bookkeeping), timed around each with ``perf_counter_ns``."""
    from noesis_nb.capture import hooks
    from noesis_nb.capture.scope import current

    spent = {"start": 0, "end": 0, "write": 0}
    begin, returned = hooks._begin, hooks._returned

    def timed_begin(*args, **kwargs):
        t0 = time.perf_counter_ns()
        try:
            return begin(*args, **kwargs)
        finally:
            spent["start"] += time.perf_counter_ns() - t0

    def timed_returned(*args, **kwargs):
        t0 = time.perf_counter_ns()
        try:
            return returned(*args, **kwargs)
        finally:
            spent["end"] += time.perf_counter_ns() - t0

    per: dict[str, list[float]] = {k: [] for k in spent}

    def agent(task, ctx):
        scope = current()
        emit = scope.emit

        def timed_emit(*args):
            t0 = time.perf_counter_ns()
            try:
                return emit(*args)
            finally:
                spent["write"] += time.perf_counter_ns() - t0

        scope.emit = timed_emit
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # warm
        for key in spent:
            spent[key] = 0
        for _ in range(calls):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        for key, ns in spent.items():
            per[key].append(ns / calls / 1000)
        return "ok"

    hooks._begin, hooks._returned = timed_begin, timed_returned
    try:
        with tempfile.TemporaryDirectory() as runs:
            for _ in range(rounds):
                noesis_nb.solve("bench", using=agent, runs_dir=runs)
    finally:
        hooks._begin, hooks._returned = begin, returned
    start, end, write = (statistics.median(per[k]) for k in ("start", "end", "write"))
    print(
        f"in place (mock calls, medians): capture's start {start:.1f} µs + its end {end:.1f} µs per call, the end holding "
        f"the event's write {write:.1f} µs: capture's own code {start + end - write:.1f} µs"
    )


def writes(client, calls: int, rounds: int) -> None:
    """The event write alone, in place and in a tight loop: a ``model.call`` as capture writes it (fresh ids each call, as
    a server's are) and a small engine event, each timed right after an SDK call (capture off: the SDK's work between
    two writes leaves the caches cold, as in a real episode) and back to back (warm, as ``bench_engine.py`` writes).
    Timed on the calling thread's CPU clock: on a shared machine a wall clock also counts the waits for a core."""
    from tests.capture.provider_stub import DEFAULT

    base = {
        "event_name": "model.call",
        "model": "gpt-4o-mini-2024-07-18",
        "provider": "openai",
        "input_tokens": DEFAULT["input"],
        "output_tokens": DEFAULT["output"],
        "cached_input_tokens": DEFAULT["cached"],
        "cache_write_input_tokens": None,
        "reasoning_tokens": DEFAULT["reasoning"],
        "latency_ms": 0.0,
        "cost_usd": None,
        "api": "chat.completions",
        "capture": "openai",
        "requested_model": "gpt-4o-mini",
        "request_id": None,
        "response_id": None,
        "stop_reason": "stop",
        "streamed": False,
    }
    per: dict[str, list[float]] = {"model cold": [], "plain cold": [], "model warm": [], "plain warm": []}
    serial = itertools.count()

    def model_payload() -> dict:
        i = next(serial)
        ids = {"request_id": f"req_{i:06x}{'7a' * 12}", "response_id": f"chatcmpl-{i:06x}{'5e' * 12}"}
        return {**base, **ids, "latency_ms": i / 1000}

    def agent(task, ctx):
        spent = dict.fromkeys(per, 0)
        model = [model_payload() for _ in range(2 * calls)]
        plain = [{"step": i, "note": f"step {i}"} for i in range(2 * calls)]
        for i in range(calls):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            t0 = time.thread_time_ns()
            ctx.emit_captured(model[i], "model:openai")
            spent["model cold"] += time.thread_time_ns() - t0
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            t0 = time.thread_time_ns()
            ctx.emit("step", plain[i])
            spent["plain cold"] += time.thread_time_ns() - t0
        t0 = time.thread_time_ns()
        for payload in model[calls:]:
            ctx.emit_captured(payload, "model:openai")
        spent["model warm"] = time.thread_time_ns() - t0
        t0 = time.thread_time_ns()
        for payload in plain[calls:]:
            ctx.emit("step", payload)
        spent["plain warm"] = time.thread_time_ns() - t0
        for key, ns in spent.items():
            per[key].append(ns / calls / 1000)
        return "ok"

    with tempfile.TemporaryDirectory() as runs:
        for _ in range(rounds):
            noesis_nb.solve("bench", using=agent, runs_dir=runs, capture=False)
    m = {k: statistics.median(v) for k, v in per.items()}
    print(
        f"one event's write (the thread's CPU, medians): a model.call {m['model cold']:.1f} µs right after an SDK call, "
        f"{m['model warm']:.1f} µs back to back; a small engine event {m['plain cold']:.1f} µs and {m['plain warm']:.1f} µs"
    )


def between_calls(client, calls: int, rounds: int, spin_s: float = 30e-6) -> None:
    """What 30 µs of plain work between two SDK calls adds, capture off: work there runs with cold caches. Also on the
    calling thread's CPU clock, which a shared machine's waits for a core do not reach."""
    plain, spun = [], []
    CPU.clear()
    with tempfile.TemporaryDirectory() as runs:
        for _ in range(rounds):
            plain.append(per_call(client, calls, runs, False, arm="plain"))
            spun.append(per_call(client, calls, runs, False, spin_s, arm="spun"))
    added = (statistics.median(spun) - statistics.median(plain)) * 1e6
    cpu = (statistics.median(CPU["spun"]) - statistics.median(CPU["plain"])) * 1e6
    print(
        f"a {spin_s * 1e6:.0f} µs busy wait between mock calls (capture off) adds {added:.1f} µs per call (median), "
        f"{cpu:.1f} µs of the calling thread's CPU"
    )


if __name__ == "__main__":
    main()
