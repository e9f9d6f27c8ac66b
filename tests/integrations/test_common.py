"""The shared pieces: light imports, the row and usage shapes, source tags, the missing-extra error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from noesis_nb.integrations import MissingExtraError
from noesis_nb.integrations._emit import PHASE, emit_row, row, token_count, usage_row
from noesis_nb.integrations._extras import require

THIRD_PARTY = ("ag_ui", "noeta", "langgraph", "langchain_core", "crewai", "httpx")


def test_core_and_integration_modules_import_no_third_party_package():
    code = (
        "import sys, noesis_nb, noesis_nb.runtime.api, noesis_nb.integrations, noesis_nb.integrations.agui, "
        "noesis_nb.integrations.noeta, noesis_nb.integrations.langgraph, noesis_nb.integrations.crewai, "
        "noesis_nb.integrations.noetic, noesis_nb.integrations.taisce; "
        f"print(sorted(m for m in {THIRD_PARTY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_rows_carry_event_name_kind_and_source_and_drop_none():
    phase, payload = row(PHASE, "agui", "RUN_STARTED", "run_started", run_id="r1", parent_run_id=None, name="x")
    assert phase == "integration" and payload == {
        "event_name": "agui.RUN_STARTED",
        "kind": "run_started",
        "run_id": "r1",
        "name": "x",
        "source": "agui",
    }


class _Ctx:
    def __init__(self):
        self.written = []

    def emit(self, phase, payload, **_):
        self.written.append((phase, payload))
        return str(len(self.written))


@pytest.mark.parametrize(
    "phase, payload",
    [
        ("observe", {"event_name": "x.message", "text": "hi"}),
        ("act", {"input_excerpt": "x", "outcome": "ok"}),
        ("plan", {"event_name": "x.plan"}),
        ("learn", {"learn_path": "learn.jsonl"}),
        ("reflect", {}),
    ],
)
def test_a_verb_phase_row_without_its_minimum_is_refused(phase, payload):
    ctx = _Ctx()
    with pytest.raises(ValueError, match=f"verb phase {phase!r}.*'integration'"):
        emit_row(ctx, (phase, payload))
    assert ctx.written == []


def test_extension_and_complete_verb_rows_are_written():
    ctx = _Ctx()
    rows = [
        (PHASE, {"event_name": "x.message"}),
        ("reason", {"text": "t"}),
        ("memory", {"kind": "memory_injection"}),
        ("observe", {"task": "t", "tags": {}, "timestamp": "2025-01-01T00:00:00+00:00"}),
        ("act", {"input_excerpt": "x", "outcome": "ok", "tool": "adapter:x"}),
    ]
    for item in rows:
        emit_row(ctx, item)
    assert ctx.written == rows


def test_usage_rows_keep_unknown_as_none_and_flag_inconsistent_parts():
    _, payload = usage_row("x", model="m", input_tokens=10, cached_input_tokens=20, output_tokens=5.0, reasoning_tokens=-1)
    assert payload["event_name"] == "model.call" and payload["output_tokens"] == 5
    assert payload["reasoning_tokens"] is None and payload["cache_write_input_tokens"] is None
    assert "exceeds input_tokens" in payload["usage_warning"]
    assert [token_count(v) for v in (None, True, 3, 3.0, 3.5, -2, "4")] == [None, None, 3, 3, None, None, None]


def test_source_tag_added_unless_the_caller_set_one(tmp_path):
    import noesis_nb
    from noesis_nb.store import read_json

    class A:
        source = "noeta"

        def invoke(self, task):
            return task

    def tags(**opts):
        ep = noesis_nb.solve("t", using=A(), runs_dir=tmp_path, **opts)
        return read_json(tmp_path / ep / "summary.json")["tags"]

    assert tags(tags={"team": "x"}) == {"team": "x", "source": "noeta"}
    assert tags(tags={"source": "mine"})["source"] == "mine"
    ep = noesis_nb.solve("t", using=lambda t: t, runs_dir=tmp_path, seed=1)
    assert read_json(tmp_path / ep / "summary.json")["tags"] == {}


def test_require_names_the_install_line():
    with pytest.raises(MissingExtraError, match=r"needs the 'noeta-sdk' package.*pip install 'noesis_nb\[noeta\]'"):
        require("surely_not_a_module_xyz", "noeta", "NoetaAdapter")
    assert issubclass(MissingExtraError, ImportError)


def test_every_usage_warning_is_kept():
    _, payload = usage_row("x", model="m", input_tokens=10, cached_input_tokens=20, output_tokens=5, reasoning_tokens=9)
    assert payload["usage_warning"] == (
        "cached + cache-write input (20) exceeds input_tokens (10); reasoning_tokens (9) exceeds output_tokens (5); "
        "cached_input_tokens and reasoning_tokens left unknown, the totals kept"
    )
    assert payload["input_tokens"] == 10 and payload["output_tokens"] == 5  # capture's rule: the totals kept
    assert payload["cached_input_tokens"] is None and payload["reasoning_tokens"] is None


def test_one_default_answer_for_every_integration():
    from noesis_nb.integrations import _approvals

    agui = pytest.importorskip("noesis_nb.integrations.agui")
    assert agui.default_answer is _approvals.default_answer
    assert _approvals.default_answer({"id": "i1"}, False, "too risky") == {"approved": False, "reason": "too risky"}
    assert _approvals.default_answer("value", True, "ignored") == {"approved": True}
