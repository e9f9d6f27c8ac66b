"""Files the newer features write, mutated as a hostile tester does: a batch's record and lock, the rates file.

Each mutation is tolerated or refused with ONE noesis_nb error naming the file and the fix; nothing hangs,
nothing recorded is overwritten and no task runs twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb import _genai_rates as genai
from noesis_nb.batch.record import load_record
from noesis_nb.errors import EpisodeStateError, InvalidIdError, InvalidOptionError, NoesisNbError
from noesis_nb.tools.errors import ToolRecordError

from ..batch.agents import echo
from .episodes import make_paused, tool_records

TASKS = ["a", "b"]


def _batch(root: Path) -> Any:
    async def main() -> Any:
        return await noesis_nb.batch(TASKS, using=echo, root=root, batch_id="nightly")

    return asyncio.run(main())


def _finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, set[str]]:
    """A finished batch: its root, its record's bytes and its run folders."""
    root = tmp_path_factory.mktemp("batch") / "runs"
    handle = _batch(root)
    assert [e.status for e in handle.entries] == ["ok", "ok"]
    return root, (root / "batches" / "nightly.json").read_bytes(), _runs(root)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, set[str]]:
    return _finished(tmp_path_factory)


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, set[str]]:
    """A batch of its own for the lock's tests."""
    return _finished(tmp_path_factory)


def _runs(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.name != "batches"}


def _record(recorded: tuple[Path, bytes, set[str]], change: Any, *, of_file: bool = False) -> tuple[Path, Path]:
    """The batch's record as ``change`` leaves it: ``change(path)`` (``of_file``) or ``change(entries)``."""
    root, good, _ = recorded
    path = root / "batches" / "nightly.json"
    path.unlink(missing_ok=True)
    path.write_bytes(good)
    if of_file:
        change(path)
    else:
        record = json.loads(good)
        record["entries"] = change(record["entries"])
        path.write_text(json.dumps(record))
    return root, path


def _drop_last(entries: list[Any]) -> list[Any]:
    return entries[:-1]


def _twice(entries: list[Any]) -> list[Any]:
    return [*entries, {**entries[0], "episode_id": "ep_planted_twin"}]


def _id_number(entries: list[Any]) -> list[Any]:
    return [{**entries[0], "episode_id": 5}, *entries[1:]]


def _no_tasks(path: Path) -> None:
    """No entries and no task list (one field at a time left the other checks to catch it)."""
    record = json.loads(path.read_text())
    record["entries"] = []
    del record["tasks"]
    path.write_text(json.dumps(record))


def _dangling(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.with_name("gone.json"))


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda entries: [], "task 0 with adapter 'echo' has 0 entries"),
        (_drop_last, "task 1 with adapter 'echo' has 0 entries"),
        (_twice, "task 0 with adapter 'echo' has 2 entries"),
        (_id_number, "episode id must be a non-empty string, got 5; restore the file"),
        (_dangling, "a symbolic link to .*gone.json, which does not exist"),
        (_no_tasks, "its tasks or adapters are not lists"),
    ],
    ids=["no-entries", "an-entry-dropped", "an-entry-twice", "an-id-not-text", "a-dangling-link", "no-tasks"],
)
def test_a_mutated_batch_record_is_refused_and_nothing_runs_again(
    recorded: tuple[Path, bytes, set[str]], change: Any, said: str
) -> None:
    """Before: a record without an entry dropped its task silently, one with an entry twice ran the task
    twice, a dangling link in its place started the whole batch again under new ids, and an id that
    was no text raised an error naming neither the file nor the fix."""
    root, path = _record(recorded, change, of_file=change in (_dangling, _no_tasks))
    before = os.readlink(path) if path.is_symlink() else path.read_bytes()
    with pytest.raises((InvalidOptionError, InvalidIdError), match=said) as caught:
        _batch(root)
    assert str(caught.value).startswith(str(path))
    assert _runs(root) == recorded[2]  # no episode started
    assert (os.readlink(path) if path.is_symlink() else path.read_bytes()) == before  # the file is left as it was


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _torn(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-40])


