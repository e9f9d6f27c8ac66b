import json
import sys
import threading

from tooltest_helpers import sub_input

from noesis_nb.tools import decide

DRAFT = "draft:ep_test:req-1"


def test_decide_binds_to_prepared_and_is_idempotent(harness):
    prepared = harness.prepare(sub_input({"argv": [sys.executable, "-c", "pass"]}, approval=True))
    decision, created = decide(harness.run_dir, DRAFT, approve=True, approver_id="ana", reason="looks fine")
    assert created
    path = harness.run_dir / "tool_invocations/approvals" / f"{DRAFT}.json"
    on_disk = json.loads(path.read_text())
    assert on_disk["decision_id"] == f"approval:{DRAFT}" and on_disk["status"] == "approved"
    assert on_disk["reviewed_fingerprint"] == prepared.payload.request_fingerprint
    assert on_disk["impact_hash"] == prepared.preflight.impact_hash
    assert on_disk["candidate_id"] == prepared.governance.candidate_id and on_disk["approver_id"] == "ana"
    assert on_disk["reason"] == "looks fine" and on_disk["decided_at"].endswith("+00:00")
    before = path.read_bytes()

    again, created_again = decide(harness.run_dir, DRAFT, approve=True, approver_id="ana")
    late, created_late = decide(harness.run_dir, DRAFT, approve=False, approver_id="bo", reason="too late")
    assert (created_again, created_late) == (False, False)
    assert late.status.value == "approved" and late.approver_id == "ana"
    assert path.read_bytes() == before


def test_decide_with_no_id_uses_the_pending_draft(harness):
    harness.prepare(sub_input({"argv": ["true"]}, approval=True))
    decision, created = decide(harness.run_dir, None, approve=False, approver_id="bo")
    assert created and decision.draft_id == DRAFT and decision.reason_code == "governance.vetoed"


def test_racing_threads_produce_one_decision(harness):
    harness.prepare(sub_input({"argv": ["true"]}, approval=True))
    barrier = threading.Barrier(8)
    results = []

    def worker(i):
        barrier.wait()
        results.append(decide(harness.run_dir, DRAFT, approve=i % 2 == 0, approver_id=f"u{i}"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(created for _, created in results) == 1
    winner = next(d for d, created in results if created)
    assert all(d == winner for d, _ in results)
    folder = harness.run_dir / "tool_invocations/approvals"
    assert [p.name for p in folder.iterdir()] == [f"{DRAFT}.json"]
    assert json.loads((folder / f"{DRAFT}.json").read_text())["approver_id"] == winner.approver_id
