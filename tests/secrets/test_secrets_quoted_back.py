"""No key, nor any part of one, is quoted back by an error message, a warning or a log line.

A key pasted where an id, a name, an option, a path or a URL goes is refused with a message that still names
the rule it broke and the fix, but shows the key neither whole (a short or cut key no detector recognises) nor
cut (a message that quoted ``value[:60]`` kept 60 characters of it). Each key shape is placed at the start, in
the middle and at the end of a longer value; no 8-character window of the key may appear in ``str(exc)``,
``repr(exc)``, the warnings caught or what was printed. Ordinary values are still quoted as given.
"""

from __future__ import annotations

import asyncio
import random
import string
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import NoesisNbError
from noesis_nb.frames import Column
from noesis_nb.ids import validate_id
from noesis_nb.secrets import looks_like_key, quoted

_RNG = random.SystemRandom()
_ALNUM = string.ascii_letters + string.digits


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _keys() -> dict[str, str]:
    upper = string.ascii_uppercase + string.digits
    return {
        "openai": "sk-proj-" + _r(56),
        "github": "ghp_" + _r(36),
        "aws": "AKIA" + _r(16, upper) + ":" + _r(40, _ALNUM + "/+"),
        "slack": f"xoxb-{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(24)}",
        "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ" + _r(30) + "." + _r(43, _ALNUM + "-_"),
        "random40": _random_key(40),
    }


def _random_key(n: int) -> str:
    """``n`` random letters and digits whose 12- and 14-character heads read as random. The tests cut keys that
    short, and a cut so short is judged by what it still shows: about one 14-character cut of a random key in
    forty reads like a name (``QUAzZGYRFFjw``, ``Zhax1LfesTusnO``: letters alone, or mostly syllables) and is
    quoted like a name, by design. The draw leaves those out; what is checked is that every message hides the
    rest, whole or cut."""
    key = _r(n)
    while not (looks_like_key(key[:12]) and looks_like_key(key[:14])):
        key = _r(n)
    return key


KEYS = _keys()
# the key alone, cut short (as a message that quoted ``value[:12]`` once showed), and within longer values
PLACES: list[Callable[[str], str]] = [
    lambda k: k,
    lambda k: k[:14],
    lambda k: k + "/../x",
    lambda k: "../" + k,
    lambda k: "my run " + k + " end",
    lambda k: "x" * 70 + k,
    lambda k: "-" + k,
]
CASES = [pytest.param(name, i, id=f"{name}-{i}") for name in KEYS for i in range(len(PLACES))]


def _windows(key: str) -> set[str]:
    return {key[i : i + 8] for i in range(len(key) - 7)}


def _leaked(key: str, *texts: str) -> list[str]:
    return sorted({w for w in _windows(key) for t in texts if w in t})


@contextmanager
def _said(capsys: pytest.CaptureFixture[str]) -> Iterator[list[str]]:
    """What the block shows: its exception's ``str`` and ``repr``, the warnings it raised and what it printed."""
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield texts
        except Exception as exc:
            texts += [str(exc), repr(exc)]
    texts += [str(w.message) for w in caught]
    out = capsys.readouterr()
    texts += [out.out, out.err]


def _refused(capsys: pytest.CaptureFixture[str], call: Callable[[], Any]) -> list[str]:
    with _said(capsys) as texts:
        call()
    assert texts and texts[0], "the call was not refused"
    return texts


@pytest.mark.parametrize("name, place", CASES)
def test_an_id_holding_a_key_is_refused_without_quoting_it(name: str, place: int, capsys: Any) -> None:
    key = KEYS[name]
    value = PLACES[place](key) + "/"  # a path separator: refused whatever the rest is
    for what in ("episode id", "batch id", "checkpoint id"):
        texts = _refused(capsys, lambda what=what: validate_id(value, what=what))
        assert _leaked(key[:14] if place == 1 else key, *texts) == [], texts[0]
        assert what in texts[0] and "path separator" in texts[0]


@pytest.mark.parametrize("name", list(KEYS))
def test_a_short_cut_key_is_named_by_its_length_and_the_rule(name: str) -> None:
    cut = KEYS[name][:12]
    with pytest.raises(NoesisNbError) as caught:
        validate_id(cut + " x")
    message = str(caught.value)
    assert not _leaked(cut, message)
    assert "characters outside [A-Za-z0-9_.:@+=-]" in message


@pytest.mark.parametrize("value", ["my run", "../etc", "a b", "ep 01", "run#1"])
def test_ordinary_values_are_still_quoted(value: str) -> None:
    with pytest.raises(NoesisNbError) as caught:
        validate_id(value)
    assert repr(value) in str(caught.value)


