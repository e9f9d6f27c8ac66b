"""An idempotency key reused with a payload that differs only in a secret is a conflict, not a replay.

The stored fingerprint covers the redacted payload (no hash of the secret on disk), so two payloads that differ
only in their secret have one fingerprint; the keyed seal of the real payload tells them apart. The same secret
again is a replay. Real files and real subprocesses.
"""

from __future__ import annotations

import json
import sys

from tooltest_helpers import sub_input

from noesis_nb.tools import ExecutionStatus

CODE = "import os, sys; open(sys.argv[1], 'a').write(os.environ['DB_PASSWORD'] + '\\n')"


def test_same_key_other_secret_is_a_conflict_and_same_secret_a_replay(harness, tmp_path):
    out = tmp_path / "used.txt"
    argv = [sys.executable, "-c", CODE, str(out)]

    def call(request_id: str, password: str):
        payload = {"argv": argv, "env": {"DB_PASSWORD": password}}
        harness.prepare(sub_input(payload, request_id=request_id, idempotency_key="job/1"))
        return harness.execute(f"draft:ep_test:{request_id}")

    first = call("req-1", "Summer2024!")
    assert first.status is ExecutionStatus.SUCCEEDED
    other = call("req-2", "Winter2023!")
    assert (other.status, other.reason_code) == (ExecutionStatus.FAILED, "idempotency.conflict")
    again = call("req-3", "Summer2024!")
    assert again.status is ExecutionStatus.REPLAYED and again.replayed_from_execution_id == first.execution_id
    assert out.read_text() == "Summer2024!\n"  # ran once, with the first secret
    [key_file] = (harness.run_dir / "tool_invocations" / "idempotency").iterdir()
    assert "Summer2024!" not in key_file.read_text() and json.loads(key_file.read_text())["execution_id"] == first.execution_id
