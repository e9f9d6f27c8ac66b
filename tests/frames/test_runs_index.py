"""The runs index (``frames.runindex``): a new process takes each unchanged run's row from it, and nothing else.

Each load here runs in a real new Python process (``newprocess``: as a new kernel would), sharing this test's
cache folder and seal key; it prints how many runs it read in full and leaves its frame in a pickle. A
frame from the index must equal one read in full, every time, whatever changed on disk in between.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.frames.cache import CACHE
from noesis_nb.frames.fs import RACY_NS
from noesis_nb.frames.runindex import INDEX_DIR

from .newprocess import copy_runs as _copy
from .newprocess import load as _load
from .newprocess import same as _same
from .runkit import basic_events, hand_summary, write_run


def _in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test's cache folder for this process, which loads as a kernel that learned no secret value does (earlier
    tests of the session may have taught it some: those turn the index off, as a subprocess test checks)."""
    from noesis_nb.frames import runindex

    monkeypatch.setenv("NOESIS_NB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runindex, "known_everywhere", lambda: ())


def _hand_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: Any, task: str = "t") -> Path:
    """Hand-written runs under ``tmp_path/runs``, settled, loaded as by a kernel that learned no secret value."""
    _in_this_process(tmp_path, monkeypatch)
    root = tmp_path / "runs"
    for ep in names:
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=task))
    time.sleep(RACY_NS / 1e9 * 3)
    return root


def test_a_new_process_reads_only_what_the_index_cannot_vouch_for(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = _copy(corpus, tmp_path)
    n = len(os.listdir(root))
    first, reads = _load(root, env, tmp_path / "a.pkl")
    assert reads == n
    second, reads = _load(root, env, tmp_path / "b.pkl")
    assert reads == 1  # the damaged run alone: its problems are found again, not copied
    _same(second, first)
    assert first.attrs["errors"] and all("ep_damaged" in e["path"] for e in first.attrs["errors"])
    full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "other-cache")}, tmp_path / "c.pkl")
    _same(second, full)


def test_what_changed_on_disk_since_is_read_again(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """An edit in place that keeps the size and the time, a new tool record, a run removed, a run added."""
    root = _copy(corpus, tmp_path)
    _load(root, env, tmp_path / "a.pkl")
    engine = sorted(p for p in root.iterdir() if (p / "tool_invocations").is_dir() and (p / "summary.json").is_file())
    edited, grown, removed = engine[0], engine[1], engine[2]
    summary = edited / "summary.json"
    text, st = summary.read_text(), summary.stat()
    doc = json.loads(text)
    swapped = text.replace(json.dumps(doc["task"]), json.dumps(doc["task"][::-1]), 1)
    assert len(swapped) == len(text) and swapped != text
    summary.write_text(swapped)
    os.utime(summary, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: only the ctime tells
    prepared = grown / "tool_invocations" / "prepared"
    prepared.mkdir(parents=True, exist_ok=True)
    template = next((grown / "tool_invocations").rglob("*.json"), None) or next(
        p for p in root.rglob("tool_invocations/prepared/*.json")
    )
    shutil.copy(template, prepared / "draft:extra.json")
    shutil.rmtree(removed)
    write_run(root, "ep_added", basic_events("ep_added"), summary=hand_summary("ep_added", task="added later"))
    time.sleep(RACY_NS / 1e9 * 3)
    got, reads = _load(root, env, tmp_path / "b.pkl")
    assert reads == 4  # the edited, the grown, the added, and the damaged run
    full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "other-cache")}, tmp_path / "c.pkl")
    _same(got, full)
    rows = got.set_index("episode_id")
    assert rows.loc[edited.name, "task"] == doc["task"][::-1]
    assert removed.name not in rows.index and rows.loc["ep_added", "task"] == "added later"