def test_quoted_keeps_ordinary_values_and_names_a_key_by_its_length() -> None:
    assert quoted("my run") == "'my run'"
    assert quoted("ep_01K9ABCDEFGHJKMNPQRSTVWXYZ") == "'ep_01K9ABCDEFGHJKMNPQRSTVWXYZ'"
    assert quoted("claude-3-5-sonnet-20241022") == "'claude-3-5-sonnet-20241022'"
    assert quoted("chk_1a2b3c4d5e6f") == "'chk_1a2b3c4d5e6f'"
    assert quoted("ep_01M8X2CK8NJ4J5AYTY3105GWQx") == "'ep_01M8X2CK8NJ4J5AYTY3105GWQx'"  # a mistyped id, shown
    key = KEYS["github"]
    assert quoted(key) == f"<a {len(key)}-character value that looks like a key, not shown>"
    long = "x" * 300
    assert quoted(long, 60) == f"{'x' * 60!r}… (300 characters)"


def echo(task: str) -> str:
    return task


@pytest.mark.parametrize("name", list(KEYS))
@pytest.mark.parametrize(
    "option", ["governance", "approver", "seed", "tags", "idle_timeout_s", "pause_on_veto", "using", "runs_dir_file"]
)
def test_start_and_solve_options_holding_a_key_are_refused_without_quoting_it(
    name: str, option: str, tmp_path: Path, capsys: Any
) -> None:
    key = KEYS[name]
    (tmp_path / "f").write_text("")
    # whole, cut short, and cut through by the 60 characters a message once kept
    for value in (key, key[:14], "x" * 50 + key, "x" * 70 + key):
        kwargs: dict[str, Any] = {"using": echo, "runs_dir": tmp_path}
        if option == "runs_dir_file":
            kwargs["runs_dir"] = tmp_path / "f" / value
        else:
            kwargs[option] = value
        texts = _refused(capsys, lambda kwargs=kwargs: noesis_nb.solve("t", **kwargs))
        assert _leaked(value if value == key[:14] else key, *texts) == [], texts[0]
        assert option.removesuffix("_file") in texts[0] or option == "using", texts[0]


@pytest.mark.parametrize("cut", [1, 9, 17, 30, 39])
def test_a_runs_dir_cut_into_folders_by_a_slash_in_its_key_shows_no_part_of_it(cut: int, tmp_path: Path, capsys: Any) -> None:
    """An AWS secret key may hold ``/``: ``runs_dir=…/AKIA…:abc/def`` would make the folder ``AKIA…:abc``, whose cut of
    the secret is no key to the detectors on its own; the message once named that folder, cut and all."""
    secret = _r(40, _ALNUM + "+")
    key = "AKIA" + _r(16, string.ascii_uppercase + string.digits) + ":" + secret[:cut] + "/" + secret[cut + 1 :]
    (tmp_path / "f").write_text("")
    texts = _refused(capsys, lambda: noesis_nb.solve("t", using=echo, runs_dir=tmp_path / "f" / key))
    assert "runs_dir" in texts[0] and str(tmp_path) in texts[0], texts[0]
    for part in (secret[:cut], secret[cut + 1 :]):
        shown = [part[i : i + 8] for i in range(len(part) - 7) if part[i : i + 8] in "\n".join(texts)]
        assert shown == [], texts[0]


@pytest.mark.parametrize("name", list(KEYS))
def test_frames_options_holding_a_key_are_refused_without_quoting_it(name: str, tmp_path: Path, capsys: Any) -> None:
    key = KEYS[name]
    value = "x" * 70 + key
    noesis_nb.solve("t", using=echo, runs_dir=tmp_path)
    calls: list[Callable[[], Any]] = [
        lambda: noesis_nb.runs_df(tmp_path, verify=value),  # type: ignore[arg-type]
        lambda: noesis_nb.runs_df(tmp_path, episodes=[value]),
        lambda: noesis_nb.runs_df(tmp_path, episodes=[3, value]),  # type: ignore[list-item]
        lambda: noesis_nb.runs_df(tmp_path, columns=[value]),  # type: ignore[list-item]
        lambda: noesis_nb.runs_df(tmp_path, columns=[Column(value, path="a.b", type="bogus")]),
        lambda: noesis_nb.runs_df(tmp_path, columns=[Column("c", path="a", fn=value)]),  # type: ignore[arg-type]
        lambda: noesis_nb.events_df(tmp_path, phases=[value]),
        lambda: noesis_nb.events_df(tmp_path, since=value),
        lambda: noesis_nb.runs_df(tmp_path / value[:200]),
    ]
    for call in calls:
        with _said(capsys) as texts:
            call()
        assert _leaked(key, *texts) == [], texts


