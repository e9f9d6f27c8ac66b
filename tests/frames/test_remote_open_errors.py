"""A source fsspec cannot open, or options it cannot take, is one noesis_nb error naming the value and the fix.

An ftp:// file system connects when it is made (before any listing), and ``storage_options`` are spread into the
file system's constructor: neither may escape as the library's own ``ConnectionRefusedError`` or ``TypeError``.
"""

from __future__ import annotations

import socket

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, NoesisNbError


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("frame", ["runs_df", "events_df"])
def test_a_file_system_that_cannot_connect_when_made_is_said_by_its_url(frame: str) -> None:
    url = f"ftp://127.0.0.1:{_closed_port()}/runs"  # nothing listens there: refused while the file system is made
    with pytest.raises(NoesisNbError) as refused:
        getattr(noesis_nb, frame)(url, cache=False)
    message = str(refused.value)
    assert url in message and "ConnectionRefusedError" in message and "check the URL" in message


@pytest.mark.parametrize("options", [1, "key=abc", ["key", "abc"]])
def test_storage_options_that_are_no_dict_are_said_with_the_fix(options: object) -> None:
    with pytest.raises(InvalidOptionError) as refused:
        noesis_nb.runs_df(f"http://127.0.0.1:{_closed_port()}/runs/", storage_options=options, cache=False)
    message = str(refused.value)
    assert "storage_options=" in message and repr(options)[:6] in message and "pass a dict" in message
