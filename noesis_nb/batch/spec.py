"""What a batch runs — its tasks, adapters and options — checked once, before anything starts."""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ulid import ULID

from .. import config
from .._jsonio import to_jsonable
from ..errors import InvalidOptionError
from ..ids import validate_id, validate_new_id
from ..runtime.api import check_score_timeout, check_scorer
from ..runtime.resolve import resolve_using, using_label
from ..runtime.tags import checked_tags
from ..secrets import redact
from ..secrets.quoted import quoted
from ..secrets.urls import refuse_password
from ..store.roots import refuse_run_as_root
from .destination import local_folder, refuse_copies_into_a_run
from .upload import check_destination

__all__ = ["TaskSpec", "BatchSpec", "parse_tasks", "parse_using", "check_executor", "new_batch_id", "EPISODE_OPTIONS"]

_TASK_KEYS = ("task", "tags", "inputs")
#: options every episode of a batch gets (those of ``start``)
EPISODE_OPTIONS = ("seed", "tags", "governance", "approver", "idle_timeout_s", "pause_on_veto", "capture")


@dataclass(frozen=True)
class TaskSpec:
    """One task of a batch: its text, its own tags (over the batch's) and inputs (``ctx.inputs``)."""

    task: str
    tags: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)  # as given: the adapter reads them as ``start`` gives them

    def as_record(self) -> dict[str, Any]:
        """The task as the batch's record holds it (JSON: a value JSON has no form for is written as text)."""
        return {"task": self.task, "tags": self.tags, "inputs": to_jsonable(self.inputs)}


@dataclass
class BatchSpec:
    """A checked batch: ``adapters`` maps each adapter's name to what ``using=`` was given for it."""

    batch_id: str
    root: Path
    tasks: list[TaskSpec]
    adapters: dict[str, Any]
    concurrency: int
    score: Any
    score_timeout_s: float | None
    episode_opts: dict[str, Any]
    rerun_failed: bool = False
    upload_to: str | None = None
    executor: Any = None

    def identity(self) -> dict[str, Any]:
        """What makes two calls the same batch: the task list and the adapter names (JSON, as recorded: a secret
        in a task, its tags or inputs is redacted, so the record never holds it and two calls compare the same)."""
        identity: dict[str, Any] = to_jsonable({"tasks": [t.as_record() for t in self.tasks], "adapters": list(self.adapters)})
        return dict(redact(identity)[0])


def new_batch_id() -> str:
    return f"batch_{ULID()}"


def parse_tasks(tasks: Any) -> list[TaskSpec]:
    """Strings or ``{"task": …, "tags": {…}, "inputs": {…}}`` dicts; one clear error for anything else."""
    if isinstance(tasks, (str, Mapping)) or not hasattr(tasks, "__iter__"):
        raise InvalidOptionError(
            f"tasks={quoted(tasks, 80)}: pass a list of task strings or dicts such as {{'task': 'Summarise x', 'tags': {{...}}}}"
        )
    out = []
    for index, item in enumerate(tasks):
        if isinstance(item, str):
            item = {"task": item}
        if not isinstance(item, Mapping):
            raise InvalidOptionError(f"tasks[{index}]={quoted(item, 80)} is neither a string nor a dict with a 'task' key")
        unknown = sorted(set(item) - set(_TASK_KEYS))
        if unknown:
            raise InvalidOptionError(f"tasks[{index}] has unknown key(s) {unknown}; a task dict has {list(_TASK_KEYS)}")
        text = item.get("task")
        if not isinstance(text, str) or not text.strip():
            raise InvalidOptionError(f"tasks[{index}]: 'task' must be a non-empty string, got {quoted(text, 80)}")
        for key in ("tags", "inputs"):
            if item.get(key) is not None and not isinstance(item[key], Mapping):
                raise InvalidOptionError(f"tasks[{index}]: {quoted(key)} must be a dict, got {quoted(item[key], 80)}")
        try:  # a task's tags are a run's tags: what comes back from JSON as it went in
            tags = checked_tags(dict(item.get("tags") or {}))
        except InvalidOptionError as exc:
            raise InvalidOptionError(f"tasks[{index}]: {exc}") from None
        out.append(TaskSpec(text, to_jsonable(tags), dict(item.get("inputs") or {})))
    if not out:
        raise InvalidOptionError("tasks is empty: pass at least one task (a string, or a dict with a 'task' key)")
    return out