@pytest.mark.parametrize("name", list(KEYS))
def test_batch_specs_holding_a_key_are_refused_without_quoting_it(name: str, tmp_path: Path, capsys: Any) -> None:
    key = KEYS[name]
    value = "x" * 70 + key
    calls: list[Callable[[], Any]] = [
        lambda: noesis_nb.batch(["t"], using=echo, root=tmp_path, batch_id=value + "/"),
        lambda: noesis_nb.batch(["t"], using=echo, root=tmp_path, batch_id=key[:14] + " x"),
        lambda: noesis_nb.batch([{"task": "t", "tags": value}], using=echo, root=tmp_path),
        lambda: noesis_nb.batch([{"task": value, "bogus": 1}], using=echo, root=tmp_path),
        lambda: noesis_nb.batch([3, value], using=echo, root=tmp_path),
        lambda: noesis_nb.batch(["t"], using={value + "/": echo}, root=tmp_path),
        lambda: noesis_nb.batch(["t"], using=echo, root=tmp_path, concurrency=value),
        lambda: noesis_nb.batch(["t"], using=echo, root=tmp_path, upload_to=3),
        lambda: noesis_nb.batch(["t"], using=echo, root=tmp_path, governance=value),
    ]

    async def refused(call: Callable[[], Any]) -> None:
        call()  # each is refused before a run starts (batch() needs a running loop)

    for call in calls:
        with _said(capsys) as texts:
            asyncio.run(refused(call))
        assert texts and texts[0] and _leaked(key, *texts) == [], texts


@pytest.mark.parametrize("name", list(KEYS))
def test_the_magics_refuse_a_key_without_quoting_it(name: str, ip: Any, runs_dir: Path, capsys: Any) -> None:
    key = KEYS[name]
    lines = [
        f"{key}",  # an unknown subcommand
        f'run echo "t" --governance {key}',  # argparse's invalid choice
        f'run echo "t" --approver {key}',
        f'run echo "t" --tag {key}',
        f"stop {key}",
        f"stop x{key}",
        f"batch {key} echo",
        f'run {key} "t"',
        f"show {key}/x",
        f"resume ../{key}",
        f'run echo "t" --runs-dir {runs_dir}/{key} --seed {key}',
        f'run echo "{key}',  # an unclosed quote
    ]
    for line in lines:
        with _said(capsys) as texts:
            ip.run_line_magic("noesis", line)
        assert texts, line
        assert _leaked(key, *texts[:2]) == [], (line, texts[0])


def test_the_magics_still_quote_ordinary_values(ip: Any) -> None:
    with pytest.raises(UsageError, match="unknown subcommand 'runn'"):
        ip.run_line_magic("noesis", "runn")
    with pytest.raises(UsageError, match="no episode 'ep_nothing' is running"):
        ip.run_line_magic("noesis", "stop ep_nothing")
    with pytest.raises(UsageError, match=r"--tag 'team' is not KEY=VALUE"):
        ip.run_line_magic("noesis", 'run echo "t" --tag team')


@pytest.mark.parametrize("name", list(KEYS))
def test_runs_drafts_and_integrations_refuse_a_key_without_quoting_it(name: str, tmp_path: Path, capsys: Any) -> None:
    from noesis_nb.integrations.noetic import noetic_rows
    from noesis_nb.integrations.otel import export_otel

    key = KEYS[name]
    value = "x" * 70 + key
    episode_id = noesis_nb.solve("t", using=echo, runs_dir=tmp_path)
    calls: list[Callable[[], Any]] = [
        lambda: list(noetic_rows(tmp_path / value)),
        lambda: list(noetic_rows(tmp_path, harness_response=value)),
        lambda: export_otel(tmp_path / episode_id, path=3, endpoint=value),  # type: ignore[arg-type]
        lambda: export_otel(tmp_path / episode_id, endpoint=value),
        lambda: noesis_nb.resume_run(value, runs_dir=tmp_path),
        lambda: noesis_nb.show(value, runs_dir=tmp_path),
        lambda: noesis_nb.approve_draft(value, approver_id="ana", runs_dir=tmp_path),
        lambda: noesis_nb.approve_draft(episode_id, value, approver_id="ana", runs_dir=tmp_path),
        lambda: noesis_nb.reject_draft(episode_id, key[:14], approver_id="ana", runs_dir=tmp_path),
        lambda: noesis_nb.approve_draft(episode_id, "x", approver_id=3, reason=value, runs_dir=tmp_path),  # type: ignore[arg-type]
    ]
    for call in calls:
        with _said(capsys) as texts:
            call()
        assert texts and _leaked(key, *texts) == [], texts