def _deep_option(path: Path) -> None:
    """An option 1020 lists deep: orjson reads it; Python's json, which compares records, cannot write it."""
    record = json.loads(path.read_text())
    record["options"]["seed"] = "DEEP"
    path.write_text(json.dumps(record).replace('"DEEP"', "[" * 1020 + "]" * 1020))


@pytest.mark.parametrize(
    "change, said",
    [
        (_fifo, "a FIFO .*, not a file"),
        (_folder, "a directory, not a file"),
        (_torn, r"not valid JSON \(unexpected end"),
        (_deep_option, "a value in it is nested too deeply"),
    ],
    ids=["fifo", "folder", "torn", "nested-1020-deep"],
)
def test_a_batch_record_that_cannot_be_read_says_why(recorded: tuple[Path, bytes, set[str]], change: Any, said: str) -> None:
    """Before: each was "is not a noesis_nb batch record", the same words for a pipe, a folder and a cut file;
    an option nested 1020 deep escaped as a raw RecursionError."""
    root, path = _record(recorded, change, of_file=True)
    try:
        with pytest.raises(InvalidOptionError, match=f"cannot be read as a batch record: {said}") as caught:
            _batch(root)
        assert str(caught.value).startswith(str(path)) and _runs(root) == recorded[2]
    finally:
        path.rmdir() if path.is_dir() else path.unlink()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_FIELDS = ["schema_version", "tasks", "adapters", "entries", "options", "batch_id"]
_ENTRY_FIELDS = ["task_index", "adapter", "episode_id", "previous"]


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(where=st.sampled_from(_FIELDS + _ENTRY_FIELDS), value=_JSON, entry=st.integers(0, 1), drop=st.booleans())
def test_any_value_in_a_batch_record_reads_back_whole_or_is_refused_naming_it(
    recorded: tuple[Path, bytes, set[str]], where: str, value: Any, entry: int, drop: bool
) -> None:
    record = json.loads(recorded[1])
    target = record["entries"][entry] if where in _ENTRY_FIELDS else record
    if drop:
        target.pop(where, None)
    else:
        target[where] = value
    path = recorded[0] / "batches" / "fuzzed.json"
    path.write_text(json.dumps(record))  # an int past 64 bits too
    try:
        got = load_record(path)
    except NoesisNbError as exc:
        assert str(path) in str(exc)
        return
    assert got is not None
    pairs = sorted((e["task_index"], e["adapter"]) for e in got["entries"])
    assert pairs == sorted((i, a) for i in range(len(got["tasks"])) for a in got["adapters"])


@pytest.mark.parametrize("kind", ["folder", "fifo", "link-out"])
def test_the_batch_lock_replaced_is_refused_or_harmless(locked: tuple[Path, bytes, set[str]], kind: str) -> None:
    root, _ = _record(locked, lambda path: None, of_file=True)
    lock = root / "batches" / "nightly.json.lock"
    lock.unlink(missing_ok=True)
    outside = root.parent / "outside.txt"
    if kind == "folder":
        lock.mkdir()
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(outside)
    try:
        handle = _batch(root)
    except EpisodeStateError as exc:
        assert str(lock) in str(exc)
    else:
        assert [e.status for e in handle.entries] == ["ok", "ok"]
    finally:
        lock.rmdir() if lock.is_dir() and not lock.is_symlink() else lock.unlink()
    assert not outside.exists() and _runs(root) == locked[2]


# ---- the rates file ---------------------------------------------------------------------------------

_PRICE = "from noesis_nb import _genai_rates as g; r = g.find_model('gpt-4o', 'openai'); print(r.options[0][1]['input'])"


def _price(cache: Path) -> str:
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _PRICE], env=env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_a_fifo_in_place_of_the_rates_file_does_not_hang_pricing(tmp_path: Path) -> None:
    """Before: reading the rates file opened the FIFO and waited for a writer forever (every cost hung)."""
    truth = _price(tmp_path / "clean")
    cache = tmp_path / "fifo"
    cache.mkdir()
    os.mkfifo(cache / genai.rates_cache_path().name)
    assert _price(cache) == truth