def parse_using(using: Any) -> dict[str, Any]:
    """One adapter, a list (named by their labels) or a dict of name → adapter; each one resolvable."""
    if isinstance(using, Mapping):
        named = dict(using)
        for number, name in enumerate(named, 1):
            if isinstance(name, str):  # named by where it stands, before the id rules (which refuse it too, less clearly)
                _refuse_secret_name(name, f"adapter name {number} of using=", "name it with a plain label such as 'gpt'")
            validate_id(name, what="adapter name")
    elif isinstance(using, (list, tuple)):
        named = {}
        for item in using:
            name = using_label(item)
            if name in named:
                raise InvalidOptionError(
                    f"two adapters are both named {quoted(name)}; pass a dict such as {{'a': first, 'b': second}} to name them"
                )
            named[name] = item
    else:
        named = {using_label(using) if using is not None else "": using}
    if not isinstance(using, Mapping):
        for number, name in enumerate(named, 1):
            _refuse_secret_name(
                name, f"the label of adapter {number} of using=", "pass a dict such as {'agent': adapter} to name it"
            )
    if not named:
        raise InvalidOptionError("using= is empty: pass an adapter, a list of adapters or a dict of name → adapter")
    for value in named.values():
        resolve_using(value)  # one clear error now rather than one per episode later
    return named


def _refuse_secret_name(name: str, what: str, fix: str) -> None:
    """A batch writes its id and adapter names as they are — the record's file name and entries, each run's batch
    tag — and finds its runs again by them: one that reads as a secret would be written out (or, redacted in one
    place and not the other, never match again). Refused, not quoted back."""
    if redact([name])[1]:
        raise InvalidOptionError(
            f"{what} looks like a secret ({quoted(name, 60)}), and a batch writes its names in plain text "
            f"(its record, each run's batch tag); {fix}"
        )


def check_executor(executor: Any) -> Any:
    """None, a ``dask.distributed.Client`` or a ``concurrent.futures.Executor``; anything else is one clear error."""
    if executor is None or isinstance(executor, concurrent.futures.Executor) or _is_dask_client(executor):
        return executor
    raise InvalidOptionError(
        f"executor={type(executor).__module__}.{type(executor).__qualname__} is neither a dask.distributed.Client nor a "
        "concurrent.futures.Executor; pass one of those (e.g. Client(LocalCluster()) or ProcessPoolExecutor()), or None "
        "to run on this notebook's loop"
    )


def _is_dask_client(value: Any) -> bool:
    kind = type(value)
    return kind.__module__.split(".")[0] == "distributed" and kind.__name__ == "Client" and hasattr(value, "submit")


BATCH_OPTIONS = (
    "concurrency",
    "executor",
    "score",
    "score_timeout_s",
    "batch_id",
    "root",
    "runs_dir",
    "rerun_failed",
    "upload_to",
)


def check_batch_options(
    *,
    concurrency: Any,
    score: Any,
    score_timeout_s: Any,
    batch_id: Any,
    root: Any,
    upload_to: Any,
    episode_opts: Mapping[str, Any],
) -> tuple[int, str, Path]:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise InvalidOptionError(f"concurrency={quoted(concurrency)}: pass a whole number ≥ 1 (episodes running at once)")
    check_scorer(score)
    check_score_timeout(score_timeout_s)
    if upload_to is not None and not (isinstance(upload_to, str) and "://" in upload_to):
        raise InvalidOptionError(f"upload_to={quoted(upload_to, 80)}: pass an fsspec URL such as 's3://bucket/runs'")
    if upload_to is not None:
        refuse_password(upload_to, "upload_to")  # recorded with the batch, and named in every upload error
        if carries_credential(upload_to):  # a token in its user part, path or query: named in every upload error too
            raise InvalidOptionError(
                f"upload_to={quoted(upload_to, 120)} holds a secret, which would be named in every upload error; "
                "write the URL without it and give the credentials as fsspec finds them (environment variables, "
                "its config file)"
            )
        check_destination(upload_to)
    unknown = sorted(set(episode_opts) - set(EPISODE_OPTIONS))
    if unknown:
        raise InvalidOptionError.unknown(unknown, (*BATCH_OPTIONS, *EPISODE_OPTIONS), "a batch")
    if isinstance(batch_id, str):  # said as batch_id=, before the id rules (which refuse it too, less clearly)
        _refuse_secret_name(batch_id, "batch_id", "pass a plain name such as 'nightly'")
    chosen = validate_id(batch_id, what="batch id") if batch_id is not None else new_batch_id()
    if root is not None and not isinstance(root, (str, os.PathLike)):
        raise InvalidOptionError(f"root={quoted(root, 80)}: pass the runs root as a path (default: the configured runs dir)")
    runs_root = Path(config.runs_dir(root))
    _check_runs_root(runs_root)
    if batch_id is not None and not os.path.lexists(runs_root / "batches" / f"{chosen}.json"):
        # a new batch: the rule of every new id (a run's too): no secret this process knows, a name Windows can
        # hold, no case twin. A batch recorded already is run again or continued under its own id, whatever rule
        # its id was made under (``aux``, ``nightly.`` recorded before these rules)
        validate_new_id(chosen, what="batch id")
        _refuse_case_twin(runs_root, chosen)
    if upload_to is not None:
        _refuse_copies_into_root(upload_to, runs_root)
    return concurrency, chosen, runs_root