@pytest.mark.parametrize("damage", ["crafted", "other key", "cut", "fifo", "link to a device", "folder", "other code"])
def test_an_index_that_does_not_check_is_ignored(corpus: Path, tmp_path: Path, env: dict[str, str], damage: str) -> None:
    """A file made by someone without the key, with another key, cut by a crash, or not a file at all: every
    run is read in full, the frame is true, and the load neither hangs nor fails."""
    root = _copy(corpus, tmp_path)
    n = len(os.listdir(root))
    want, _ = _load(root, env, tmp_path / "a.pkl")
    args: dict[str, Any] = {}
    if damage == "other key":
        _load(root, {**env, "XDG_CONFIG_HOME": str(tmp_path / "other-config")}, tmp_path / "k.pkl")  # saved under it
    elif damage == "other code":
        args["code"] = "another version\n"
    indexes = list((tmp_path / "cache" / INDEX_DIR).iterdir())
    assert indexes  # one per folder holding runs
    for index in indexes if damage not in ("other key", "other code") else ():
        data = index.read_bytes()
        if damage == "crafted":  # every row says the task is something else; the tag is kept as it was
            head, _, body = data.partition(b"\n")
            entries = json.loads(body)
            for entry in entries.values():
                entry["row"]["task"] = "crafted"
            index.write_bytes(head + b"\n" + json.dumps(entries).encode())
            continue
        index.unlink()
        if damage == "cut":
            index.write_bytes(data[: len(data) // 2])
        elif damage == "fifo":
            os.mkfifo(index)
        elif damage == "link to a device":
            index.symlink_to("/dev/zero")
        else:
            index.mkdir()
    got, reads = _load(root, env, tmp_path / "b.pkl", **args)
    assert reads == n
    _same(got, want)
    if damage == "crafted":
        assert "crafted" not in set(got["task"])


def test_a_process_that_knows_a_secret_reads_every_run(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """Rows are screened as they are made: one made before this process learned a value could show it."""
    root = _copy(corpus, tmp_path)
    n = len(os.listdir(root))
    _load(root, env, tmp_path / "a.pkl")
    secret = "hunter2-correct-horse-battery"
    got, reads = _load(root, env, tmp_path / "b.pkl", learn=str(tmp_path / "somewhere"), secret=secret)
    assert reads == n


def test_columns_by_path_read_the_documents(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = _copy(corpus, tmp_path)
    n = len(os.listdir(root))
    _load(root, env, tmp_path / "a.pkl")
    got, reads = _load(root, env, tmp_path / "b.pkl", extras=True)
    assert reads == n
    full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "other-cache")}, tmp_path / "c.pkl", extras=True)
    _same(got, full)
    assert got["plan_adherence"].notna().any()


def test_clear_cache_forgets_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noesis_nb.frames import clear_cache, runs_df

    root = _hand_runs(tmp_path, monkeypatch, ("ep_a", "ep_b"))
    runs_df(root)
    folder = tmp_path / "cache" / INDEX_DIR
    assert len(list(folder.glob("*.json"))) == 1
    clear_cache()
    assert list(folder.iterdir()) == []


def test_a_cache_folder_that_refuses_writes_costs_nothing(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = _copy(corpus, tmp_path)
    (tmp_path / "cache").write_text("a file where the cache folder goes")
    got, _ = _load(root, env, tmp_path / "a.pkl")
    full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "other-cache")}, tmp_path / "b.pkl")
    _same(got, full)


