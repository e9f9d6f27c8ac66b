"""``read_file`` returns exactly the bytes on disk, whole or its tail, in one read when the stat says how many."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.store.runfiles import RACY_NS, ROOT_SETTLE_NS, read_file, stamps_settled, times_settled

_SIZES = st.one_of(st.integers(0, 64), st.integers(1 << 20, (1 << 20) + 3000))  # around the 1 MiB chunk too


@settings(max_examples=25, deadline=None, database=None)
@given(
    size=_SIZES,
    tail=st.one_of(st.none(), st.integers(1, 70), st.integers(1 << 20, (1 << 20) + 4000)),
    seed=st.binary(min_size=1, max_size=8),
)
def test_read_file_gives_the_bytes_on_disk(tmp_path_factory, size: int, tail: int | None, seed: bytes) -> None:
    data = (seed * (size // len(seed) + 1))[:size]
    path = tmp_path_factory.mktemp("read") / "events.jsonl"
    path.write_bytes(data)
    got, stamp, whole = read_file(str(path), str(path.parent), tail=tail)
    st_ = os.stat(path)
    assert stamp == (st_.st_size, st_.st_mtime_ns, st_.st_ctime_ns, st_.st_ino, st_.st_dev)
    expected = data if tail is None or size <= tail else data[-tail:]
    assert got == expected
    assert whole == (tail is None or size <= tail)


@pytest.mark.skipif(
    not os.path.isfile("/proc/version"), reason="needs a file whose stat says 0 bytes but holds more (Linux /proc)"
)
def test_a_file_longer_than_its_stat_is_read_to_the_end() -> None:
    """The one-read path must not stop at the stat's size: a file that grew meanwhile is read to its end."""
    got, stamp, whole = read_file("/proc/version")
    with open("/proc/version", "rb") as fh:
        assert got == fh.read() != b""
    assert stamp[0] == 0 and whole


def test_a_stamp_is_settled_only_when_its_mtime_and_ctime_are_older_than_the_window() -> None:
    """One rule for every cache keyed on a stamp: a time within the window could hide a change in the same tick."""
    now = time.time_ns()
    old, fresh = now - 10 * RACY_NS, now

    def stamp(mtime: int, ctime: int) -> tuple[int, int, int, int, int]:  # (size, mtime, ctime, inode, device)
        return (0, mtime, ctime, 7, 1)

    assert stamps_settled(stamp(old, old)) and stamps_settled(None) and stamps_settled(())
    assert not stamps_settled(stamp(fresh, old)) and not stamps_settled(stamp(old, fresh))
    assert not stamps_settled((stamp(old, old), None, {"log": stamp(old, fresh)}))  # nested: every stamp counts
    assert not stamps_settled(stamp(old, old), ROOT_SETTLE_NS)  # the same stamp, against a root's longer window
    assert times_settled(old) and not times_settled(old, fresh) and not times_settled(old, window_ns=ROOT_SETTLE_NS)
