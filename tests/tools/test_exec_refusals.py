"""A subprocess payload the OS would refuse to exec is refused when prepared: no draft, no approval, no run.

Each case names the part (``argv[1]``, ``env key 'A=B'``) and says what to do. A payload rebuilt at run time
(an edited record, a secret given back) is checked again and fails as ``tool.invalid_payload``, never with a
bare ``ValueError`` from ``subprocess``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tooltest_helpers import sub_input, touch_argv

import noesis_nb
from noesis_nb.tools import ExecutionStatus, InvalidToolPayloadError, SubprocessProtocol
from noesis_nb.tools.exec_checks import path_limit, single_string_limit, total_limit

_BIG = single_string_limit()
_TOTAL = total_limit()
_PATH = path_limit()


def _cases(marker: Path) -> list[tuple[str, dict, str]]:
    run = touch_argv(marker)
    cases = [
        ("argv NUL", {"argv": [*run, "a\x00b"]}, "argv[3] contains a NUL character"),
        ("argv[0] NUL", {"argv": ["/bin/ec\x00ho"]}, "argv[0] contains a NUL character"),
        ("argv[0] empty", {"argv": ["", "x"]}, "argv[0] is empty"),
        ("env value NUL", {"argv": run, "env": {"A": "x\x00y"}}, "env value of 'A' contains a NUL character"),
        ("env key '='", {"argv": run, "env": {"A=B": "x"}}, "env key 'A=B' contains '='"),
        ("env key NUL", {"argv": run, "env": {"A\x00B": "x"}}, "env key 'A\\x00B' contains a NUL character"),
        ("env key empty", {"argv": run, "env": {"": "x"}}, "env has an empty name"),
        ("env value int", {"argv": run, "env": {"A": 1}}, "env entry 'A' has a value of type int"),
        ("env value None", {"argv": run, "env": {"A": None}}, "env entry 'A' has a value of type NoneType"),
        ("env key int", {"argv": run, "env": {1: "x"}}, "env key 1 has type int"),
        ("cwd NUL", {"argv": run, "cwd": "/tm\x00p"}, "'cwd' contains a NUL character"),
        ("cwd empty", {"argv": run, "cwd": ""}, "'cwd' is empty"),
        ("argv surrogate", {"argv": [*run, "a\ud800"]}, "argv[3] holds character U+D800"),
        ("argv escaped byte", {"argv": [*run, "a\udcff"]}, "holds a lone surrogate (U+DCFF at index 1)"),
    ]
    if _BIG is not None:
        cases.append(("argv item too long", {"argv": [*run, "x" * _BIG]}, f"argv[3] is {_BIG} bytes"))
        cases.append(("env entry too long", {"argv": run, "env": {"A": "x" * _BIG}}, "env entry 'A' is"))
    if _PATH is not None:
        cases.append(("cwd past PATH_MAX", {"argv": run, "cwd": "/tmp/" + "a/" * (_PATH // 2)}, "'cwd' is a path of"))
        cases.append(("argv[0] past PATH_MAX", {"argv": ["/usr/" + "b/" * (_PATH // 2)]}, "argv[0] is a path of"))
    if _TOTAL is not None:
        piece = (_BIG or 100_000) // 2
        cases.append(("argv past ARG_MAX", {"argv": [*run, *["x" * piece] * (_TOTAL // piece + 1)]}, "ARG_MAX"))
    return cases


_IDS = [name for name, _, _ in _cases(Path("m"))]


@pytest.mark.parametrize("index", range(len(_IDS)), ids=_IDS)
def test_prepare_refuses_what_exec_would_refuse(harness, tmp_path, index):
    marker = tmp_path / "ran.txt"
    _, payload, needle = _cases(marker)[index]
    with pytest.raises(InvalidToolPayloadError) as info:
        harness.prepare(sub_input(payload, approval=True))
    assert needle in str(info.value)
    assert info.value.reason_code == "tool.invalid_payload"
    assert harness.emit.names == ["tool.requested", "tool.rejected.invalid"]
    assert not (harness.run_dir / "tool_invocations").exists()
    assert not marker.exists()


def test_the_same_payloads_run_once_made_runnable(harness, tmp_path):
    """The checks refuse only the bad part: the fixed payload runs (a real subprocess)."""
    marker = tmp_path / "ran.txt"
    code = "import os, sys; open(sys.argv[1], 'a').write(os.environ['A_B'] + sys.argv[2] + os.getcwd())"
    harness.prepare(
        sub_input({"argv": [sys.executable, "-c", code, str(marker), "ab"], "env": {"A_B": "x"}, "cwd": str(tmp_path)})
    )
    assert harness.execute("draft:ep_test:req-1").status is ExecutionStatus.SUCCEEDED
    assert marker.read_text() == f"xab{tmp_path}"


def _agent(payload):
    async def agent(task, ctx):
        return await ctx.tool_async("fs.x", payload, effect="write", risk="high")

    return agent


@pytest.mark.parametrize(
    "payload, needle",
    [
        ({"argv": ["/bin/echo", "a\x00b"]}, "argv[1] contains a NUL character"),
        ({"argv": ["/bin/echo"], "env": {"A=B": "x"}}, "env key 'A=B' contains '='"),
        ({"argv": ["/bin/echo"], "env": {"A": "x\x00"}}, "env value of 'A' contains a NUL character"),
    ],
)
def test_a_run_never_pauses_for_a_payload_that_cannot_run(tmp_path, payload, needle):
    runs = tmp_path / "runs"
    ep = noesis_nb.solve("t", using=_agent(payload), runs_dir=runs, approver="ask")
    run = runs / ep
    assert (run / "final.json").exists() and (run / "manifest.json").exists()  # sealed, not paused
    assert not (run / "tool_invocations").exists() and not (run / "checkpoints").exists()
    lines = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    names = [e["payload"].get("event_name") for e in lines if e["phase"] == "tool"]
    assert "tool.rejected.invalid" in names and "tool.approval.pending" not in names
    (terminate,) = [e for e in lines if e["phase"] == "terminate"]
    assert terminate["payload"]["status"] == "error" and needle in terminate["payload"]["message"]
    assert "ValueError" not in json.dumps(terminate["payload"])


def test_a_payload_rebuilt_at_run_time_is_checked_again(harness, tmp_path):
    """What reaches the handler (a secret given back, an edited record) is checked before any process starts."""
    marker = tmp_path / "ran.txt"
    prepared = harness.prepare(sub_input({"argv": touch_argv(marker), "env": {"API_TOKEN": "s"}}))
    for bad, needle in (({"A=B": "x"}, "env key 'A=B'"), ({"API_TOKEN": "s\x00"}, "env value of 'API_TOKEN'")):
        result = SubprocessProtocol().execute(prepared, {"argv": touch_argv(marker), "env": bad})
        assert (result.status, result.reason_code) == (ExecutionStatus.FAILED, "tool.invalid_payload")
        assert needle in result.output["error"] and "ValueError" not in result.output["error"]
    assert not marker.exists()
    assert os.environ.get("A=B") is None


def test_a_timeout_longer_than_any_wait_is_refused_when_prepared(harness, tmp_path):
    marker = tmp_path / "ran.txt"
    with pytest.raises(InvalidToolPayloadError, match=r"'timeout_ms' is 2147483648 ms; .* at most 2147483647 ms"):
        harness.prepare(sub_input({"argv": touch_argv(marker), "timeout_ms": 2**31}, approval=True))
    assert harness.emit.names == ["tool.requested", "tool.rejected.invalid"] and not marker.exists()


def test_a_run_timeout_longer_than_any_wait_waits_as_long_as_it_can(harness, tmp_path):
    """The execution context's timeout is not the payload's to fix: past the longest wait, the longest wait."""
    marker = tmp_path / "ran.txt"
    invocation = sub_input({"argv": touch_argv(marker)})
    invocation = invocation.model_copy(update={"execution": invocation.execution.model_copy(update={"timeout_ms": 10**12})})
    harness.prepare(invocation)
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code) == (ExecutionStatus.SUCCEEDED, None), result.output
    assert marker.read_text() == "x\n"
