"""Mistakes a newcomer makes analysing runs (frames, plots, imports of recorded traces): each gets one error
naming the value given and the fix, and nothing is written; what was right before stays right."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
import noesis_nb.ns as ns
from noesis_nb import plots
from noesis_nb.errors import InvalidIdError, InvalidOptionError, RunNotFoundError, RunsDirError
from noesis_nb.frames import RunLoadError


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    return "ok"


def _runs(runs_dir: Path, n: int = 2) -> list[str]:
    return [noesis_nb.solve(f"task {i}", using=_agent, runs_dir=runs_dir) for i in range(n)]


def _typo(episode_id: str) -> str:
    return episode_id[:-1] + ("x" if episode_id[-1] != "x" else "y")


# -- a misspelt keyword ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "given", "meant"),
    [
        (lambda root, frames: noesis_nb.events_df(root, episode="ep_x"), "episode", "episodes"),
        (lambda root, frames: noesis_nb.events_df(root, phase="model"), "phase", "phases"),
        (lambda root, frames: noesis_nb.usage_df(root, price={}), "price", "prices"),
        (lambda root, frames: noesis_nb.tools_df(root, column=[]), "column", "columns"),
        (lambda root, frames: plots.tokens_by(frames["usage"], bye="model"), "bye", "by"),
        (lambda root, frames: plots.episode_timeline(frames["events"], episode="ep_x"), "episode", "episode_id"),
        (lambda root, frames: plots.cost_over_time(frames["usage"], cummulative=False), "cummulative", "cumulative"),
    ],
)
def test_a_misspelt_keyword_says_which_was_meant(runs_dir: Path, call: Any, given: str, meant: str) -> None:
    _runs(runs_dir, 1)
    frames = {"usage": noesis_nb.usage_df(runs_dir), "events": noesis_nb.events_df(runs_dir)}
    with pytest.raises(InvalidOptionError) as info:
        call(runs_dir, frames)
    message = str(info.value)
    assert f"has no option {given!r} (did you mean {meant!r}?)" in message, message
    assert isinstance(info.value, TypeError)  # code catching Python's own error still catches it


@pytest.mark.parametrize("frame", ["runs_df", "events_df", "tools_df", "usage_df"])
def test_runs_dir_given_to_a_frame_says_the_root_is_its_first_argument(runs_dir: Path, frame: str) -> None:
    with pytest.raises(InvalidOptionError, match=rf"{frame}\(\) takes no runs_dir=; pass it as source, the first argument"):
        getattr(noesis_nb, frame)(runs_dir=runs_dir)


def test_a_type_error_inside_a_frame_is_not_taken_for_a_misspelt_keyword(runs_dir: Path) -> None:
    with pytest.raises(InvalidOptionError, match="is not a run source"):
        noesis_nb.runs_df(3)  # type: ignore[arg-type]


# -- a frame where a source goes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        (lambda f: f["runs"], "got a DataFrame where source= goes; pass its run directories, df['run_dir']"),
        (lambda f: f["runs"].iloc[0], "got a frame's row where source= goes; pass its run directory, row['run_dir']"),
        (lambda f: f["events"], "got a DataFrame where source= goes; pass the runs root it was loaded from"),
    ],
)
def test_a_frame_or_its_row_given_as_the_source_names_what_to_pass(runs_dir: Path, given: Any, fix: str) -> None:
    _runs(runs_dir)
    frames = {"runs": noesis_nb.runs_df(runs_dir), "events": noesis_nb.events_df(runs_dir)}
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.usage_df(given(frames))
    assert str(info.value).startswith(fix), str(info.value)


def test_a_column_of_run_directories_is_still_a_source(runs_dir: Path) -> None:
    _runs(runs_dir)
    runs = noesis_nb.runs_df(runs_dir)
    again = noesis_nb.runs_df(runs["run_dir"])
    assert list(again["episode_id"]) == list(runs["episode_id"])


# -- an id with a typo, an id from another root ---------------------------------------------------------------


def test_a_misspelt_id_says_which_run_was_meant(runs_dir: Path) -> None:
    first, _ = _runs(runs_dir)
    ns.set(runs_dir=str(runs_dir))
    with pytest.raises(RunNotFoundError, match=rf"no run '{_typo(first)}' under .* \(did you mean '{first}'\?\)"):
        noesis_nb.runs_df(_typo(first))
    with pytest.raises(RunNotFoundError, match=rf"episodes= names '{_typo(first)}', .* \(did you mean '{first}'\?\)"):
        noesis_nb.events_df(runs_dir, episodes=_typo(first))


def test_an_id_from_another_root_tells_a_frame_to_take_that_root_as_its_source(runs_dir: Path, tmp_path: Path) -> None:
    _runs(runs_dir, 1)
    (elsewhere,) = _runs(tmp_path / "other", 1)
    ns.set(runs_dir=str(runs_dir))
    with pytest.raises(RunNotFoundError) as info:
        noesis_nb.tools_df(elsewhere)
    message = str(info.value)
    assert "pass the runs root it is in as source" in message and "runs_dir=" not in message, message


# -- filters and columns that cannot be meant -----------------------------------------------------------------


def test_since_after_until_is_named_not_an_empty_frame(runs_dir: Path) -> None:
    _runs(runs_dir, 1)
    with pytest.raises(InvalidOptionError, match=r"since='2030-01-01' is after until='2020-01-01'.*swap them"):
        noesis_nb.events_df(runs_dir, since="2030-01-01", until="2020-01-01")
    assert len(noesis_nb.events_df(runs_dir, since="2020-01-01", until="2100-01-01")) == len(noesis_nb.events_df(runs_dir))


@pytest.mark.parametrize(
    ("plot", "frame"),
    [
        (lambda df: plots.tokens_over_time(df), "usage"),
        (lambda df: plots.episode_timeline(df, df["episode_id"].iloc[0]), "events"),
    ],
)
def test_timestamps_read_back_as_text_are_named_with_the_fix(runs_dir: Path, plot: Any, frame: str) -> None:
    _runs(runs_dir, 1)
    df = noesis_nb.usage_df(runs_dir) if frame == "usage" else noesis_nb.events_df(runs_dir)
    texts = df.assign(timestamp=df["timestamp"].astype(str))  # what a CSV round trip gives
    with pytest.raises(InvalidOptionError, match=r"the timestamp column holds .* not times; .*pd\.to_datetime"):
        plot(texts)
    assert plot(df.assign(timestamp=df["timestamp"].astype(object))).data  # datetime objects are times still


def test_the_batch_summary_of_no_runs_has_its_columns_and_plots(runs_dir: Path, tmp_path: Path) -> None:
    _runs(runs_dir, 1)
    (tmp_path / "none").mkdir()
    empty = noesis_nb.batch_summary(noesis_nb.runs_df(tmp_path / "none"))
    assert list(empty.columns) == list(noesis_nb.batch_summary(noesis_nb.runs_df(runs_dir)).columns) and empty.empty
    assert plots.batch_summary_plot(empty).data


def test_prices_given_a_dataframe_say_how_to_make_the_table(runs_dir: Path) -> None:
    table = pd.DataFrame({"model": ["gpt-4o-mini"], "input": [1.0], "output": [2.0]})
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.usage_df(runs_dir, prices=table)
    assert str(info.value).startswith("prices= is a DataFrame; pass a dict") and "\n" not in str(info.value)


def test_a_price_for_a_misspelt_model_says_which_was_meant_and_what_priced_its_calls(runs_dir: Path) -> None:
    _runs(runs_dir, 1)
    mine = {"input": 1.0, "output": 2.0}
    usage = noesis_nb.usage_df(runs_dir, prices={"gpt4o-mini": mine})
    reasons = [e["reason"] for e in usage.attrs["errors"]]
    assert reasons == [
        "prices= names 'gpt4o-mini', which no call has; did you mean 'gpt-4o-mini'? Its calls got the genai-prices table"
    ]
    for right in ({"gpt-4o-mini": mine}, {"openai/gpt-4o-mini": mine}, {"gpt-4o-mini": mine, "claude-x": mine}):
        assert noesis_nb.usage_df(runs_dir, prices=right).attrs["errors"] == []
    with pytest.raises(RunLoadError, match="did you mean 'gpt-4o-mini'"):
        noesis_nb.usage_df(runs_dir, prices={"gpt4o-mini": mine}, strict=True)


# -- export and import ----------------------------------------------------------------------------------------


def test_export_otel_given_a_frame_names_the_column_and_takes_the_column(runs_dir: Path, tmp_path: Path) -> None:
    _runs(runs_dir)
    runs = noesis_nb.runs_df(runs_dir)
    for given, fix in ((runs, r"pass df\['episode_id'\]"), (runs.iloc[0], r"pass row\['episode_id'\]")):
        with pytest.raises(InvalidIdError, match=rf"where run_or_runs .* goes; {fix}"):
            noesis_nb.export_otel(given, path=tmp_path / "t.json", runs_dir=runs_dir)
    assert not (tmp_path / "t.json").exists()
    one = noesis_nb.export_otel(list(runs["episode_id"]), path=tmp_path / "a.json", runs_dir=runs_dir)
    assert noesis_nb.export_otel(runs["episode_id"], path=tmp_path / "b.json", runs_dir=runs_dir) == one


_EVENT = {"source": "framework", "type": "custom:note", "data": {}}


@pytest.mark.parametrize(
    ("importer", "log", "said"),
    [
        ("noetic", "missing.jsonl", "Noetic log .*missing.jsonl' does not exist"),
        ("noetic", ".", "Noetic log .*: a directory, not a file"),
        ("noetic", _EVENT, "the log is one event .* not a list of them"),
        ("taisce", "missing.jsonl", "the transcript is a str .* not a list of messages"),
        ("taisce", {"role": "user", "content": "hi"}, "the transcript is a dict .* not a list of messages"),
    ],
)
def test_a_log_that_is_not_a_log_raises_and_leaves_no_run(
    runs_dir: Path, tmp_path: Path, importer: str, log: Any, said: str
) -> None:
    from noesis_nb.integrations.noetic import import_noetic
    from noesis_nb.integrations.taisce import import_taisce

    given = str(tmp_path / log) if isinstance(log, str) else log
    with pytest.raises((ValueError, TypeError, FileNotFoundError), match=said):
        (import_noetic if importer == "noetic" else import_taisce)(given, runs_dir=runs_dir)
    assert list(runs_dir.iterdir()) == []


def test_a_log_whose_later_line_is_bad_still_records_what_came_before(runs_dir: Path, tmp_path: Path) -> None:
    from noesis_nb.integrations.noetic import import_noetic

    log = tmp_path / "stream.jsonl"
    log.write_text(json.dumps(_EVENT) + "\nnot json\n")
    episode = import_noetic(log, runs_dir=runs_dir)
    assert noesis_nb.runs_df(runs_dir / episode)["status"].tolist() == ["error"]


def test_a_run_directory_given_as_runs_dir_is_refused_before_anything_is_written(runs_dir: Path) -> None:
    from noesis_nb.integrations.noetic import import_noetic

    (episode,) = _runs(runs_dir, 1)
    before = sorted(p.name for p in (runs_dir / episode).iterdir())
    for write in (
        lambda: import_noetic([_EVENT], runs_dir=runs_dir / episode),
        lambda: noesis_nb.solve("again", using=_agent, runs_dir=str(runs_dir / episode)),
    ):
        refused = rf"is a run directory \(run '{episode}'\).*pass its parent, runs_dir='{runs_dir}'"
        with pytest.raises(RunsDirError, match=refused):
            write()
    assert sorted(p.name for p in (runs_dir / episode).iterdir()) == before


def test_a_runs_dir_inside_a_run_directory_is_refused_before_anything_is_written(runs_dir: Path) -> None:
    """A folder under a sealed run took new runs: listed nowhere, and the sealed run's manifest no longer complete."""
    from noesis_nb.integrations.noetic import import_noetic
    from tests.compat.checker import check_run

    (episode,) = _runs(runs_dir, 1)
    run_dir = runs_dir / episode
    (run_dir / "sub").mkdir()  # a folder there already, and one not made yet
    before = sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*"))

    async def start(inner: Path) -> Any:
        return noesis_nb.start("again", using=_agent, runs_dir=inner)

    for inner in (run_dir / "sub", run_dir / "sub" / "new" / "deeper"):
        for write in (
            lambda at=inner: import_noetic([_EVENT], runs_dir=at),
            lambda at=inner: noesis_nb.solve("again", using=_agent, runs_dir=str(at)),
            lambda at=inner: asyncio.run(start(at)),
        ):
            with pytest.raises(RunsDirError, match=rf"lies inside the run directory '{run_dir}' \(run '{episode}'\)"):
                write()
    assert sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*")) == before
    assert check_run(run_dir) == []


