"""The token rule on generated provider usage and span attributes: totals include their parts, unknown stays None."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from noesis_nb.capture import usage
from noesis_nb.capture.spans import span_payload

counts = st.none() | st.integers(min_value=0, max_value=10**7)


@given(prompt=counts, completion=counts, cached=counts, reasoning=counts, as_dict=st.booleans())
def test_openai_counts_are_taken_as_totals_with_their_parts(prompt, completion, cached, reasoning, as_dict):
    raw = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }
    obj = raw if as_dict else type("U", (), {**raw, "prompt_tokens_details": type("P", (), {"cached_tokens": cached})})()
    got = usage.openai_chat(obj)
    assert got["input_tokens"] == prompt and got["output_tokens"] == completion
    # a part above its total contradicts it: unknown, the total kept (before: kept, and usage_df refused the run)
    fits_in = cached is None or prompt is None or cached <= prompt
    assert got["cached_input_tokens"] == (cached if fits_in else None) and got["cache_write_input_tokens"] is None
    fits_out = reasoning is None or completion is None or reasoning <= completion
    assert got["reasoning_tokens"] == (reasoning if fits_out else None)  # a model holding a JSON dict is read the same way


@given(uncached=counts, read=counts, written=counts, output=counts)
def test_anthropic_input_total_adds_the_cache_reads_and_writes(uncached, read, written, output):
    got = usage.anthropic(
        {
            "input_tokens": uncached,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
            "output_tokens": output,
        }
    )
    assert got["input_tokens"] == (None if uncached is None else uncached + (read or 0) + (written or 0))
    assert (got["cached_input_tokens"], got["cache_write_input_tokens"], got["output_tokens"]) == (read, written, output)
    assert got["reasoning_tokens"] is None
    if got["input_tokens"] is not None:
        assert (read or 0) + (written or 0) <= got["input_tokens"]


@given(start=counts, delta=counts)
def test_a_message_delta_count_overrides_message_start_and_null_keeps_it(start, delta):
    merged = usage.merge_anthropic({"input_tokens": 5, "output_tokens": start}, {"output_tokens": delta})
    assert merged["output_tokens"] == (delta if delta is not None else start) and merged["input_tokens"] == 5


bad = st.sampled_from([True, -1, "12", 1.5, float("nan"), [], {}])


@given(value=bad)
def test_a_count_that_is_not_a_count_is_unknown_never_a_plausible_number(value):
    assert usage.count(value) is None
    assert (
        span_payload({"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": value}, start_ns=0, end_ns=1)["input_tokens"]
        is None
    )


@given(inp=counts, read=counts, out=counts, reasoning=counts, operation=st.sampled_from(["chat", "execute_tool", "invoke_agent"]))
def test_span_attributes_follow_the_conventions_and_only_model_operations_count(inp, read, out, reasoning, operation):
    attrs = {
        "gen_ai.operation.name": operation,
        "gen_ai.request.model": "m",
        "gen_ai.usage.input_tokens": inp,
        "gen_ai.usage.cache_read.input_tokens": read,
        "gen_ai.usage.output_tokens": out,
        "gen_ai.usage.reasoning.output_tokens": reasoning,
    }
    got = span_payload({k: v for k, v in attrs.items() if v is not None}, start_ns=1_000_000, end_ns=3_500_000)
    if operation != "chat":
        assert got is None
        return
    # a part above its total contradicts it: unknown, the total kept, and said (the SDK capture's rule; before, both
    # were written and usage_df(strict=True) refused the run)
    read_over = None not in (inp, read) and read > inp
    thought_over = None not in (out, reasoning) and reasoning > out
    assert (got["input_tokens"], got["cached_input_tokens"], got["output_tokens"], got["reasoning_tokens"]) == (
        inp,
        None if read_over else read,
        out,
        None if thought_over else reasoning,
    )
    assert got["cache_write_input_tokens"] is None and got["latency_ms"] == 2.5
    assert ("usage_warning" in got) == (read_over or thought_over)


class _Raising:
    """A usage model (a wrapped or hand-built response) one of whose fields raises when read."""

    def __init__(self, broken: str, **fields: object):
        self._broken, self._fields = broken, fields

    def __getattr__(self, name: str) -> object:
        if name == self._broken:
            raise RuntimeError(f"{name} cannot be read")
        if name in self._fields:
            return self._fields[name]
        raise AttributeError(name)


def test_a_field_that_raises_is_unknown_and_the_fields_after_it_are_still_read():
    chat = _Raising(
        "prompt_tokens_details", prompt_tokens=120, completion_tokens=30, completion_tokens_details={"reasoning_tokens": 7}
    )
    got = usage.openai_chat(chat)
    assert (got["input_tokens"], got["output_tokens"], got["reasoning_tokens"]) == (120, 30, 7)
    assert got["cached_input_tokens"] is None  # the field that raised: unknown, not 0
    messages = _Raising("cache_read_input_tokens", input_tokens=50, cache_creation_input_tokens=10, output_tokens=5)
    got = usage.anthropic(messages)
    assert (got["input_tokens"], got["cache_write_input_tokens"], got["output_tokens"]) == (60, 10, 5)
    assert got["cached_input_tokens"] is None


def test_every_provider_reading_gives_the_run_format_token_fields_in_order():
    """The readers spell the token columns out (no zip on the hot path): they must stay the run format's."""
    from noesis_nb.store.vocab import TOKEN_FIELDS

    shapes = {
        usage.openai_chat: {"prompt_tokens": 9, "completion_tokens": 4},
        usage.openai_responses: {"input_tokens": 9, "output_tokens": 4},
        usage.anthropic: {"input_tokens": 9, "output_tokens": 4},
    }
    for read, raw in shapes.items():
        assert tuple(read(raw)) == tuple(TOKEN_FIELDS), read.__name__
