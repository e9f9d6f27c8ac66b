"""Provider usage objects → the canonical token counts (input/output totals; cached, cache-write, reasoning parts).

Each function takes the SDK's usage model or the same thing as a JSON dict (a raw response body),
and returns the five ``TOKEN_FIELDS``; a count the provider did not report is None, never 0.

- OpenAI Chat Completions: ``prompt_tokens`` is the input total and includes
  ``prompt_tokens_details.cached_tokens`` and ``.cache_write_tokens`` (the prompt tokens written to
  the cache; older responses leave it out: unknown); ``completion_tokens`` includes
  ``completion_tokens_details.reasoning_tokens``.
- OpenAI Responses: ``input_tokens`` (with ``input_tokens_details.cached_tokens`` and
  ``.cache_write_tokens``) and ``output_tokens`` (with ``output_tokens_details.reasoning_tokens``),
  the same rule.
  A response's ``output`` items of type ``web_search_call`` are its web searches, billed per search
  (``web_searches``; kept as ``web_search_requests``, one of ``store.vocab.BILLED_COUNTS``).
- Anthropic Messages: ``input_tokens`` counts only the uncached input, so the total is
  ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``; reasoning (thinking)
  is part of ``output_tokens`` and not reported apart. The 1-hour part of the cache writes
  (``cache_creation.ephemeral_1h_input_tokens``) and the server-side web searches
  (``server_tool_use.web_search_requests``) are billed apart: kept as ``store.vocab.BILLED_COUNTS``.
"""

from __future__ import annotations

from typing import Any

from ..secrets.display import shown_cut

__all__ = [
    "get",
    "fields",
    "count",
    "text",
    "MAX_COUNT",
    "MAX_TEXT",
    "openai_chat",
    "openai_responses",
    "web_searches",
    "openai_embeddings",
    "anthropic",
    "fitted_counts",
    "Counts",
]

Counts = dict[str, int | None]


def get(obj: Any, name: str) -> Any:
    """``obj.name`` or ``obj[name]`` (SDK model or JSON dict); None when absent.

    A field that raises when read (a property of a wrapped or hand-built response) is None too: one field
    that cannot be read loses only itself, not the fields read after it (the usage, the stop reason)."""
    if obj is None:
        return None
    try:
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    except Exception:
        return None


