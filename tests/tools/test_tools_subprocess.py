import sys

import pytest
from tooltest_helpers import sub_input, touch_argv

from noesis_nb.tools import ExecutionStatus, InvalidToolPayloadError, UnknownToolFieldError, render_command_line


@pytest.mark.parametrize(
    "payload, error, needle",
    [
        ({"argv": ["echo"], "shell": True}, UnknownToolFieldError, "'shell'"),
        ({"argv": []}, InvalidToolPayloadError, "argv"),
        ({"argv": ["echo", 3]}, InvalidToolPayloadError, "argv[3] has type int"),
        ({"argv": ["echo"], "timeout_ms": 0}, InvalidToolPayloadError, "timeout_ms"),
        ({"argv": ["echo"], "timeout_ms": True}, InvalidToolPayloadError, "timeout_ms"),
        ({"argv": ["echo"], "env": {"A": 1}}, InvalidToolPayloadError, "'A'"),
        ({"argv": "echo hi"}, InvalidToolPayloadError, "argv"),
    ],
)
def test_invalid_payload_rejected_before_dispatch(harness, tmp_path, payload, error, needle):
    marker = tmp_path / "side_effect.txt"
    payload = (
        {**payload, "argv": touch_argv(marker) + payload["argv"][1:]}
        if payload["argv"] and isinstance(payload["argv"], list)
        else payload
    )
    with pytest.raises(error) as info:
        harness.prepare(sub_input(payload))
    assert needle in str(info.value)
    assert info.value.reason_code == ("tool.unknown_field" if error is UnknownToolFieldError else "tool.invalid_payload")
    assert harness.emit.names == ["tool.requested", "tool.rejected.invalid"]
    assert not marker.exists()
    assert not (harness.run_dir / "tool_invocations").exists()


def test_success_output(harness, tmp_path):
    harness.prepare(
        sub_input(
            {"argv": [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"], "cwd": str(tmp_path)}
        )
    )
    result = harness.execute("draft:ep_test:req-1")
    assert result.status is ExecutionStatus.SUCCEEDED and result.reason_code is None
    assert result.output["returncode"] == 0
    assert result.output["stdout"] == "out\n" and result.output["stderr"] == "err\n"
    assert result.execution_id == "exec:ep_test:draft:ep_test:req-1"


def test_nonzero_exit_is_failed(harness):
    harness.prepare(sub_input({"argv": [sys.executable, "-c", "raise SystemExit(3)"]}))
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code, result.output["returncode"]) == (
        ExecutionStatus.FAILED,
        "tool.execution_failed",
        3,
    )
    assert harness.emit.names[-1] == "tool.execution.failed"


def test_timeout(harness):
    harness.prepare(sub_input({"argv": [sys.executable, "-c", "import time; time.sleep(10)"], "timeout_ms": 200}))
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code) == (ExecutionStatus.FAILED, "tool.timeout")


def test_missing_binary_is_transport_error(harness):
    harness.prepare(sub_input({"argv": ["/nonexistent/definitely-not-a-binary-xyz"]}))
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code) == (ExecutionStatus.FAILED, "tool.transport_error")


def test_long_output_truncated(harness):
    harness.prepare(sub_input({"argv": [sys.executable, "-c", "print('a' * 200000)"]}))
    out = harness.execute("draft:ep_test:req-1").output["stdout"]
    assert len(out) < 70_000 and "truncated" in out


def test_env_is_merged_over_os_environ(harness, monkeypatch):
    monkeypatch.setenv("NB_BASE_VAR", "base")
    code = "import os; print(os.environ['NB_BASE_VAR'], os.environ['NB_EXTRA'])"
    harness.prepare(sub_input({"argv": [sys.executable, "-c", code], "env": {"NB_EXTRA": "extra"}}))
    assert harness.execute("draft:ep_test:req-1").output["stdout"] == "base extra\n"


def test_render_command_line():
    line = render_command_line(
        {"argv": ["git", "commit", "-m", "two words"], "cwd": "/w d", "env": {"API_TOKEN": "s3cr3t", "MODE": "fast"}}
    )
    assert line == "cd '/w d' && API_TOKEN=[REDACTED] MODE=fast git commit -m 'two words'"
    assert "s3cr3t" not in line


def test_command_line_shows_this_interpreter_as_python_and_hides_secret_env():
    import sys

    from noesis_nb.tools import render_command_line

    line = render_command_line(
        {"argv": [sys.executable, "-c", "print('a b')"], "cwd": "/srv/app", "env": {"API_TOKEN": "s3cr3t", "MODE": "fast"}}
    )
    assert line == "cd /srv/app && API_TOKEN=[REDACTED] MODE=fast python -c 'print('\"'\"'a b'\"'\"')'"
    assert render_command_line({"argv": ["/usr/bin/python3", "x.py"]}) == "/usr/bin/python3 x.py"