@pytest.mark.parametrize("bad", [-2.5, 1e300, True, "7.25"])  # "7.25": a text, and not the real price
def test_a_rate_no_price_list_has_is_not_taken_from_the_file(tmp_path: Path, bad: Any) -> None:
    """Before: a negative or absurd input price planted in the rates file priced every later call. The file is
    signed with this user's key now (one planted by someone else is ignored whole); a rate no price list has is
    refused even in a file signed here (written by another version, say)."""
    truth = _price(tmp_path / "clean")
    path = tmp_path / "clean" / genai.rates_cache_path().name
    doc = orjson.loads(path.read_bytes().partition(b"\n")[2])
    doc["models"]["openai|gpt-4o"]["options"][0][1]["input"] = bad
    path.write_bytes(genai._signed(orjson.dumps(doc)))
    assert _price(tmp_path / "clean") == truth


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a JSON document."""
    inner: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            inner += [(*at, key), *_places(item, (*at, key))]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            inner += [(*at, index), *_places(item, (*at, index))]
    return inner


_RATES = {
    "genai_prices": genai.genai_version(),
    "models": {
        "openai|gpt-4o": {
            "key": "openai/gpt-4o",
            "conditional": True,
            "options": [
                [
                    None,
                    {
                        "input": 2.5,
                        "output": 10.0,
                        "cached_input": None,
                        "cache_write": None,
                        "reasoning": None,
                        "per_call": 0.0,
                        "tiers": [["input", 200000, 5.0]],
                    },
                ],
                [["daily", 1, 2], None],
            ],
        }
    },
    "providers": {"openai": True, "my-gateway": False},
}


@settings(max_examples=300, derandomize=True, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(place=st.sampled_from(_places(_RATES)), value=_JSON)
def test_any_value_in_the_rates_file_is_read_or_the_file_ignored(place: tuple[Any, ...], value: Any) -> None:
    """Before: an empty window (``[]``) escaped as a raw IndexError from the first cost of the process."""
    doc = json.loads(json.dumps(_RATES))
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    path = Path(os.environ["NOESIS_NB_CACHE_DIR"]) / "fuzzed-rates.json"
    path.write_bytes(genai._signed(json.dumps(doc).encode()))  # signed here: its content is what is judged
    rates, providers = genai._read(path)
    assert all(isinstance(k, str) and type(v) is bool for k, v in providers.items())  # whether genai-prices knows each
    for model in rates.values():  # whatever was taken reads as rates: every option's prices are finite numbers
        for _, fields in model.options if model is not None else ():
            assert fields is None or all(v is None or 0 <= v < 1e12 for k, v in fields.items() if k != "tiers")


# ---- a tool record nested past what its readers can take ------------------------------------------


@pytest.mark.parametrize("depth", [300, 1010])
def test_a_prepared_draft_nested_deeper_than_noesis_nb_writes_is_refused_naming_it(tmp_path: Path, depth: int) -> None:
    """Before: approving and resuming such a draft read it (orjson takes 1024 levels) and then failed inside
    pydantic with a raw ``ValueError: Maximum serialization depth exceeded``."""
    root = tmp_path / "runs"
    episode = make_paused(root, 1)
    (draft,) = tool_records(root / episode, "prepared")
    record = json.loads(draft.read_text())
    record["x-planted"] = "DEEP"
    draft.write_text(json.dumps(record).replace('"DEEP"', "[" * depth + "]" * depth))
    planted = draft.read_bytes()
    for act in (
        lambda: noesis_nb.approve_draft(episode, approver_id="ops", runs_dir=root),
        lambda: noesis_nb.resume_run(episode, runs_dir=root),
    ):
        with pytest.raises(ToolRecordError, match="nested more than 255 levels deep") as caught:
            act()
        assert str(caught.value).startswith(str(draft))
    assert draft.read_bytes() == planted and tool_records(root / episode, "executions") == []
