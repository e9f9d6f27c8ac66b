"""A span id is unique only within its trace: two episodes whose instrumentations give their spans the same ids
(an id generator that counts, as tests, replays and some tracers use; each trace its own) each get their own
model calls, none lost and none written into the other episode."""

from __future__ import annotations

import threading

import pytest

import noesis_nb

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.id_generator import IdGenerator  # noqa: E402


class Counting(IdGenerator):
    """Span ids 1, 2, 3 … in every trace; trace ids from a base (each tracer its own)."""

    def __init__(self, trace_base: int) -> None:
        self.trace_ids, self.span_ids = iter(range(trace_base, trace_base + 1000)), iter(range(1, 1000))

    def generate_span_id(self) -> int:
        return next(self.span_ids)

    def generate_trace_id(self) -> int:
        return next(self.trace_ids)


def _tracer(trace_base: int):
    provider = sdk_trace.TracerProvider(id_generator=Counting(trace_base))
    provider.add_span_processor(noesis_nb.capture.span_processor())
    return provider


def test_two_episodes_whose_spans_share_ids_keep_each_its_own_calls(runs_dir) -> None:
    providers = {"a": _tracer(1 << 64), "b": _tracer(2 << 64)}
    both_open, ids = threading.Barrier(2, timeout=10), {}

    def agent_of(name: str, tokens: int):
        def agent(task, ctx):
            tracer = providers[name].get_tracer("instrumentation")
            with tracer.start_as_current_span(f"chat {name}") as span:  # span id 1 in each episode's trace
                ids[name] = span.get_span_context().span_id
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.provider.name": "openai",
                        "gen_ai.request.model": f"model-{name}",
                        "gen_ai.usage.input_tokens": tokens,
                        "gen_ai.usage.output_tokens": 1,
                    }
                )
                both_open.wait()  # both spans open at once, then each ends in its own episode
            both_open.wait()
            return "ok"

        return agent

    episodes: dict[str, str] = {}

    def run(name: str, tokens: int) -> None:
        episodes[name] = noesis_nb.solve(name, using=agent_of(name, tokens), runs_dir=runs_dir, episode_id=f"ep_{name}")

    threads = [threading.Thread(target=run, args=(n, t)) for n, t in (("a", 100), ("b", 200))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for provider in providers.values():
        provider.shutdown()
    assert ids == {"a": 1, "b": 1}  # the same span id in both traces
    df = noesis_nb.usage_df(runs_dir)
    got = sorted(zip(df["episode_id"], df["model"].astype(str), df["input_tokens"].astype(int)))
    assert got == [("ep_a", "model-a", 100), ("ep_b", "model-b", 200)]
