import json
import re
import shutil

import pytest

from noesis_nb import config
from noesis_nb.errors import InvalidIdError, InvalidOptionError, RunNotFoundError
from noesis_nb.store import find_run_dir, iter_run_dirs, list_runs, verify_manifest, write_manifest


def _run(root, episode_id, *, label=None, summary=True):
    run_dir = (root / label / episode_id) if label else (root / episode_id)
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_text(
        json.dumps(
            {"id": "1", "phase": "start", "timestamp": "2025-01-01T00:00:00+00:00", "payload": {"task": f"task {episode_id}"}}
        )
        + "\n"
    )
    if summary:
        (run_dir / "summary.json").write_text(
            json.dumps(
                {
                    "episode_id": episode_id,
                    "task": f"task {episode_id}",
                    "started_at": f"2025-01-0{len(episode_id) % 9 + 1}T00:00:00+00:00",
                    "metrics": {"success": 1},
                }
            )
        )
    return run_dir


def test_find_run_dir_searches_explicit_env_default_and_label_levels(tmp_path, monkeypatch):
    explicit = tmp_path / "explicit"
    a = _run(explicit, "ep_a")
    assert find_run_dir("ep_a", runs_dir=explicit) == a
    env_root = tmp_path / "env"
    b = _run(env_root, "ep_b", label="demo")
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(env_root))
    assert find_run_dir("ep_b") == b
    c = _run(tmp_path / ".noesis" / "episodes", "ep_c")
    assert find_run_dir("ep_c").resolve() == c.resolve()
    d = _run(tmp_path / "runs", "ep_d", label="legacy")
    assert find_run_dir("ep_d").resolve() == d.resolve()
    assert find_run_dir(a) == a  # a path is taken as is
    with pytest.raises(RunNotFoundError, match="ep_zzz"):
        find_run_dir("ep_zzz")


@pytest.mark.parametrize("bad", ["../etc", "a/b", "..", "", "ep\\x", "ep_\x00"])
def test_ids_that_could_escape_are_refused(bad):
    with pytest.raises(InvalidIdError):
        find_run_dir(bad)


def test_list_runs_includes_unsealed_runs_newest_first(tmp_path):
    config.set(runs_dir=str(tmp_path / "r"))
    _run(tmp_path / "r", "ep_1")
    _run(tmp_path / "r", "ep_22")
    _run(tmp_path / "r", "ep_paused", summary=False)
    rows = list_runs()
    assert {r["episode_id"] for r in rows} == {"ep_1", "ep_22", "ep_paused"}
    paused = next(r for r in rows if r["episode_id"] == "ep_paused")
    assert paused["status"] == "running" and paused["task"] == "task ep_paused" and paused["sealed"] is False
    assert [r["started_at"] for r in rows if r["started_at"]] == sorted(
        [r["started_at"] for r in rows if r["started_at"]], reverse=True
    )
    assert len(list(iter_run_dirs(tmp_path / "r"))) == 3
    assert [r["episode_id"] for r in list_runs(2, runs_dir=tmp_path / "r")] == [r["episode_id"] for r in rows[:2]]


@pytest.mark.parametrize(
    ("limit", "hint"), [("root", "pass the runs root as runs_dir="), (-1, "whole number"), (2.5, "whole number")]
)
def test_list_runs_names_a_limit_that_is_no_count(tmp_path, limit, hint):
    """``list_runs(root)`` put the root in ``limit``: a TypeError from deep in the slicing (for -1: all runs but one)."""
    _run(tmp_path / "runs", "ep_1")
    given = str(tmp_path / "runs") if limit == "root" else limit
    with pytest.raises(InvalidOptionError, match=re.escape(f"limit={given!r}") + f".*{hint}"):
        list_runs(given)


def test_list_runs_since_must_be_a_time(tmp_path):
    """``since`` is compared with the start times as text: "yesterday" or 5 kept no run (or every run) without a word."""
    import datetime

    from noesis_nb import ns

    _run(tmp_path / "runs", "ep_1")
    root = tmp_path / "runs"
    for bad in ("yesterday", 5, "31/01/2026"):
        with pytest.raises(InvalidOptionError, match=re.escape(f"since={bad!r}: pass an ISO-8601 time or date")):
            list_runs(since=bad, runs_dir=root)
    started = list_runs(runs_dir=root)[0]["started_at"]
    assert len(list_runs(since=started[:10], runs_dir=root)) == 1  # a date: from that day on, as before
    assert len(list_runs(since=datetime.date.fromisoformat(started[:10]), runs_dir=root)) == 1
    later = datetime.datetime.fromisoformat(started) + datetime.timedelta(seconds=1)
    assert list_runs(since=later, runs_dir=root) == []
    ahead = later.astimezone(datetime.timezone(datetime.timedelta(hours=5)))  # the same moment, written in another zone
    assert list_runs(since=ahead.isoformat(), runs_dir=root) == []  # compared as text it kept the run
    with pytest.raises(InvalidOptionError, match=r"set the runs root with ns\.set\(runs_dir=…\)"):
        ns.list_runs(str(root))  # ns.list_runs takes no runs_dir=, so the hint names what it takes


