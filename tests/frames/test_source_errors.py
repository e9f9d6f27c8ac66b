"""A source that is not a path (a number, a dict, None inside a list, …) gets one clear error naming it and what is accepted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.frames import events_df, runs_df, tools_df, usage_df

FRAMES = (runs_df, events_df, tools_df, usage_df)
not_a_path = st.one_of(
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.binary(max_size=8),
    st.complex_numbers(),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just(object()),
)


@settings(max_examples=40, deadline=None, database=None)
@given(value=not_a_path)
def test_a_non_path_source_names_the_value_and_the_accepted_kinds(value):
    for frame in FRAMES:
        with pytest.raises(TypeError) as err:
            frame(value)
        message = str(err.value)
        assert f"(type {type(value).__name__})" in message and "not a run source" in message
        assert "runs root" in message and "episode id" in message and "list of these" in message
        assert "is not iterable" not in message


@settings(max_examples=25, deadline=None, database=None)
@given(
    bad=st.one_of(
        st.none(), st.integers(), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.none(), max_size=2)
    ),
    before=st.integers(min_value=0, max_value=2),
)
def test_a_bad_item_in_a_source_list_is_named(tmp_path_factory, bad, before):
    root = tmp_path_factory.mktemp("src")
    for frame in FRAMES:
        with pytest.raises(TypeError) as err:
            frame([str(root)] * before + [bad])
        assert f"source list item {bad!r}"[:45] in str(err.value) and f"(type {type(bad).__name__})" in str(err.value)


def test_runs_df_123_and_friends():
    with pytest.raises(TypeError, match=r"source=123 \(type int\) is not a run source"):
        runs_df(123)
    with pytest.raises(ValueError, match="is empty"):
        runs_df("")
    with pytest.raises(TypeError, match=r"episodes=5 \(type int\) is not an episode id"):
        events_df(".", episodes=5)
    with pytest.raises(TypeError, match=r"episodes= holds 7 \(type int\)"):
        usage_df(".", episodes=["ep_a", 7])


def test_episode_ids_that_match_no_run_are_named_never_an_empty_frame(tmp_path):
    """``episodes=`` with a typo used to give an empty frame (or silently fewer rows): none there is an
    error naming the ids and the root; some missing are one problem each, the others loaded."""
    import noesis_nb
    from noesis_nb.errors import RunNotFoundError
    from noesis_nb.frames import RunLoadError

    root = tmp_path / "runs"
    ep = noesis_nb.solve("count to one", using=lambda task, ctx: "1", runs_dir=root)
    for frame in FRAMES:
        with pytest.raises(RunNotFoundError, match=rf"episodes= names 'ep_typo', but no run in '{root}' has that id"):
            frame(root, episodes="ep_typo")
        df = frame(root, episodes=[ep, "ep_gone"])
        assert [e["reason"] for e in df.attrs["errors"]] == ["episodes= names 'ep_gone', but no run there has that id; left out"]
        assert df.attrs["errors"][0]["path"] == str(root)
        assert len(df) == len(frame(root)), frame.__name__  # the run asked for is all there
        with pytest.raises(RunLoadError, match="ep_gone"):
            frame(root, episodes=[ep, "ep_gone"], strict=True)
        assert len(frame(root, episodes=[])) == 0  # nothing asked for, nothing given: no error


def test_strict_that_is_no_bool_is_named(tmp_path):
    """``strict="no"`` was read as True (and raised on a problem the caller asked to be listed)."""
    from noesis_nb.errors import InvalidOptionError

    for frame in FRAMES:
        for value in ("no", 0, None):
            with pytest.raises(InvalidOptionError, match=r"strict=.*: pass True \(raise on the first problem\) or False"):
                frame(tmp_path, strict=value)


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("long", ["ep_" + "a" * 5000, "b" * 300 + "/ep_x"])
def test_a_source_with_a_name_too_long_is_one_error_naming_it_and_the_limit(frame, long, tmp_path):
    from noesis_nb.errors import RunNotFoundError

    with pytest.raises(RunNotFoundError, match="cannot be looked up .*at most 255 bytes") as info:
        frame(str(tmp_path / long))
    assert "aaaa" in str(info.value) or "bbbb" in str(info.value)


@pytest.mark.parametrize("frame", FRAMES)
def test_a_home_of_no_such_user_is_a_source_that_does_not_exist(frame, monkeypatch, tmp_path):
    from noesis_nb.errors import RunNotFoundError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RunNotFoundError, match=r"'~no-such-user-here/runs' does not exist; pass a runs root"):
        frame("~no-such-user-here/runs")


@pytest.mark.parametrize("frame", FRAMES)
def test_a_url_of_a_protocol_fsspec_does_not_know_names_it_and_the_fix(frame):
    from noesis_nb.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match=r"source 'nosuch://bucket/runs' is no URL fsspec can open .*nosuch.*s3://"):
        frame("nosuch://bucket/runs")
