import asyncio
import json

import pytest
from tooltest_helpers import RUN_ID

from noesis_nb.tools import (
    CallableResolutionError,
    EffectKind,
    ExecutionStatus,
    GovernanceContext,
    InvalidToolPayloadError,
    RiskTier,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
    UnknownToolFieldError,
    callable_reference,
)

CALLS = []
DRAFT = "draft:ep_test:req-1"


def add(a, b, *, scale=1):
    CALLS.append((a, b, scale))
    return {"sum": (a + b) * scale}


async def async_add(a, b):
    await asyncio.sleep(0)
    CALLS.append(("async", a, b))
    return a + b


def boom():
    raise RuntimeError("kaput")


def _input(func, payload, approval=False, **kw):
    return ToolInvocationInput(
        run_id=RUN_ID,
        request_id="req-1",
        protocol=ToolProtocol.PYTHON,
        tool=ToolIdentity(namespace="nb", name="add"),
        payload=payload,
        func=func,
        **kw,
        governance=GovernanceContext(effect_kind=EffectKind.WRITE, risk_tier=RiskTier.LOW, requires_approval=approval),
    )


@pytest.fixture(autouse=True)
def _reset():
    CALLS.clear()


def test_sync_callable_runs_and_records_import_reference(harness):
    harness.prepare(_input(add, {"args": [2, 3], "kwargs": {"scale": 10}}))
    record = json.loads((harness.run_dir / "tool_invocations/x-python/prepared" / f"{DRAFT}.json").read_text())
    assert not (harness.run_dir / "tool_invocations/prepared").exists()  # Noēsis' reader would raise on protocol 'python'
    seal = record["x-callable"].pop("seal")  # an HMAC under the user's seal key (tools.callable_seal)
    assert record["x-callable"] == {"ref": f"{__name__}:add", "importable": True}
    assert isinstance(seal, str) and len(seal) == 64 and int(seal, 16) >= 0
    assert record["payload"]["normalized_payload"] == {"args": [2, 3], "kwargs": {"scale": 10}}
    result = harness.execute(DRAFT)
    assert result.status is ExecutionStatus.SUCCEEDED and result.output == {"result": {"sum": 50}}
    assert CALLS == [(2, 3, 10)]


def test_async_callable_is_awaited(harness):
    harness.prepare(_input(async_add, {"args": [4, 5]}))
    assert harness.execute(DRAFT).output == {"result": 9}
    assert CALLS == [("async", 4, 5)]


def test_exception_is_a_failed_result(harness):
    harness.prepare(_input(boom, {}))
    result = harness.execute(DRAFT)
    assert (result.status, result.reason_code) == (ExecutionStatus.FAILED, "tool.execution_failed")
    assert result.output["error"] == "RuntimeError: kaput"


def test_lambda_and_local_functions_are_not_importable():
    def local(x):
        return x

    assert callable_reference(lambda x: x).importable is False
    assert callable_reference(local).importable is False
    assert callable_reference(local).ref.endswith("<locals>.local")
    assert callable_reference(add).importable is True


def test_importable_callable_reimported_in_another_process(harness):
    from noesis_nb.tools import DispatchVault, PreparedInvocationRepository

    harness.prepare(_input(add, {"args": [1, 1]}))
    harness.prepared = PreparedInvocationRepository(harness.run_dir, vault=DispatchVault())
    assert harness.execute(DRAFT).output == {"result": {"sum": 2}}


def test_lambda_draft_needs_its_process_or_callables(harness):
    from noesis_nb.tools import DispatchVault, PreparedInvocationRepository

    fn = lambda x: x * 2  # noqa: E731
    harness.prepare(_input(fn, {"args": [21]}))
    harness.prepared = PreparedInvocationRepository(harness.run_dir, vault=DispatchVault())
    with pytest.raises(CallableResolutionError, match="cannot be re-imported"):
        harness.execute(DRAFT)
    with pytest.raises(CallableResolutionError, match="reviewed"):
        harness.execute(DRAFT, callables={DRAFT: add})
    assert harness.execute(DRAFT, callables={DRAFT: fn}).output == {"result": 42}


@pytest.mark.parametrize(
    "payload, error",
    [
        ({"args": [1], "fn": "x"}, UnknownToolFieldError),
        ({"args": "1"}, InvalidToolPayloadError),
        ({"kwargs": {"df": object()}}, InvalidToolPayloadError),
        ({"args": [float("nan")]}, InvalidToolPayloadError),
    ],
)
def test_invalid_python_payloads(harness, payload, error):
    with pytest.raises(error):
        harness.prepare(_input(add, payload))
    assert CALLS == [] and harness.emit.names == ["tool.requested", "tool.rejected.invalid"]


def _nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value


_LOOP: dict = {"name": "loop"}
_LOOP["self"] = _LOOP


@pytest.mark.parametrize("value", [_nested(5000), _nested(101), _LOOP], ids=["5000 levels", "101 levels", "a cycle"])
def test_a_payload_nested_too_deeply_is_one_clear_error_not_a_recursion_error(harness, value):
    with pytest.raises(InvalidToolPayloadError, match=r"is nested deeper than 100 levels \(or holds itself\)") as err:
        harness.prepare(_input(add, {"kwargs": {"x": value}}))
    assert len(str(err.value)) < 400  # the path to the spot is cut, not 5,000 keys long
    assert CALLS == [] and harness.emit.names == ["tool.requested", "tool.rejected.invalid"]
    harness.prepare(_input(add, {"kwargs": {"x": 1, "y": 2, "deep": _nested(90)}}))  # 90 levels are JSON like any other


def test_python_protocol_without_func_is_rejected(harness):
    with pytest.raises(CallableResolutionError):
        harness.prepare(_input(None, {"args": []}))


def test_secret_kwarg_redacted_and_still_passed(harness):
    seen = {}

    def login(user, password):
        seen["pw"] = password
        return "ok"

    harness.prepare(_input(login, {"kwargs": {"user": "ana", "password": "hunter2-long"}}))
    assert harness.execute(DRAFT).output == {"result": "ok"} and seen["pw"] == "hunter2-long"
    assert b"hunter2-long" not in b"".join(p.read_bytes() for p in harness.run_dir.rglob("*") if p.is_file())