# -- one line in a cell ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "first_line"),
    [
        ("noesis_nb.events_df(RUNS, episode='ep_x')", "InvalidOptionError: events_df() has no option 'episode' (did you mean"),
        ("noesis_nb.runs_df(noesis_nb.runs_df(RUNS))", "InvalidOptionError: got a DataFrame where source= goes"),
    ],
)
def test_an_analysis_mistake_in_a_cell_shows_one_line(ip: Any, runs_dir: Path, cell: str, first_line: str) -> None:
    from IPython.utils.capture import capture_output

    _runs(runs_dir, 1)
    ip.user_ns.update(noesis_nb=noesis_nb, RUNS=str(runs_dir))
    with capture_output() as out:
        result = ip.run_cell(cell)
    assert isinstance(result.error_in_exec, InvalidOptionError)
    shown = out.stdout + out.stderr
    assert shown.startswith(first_line), shown
    assert "Traceback" not in shown and "noesis_nb/" not in shown, shown


def test_an_id_from_another_root_in_a_magic_says_the_option_not_the_keyword(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    from IPython.core.error import UsageError

    _runs(runs_dir, 1)
    (elsewhere,) = _runs(tmp_path / "other", 1)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("noesis", f"show {elsewhere} --runs-dir {runs_dir}")
    message = str(info.value)
    assert message.startswith(f"%noesis show: no run {elsewhere!r}"), message
    assert "pass --runs-dir or the run directory" in message, message
    assert "runs_dir=" not in message, message


# -- regressions: what worked before these checks still works --------------------------------------------------


def test_an_interrupt_while_importing_a_slow_log_seals_the_run_cancelled(tmp_path: Path) -> None:
    """The rows are read on the engine's worker thread; a Ctrl-C there is the run's cancel, not a closing error."""
    import signal
    import threading
    import time

    from noesis_nb.errors import EpisodeInterrupted
    from noesis_nb.integrations.replay import import_rows

    def rows() -> Any:  # a log still being written: the next line is slow
        yield ("message", {"kind": "message", "role": "user", "text": "hi"})
        time.sleep(2)
        yield ("message", {"kind": "message", "role": "assistant", "text": "yo"})

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
        with pytest.raises(EpisodeInterrupted, match="sealed cancelled") as caught:
            import_rows(rows(), task="t", source="test", runs_dir=tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)
    final = json.loads((tmp_path / caught.value.episode_id / "final.json").read_text())
    assert final.get("outcome") == "cancelled"


def test_a_table_priced_model_beside_an_unused_sibling_is_no_misspelling(runs_dir: Path) -> None:
    """A team table covers claude-3-5-sonnet and claude-3-7-sonnet; the runs call only one, which the table priced."""

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("claude-3-7-sonnet", provider="anthropic", input_tokens=100, output_tokens=10)
        ctx.model_call("o4-mini", provider="openai", input_tokens=100, output_tokens=10)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    mine = {"input": 1.0, "output": 2.0}
    table = {"claude-3-7-sonnet": mine, "claude-3-5-sonnet": mine, "openai/o4-mini": mine, "o3-mini": mine}
    usage = noesis_nb.usage_df(runs_dir, prices=table)
    assert usage.attrs["errors"] == []
    assert usage["cost_usd"].notna().all()
    assert not noesis_nb.usage_df(runs_dir, prices=table, strict=True).empty


def test_a_big_price_table_against_many_unpriced_models_compares_a_bounded_number_of_names(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The misspelling hint compares names pairwise: a 3000-model table against 200 unpriced models would be
    600,000 comparisons (seconds of a frame); the hint stops well before, and a real typo is still found."""
    import difflib
    import random
    import string

    from noesis_nb.frames import usage as usage_module

    rng = random.Random(7)

    def name() -> str:
        return "model-" + "".join(rng.choices(string.ascii_lowercase + "-0123456789", k=18))

    called = [name() for _ in range(200)]

    def agent(task: str, ctx: Any) -> str:
        for model in called:
            ctx.model_call(model, provider="acme", input_tokens=1, output_tokens=1)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    table = {name(): {"input": 1.0, "output": 2.0} for _ in range(3000)}
    compared = []
    real = difflib.get_close_matches

    def counting(word: str, possibilities: Any, *args: Any, **kwargs: Any) -> list[str]:
        compared.append(len(possibilities))
        return real(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(usage_module.difflib, "get_close_matches", counting)
    noesis_nb.usage_df(runs_dir, prices=table)
    assert 0 < sum(compared) <= len(table) * len(called) // 10, sum(compared)
    typo = called[0][:-1]  # a table naming a called model with its last letter missing
    frame = noesis_nb.usage_df(runs_dir, prices={typo: {"input": 1.0, "output": 2.0}})
    assert any(repr(called[0]) in str(e["reason"]) for e in frame.attrs["errors"]), frame.attrs["errors"]


@pytest.mark.parametrize("marker", ["state.json", "summary.json"])
def test_a_folder_every_reader_takes_for_a_run_is_refused_as_runs_dir_by_the_file_it_holds(tmp_path: Path, marker: str) -> None:
    """A project folder holding its own state.json is listed by every reader as one run: a run written inside
    would be listed nowhere. The refusal names the file (it is no run of ours) and writes nothing."""
    project = tmp_path / "myproject"
    project.mkdir()
    (project / marker).write_text(json.dumps({"app": "settings"}))
    with pytest.raises(RunsDirError, match=rf"holds a {marker}, so every listing takes the folder for one run"):
        noesis_nb.solve("t", using=_agent, runs_dir=project)
    assert sorted(p.name for p in project.iterdir()) == [marker]
    assert json.loads((project / marker).read_text()) == {"app": "settings"}
    noesis_nb.solve("t", using=_agent, runs_dir=project / "runs")  # the folder the message suggests
    assert noesis_nb.runs_df(project / "runs")["status"].tolist() == ["ok"]


def test_a_crafted_folder_or_root_name_is_quoted_in_the_errors_never_printed_raw(tmp_path: Path) -> None:
    """A name with an escape sequence or a newline would repaint the terminal or fake a traceback line. Writers
    refuse such a folder (its name is refused before anything else of it is read); readers take one made by
    someone else, and their errors quote it."""
    from noesis_nb.store import find_run_dir

    crafted = tmp_path / "ep\x1b[2J\x1b[31mINJECTED\nTraceback: fake"
    crafted.mkdir()
    (crafted / "events.jsonl").write_text("")
    with pytest.raises((RunsDirError, InvalidOptionError)) as refused:
        noesis_nb.solve("t", using=_agent, runs_dir=crafted)
    written = tmp_path / "runs"
    (first,) = _runs(written, 1)
    root = tmp_path / "runs\x1b[31m\nTraceback"
    written.rename(root)  # a root another program named so
    with pytest.raises(RunNotFoundError) as missing:
        noesis_nb.runs_df(root, episodes=_typo(first))
    with pytest.raises(RunNotFoundError) as unknown:
        find_run_dir(_typo(first), root)
    for info in (refused, missing, unknown):
        message = str(info.value)
        assert "\x1b" not in message and "\n" not in message, message


@pytest.mark.parametrize(
    "read_back",
    [
        lambda ts: ts.astype(str),  # a CSV round trip
        lambda ts: ts.dt.tz_localize(None).astype(str),  # written without its zone
        lambda ts: pd.Series([t.date() for t in ts], index=ts.index, dtype=object),  # datetime.date values
    ],
    ids=["iso text", "naive text", "dates"],
)
def test_cost_over_time_still_plots_text_and_date_timestamps_as_it_did(runs_dir: Path, read_back: Any) -> None:
    """It plotted them before timestamps were checked; the plot reads them as times, the same calls in order."""
    _runs(runs_dir, 2)
    usage = noesis_nb.usage_df(runs_dir)
    fig = plots.cost_over_time(usage.assign(timestamp=read_back(usage["timestamp"])))
    expected = pd.to_datetime(read_back(usage["timestamp"]), utc=True, format="mixed").sort_values()
    plotted = pd.to_datetime(pd.Series([x for trace in fig.data for x in trace.x]), utc=True).sort_values()
    assert plotted.tolist() == expected.tolist()
    with pytest.raises(InvalidOptionError, match=r"cost_over_time: the timestamp column holds .* not times"):
        plots.cost_over_time(usage.assign(timestamp="yesterday-ish"))


def test_cost_over_time_plots_number_timestamps_as_the_numbers_they_are(runs_dir: Path) -> None:
    """Unix seconds plotted as numbers before timestamps were checked; read as times they would be nanoseconds
    after 1970 (every call on the first second), a wrong plot without a word."""
    _runs(runs_dir, 2)
    usage = noesis_nb.usage_df(runs_dir)
    seconds = (usage["timestamp"].astype("int64") // 10**9).astype("int64")
    for kept in (seconds, seconds.astype(object)):  # as numbers, or numbers in an object column
        fig = plots.cost_over_time(usage.assign(timestamp=kept))
        assert sorted(x for trace in fig.data for x in trace.x) == sorted(seconds.tolist())
    with pytest.raises(InvalidOptionError, match="not times"):
        plots.cost_over_time(usage.assign(timestamp=True))


def test_a_folder_named_like_the_id_that_is_no_run_is_never_its_own_did_you_mean(runs_dir: Path) -> None:
    (first,) = _runs(runs_dir, 1)
    (runs_dir / f"{first}X").mkdir()  # named like a run, holds nothing
    with pytest.raises(RunNotFoundError) as missing:
        noesis_nb.runs_df(runs_dir, episodes=[f"{first}X"])
    assert f"did you mean {first + 'X'!r}" not in str(missing.value), str(missing.value)
