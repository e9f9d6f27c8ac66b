"""A categorical column coded run by run (no pyarrow): small ints while filling, one ``pd.Categorical`` when built.

Each run's values are coded while they are hot in cache (a dict lookup per value), so the
strings can be freed with their events and building the column is numpy work on the codes,
not a hash of every string again. Codes are bytes while the vocabulary has at most 256 entries
(the usual case: phases, names, models), a list of ints beyond. Built, the column is
``_arrays.categorical``'s canonical form: sorted ``str`` categories, None missing.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from ._arrays import text_values

__all__ = ["CodedColumn"]


def _lookup(vocab: dict[Any, int], values: list[Any]) -> tuple[int, ...] | list[int]:
    """The code of each value: one ``itemgetter`` call does every lookup at C speed (KeyError: a value is new)."""
    if len(values) > 1:
        return itemgetter(*values)(vocab)  # type: ignore[no-any-return]
    return [vocab[v] for v in values]


class CodedColumn:
    """Text values (None: missing) appended run by run as codes into one vocabulary."""

    __slots__ = ("vocab", "codes")

    def __init__(self) -> None:
        self.vocab: dict[str | None, int] = {None: 0}  # code 0 is missing; built codes are -1 there
        self.codes: bytearray | list[int] = bytearray()

    def extend(self, values: list[Any], *, text: bool = False) -> None:
        """Append ``values``; ``text=True`` when they are known to be str or None (checked already)."""
        if not text:
            values = text_values(values)
        vocab = self.vocab
        if values.count(None) == len(values):  # a field most events leave out (faculty, status, model): code 0
            if isinstance(self.codes, bytearray):
                self.codes += bytes(len(values))
            else:
                self.codes += [0] * len(values)
            return
        try:
            found = _lookup(vocab, values)
        except KeyError:  # new values: they take the next codes
            for value in set(values).difference(vocab):
                vocab[value] = len(vocab)
            found = _lookup(vocab, values)
        codes = self.codes
        if isinstance(codes, bytearray) and len(vocab) > 256:
            codes = self.codes = list(codes)
        if isinstance(codes, bytearray):
            codes += bytes(found)
        else:
            codes += found

    def build(self) -> pd.Categorical:
        names = [str(name) for name in list(self.vocab)[1:]]  # every key but the missing one is text
        order = sorted(range(len(names)), key=names.__getitem__)
        remap = np.empty(len(names) + 1, dtype=np.int32)
        remap[0] = -1
        remap[np.asarray(order, dtype=np.intp) + 1] = np.arange(len(names), dtype=np.int32)
        raw = np.frombuffer(self.codes, dtype=np.uint8) if type(self.codes) is bytearray else np.array(self.codes, dtype=np.intp)
        categories = pd.Index(np.array([names[i] for i in order], dtype=object), dtype="str")
        return pd.Categorical.from_codes(remap[raw], categories=categories)
