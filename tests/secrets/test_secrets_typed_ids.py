"""A run id or path the user typed is quoted whole in the error it causes: it is what they need to see.

``show("/tmp/x/zzz/ep_01ABC")`` said ``'/tmp/[REDACTED]' is neither an episode id …`` and ``show(<the first 12
characters of an id>)`` said ``no run is named <a 12-character value that looks like a key, not shown>``: a run id
mixes capitals, digits and ``ep_``'s small letters, so its start read as a random word. The key-like words around
such an id are still hidden.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError
from noesis_nb.secrets.quoted import quoted


def _agent(task: str, ctx: Any) -> str:
    return "ok"


@pytest.mark.parametrize("typed", ["{root}/zzz/ep_01ABC", "/home/me/runs/ep_01ABCD", "{id12}", "{id20}", "{root}/{id12}"])
def test_a_typed_run_id_or_path_is_named_whole_in_the_error(runs_dir: Path, typed: str) -> None:
    episode = noesis_nb.solve("x", using=_agent, runs_dir=runs_dir)
    value = typed.format(root=runs_dir.parent, id12=episode[:12], id20=episode[:20])
    with pytest.raises(NoesisNbError) as raised:
        noesis_nb.show(value, runs_dir=runs_dir)
    message = str(raised.value)
    assert value in message and "[REDACTED]" not in message and "looks like a key" not in message, message


@pytest.mark.parametrize("value", ["ep_Xq7Lm2pQ9zAbCdEf", "/tmp/ep_01ABC/sk-proj-Ab3dEf6hIjKlMnOp", "ep_01ABC Xq7Lm2pQ9zAbCdEf"])
def test_a_key_beside_or_shaped_unlike_a_run_id_is_still_hidden(value: str) -> None:
    shown = quoted(value)
    assert "Xq7Lm2pQ9zAbCdEf" not in shown and "Ab3dEf6hIjKlMnOp" not in shown, shown


@pytest.mark.parametrize("name", ["demo-runs-ce7m4a8y", "my-runs-k2j4h5g6", "nb_q8z3x1w7"])
def test_a_folder_made_by_mkdtemp_with_a_prefix_is_named_whole(name: str) -> None:
    """``mkdtemp(prefix="demo-runs-")`` ends in 8 random characters after plain words: it was hidden as a key in
    every error naming the folder (``<a 23-character value that looks like a key, not shown>``)."""
    import shutil
    import tempfile

    folder = Path(tempfile.gettempdir()) / name  # where mkdtemp puts it, named as it names it
    folder.mkdir()
    try:
        noesis_nb.solve("x", using=_agent, runs_dir=folder)
        typed = f"{folder}/nope"
        with pytest.raises(NoesisNbError) as raised:
            noesis_nb.show(typed, runs_dir=folder)
        message = str(raised.value)
        assert typed in message and "[REDACTED]" not in message and "looks like a key" not in message, message
        key = "sk-proj-Ab3dEf6hIjKlMnOpQrStUvWx"
        assert key[8:] not in quoted(f"{folder}/{key}")  # a key inside such a folder is still hidden
    finally:
        shutil.rmtree(folder)


def test_an_id_typed_in_small_letters_or_with_a_space_is_shown_and_the_run_named(runs_dir: Path) -> None:
    episode = noesis_nb.solve("x", using=_agent, runs_dir=runs_dir)
    with pytest.raises(NoesisNbError) as raised:
        noesis_nb.show(episode.lower(), runs_dir=runs_dir)
    assert episode.lower() in str(raised.value) and f"did you mean {episode!r}" in str(raised.value)
    for typed in (f" {episode}", f"{episode}\n"):
        with pytest.raises(NoesisNbError) as raised:
            noesis_nb.show(typed, runs_dir=runs_dir)
        assert "white space around it" in str(raised.value) and f"pass {episode!r}" in str(raised.value)


@pytest.mark.parametrize("parts", [("p1", "runsA"), ("exp2", "v3", "runsB"), ("q4", "Data9")])
def test_a_short_path_mixing_cases_and_digits_is_named_whole(tmp_path: Path, parts: tuple[str, ...]) -> None:
    """``list_runs('/tmp/p1/runsA')`` (the folder given where the limit goes) said ``limit=<a 13-character value that
    looks like a key, not shown>``: a path of 10-19 characters was judged as one short word once its first ``/`` was
    taken off, and ``p1``, ``runsA`` together mix cases and digits. Its parts are judged, as a longer path's are."""
    typed = "/tmp/" + "/".join(parts)
    assert quoted(typed) == repr(typed)
    with pytest.raises(NoesisNbError) as raised:
        noesis_nb.list_runs(typed)
    assert typed in str(raised.value) and "looks like a key" not in str(raised.value), str(raised.value)
    assert "Xk9mQ2vL8nR4" not in quoted(f"/tmp/{parts[0]}/Xk9mQ2vL8nR4")  # a key as a part is still hidden
