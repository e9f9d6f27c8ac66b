"""A file path is read part by part: a temporary folder's name in it is no key, a key in it still is.

Judged as one word, ``/tmp/tmpq3k9z_ab/runs`` or macOS's ``/var/folders/xy/7h3k2l9m0000gn/T/…`` read as
random (``tmp`` has no vowel, the folder name is letters and digits), so the whole path was hidden in
written runs and in messages ("runs_dir <a 22-character value that looks like a key, not shown> is a
file"), although it is what the reader needs to act on.
"""

from __future__ import annotations

import random
import shutil
import string
import tempfile
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets import quoted, shown
from noesis_nb.secrets.quoted import looks_like_key
from noesis_nb.secrets.randomness import entropy_ok

_RANDOM = random.SystemRandom()
_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"  # tempfile's own alphabet (``tempfile._RandomNameSequence``)


def _temp_name() -> str:
    return "tmp" + "".join(_RANDOM.choice(_TEMP_CHARS) for _ in range(8))


def _macos_folder() -> str:
    """macOS's per-user temporary root: ``/var/folders/<2>/<30-ish letters and digits>/T``."""
    two = "".join(_RANDOM.choice(string.ascii_lowercase + string.digits) for _ in range(2))
    long = "".join(_RANDOM.choice(string.ascii_lowercase + string.digits) for _ in range(30))
    return f"/var/folders/{two}/{long}_{_RANDOM.randrange(10)}/T"


def _key(n: int = 40) -> str:
    """A random key the randomness rule reads as random on its own (about 3% of draws read as words, and are
    shown anywhere: that rule is tested elsewhere; here only how a path is read is)."""
    alphabet = string.ascii_letters + string.digits
    while True:
        key = "".join(_RANDOM.choice(alphabet) for _ in range(n))
        if entropy_ok(key) and looks_like_key(key[:12]):
            return key


@pytest.mark.parametrize("draw", range(40))
def test_a_temporary_folder_in_a_path_is_shown_and_written_as_it_is(draw: int) -> None:
    path = f"/tmp/{_temp_name()}/runs" if draw % 2 else f"{_macos_folder()}/{_temp_name()}/runs/run.json"
    assert shown(path) == path
    assert quoted(path) == repr(path)
    assert shown(f"the runs are in {path}, see there") == f"the runs are in {path}, see there"


def test_a_real_temporary_folder_is_named_in_the_error_that_names_it() -> None:
    """The message a user reads when the runs folder is a file names it (it was hidden as a key): a folder made
    by ``tempfile`` where it makes them, as a notebook does."""
    folder = Path(tempfile.mkdtemp())
    try:
        afile = folder / "afile"
        afile.write_text("x")
        with pytest.raises(Exception) as raised:
            noesis_nb.runs_df(afile)
        assert str(afile) in str(raised.value), str(raised.value)
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("draw", range(40))
def test_a_key_inside_a_path_is_still_hidden(draw: int) -> None:
    key = _key()
    for path in (f"/tmp/{_temp_name()}/{key}/run.json", f"/home/ann/{key}", f"/data/x/{key}"):
        assert key not in shown(path) and key[:12] not in quoted(path), path


@pytest.mark.parametrize("draw", range(40))
def test_a_key_that_starts_with_a_slash_is_judged_whole(draw: int) -> None:
    """A base64 key may start at a ``/`` and hold more of them: unless its first part reads as a plain word (a
    path's root), it is judged as one word, as before."""
    alphabet = string.ascii_letters + string.digits + "+/"
    while True:
        key = "/" + "".join(_RANDOM.choice(alphabet) for _ in range(39))
        first = key[1:].split("/")[0]
        plain_first = first[:1].isalpha() and first[1:].islower() and first[1:].isalpha()
        if key.count("/") >= 2 and not plain_first and entropy_ok(key) and looks_like_key(key[1:13]):
            break  # read as random whole (as ``_key``: the rule's own misses are tested elsewhere)
    assert looks_like_key(key) and key[1:13] not in quoted(key) and shown(key) != key, key


def test_a_written_run_keeps_the_path_its_tool_was_given(tmp_path: Path) -> None:
    path = f"{_macos_folder()}/{_temp_name()}/notes.txt"

    def agent(task, ctx):
        ctx.emit("note", {"path": path, "text": f"wrote {path}"})
        return path

    episode = noesis_nb.solve("paths", using=agent, runs_dir=tmp_path)
    written = (tmp_path / episode / "events.jsonl").read_text()
    assert written.count(path) >= 2 and "[REDACTED]" not in written


def _key_with_slash() -> str:
    """A 40-character base64 key holding one ``/`` (as AWS secret keys often do), both sides 12+ characters, that
    the randomness rule reads as random whole (the rule's own misses are tested elsewhere)."""
    alphabet = string.ascii_letters + string.digits + "+"
    while True:
        cut = _RANDOM.randrange(12, 28)
        key = "".join(_RANDOM.choice(alphabet) for _ in range(cut)) + "/"
        key += "".join(_RANDOM.choice(alphabet) for _ in range(39 - cut))
        if entropy_ok(key) and all(entropy_ok(side) or len(side) < 20 for side in key.split("/")):
            return key


@pytest.mark.parametrize("draw", range(40))
def test_a_key_holding_a_slash_inside_a_path_is_hidden_whole(draw: int) -> None:
    """Cut at its ``/`` into a path's parts, each piece of such a key read plainer than the key: the pieces are
    judged together again, so no stretch of 10 characters of it is shown or written."""
    key = _key_with_slash()
    for text in (f"cat /home/u/{key}", f"--out=/tmp/{key}", f"/tmp/x/{key}.json", f"/tmp/{_temp_name()}/{key}"):
        for out in (shown(text), quoted(text)):
            assert not [key[i : i + 10] for i in range(len(key) - 9) if key[i : i + 10] in out], (text, out)
