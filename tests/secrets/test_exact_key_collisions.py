"""Two dict keys a ``str`` subclass kept apart (its own ``__hash__``/``__eq__``) that hold the same characters are
both kept when the screen copies them to exact ``str`` (``exact_all``): the later one is written ``<key>#2``.
The copy was a dict comprehension, so the second key overwrote the first and one field was silently lost."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb.secrets import redact
from noesis_nb.secrets.exact import exact_all
from noesis_nb.secrets.guard import RunSecrets

from .hostile_str import KEY, LiesAll, LiesEq


class Apart(str):
    """Equal to nothing but its own kind, hashed apart from the exact ``str`` of its characters."""

    def __hash__(self) -> int:
        return hash(("apart", str.__str__(self)))

    def __eq__(self, other: object) -> bool:
        return type(other) is Apart and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)


class Items(Mapping[Any, Any]):
    """A mapping that is no dict, read through its own ``items``."""

    def __init__(self, pairs: list[tuple[Any, Any]]) -> None:
        self._pairs = pairs

    def __getitem__(self, key: Any) -> Any:
        return next(v for k, v in self._pairs if k is key)

    def __iter__(self) -> Iterator[Any]:
        return iter([k for k, _ in self._pairs])

    def __len__(self) -> int:
        return len(self._pairs)

    def items(self) -> Any:
        return list(self._pairs)


KINDS = [Apart, LiesEq, LiesAll]
IDS = [k.__name__ for k in KINDS]


@pytest.mark.parametrize("cls", KINDS, ids=IDS)
def test_no_field_is_lost_and_the_first_key_keeps_its_name(cls: type[str]) -> None:
    given = {"note": "first", cls("note"): "second"}
    assert len(given) == 2  # the caller's dict holds two fields
    copied = exact_all(given)
    assert sorted(copied.values()) == ["first", "second"]
    assert all(type(k) is str for k in copied)
    assert copied["note"] == "first" and copied["note#2"] == "second"


@pytest.mark.parametrize("cls", KINDS, ids=IDS)
def test_a_suffix_never_takes_a_key_the_dict_has(cls: type[str]) -> None:
    given = {cls("note"): "second", "note": "first", "note#2": "own", "note#3": "own too"}
    copied = exact_all(given)
    assert len(copied) == len(given)
    assert copied["note#2"] == "own" and copied["note#3"] == "own too"  # the caller's own keys stay as given
    assert sorted(copied.values()) == sorted(given.values())


def test_nested_dicts_lists_and_mappings_keep_every_field() -> None:
    given = {
        "rows": [{"id": 1, Apart("id"): 2}, ({"a": 1, LiesEq("a"): 2, Apart("a"): 3},)],
        "m": Items([("k", 1), (Apart("k"), 2)]),
    }
    copied = exact_all(given)
    assert copied["rows"][0] == {"id": 1, "id#2": 2}
    assert sorted(copied["rows"][1][0].values()) == [1, 2, 3]
    assert copied["m"] == {"k": 1, "k#2": 2}


@pytest.mark.parametrize("cls", KINDS, ids=IDS)
def test_the_screen_redacts_the_secret_and_keeps_the_other_field(cls: type[str]) -> None:
    payload = {"detail": f"deploy with {KEY} now", "note": "plain words", cls("note"): "more words"}
    assert len(payload) == 3
    for out in (redact(payload)[0], RunSecrets().screen(payload)):
        assert len(out) == 3 and all(type(k) is str for k in out)
        written = orjson.dumps(out)
        assert b"plain words" in written and b"more words" in written
        assert KEY[8:].encode() not in written


@pytest.mark.parametrize("cls", KINDS, ids=IDS)
def test_an_emitted_payload_keeps_both_fields_on_disk(tmp_path: Path, cls: type[str]) -> None:
    """An event holding a secret is copied by the screen: both fields reach the line, the secret redacted."""

    def agent(task: str, ctx: Any) -> str:
        payload = {"detail": f"deploy with {KEY} now", "step": "alpha-one", cls("step"): "beta-two"}
        assert len(payload) == 3  # (``LiesEq`` hashes as ``"text"``: no key of that name here)
        ctx.emit("note", payload)
        return "ok"

    episode = noesis_nb.solve("go", using=agent, runs_dir=tmp_path)
    lines = (tmp_path / episode / "events.jsonl").read_bytes().splitlines()
    note = next(orjson.loads(line) for line in lines if b'"phase":"note"' in line)
    assert sorted(v for k, v in note["payload"].items() if k.startswith("step")) == ["alpha-one", "beta-two"]
    assert KEY[8:].encode() not in b"".join(lines)