def test_a_price_table_that_needs_the_calls_reads_the_run(tmp_path: Path, env: dict[str, str]) -> None:
    """The index keeps a run's per-model sums; a table under which those sums price differently from the
    calls (a part with its own rate, null in the sums) has the run read in full, as a cold load does."""
    import noesis_nb

    from .test_runs_usage_sums import _two_gpt_calls

    root = tmp_path / "runs"
    noesis_nb.solve("two calls", using=_two_gpt_calls, runs_dir=root)
    write_run(root, "ep_plain", basic_events("ep_plain"), summary=hand_summary("ep_plain", task="t"))
    time.sleep(RACY_NS / 1e9 * 3)
    flat = {"openai/gpt-4o": {"input": 2.5, "output": 10}}
    _, reads = _load(root, env, tmp_path / "a.pkl", prices=flat)
    assert reads == 2
    got, reads = _load(root, env, tmp_path / "b.pkl")
    assert reads == 1  # the sums give way to the calls under genai-prices' cached rate
    full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "other-cache")}, tmp_path / "c.pkl")
    _same(got, full)
    again, reads = _load(root, env, tmp_path / "d.pkl", prices=flat)
    assert reads == 0
    flat_full, _ = _load(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / "third-cache")}, tmp_path / "e.pkl", prices=flat)
    _same(again, flat_full)


def test_a_list_of_runs_neither_reads_nor_writes_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask's partitions load lists of runs at once: each would rewrite the whole root's index."""
    from noesis_nb.frames import runs_df

    root = _hand_runs(tmp_path, monkeypatch, ("ep_a", "ep_b"))
    assert len(runs_df([root / "ep_a", root / "ep_b"])) == 2
    assert not (tmp_path / "cache" / INDEX_DIR).exists()
    CACHE.clear()  # this process's copies of the runs, not the index: the next load reads them again
    assert len(runs_df(root)) == 2
    assert len(list((tmp_path / "cache" / INDEX_DIR).glob("*.json"))) == 1


def _index_keys(cache: Path) -> set[str]:
    """The runs every index file under ``cache`` holds (its body, past the tag line)."""
    keys: set[str] = set()
    for index in (cache / INDEX_DIR).glob("*.json"):
        keys |= {key.partition("/")[2] for key in json.loads(index.read_bytes().partition(b"\n")[2])}
    return keys


def test_a_detect_secrets_of_another_version_has_the_runs_screened_again(
    corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """Rows of runs noesis_nb did not seal are screened by detect-secrets: after an upgrade (a detector added) the
    copies made by the old one are not served (here: the same package with one module touched)."""
    import detect_secrets

    root = _copy(corpus, tmp_path)
    n = len(os.listdir(root))
    _load(root, env, tmp_path / "a.pkl")
    site = tmp_path / "site"
    shutil.copytree(Path(detect_secrets.__file__).parent, site / "detect_secrets", copy_function=shutil.copy2)
    plugin = site / "detect_secrets" / "__init__.py"
    plugin.write_text(plugin.read_text() + "\n# a newer release\n")
    upgraded = {**env, "PYTHONPATH": os.pathsep.join([str(site), env.get("PYTHONPATH", "")])}
    _, reads = _load(root, upgraded, tmp_path / "b.pkl", code=None)  # the digest of the code as it is on disk
    assert reads == n


def test_one_run_loaded_alone_leaves_its_roots_index_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Watching one run (``runs_df(run_dir)``) again and again must not parse and rewrite its whole root's index."""
    from noesis_nb.frames import runs_df

    root = _hand_runs(tmp_path, monkeypatch, ("ep_a", "ep_b"))
    assert len(runs_df(root / "ep_a")) == 1
    assert not (tmp_path / "cache" / INDEX_DIR).exists()


