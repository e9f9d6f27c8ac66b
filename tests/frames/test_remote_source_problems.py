"""A remote source's problems: a glob matching nothing is an error, a signed URL's query is named nowhere.

A remote glob that matched no run read as an empty frame (a local one raises), and ``episodes=`` problems named the
source as given, ``?sig=…`` and all. The servers are real ones on 127.0.0.1 (``test_remote_sources``).
"""

from __future__ import annotations

import pytest

import noesis_nb
from noesis_nb.errors import RunNotFoundError

from .test_remote_sources import SIG, in_memory, runs, served, signed

__all__ = ["in_memory", "runs", "served", "signed"]  # fixtures


@pytest.mark.parametrize("kind", ["http", "memory"])
def test_a_remote_glob_matching_nothing_is_an_error(kind: str, served: tuple[str, list[str]], in_memory: str) -> None:
    root = {"http": served[0], "memory": in_memory}[kind]
    with pytest.raises(RunNotFoundError) as refused:
        noesis_nb.runs_df(f"{root}/ep_zz*", cache=False)
    assert "ep_zz*" in str(refused.value) and "matches nothing" in str(refused.value)


def test_a_signed_sources_query_is_not_shown_in_its_problems(signed: tuple[str, list[str]]) -> None:
    url, _ = signed
    events = noesis_nb.events_df(f"{url}/?sig={SIG}", episodes=["ep_alpha", "ep_nope"], cache=False)
    assert set(events.episode_id) == {"ep_alpha"}
    assert any("ep_nope" in str(e) for e in events.attrs["errors"]) and SIG not in repr(dict(events.attrs))
    with pytest.raises(RunNotFoundError) as refused:
        noesis_nb.runs_df(f"{url}/?sig={SIG}", episodes=["ep_nope"], cache=False)
    assert "ep_nope" in str(refused.value) and f"{url}/" in str(refused.value) and SIG not in str(refused.value)