def _refuse_case_twin(runs_root: Path, batch_id: str) -> None:
    """Refuse a batch id differing by case only from a batch recorded in the root (``nightly`` beside ``Nightly``): on
    macOS or Windows (a copy of the root, a shared drive) both are one record file, and the second batch would read and
    write the first's, as two runs' folders would be one (``Recorder.create`` refuses those alike)."""
    wanted = f"{batch_id}.json"
    try:
        with os.scandir(runs_root / "batches") as entries:
            twin = next((e.name for e in entries if e.name.casefold() == wanted.casefold() and e.name != wanted), None)
    except OSError:  # no batch recorded yet (or no folder to list: the record's writing says why)
        return
    if twin is not None:
        raise InvalidOptionError(
            f"batch_id {quoted(batch_id)} differs by case only from the batch {quoted(twin.removesuffix('.json'))} "
            "recorded in this root: a copy of the root on macOS or Windows holds one record for both; pick an id no "
            "batch of the root has in any case, or pass that batch's own id to continue it"
        )


def _refuse_copies_into_root(upload_to: str, runs_root: Path) -> None:
    """Refuse, before anything runs, a local ``upload_to`` that is the runs root (each copy would be written over its
    own run), lies inside it (each copy listed again as a run) or is, or lies inside, a run of any root (copies
    written into a sealed run). Builds no file system:
    ``destination`` says why."""
    folder = local_folder(upload_to)
    if folder is None:
        return
    root = Path(os.path.realpath(runs_root))
    if folder == root:
        raise InvalidOptionError(
            f"upload_to={quoted(upload_to, 120)} is the runs root ({quoted(str(folder))}): each copy would be written "
            "over its own run; pass another folder, such as 'file:///srv/run-copies', or a bucket; nothing was written"
        )
    if root in folder.parents:  # copies there are runs of the root too (a folder of it is listed as a label's runs)
        raise InvalidOptionError(
            f"upload_to={quoted(upload_to, 120)} is inside the runs root ({quoted(str(root))}): every copy would be "
            "listed again as a run of it (twice in runs_df and list_runs); pass a folder outside it, such as "
            "'file:///srv/run-copies', or a bucket; nothing was written"
        )
    refuse_copies_into_a_run(folder, upload_to)


def carries_credential(url: str) -> bool:
    """Whether ``url`` carries a credential: a known key format or a secret-named value anywhere in it (a token as
    its user part, ``?token=``, ``?sig=``, ``s3://bucket/AKIA…``), or a random-looking query or fragment value
    (a signature under any name). A random-looking bucket, host or folder name (``s3://mlruns-7f3k9q2xv8/…``) is
    a name, not a credential: the random-word rule is not applied to it."""
    if redact([url], entropy=False)[1]:
        return True
    for link in url.split("::"):
        if "://" not in link:
            continue
        parts = urlsplit(link.strip())
        pairs = parse_qsl(parts.query, keep_blank_values=True) + parse_qsl(parts.fragment, keep_blank_values=True)
        if any(word and redact([word])[1] for pair in pairs for word in pair):  # ``?<token>`` too
            return True
    return False


def _check_runs_root(runs_root: Path) -> None:
    """Refuse, before the record is written, a root that is no folder (a file, a FIFO, a link leading nowhere, a
    path under a file) or that is a run's own folder: the record and its lock would land inside that run."""
    config.check_runs_folder(runs_root)
    refuse_run_as_root(runs_root)