def test_manifest_round_trip_missing_and_mismatch(tmp_path):
    run_dir = _run(tmp_path, "ep_m")
    (run_dir / "tool_invocations" / "prepared").mkdir(parents=True)
    (run_dir / "tool_invocations" / "prepared" / "draft:ep_m:r1.json").write_text("{}")
    manifest = write_manifest(run_dir, "ep_m")
    names = [f["name"] for f in manifest["files"]]
    assert names == sorted(names) and "tool_invocations/prepared/draft:ep_m:r1.json" in names
    assert {f["name"]: f["kind"] for f in manifest["files"]}["events.jsonl"] == "events"
    assert verify_manifest(run_dir).status == "ok"
    pristine = tmp_path / "pristine"
    shutil.copytree(run_dir, pristine)
    with open(run_dir / "events.jsonl", "a") as fh:
        fh.write("{}\n")
    assert verify_manifest(run_dir).status == "mismatch"
    (pristine / "summary.json").unlink()
    check = verify_manifest(pristine)
    assert check.status == "missing" and check.problems == ["summary.json: listed in manifest.json but missing"]


def test_real_noesis_run_verifies_and_lists(smoke_run, tmp_path):
    copy = tmp_path / "copy" / smoke_run.name
    shutil.copytree(smoke_run, copy)
    assert verify_manifest(copy).status == "ok"
    row = list_runs(runs_dir=tmp_path / "copy", strict_manifest=True)[0]
    assert row["episode_id"] == "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
    assert row["status"] == "ok" and row["success"] is True and row["using"] == "core.minimal"
    assert row["manifest_status"] == "ok" and row["sealed"] is True
    (copy / "state.json").write_text((copy / "state.json").read_text() + " ")
    assert verify_manifest(copy).status == "mismatch"


def test_a_path_that_is_no_run_says_what_it_is_and_what_to_pass(tmp_path, smoke_run):
    """show/DiskRun/resume with a path: nothing there, a file, an empty folder, a runs folder, another folder."""
    runs = tmp_path / "runs"
    shutil.copytree(smoke_run, runs / "team" / smoke_run.name)  # one label level down
    shutil.copytree(smoke_run, runs / "ep_second")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("x")
    (tmp_path / "file.json").write_text("{}")
    cases = {
        tmp_path / "gone": "nothing is there; pass an id",
        tmp_path / "file.json": "it is a file; pass an id",
        tmp_path / "empty": "it is an empty folder; pass an id",
        tmp_path / "notes": "it holds none of events.jsonl, summary.json, state.json, final.json; pass an id",
        runs: f"it is a runs folder holding 2 run(s) (ep_second, team/{smoke_run.name}); pass one of them, "
        f"or load them all with runs_df({str(runs)!r})",
    }
    for path, said in cases.items():
        with pytest.raises(InvalidIdError, match=re.escape(f"{str(path)!r} is neither an episode id")) as as_text:
            find_run_dir(str(path))
        with pytest.raises(RunNotFoundError, match=re.escape(f"{str(path)!r} is not a run directory")) as as_path:
            find_run_dir(path)
        assert said in str(as_text.value), str(as_text.value)
        assert said in str(as_path.value), str(as_path.value)


def test_a_folder_here_named_without_a_slash_says_what_it_is(tmp_path, smoke_run, monkeypatch):
    """``export_otel("runs")``, ``show("runs")``: a word without ``/`` is read as an id; when no run has that id but a
    folder here has that name, the error says what the folder is (it said "no run 'runs' under …, 'runs', …" before,
    naming the folder among the places searched)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(smoke_run, tmp_path / "runs" / smoke_run.name)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunNotFoundError) as err:
        find_run_dir("runs")
    said = str(err.value)
    assert said.startswith("'runs' is a folder here, not a run's id or directory: it is a runs folder holding 1 run(s)")
    assert "runs_df('runs')" in said
    with pytest.raises(RunNotFoundError, match="'empty' is a folder here.*it is an empty folder"):
        find_run_dir("empty")
    assert find_run_dir(smoke_run.name).resolve() == tmp_path / "runs" / smoke_run.name  # an id is found as before
    (tmp_path / "ep_01").mkdir()  # a folder here named like the start of an id: the id's hint, not the folder's
    with pytest.raises(RunNotFoundError, match=re.escape(f"it is the start of 1 run id(s): {smoke_run.name}")):
        find_run_dir("ep_01")
    monkeypatch.chdir(tmp_path / "runs")  # inside a runs folder, a run's folder named bare is that run
    assert find_run_dir(smoke_run.name).resolve() == tmp_path / "runs" / smoke_run.name
