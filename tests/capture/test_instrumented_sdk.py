"""An SDK instrumented by OpenInference (which sets its own ``OpenAI.request``): every call is still captured, once,
in whichever order the instrumentation and capture came, and the instrumentation keeps making its spans."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("openinference.instrumentation.openai")
pytest.importorskip("opentelemetry.sdk")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import openai
    from openinference.instrumentation.openai import OpenAIInstrumentor

    import noesis_nb
    from tests.capture.provider_stub import ProviderStub

    order, runs = sys.argv[1], Path(sys.argv[2])
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    stub = ProviderStub()
    extra = {"stub_usage": {"input": 3000, "cached": 2048, "output": 120, "reasoning": 64}}


    def agent(task, ctx):
        sync = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        sync.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], extra_body=extra)
        chunks = sync.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], stream=True,
            stream_options={"include_usage": True}, extra_body=extra,
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        sync.responses.create(model="o4-mini", input="hi", extra_body=extra)
        sync.embeddings.create(model="text-embedding-3-small", input="hi", extra_body=extra)
        return text


    def calls(episode):
        lines = (runs / episode / "events.jsonl").read_text().splitlines()
        return [e["payload"] for e in map(json.loads, lines) if e["phase"] == "model"]


    out = {}
    instrumentor = OpenAIInstrumentor()
    if order == "instrumented first":
        instrumentor.instrument(tracer_provider=provider)
        out["episode"] = calls(noesis_nb.solve("a", using=agent, runs_dir=runs))
    else:  # capture installed by a first episode, then the instrumentation set over it
        out["before"] = calls(noesis_nb.solve("a", using=agent, runs_dir=runs))
        instrumentor.instrument(tracer_provider=provider)
        out["episode"] = calls(noesis_nb.solve("b", using=agent, runs_dir=runs))
    out["spans"] = len(exporter.get_finished_spans())
    instrumentor.uninstrument()
    out["after"] = calls(noesis_nb.solve("c", using=agent, runs_dir=runs))
    stub.close()
    print(json.dumps(out))
    """
)

EXPECTED = [
    ("chat.completions", False, (3000, 2048, None, 120, 64)),
    ("chat.completions", True, (3000, 2048, None, 120, 64)),
    ("responses", False, (3000, 2048, None, 120, 64)),
    ("embeddings", False, (3000, None, None, 0, None)),
]


def _shape(calls):
    keys = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens")
    return [(c["api"], c["streamed"], tuple(c[k] for k in keys)) for c in calls]


@pytest.mark.parametrize("order", ["instrumented first", "captured first"])
def test_calls_of_an_sdk_openinference_instrumented_are_captured_once(order, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, order, str(runs)], cwd=ROOT, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    for when in ("before", "episode", "after"):
        if when in out:
            # the SDK's own calls, each once with every count (no second event from the instrumentation's span)
            assert _shape(out[when]) == EXPECTED, when
            assert all(c["capture"] == "openai" for c in out[when]), when
    assert out["spans"] >= 4, "the instrumentation still makes its spans"
