"""Does a run directory pass Noēsis' own validators? ``check_run(run_dir)`` lists every violation.

Each rule restates a check Noēsis applies to a run (its code was read; none of it is copied here):

===============================  ===================================================================
rule                             source in Noēsis
===============================  ===================================================================
event.line / required / id /     ``trace/events.py`` write-time guard and the events 1.3.0 schema
types / caused_by / metrics /    ``noesis view`` validates against (``cli/viewer.py``)
faculty / timestamps / verb_minima
candidate.*, governance.caused_by, ``diagnostics/invariants.py``, ``diagnostics/validators.py``, events
act.candidate_*, act.after_veto,  schema 1.3.0, ``domain/action_candidates.py``,
act.caused_by                     ``usecases/actuation/governed_actuator.py``
insight.payload, summary.*,      ``tests/runtime/test_artifact_invariants.py``, ``runtime/summary.py``,
learn.*, final.shape             ``cli/viewer.py``, summary 1.3.0 / learn 1.0.0 / final 2.0.0 schemas
state.schema                     ``noesis/state/state.schema.json`` (state 1.0.0)
summary.counts                   the insight metrics (``compute_metrics``, ``_finalize_metrics``) behind
                                 ``runtime/summary.py``
checkpoint.*, resume.*,          ``usecases/run_lifecycle.py``, ``domain/run_lifecycle.py``,
lifecycle.transition, paused.*,  ``infrastructure/tool_invocation/repositories.py``, bridge tests
lifecycle.step_while_paused,     (interrupt → checkpoint → resume → act → terminate)
run.state
tool.*                           ``usecases/tool_invocation/runtime_bridge.py`` and
                                 ``tests/runtime/test_tool_invocation_runtime_bridge.py``
records.prepared / approvals     ``infrastructure/tool_invocation/repositories.py``
manifest.*, seal.*               ``runtime/artifacts/verify.py``, ``runtime/artifacts/manifest.py``,
                                 ``trace/events.py`` (no append after the manifest), sealing tests
===============================  ===================================================================

Runs of Noēsis' pre-1.3 writer (summary ``schema_version`` < 1.3.0 and no ``final.json``, see
``Run.legacy``) are held only to the rules that writer already followed; everything else is judged
by the current rules. Both real Noēsis runs in ``tests/fixtures/`` pass.

Command line: ``python -m tests.compat.checker RUN_DIR…`` prints the violations (exit status 1 if any).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import rules_candidates, rules_events, rules_lifecycle, rules_metrics, rules_seal, rules_state, rules_summary, rules_tools
from .rundata import Run, Violation, load_run

__all__ = ["Violation", "check_run", "check_loaded", "RULE_MODULES"]

RULE_MODULES = (
    rules_events,
    rules_candidates,
    rules_summary,
    rules_metrics,
    rules_state,
    rules_lifecycle,
    rules_tools,
    rules_seal,
)


def check_loaded(run: Run) -> list[Violation]:
    return [violation for module in RULE_MODULES for violation in module.check(run)]


def check_run(run_dir: Path | str) -> list[Violation]:
    """Every rule broken by the run in ``run_dir`` (empty: Noēsis' validators accept it)."""
    run_dir = Path(run_dir)
    if not (run_dir / "events.jsonl").is_file():
        return [Violation("event.line", "events.jsonl", f"{run_dir} has no events.jsonl: not a run directory")]
    return check_loaded(load_run(run_dir))


def main(argv: list[str]) -> int:
    failed = False
    for arg in argv:
        for violation in check_run(arg):
            failed = True
            print(f"{arg}: {violation}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
