"""What capture adds to an SDK call, held in work rather than time (a shared machine's clock is too noisy to hold a
figure): the Python calls capture makes per call, and a client's provider answered without reading its address again.
The provider is answered by a mock transport in this process (the LLM boundary): a socket's reads would vary the
SDK's own count from call to call."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

import openai
import pytest

import noesis_nb
from noesis_nb.capture.billing import billed_provider
from noesis_nb.secrets import guard

from .provider_stub import DEFAULT, chat_completion

httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
#: Python calls capture adds to a whole chat completion (its start, the response's reading, the screened event's
#: write): 21 today, 22 once the run knows the client's key; 24 and 25 before the call's admission and the start and
#: end of the episode's entry for it were made in place (``ModelCall.admit``, ``Episode.start_call`` and ``end_call``:
#: one call each); 29 and 30 before the request's path, the client's keys told before, its remembered address, a
#: response's first choice and a model call's plainly named keys were each
#: judged in place (``endpoint``, ``_learn_credentials``, ``WeakKeyDictionary.get``, ``_first_choice_reason``,
#: ``flat_might_contain``: one call each); 36 and 37 before the episode was told a sync adapter's
#: call without looking for its task twice (``LeftRunning.track`` and ``ended``, for a call on no loop) and the
#: scope, the call's start and the ids' cloud-key test were made in place (the counts are ``usage._counts``'s, one
#: function for the two readers of a usage); 44 before its model calls
#: were screened without their JSON; 61 before the SDK's options, response, choice and usage were read by attribute
#: (a helper per field only for other shapes) and the ids' text tests made in place; 71 before a client's provider
#: was remembered
CAPTURE_BUDGET = 22


def _python_calls(fn: Callable[[], object]) -> list[str]:
    """The Python functions ``fn`` calls (itself excluded), by module file and name, in order."""
    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            seen.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen[1:]  # (the first is the lambda itself)


def _c_calls(fn: Callable[[], object]) -> list[tuple[str, str]]:
    """The C functions ``fn`` calls, in order: ``("call", "Pattern.search")``, and ``("raised", "get_running_loop")``
    for each that raises (caught or not)."""
    seen: list[tuple[str, str]] = []

    def profile(frame, event, arg):
        if event in ("c_call", "c_exception"):
            owner = type(getattr(arg, "__self__", None)).__name__
            seen.append(("call" if event == "c_call" else "raised", f"{owner}.{arg.__name__}"))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def _fewest_c_calls(runs_dir: Path, capture: bool, counted: Callable[[tuple[str, str]], bool], key: str) -> int:
    """The fewest C calls ``counted`` picks out of one chat completion's, of 12, inside an episode whose clients call
    with ``key``."""
    client, counts = _client(key=key), []

    def agent(task, ctx):
        for _ in range(3):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        for _ in range(12):
            made = _c_calls(lambda: client.chat.completions.create(model="gpt-4o-mini", messages=MSG))
            counts.append(sum(1 for call in made if counted(call)))
        return "ok"

    noesis_nb.solve("cost", using=agent, runs_dir=runs_dir, capture=capture)
    return min(counts)


#: a key of a provider's length: the run learns it (a client's key is a secret the run never holds), and every event
#: is then screened for it, as in a real agent's run
LEARNED_KEY = "sk-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2rS5uX8"


def test_capture_raises_and_catches_no_exception_on_a_calls_path(runs_dir):
    # the call's start asked ``asyncio.get_running_loop`` whether a sync adapter's thread runs a task: its RuntimeError,
    # raised and caught at every call (``flights._task_on``), cost as much as a dozen lines of capture
    def raised(call: tuple[str, str]) -> bool:
        return call[0] == "raised"

    added = _fewest_c_calls(runs_dir, True, raised, LEARNED_KEY) - _fewest_c_calls(runs_dir, False, raised, LEARNED_KEY)
    assert added == 0, f"capture raises {added} exception(s) in C functions on each SDK call's path"


def test_a_learned_key_adds_only_the_ids_shape_tests_as_pattern_scans(runs_dir):
    # once the run knows a value, a model call's line was scanned twice more by pattern, for escapes and control
    # characters a line holding no backslash cannot have (``guard._disguised_json``); the two left are the request and
    # response ids' shape (``text.PROVIDER_ID``)
    def scan(call: tuple[str, str]) -> bool:
        return call[0] == "call" and call[1].startswith("Pattern.")

    added = _fewest_c_calls(runs_dir, True, scan, LEARNED_KEY) - _fewest_c_calls(runs_dir, False, scan, LEARNED_KEY)
    assert 0 < added <= 2, f"capture adds {added} pattern scans to each SDK call once the run knows its client's key"


def test_a_learned_key_adds_no_more_python_calls_than_the_budget(runs_dir):
    # a run that knows its client's key screened each model call through its JSON (the line, the known values' heads,
    # escapes, the whole-text prefilter): 44 calls; its texts are now searched for the few known values' heads, 22
    added = _fewest_calls(runs_dir, True, key=LEARNED_KEY) - _fewest_calls(runs_dir, False, key=LEARNED_KEY)
    assert 0 < added <= CAPTURE_BUDGET, f"capture adds {added} Python calls to each SDK call once the run knows its key"


def test_the_budget_holds_in_a_process_that_learned_a_value_elsewhere(runs_dir):
    # CI runs the capture tests after others that learned values in their runs: the process's screen then knows more
    # than this episode's key; the budget is the same
    guard.for_run(runs_dir / "ep_learned_elsewhere").learn(["Zq9vT3kLmN8pR2sW7xY4bH6d"])
    added = _fewest_calls(runs_dir, True, key=LEARNED_KEY) - _fewest_calls(runs_dir, False, key=LEARNED_KEY)
    assert 0 < added <= CAPTURE_BUDGET, (
        f"capture adds {added} Python calls to each SDK call (budget {CAPTURE_BUDGET}) in a process that learned a value"
    )


def _client(tail: str = "", key: str = "sk-test") -> openai.OpenAI:
    serial = itertools.count()

    def reply(request):
        i = next(serial)  # ids new for each call, of the providers' shape, as a server's are
        body = json.dumps(chat_completion("gpt-4o-mini", DEFAULT, f"{i:04x}{'5e' * 14}{tail}")).encode()
        headers = {"content-type": "application/json", "x-request-id": f"req_{i:04x}{'7a' * 14}{tail}"}
        return httpx2.Response(200, content=body, headers=headers)

    http = httpx2.Client(transport=httpx2.MockTransport(reply))
    return openai.OpenAI(base_url="http://stub.invalid/v1", api_key=key, max_retries=0, http_client=http)


def _fewest_calls(runs_dir: Path, capture: bool, tail: str = "", key: str = "sk-test") -> int:
    """The fewest Python calls one chat completion made, of 12, inside an episode (the fewest: the log's periodic look
    at the disk, every 50 ms, falls on some calls and not others); ``tail``: the end of each id; ``key``: the client's."""
    client, counts = _client(tail, key), []

    def agent(task, ctx):
        for _ in range(3):  # the client's first calls: its key told, its provider found
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        for _ in range(12):
            counts.append(len(_python_calls(lambda: client.chat.completions.create(model="gpt-4o-mini", messages=MSG))))
        return "ok"

    noesis_nb.solve("cost", using=agent, runs_dir=runs_dir, capture=capture)
    return min(counts)


