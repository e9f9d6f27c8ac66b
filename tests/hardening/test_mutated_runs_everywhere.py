"""Mutated real runs opened every other way a person can: each works, or raises one clear error.

``test_mutated_runs.py`` loads the four frames over runs mutated by ``mutate.py``. Here each
hypothesis example copies one run of the shapes the engine writes (sealed with model calls,
tools approved, rejected, resumed, paused on a draft, failed, an integration's), mutates the
copy once, and opens it through ``show`` (its snapshot), ``%noesis show --text``, ``%noesis
list``, ``replay`` (seeking through it, and compared with the pristine run), ``export_otel``
to a file, ``inbox``, and the ``ns`` readers; a mutated paused run is also approved and
resumed. Each must work (a view may name what it left out) or raise one ``NoesisNbError``
naming the file or its run. Nothing read through a symlink out of the run
may reach what is shown or exported, no planted markup may reach HTML unescaped, nothing
outside the run may change, and a run ``resume_run`` refuses is left byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import ns
from noesis_nb.cost import price_calls
from noesis_nb.errors import (
    CheckpointConsistencyError,
    EpisodeStateError,
    EventLogIntegrityError,
    NoesisNbError,
)
from noesis_nb.store.ownership import OWNER_FILE
from noesis_nb.store.runfiles import UnreadableRunFile
from noesis_nb.widgets.meter import CostMeter
from tests.ipshell import run_magic

from . import mutate
from .episodes import SHAPES, _llm, tool_records
from .report import figures

pytestmark = pytest.mark.timeout(120)  # a reader waiting on a FIFO fails the test instead of hanging it

MARK = "<b data-planted=1>"  # text of the marked run: it may reach HTML only escaped
OPS = ["any"] * 10 + list(mutate.FILE_OPS)  # two in seven replace a file by a directory, FIFO or symlink
EXAMPLES = int(os.environ.get("NOESIS_NB_EVERYWHERE_EXAMPLES", "100"))
FIGURES = {"runs mutated": 0, "opened": 0, "clear errors": 0, "paused runs decided": 0, "resumes refused": 0}


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Real runs of varied shapes (two paused on a draft), written once by the engine."""
    root = tmp_path_factory.mktemp("bases") / "runs"
    for n, shape in enumerate(["llm", "tool", "command", "paused", "failing", "integration", "phases", "paused", "tagged"]):
        SHAPES[shape](root, n)
    SHAPES["resume"](root, 90)  # approved and resumed: approvals, executions, a resumed log
    SHAPES["reject"](root, 99)  # rejected and resumed
    for n in (100, 101):
        SHAPES["paused"](root, n)
    noesis_nb.solve(f"marked {MARK}", using=_llm([("openai", MARK)]), runs_dir=root, tags={"note": MARK})
    CostMeter.ready()
    CostMeter.wait()  # prices loaded: the views price each model call, as a person sees them
    return sorted(p for p in root.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files out of every run that symlinks point to: their marker must never be shown or exported."""
    place = tmp_path_factory.mktemp("outside")
    doc = {key: mutate.OUTSIDE_MARK for key in ("episode_id", "task", "status", "outcome", "draft_id", "request_id")}
    doc["files"] = [{"name": mutate.OUTSIDE_MARK}]
    (place / "doc.json").write_text(json.dumps(doc))
    line = {
        "id": mutate.OUTSIDE_MARK,
        "timestamp": "2025-01-01T00:00:00+00:00",
        "phase": "model",
        "payload": {"event_name": "model.call", "model": mutate.OUTSIDE_MARK, "input_tokens": 1, "output_tokens": 1},
    }
    (place / "events.jsonl").write_text(json.dumps(line) + "\n")
    return place


@pytest.fixture(autouse=True)
def _runs_dir_restored():
    """``ns.list_runs``/``ns.last`` read the configured root: set per example, restored after."""
    before = ns.get()["runs_dir"]
    yield
    ns.set(runs_dir=before)


def tree(path: Path) -> dict[str, Any]:
    """Every entry under ``path``: kind, and the bytes' digest of a regular file or a symlink's target (never followed)."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st_ = os.lstat(full)
            rel = os.path.relpath(full, path)
            if stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISREG(st_.st_mode):
                out[rel] = ("file", hashlib.sha256(Path(full).read_bytes()).hexdigest())
            else:
                out[rel] = ("dir" if stat.S_ISDIR(st_.st_mode) else "other", None)
    return out


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Entries of a run's ``tree`` that differ; the owner note (who last held the run, for messages) is no part of it."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k) and k != OWNER_FILE)


def _html(view: Any) -> str:
    bundle = view.mimebundle() if hasattr(view, "mimebundle") else view._repr_mimebundle_()
    return str(bundle["text/html"])


def _replay_everywhere(run: Path, base: Path) -> str:
    view = noesis_nb.replay(run)
    shown = [_html(view)]
    for k in sorted({0, 1, view.total // 2, max(0, view.total - 1), view.total}):
        shown.append(_html(view.seek(k)))
    shown.append(_html(noesis_nb.replay(run, compare=base)))
    return "\n".join(shown)


def _inbox(root: Path) -> str:
    box = noesis_nb.inbox(root)
    try:
        return _html(box)
    finally:
        box.close()


def _list(root: Path) -> str:
    table, printed = run_magic(f"list --runs-dir {root}")
    assert mutate.OUTSIDE_MARK not in printed + repr(table), "the listing shows data read through a symlink out of the run"
    return str(table._repr_html_())


def _ns_readers(run: Path, root: Path) -> str:
    ns.set(runs_dir=str(root))
    events = ns.events.read(str(run))
    streamed = list(ns.events.read(str(run), stream=True))
    out = [json.dumps(events, default=str), json.dumps(streamed, default=str), json.dumps(ns.paths(str(run)))]
    out.append(json.dumps(ns.list_runs(), default=str) + str(ns.last()))
    if (run / "summary.json").exists() or (run / "summary.json").is_symlink():  # a paused run has none yet
        out.append(json.dumps(ns.summary.read(str(run)), default=str))
    return "\n".join(out)


def _export(run: Path, trace: Path) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TraceIncomplete: what the trace left out, by name
        noesis_nb.export_otel(run, path=trace)
    return trace.read_text() if trace.exists() else ""


def _names_the_file(message: str, expect: mutate.Expect, run: Path) -> bool:
    """An error names the mutated file (by path or name) or the run it is in."""
    return Path(expect.path).name in message or str(run) in message or run.name in message


class Opened:
    """Each way the run was opened: what it showed, or the error it raised (a raw one is a failure)."""

    def __init__(self, run: Path, expect: mutate.Expect) -> None:
        self.run, self.expect = run, expect
        self.failures: list[str] = []

    def __call__(self, name: str, open_it: Callable[[], str], *, html: bool = False) -> bool:
        FIGURES["opened"] += 1
        try:
            text = open_it()
        except (NoesisNbError, UsageError) as exc:
            FIGURES["clear errors"] += 1
            if not _names_the_file(str(exc), self.expect, self.run):
                self.failures.append(f"{name}: {type(exc).__name__} names neither the file nor the run: {exc}")
            return False
        except Exception as exc:
            self.failures.append(f"{name}: raw {type(exc).__name__}: {str(exc)[:300]}")
            return False
        if mutate.OUTSIDE_MARK in text:
            self.failures.append(f"{name}: shows data read through a symlink out of the run")
        if html and MARK in text:
            at = text.find(MARK)
            self.failures.append(f"{name}: planted markup unescaped: …{text[max(0, at - 120) : at + 40]}…")
        return True


def _open_everywhere(run: Path, base: Path, expect: mutate.Expect, scratch: Path) -> Opened:
    root = run.parent
    opened = Opened(run, expect)
    opened("show", lambda: _html(noesis_nb.show(run)), html=True)
    opened("%noesis show --text", lambda: run_magic(f"show {run} --text")[1])
    opened("%noesis list", lambda: _list(root), html=True)
    opened("replay", lambda: _replay_everywhere(run, base), html=True)
    opened("export_otel", lambda: _export(run, scratch / "trace.json"))
    opened("inbox", lambda: _inbox(root), html=True)
    opened("ns readers", lambda: _ns_readers(run, root))
    return opened


def _decide_and_resume(run: Path, opened: Opened) -> None:
    """Approve the paused run's draft and resume it; a refused resume leaves the run as it was."""
    FIGURES["paused runs decided"] += 1
    opened("approve_draft", lambda: str(noesis_nb.approve_draft(run, approver_id="x")))
    before = tree(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NothingToResume, RunRecovered: said, not raised
        if not opened("resume_run", lambda: noesis_nb.resume_run(run)):
            FIGURES["resumes refused"] += 1
            changed = _changed(before, tree(run))
            if changed:
                opened.failures.append(f"resume_run refused the run but changed {changed}")


def _paused(run: Path) -> bool:
    """A run waiting on a draft: no summary yet, a draft on disk."""
    return not (run / "summary.json").exists() and bool(tool_records(run, "prepared"))


def _check(run: Path, base: Path, expect: mutate.Expect, scratch: Path, outside: Path) -> list[str]:
    around = {"outside": tree(outside), "bases": tree(base.parent), "root": sorted(os.listdir(run.parent))}
    opened = _open_everywhere(run, base, expect, scratch)
    if _paused(base):
        _decide_and_resume(run, opened)
    after = {"outside": tree(outside), "bases": tree(base.parent), "root": sorted(os.listdir(run.parent))}
    if after != around:
        opened.failures.append("something outside the run was written or changed")
    return [f"{expect.what} ({expect.path}, line {expect.line}): {f}" for f in opened.failures]


# -- regressions: each a mutation the property below found ---------------------------------------------------------


def _copy(base: Path, tmp_path: Path) -> Path:
    run = tmp_path / "runs" / base.name
    shutil.copytree(base, run, symlinks=True)
    return run


def _unchanged(run: Path, before: dict[str, Any]) -> None:
    assert not _changed(before, tree(run))


def _rewrite_line(run: Path, number: int, change: Callable[[dict[str, Any]], None]) -> None:
    log = run / "events.jsonl"
    lines = log.read_text().splitlines()
    event = json.loads(lines[number - 1])
    change(event)
    lines[number - 1] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("op", ["directory", "fifo", "symlink_out"])
def test_an_events_file_that_is_no_file_is_one_clear_error_for_the_ns_readers_and_resume_run(
    bases: list[Path], outside: Path, tmp_path: Path, op: str
) -> None:
    """It was a raw ``UnreadableRunFile`` (an ``OSError``): now a ``NoesisNbError`` naming the file (still an ``OSError``)."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    mutate.mutate(run, (0, op), random.Random(0), outside)
    log = re.escape(str(run / "events.jsonl"))
    for read in (lambda: ns.events.read(str(run)), lambda: list(ns.events.read(str(run), stream=True))):
        with pytest.raises(UnreadableRunFile, match=log) as err:
            read()
        assert isinstance(err.value, NoesisNbError) and isinstance(err.value, OSError)
        assert mutate.OUTSIDE_MARK not in str(err.value)
    before = tree(run)
    with pytest.raises(NoesisNbError, match=log):  # a link is refused before it is read (UnsafeRunPathError)
        noesis_nb.resume_run(run)
    _unchanged(run, before)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("truncate", "invalid JSON"),
        ("array", "a JSON list, not an object"),
        ("directory", "a directory"),
        ("fifo", "FIFO"),
        ("symlink_out", "outside the run"),
    ],
)
def test_a_damaged_summary_is_named_by_ns_summary_read_never_taken_for_one_not_written_yet(
    bases: list[Path], outside: Path, tmp_path: Path, damage: str, reason: str
) -> None:
    """``ns.summary.read`` said "does not exist yet: the run is paused or still running" (a raw ``FileNotFoundError``)."""
    run = _copy(bases[0], tmp_path)
    summary = run / "summary.json"
    if damage == "truncate":
        summary.write_bytes(summary.read_bytes()[:20])
    elif damage == "array":
        summary.write_text("[1, 2]")
    else:
        mutate._file_op(summary, damage, outside)
    with pytest.raises(UnreadableRunFile, match=f"{re.escape(str(summary))}: .*{reason}.*Restore summary.json") as err:
        ns.summary.read(str(run))
    assert "does not exist yet" not in str(err.value) and mutate.OUTSIDE_MARK not in str(err.value)
    with pytest.raises(FileNotFoundError, match="is paused, waiting for a decision"):  # a paused run has none yet
        ns.summary.read(str(next(filter(_paused, bases))))


def test_a_paused_run_changed_after_its_pause_is_refused_naming_the_run_and_left_as_it_was(
    bases: list[Path], tmp_path: Path
) -> None:
    """The refusal said only "checkpoint chk_…: run artifacts changed since the pause": not which run, nor what to do."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    _rewrite_line(run, 2, lambda event: event["payload"].update(planted=1))
    before = tree(run)
    with pytest.raises(CheckpointConsistencyError, match=f"of run {re.escape(str(run))}: .*events.jsonl up to event") as err:
        noesis_nb.resume_run(run)
    assert "restore the changed file from a copy of the run" in str(err.value)
    _unchanged(run, before)


@pytest.mark.parametrize("value", [-1.5, True, ["ep_x"], {"a": 1}])
def test_a_state_whose_episode_id_is_no_id_is_refused_naming_state_json(bases: list[Path], tmp_path: Path, value: Any) -> None:
    """It was ``InvalidIdError: episode id must be a non-empty string, got -1.5``, naming neither the file nor the run."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    state = json.loads((run / "state.json").read_text())
    state["episode"]["id"] = value
    (run / "state.json").write_text(json.dumps(state))
    before = tree(run)
    with pytest.raises(EpisodeStateError, match=rf"{re.escape(str(run))}/state\.json: episode\.id .* is no episode id"):
        noesis_nb.resume_run(run)
    _unchanged(run, before)


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [("id", [[1]], "array"), ("phase", {"a": 1}, "object"), ("event_type", 5, "number"), ("caused_by", ["x"], "array")],
)
def test_an_event_whose_links_are_no_text_is_refused_by_resume_run_naming_its_line(
    bases: list[Path], tmp_path: Path, field: str, value: Any, kind: str
) -> None:
    """An ``id`` or ``phase`` that is a list or object raised a raw ``TypeError: unhashable type`` from deep in the resume
    (and from ``approve_draft``); the decision now reads past the line, and the resume names it."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    _rewrite_line(run, 2, lambda event: event.__setitem__(field, value))
    assert noesis_nb.approve_draft(run, approver_id="x").status == "approved"  # the pause is on another line
    before = tree(run)
    with pytest.raises(EventLogIntegrityError, match=rf"events\.jsonl, line 2: {field} is a JSON {kind}, not text") as info:
        noesis_nb.resume_run(run)
    assert "strict=False" not in str(info.value), "resume_run has no strict= to offer"
    assert f"Run {run.name} is continued only from a whole log" in str(info.value)
    _unchanged(run, before)


def test_an_act_event_whose_tool_is_a_list_is_refused_by_the_checkpoint_not_a_type_error(
    bases: list[Path], tmp_path: Path
) -> None:
    """Reopening the run counted the tools of its act events in a set: a list raised ``TypeError: unhashable type``."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    _rewrite_line(run, 2, lambda event: event.update(phase="act", payload={"tool": ["sh", "-c"]}))
    with pytest.raises(CheckpointConsistencyError, match="events.jsonl up to event"):
        noesis_nb.resume_run(run)


@pytest.mark.parametrize("provider", [["openai"], {"a": 1}])
def test_a_model_call_whose_provider_is_no_text_is_shown_and_priced_by_its_model(
    bases: list[Path], tmp_path: Path, provider: Any
) -> None:
    """Pricing the call for a step's summary (and a drain report) raised ``TypeError: unhashable type`` from the price
    lookup once the prices had loaded; the provider is now read as unknown, as the frames read it."""
    run = _copy(bases[0], tmp_path)
    lines = (run / "events.jsonl").read_text().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if json.loads(line)["payload"].get("event_name") == "model.call")
    _rewrite_line(run, number, lambda event: event["payload"].update(model="gpt-4o", provider=provider))
    CostMeter.ready()
    CostMeter.wait()  # the bug showed only once the prices were there
    assert "gpt-4o" in _html(noesis_nb.show(run)) and _html(noesis_nb.replay(run))
    (cost,) = price_calls([{"model": "gpt-4o", "provider": provider, "input_tokens": 1000, "output_tokens": 10}])
    assert cost is not None and cost > 0


@pytest.mark.parametrize("name", [["tool.approval.pending"], {"a": 1}])
def test_a_tool_event_whose_name_is_a_list_or_object_is_shown(bases: list[Path], tmp_path: Path, name: Any) -> None:
    """Placing the event in its tool step compared its name with a set: ``TypeError: unhashable type`` from ``show``
    and ``replay``; such a name now names no tool event, and the rest of the run shows."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    lines = (run / "events.jsonl").read_text().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if json.loads(line).get("phase") == "tool")
    _rewrite_line(run, number, lambda event: event["payload"].update(event_name=name))
    assert "fs.write@1" in _html(noesis_nb.show(run))
    view = noesis_nb.replay(run)
    for k in range(view.total + 1):
        _html(view.seek(k))


# -- the property -----------------------------------------------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(base=st.integers(0, 10**6), target=st.integers(0, 10**6), op=st.sampled_from(OPS), seed=st.integers(0, 2**32))
def test_a_mutated_run_opens_everywhere_or_is_one_clear_error(
    tmp_path_factory: pytest.TempPathFactory, bases: list[Path], outside: Path, base: int, target: int, op: str, seed: int
) -> None:
    paused = [b for b in bases if _paused(b)]
    pristine = paused[base // 3 % len(paused)] if base % 3 == 0 else bases[base % len(bases)]  # a third decided and resumed
    scratch = tmp_path_factory.mktemp("everywhere")
    run = scratch / "runs" / pristine.name
    shutil.copytree(pristine, run, symlinks=True)
    expect = mutate.mutate(run, (target, op), random.Random(seed), outside)
    FIGURES["runs mutated"] += 1
    failures = _check(run, pristine, expect, scratch, outside)
    assert not failures, failures


def test_figures() -> None:
    """Runs after the property above (same module, file order)."""
    if FIGURES["runs mutated"] == 0:
        pytest.skip("the mutation property did not run in this session (deselected)")
    figures("mutated runs (every other way in)", FIGURES)
