"""Generated keys for the redaction properties: a key of a known format, or a random one of none."""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits


@st.composite
def keys(draw: Any, prefixes: Sequence[str]) -> str:
    """A key starting with one of ``prefixes`` ("" for a random key of no format), its characters drawn at random
    (a key, not a shrunk ``000…``)."""
    prefix = draw(st.sampled_from(prefixes))
    rnd = random.Random(draw(st.integers(0, 2**32)))  # (a seed: shrinking it still draws a random key)
    if prefix == "AKIA":
        return prefix + "".join(rnd.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    return prefix + "".join(rnd.choice(ALNUM) for _ in range(rnd.randint(36 if prefix else 40, 48)))