def fields(obj: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    """``get(obj, name)`` for each of ``names``, read in one call (a captured call reads several fields of each object)."""
    if obj is None:
        return (None,) * len(names)
    try:
        if isinstance(obj, dict):
            return tuple(map(obj.get, names))
        return tuple([getattr(obj, name, None) for name in names])
    except Exception:  # a field that raises when read: each read on its own, that one None
        return tuple([get(obj, name) for name in names])


#: counts are below this: from it on a number is not exact as the float64 a data frame reads (the frames' own bound)
MAX_COUNT = 2**53


def count(value: Any) -> int | None:
    """A token count as an int from 0 to below ``MAX_COUNT``, or None (a bool, text, negative or huge number is not a count).

    A huge number is refused here, not written: the event file would keep it, and ``usage_df(strict=True)`` refuse the run.
    """
    if type(value) is int:  # most counts: a plain int, judged by its range alone
        return value if 0 <= value < MAX_COUNT else None
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value < MAX_COUNT else None


#: the longest name or id kept whole (real ones are under 100 characters); a longer one is stored cut
MAX_TEXT = 256


def text(value: Any) -> str | None:
    """A model name, id or reason: non-empty text, cut past ``MAX_TEXT`` (a hostile server's megabyte id is not
    screened and written whole with every call), redacted before it is cut; anything else is None."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) <= MAX_TEXT:
        return value
    # redacted before the cut: a cut through a key leaves a head no detector knows
    return f"{shown_cut(value, MAX_TEXT)}… [cut: {len(value)} characters]"


def _counts(inp: Any, out: Any, cached: Any, written: Any, reasoning: Any) -> Counts:
    # ``count`` of each, its first test (a plain int in range) made here: most counts pass it, without a call
    return {  # ``TOKEN_FIELDS``, in its order
        "input_tokens": inp if type(inp) is int and 0 <= inp < MAX_COUNT else count(inp),
        "output_tokens": out if type(out) is int and 0 <= out < MAX_COUNT else count(out),
        "cached_input_tokens": cached if type(cached) is int and 0 <= cached < MAX_COUNT else count(cached),
        "cache_write_input_tokens": written
        if type(written) is int and 0 <= written < MAX_COUNT
        else None
        if written is None
        else count(written),
        "reasoning_tokens": reasoning
        if type(reasoning) is int and 0 <= reasoning < MAX_COUNT
        else None
        if reasoning is None
        else count(reasoning),
    }


def fitted_counts(inp: Any, out: Any, cached: Any, written: Any, reasoning: Any, *, lone_write: bool = False) -> Counts:
    """Counts given as totals with their parts (OpenAI's, a GenAI span's); a part that does not fit in its total is
    left unknown, the total kept. ``lone_write``: a cache-write part is kept when the input total is unknown (a
    span's, which the conventions define as a part of the input; OpenAI's is not said to be one).

    ``cache_write_tokens`` is documented only as "the unadjusted number of prompt tokens written to cache":
    when it and ``cached_tokens`` add up to more than the input, it is not a part of that input, and keeping
    it would make the whole input unknown under the usage rule (the billed total is what matters). So is a
    ``cached_tokens`` above the input or a ``reasoning_tokens`` above the output (a proxy's or a local
    server's usage): written as they came, they contradict their totals, and the frames read both unknown
    (``usage_df(strict=True)`` refuses the run)."""
    counts = _counts(inp, out, cached, written, reasoning)
    total, read = counts["input_tokens"], counts["cached_input_tokens"]
    if total is not None and read is not None and read > total:
        counts["cached_input_tokens"] = None
    output, thought = counts["output_tokens"], counts["reasoning_tokens"]
    if output is not None and thought is not None and thought > output:
        counts["reasoning_tokens"] = None
    part = counts["cache_write_input_tokens"]
    if part is not None and (not lone_write if total is None else (counts["cached_input_tokens"] or 0) + part > total):
        counts["cache_write_input_tokens"] = None
    return counts


_CHAT_USAGE = ("prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details")
_INPUT_DETAILS = ("cached_tokens", "cache_write_tokens")


def openai_chat(usage: Any) -> Counts:
    """Chat Completions ``usage`` (also the last chunk of a stream with ``include_usage``)."""
    if usage is not None and not isinstance(usage, dict):
        try:  # the SDK's usage model (most calls): ``fields`` and ``get`` of each, without a call each
            details, out_details = usage.prompt_tokens_details, usage.completion_tokens_details
            if not isinstance(details, dict) and not isinstance(out_details, dict):  # (a dict's: read below)
                return fitted_counts(
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    None if details is None else getattr(details, "cached_tokens", None),
                    None if details is None else getattr(details, "cache_write_tokens", None),
                    None if out_details is None else getattr(out_details, "reasoning_tokens", None),
                )
        except Exception:  # a usage of another shape: each field read on its own
            pass
    inp, out, details, out_details = fields(usage, _CHAT_USAGE)
    cached, written = fields(details, _INPUT_DETAILS)
    return fitted_counts(inp, out, cached, written, get(out_details, "reasoning_tokens"))


def openai_responses(usage: Any) -> Counts:
    """Responses API ``usage`` (also ``response.completed``'s ``response.usage`` in a stream)."""
    details = get(usage, "input_tokens_details")
    return fitted_counts(
        get(usage, "input_tokens"),
        get(usage, "output_tokens"),
        get(details, "cached_tokens"),
        get(details, "cache_write_tokens"),
        get(get(usage, "output_tokens_details"), "reasoning_tokens"),
    )


def web_searches(output: Any) -> int:
    """How many web searches a Responses answer's ``output`` items ran (its ``web_search_call`` items; OpenAI bills
    each, as genai-prices' ``web_searches`` prices them); 0 for anything else."""
    if type(output) is not list:
        return 0
    return sum(1 for item in output if get(item, "type") == "web_search_call")


def openai_embeddings(usage: Any) -> Counts:
    """Embeddings ``usage``: ``prompt_tokens`` is the input; an embedding writes no tokens, which the provider says
    with ``total_tokens`` equal to it (the output is their difference, unknown when either is missing)."""
    inp, total = count(get(usage, "prompt_tokens")), count(get(usage, "total_tokens"))
    out = total - inp if inp is not None and total is not None and total >= inp else None
    return _counts(inp, out, None, None, None)


def anthropic(usage: Any) -> Counts:
    """Messages ``usage``: the input total adds the cache reads and writes to the uncached ``input_tokens``.

    A part the usage leaves out (or null) adds nothing; one given that is not a count (negative, a fraction, text)
    is unknown, and so is the total it is part of (never counted as 0)."""
    uncached = count(get(usage, "input_tokens"))
    given_read, given_written = get(usage, "cache_read_input_tokens"), get(usage, "cache_creation_input_tokens")
    read, written = count(given_read), count(given_written)
    if uncached is None or (read is None and given_read is not None) or (written is None and given_written is not None):
        total = None
    else:
        total = count(uncached + (read or 0) + (written or 0))
    counts = _counts(total, get(usage, "output_tokens"), read, written, None)
    creation, server = get(usage, "cache_creation"), get(usage, "server_tool_use")
    if creation is not None or server is not None:  # billed beyond the tokens (``store.vocab.BILLED_COUNTS``)
        hour, searches = count(get(creation, "ephemeral_1h_input_tokens")), count(get(server, "web_search_requests"))
        if hour and written is not None and hour <= written:  # a part of the cache writes, at its own rate
            counts["cache_write_1h_input_tokens"] = hour
        if searches:
            counts["web_search_requests"] = searches
    return counts


def merge_anthropic(start: Any, delta: Any) -> Any:
    """A stream's usage: ``message_start``'s usage, overridden field by field by the cumulative ``message_delta`` usage.

    ``message_delta`` counts are cumulative; a field it leaves null keeps the ``message_start`` value.
    """
    fields = (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "cache_creation",
        "server_tool_use",
    )
    merged = {name: get(start, name) for name in fields}
    for name in fields:
        value = get(delta, name)
        if value is not None:
            merged[name] = value
    return merged