def test_later_loads_in_a_process_neither_parse_nor_rewrite_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first load of a root the in-memory cache serves its runs: a run that changed since cannot be in
    the index, so a reload reads it alone, with no parse of the whole file and no rewrite of it."""
    from noesis_nb.frames import runindex, runs_df

    root = _hand_runs(tmp_path, monkeypatch, [f"ep_{n}" for n in range(5)])
    reads: list[Path] = []
    real_read = runindex._read
    monkeypatch.setattr(runindex, "_read", lambda path: reads.append(path) or real_read(path))
    runs_df(root)
    [index] = (tmp_path / "cache" / INDEX_DIR).glob("*.json")
    written = index.stat().st_mtime_ns
    summary = root / "ep_3" / "summary.json"
    summary.write_text(summary.read_text().replace('"t"', '"u"'))
    time.sleep(RACY_NS / 1e9 * 3)
    reads.clear()
    assert runs_df(root).set_index("episode_id").loc["ep_3", "task"] == "u"
    assert reads == [] and index.stat().st_mtime_ns == written


def test_runs_gone_from_the_folder_leave_the_index(corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = _copy(corpus, tmp_path)
    _load(root, env, tmp_path / "a.pkl")
    names = sorted(p.name for p in root.iterdir() if p.name.startswith("ep_0"))
    assert set(names) <= _index_keys(tmp_path / "cache")
    shutil.rmtree(root / names[0])
    write_run(root, "ep_new", basic_events("ep_new"), summary=hand_summary("ep_new", task="t"))
    time.sleep(RACY_NS / 1e9 * 3)
    _load(root, env, tmp_path / "b.pkl")
    keys = _index_keys(tmp_path / "cache")
    assert names[0] not in keys and "ep_new" in keys


def test_the_same_relative_folder_in_two_projects_is_two_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noesis_nb.frames import runs_df

    _in_this_process(tmp_path, monkeypatch)
    for project in ("a", "b"):
        for n in range(2):
            ep = f"ep_{project}{n}"
            write_run(tmp_path / project / "runs", ep, basic_events(ep), summary=hand_summary(ep, task=project))
    time.sleep(RACY_NS / 1e9 * 3)
    for project in ("a", "b"):
        monkeypatch.chdir(tmp_path / project)
        assert set(runs_df("runs")["task"]) == {project}
    assert len(list((tmp_path / "cache" / INDEX_DIR).glob("*.json"))) == 2


def test_a_load_that_raises_keeps_no_index_in_memory_and_clear_cache_removes_left_temps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noesis_nb.frames import clear_cache, runindex, runs_df
    from noesis_nb.frames.problems import RunLoadError

    root = _hand_runs(tmp_path, monkeypatch, [f"ep_{n}" for n in range(3)])
    runs_df(root)
    assert list((tmp_path / "cache" / INDEX_DIR).glob("*.json"))  # the index is in use
    clear_cache()
    (root / "ep_2" / "summary.json").write_text("{not json")
    with pytest.raises(RunLoadError):
        runs_df(root, strict=True)
    assert all(index._entries is None for index in runindex._INDEXES.values())
    left = tmp_path / "cache" / INDEX_DIR / ".0123.json.4242.abcdef"  # what a kill -9 mid-write leaves
    left.parent.mkdir(parents=True, exist_ok=True)
    left.write_bytes(b"x" * 100)
    clear_cache()
    assert list(left.parent.iterdir()) == []


def test_a_process_holding_a_secret_in_its_environment_is_not_served_rows_made_without_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Views hide the environment's secrets (``known_shown``) while the index stays in use in a process holding them
    (an API key in nearly every kernel): rows a process without that variable made could show its value in clear, so
    a process holding another set of them is not served those rows (before, the task below was served in clear)."""
    secret = "Zq7-orchard-Lantern-991"
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=f"deploy with {secret} now"))
    time.sleep(RACY_NS / 1e9 * 3)
    plain = {k: v for k, v in env.items() if k != "ACME_DB_PASSWORD"}
    before, _ = _load(root, plain, tmp_path / "a.pkl")
    assert any(secret in task for task in before["task"])  # no process knew it: the rows hold it
    got, reads = _load(root, {**plain, "ACME_DB_PASSWORD": secret}, tmp_path / "b.pkl")
    assert not any(secret in task for task in got["task"]), list(got["task"])
    assert reads == 2
    again, reads = _load(root, {**plain, "ACME_DB_PASSWORD": secret}, tmp_path / "c.pkl")
    assert reads == 0 and not any(secret in task for task in again["task"])  # its own rows: the index serves them