def test_capture_adds_no_more_python_calls_to_an_sdk_call_than_its_budget(runs_dir):
    added = _fewest_calls(runs_dir, capture=True) - _fewest_calls(runs_dir, capture=False)
    assert 0 < added <= CAPTURE_BUDGET, (
        f"capture adds {added} Python calls to each SDK call (budget {CAPTURE_BUDGET}): a layer or a lookup per call "
        "crept onto the call's path"
    )


def test_ids_ending_in_a_cloud_keys_start_add_no_more_python_calls(runs_dir):
    # one random id in forty holds "SK" or "AC" with no room after it for a key: each was judged by every detector
    added = _fewest_calls(runs_dir, True, "SKVx") - _fewest_calls(runs_dir, False, "SKVx")
    assert 0 < added <= CAPTURE_BUDGET, f"capture adds {added} Python calls to a call whose ids end in 'SKVx'"


def test_a_client_seen_before_is_billed_without_reading_its_address_again():
    client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="sk-test", max_retries=0)
    assert billed_provider(client, "openai") == "http://127.0.0.1:9/v1"
    again = _python_calls(lambda: billed_provider(client, "openai"))
    made = [name for name in again if "httpx" in name or name.endswith(("endpoint_text", "_resolve"))]
    assert not made, f"a client seen before had its address made again: {made}"
    client.base_url = "http://127.0.0.1:10/v1"  # a new address is read, not the remembered one
    assert billed_provider(client, "openai") == "http://127.0.0.1:10/v1"
