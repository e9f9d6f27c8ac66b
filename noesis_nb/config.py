"""Process-wide settings behind ``ns.set`` / ``ns.get`` (Noēsis' config keys).

Values come from, in order: ``ns.set(...)``, environment variables (``NOESIS_*``), defaults.
Nothing reads these at import time; call sites ask when they need a value.
"""

from __future__ import annotations

import builtins
import os
import re
import stat
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any, overload

from ._cachedir import cache_problem
from ._envvars import (
    ENV_NAMES,
    NOESIS_ENV,
    approver_from_env,
    approver_id_from_env,
    capture_from_env,
    is_default,
    misspelt,
    path_from_env,
    principal_from_env,
    refuse_control_in_path,
    value_shown,
)
from .errors import InvalidOptionError, RunsDirError, UnsupportedFeatureError, guessed
from .secrets.display import shown as redacted
from .secrets.quoted import quoted, typo_hint

__all__ = ["get", "set", "reset", "runs_dir", "check_path", "check_runs_folder", "problems", "NOT_IMPLEMENTED"]

_DEFAULTS: dict[str, Any] = {  # what noesis_nb reads
    "runs_dir": None,  # None: $NOESIS_RUNS_DIR, else ./.noesis/episodes
    "governance_mode": "off",
    "governance_failure_policy": None,
    "governance_pause_on_veto": False,
}
#: Noēsis settings noesis_nb does not implement: accepted at Noēsis' default (so Noēsis code setting
#: defaults runs unchanged), refused with UnsupportedFeatureError at any other value
NOT_IMPLEMENTED: dict[str, Any] = {
    "agents": None,
    "tasks": None,
    "timeout_sec": 60,
    "intuition_mode": "advisory",
    "direction_min_confidence": 0.5,
    "planner_mode": "minimal",
    "policy_aliases": None,
    "learn_mode": "record",
    "learn_home": None,
    "learn_auto_apply_min_successes": 3,
    "learn_auto_apply_min_confidence": 0.75,
    "prompt_provenance_enabled": False,
    "prompt_provenance_mode": "hash_only",
    "governance_timeout_ms": None,
}
_ENV = {
    "runs_dir": "NOESIS_RUNS_DIR",
    "governance_mode": "NOESIS_GOVERNANCE_MODE",
    "governance_failure_policy": "NOESIS_GOVERNANCE_FAILURE_POLICY",
}
_CHOICES: dict[str, set[str | bool | None]] = {
    "governance_mode": {"off", "audit", "enforce"},
    "governance_failure_policy": {None, "fail_open", "fail_closed"},
    "governance_pause_on_veto": {True, False},
}
_lock = threading.Lock()
_overrides: dict[str, Any] = {}


def set(**overrides: Any) -> None:
    """Override settings for this process; a wrong name or value raises InvalidOptionError listing what is accepted.

    Noēsis settings noesis_nb does not implement are accepted at their default only (UnsupportedFeatureError otherwise).
    """
    unknown = sorted(k for k in overrides if k not in _DEFAULTS and k not in NOT_IMPLEMENTED)
    if unknown:
        raise InvalidOptionError(
            f"unknown setting(s) {guessed(unknown, sorted(_DEFAULTS))}; known settings: {sorted(_DEFAULTS)} "
            f"(and Noēsis' {sorted(NOT_IMPLEMENTED)} at their defaults)"
        )
    for key, value in overrides.items():
        if key in NOT_IMPLEMENTED:
            if value != NOT_IMPLEMENTED[key]:
                raise UnsupportedFeatureError(
                    f"{key}={quoted(value)}: noesis_nb does not implement Noēsis' {quoted(key)}; only its "
                    f"default {quoted(NOT_IMPLEMENTED[key])} is accepted"
                )
        elif key in _CHOICES and value not in _CHOICES[key]:
            choices = sorted(_CHOICES[key], key=str)
            named = [c for c in choices if isinstance(c, str)]
            guess = typo_hint(value, named) if named else ""
            raise InvalidOptionError(f"{key}={quoted(value)}{guess}: use one of {', '.join(map(repr, choices))}")
        elif key == "runs_dir" and not _blank(value):  # "" as an empty $NOESIS_RUNS_DIR: back to the default
            check_runs_folder(check_path(value))
    with _lock:
        for key, value in overrides.items():
            if key == "runs_dir" and _blank(value):
                _overrides.pop(key, None)
            elif key in _DEFAULTS:
                _overrides[key] = value


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def reset() -> None:
    """Forget every ``set`` override (tests use this)."""
    with _lock:
        _overrides.clear()


@overload
def get(key: None = None) -> dict[str, Any]: ...
@overload
def get(key: str) -> Any: ...
def get(key: str | None = None) -> Any:
    """The whole config as a dict (Noēsis' keys included, at the values noesis_nb behaves by), or one value.

    One value set wrong in the environment raises (the call needing it stops there); the whole dict does not, so
    the settings can be looked at to find the wrong one: it holds the variable's text and a UserWarning names each
    wrong variable with its fix (see ``problems()``).
    """
    if key is not None:
        if key in NOT_IMPLEMENTED:
            return NOT_IMPLEMENTED[key]
        if key not in _DEFAULTS:
            raise InvalidOptionError(f"unknown setting {quoted(key)}; known settings: {sorted(_DEFAULTS)}")
        return _value(key)
    shown: dict[str, Any] = dict(NOT_IMPLEMENTED)
    for name in _DEFAULTS:
        try:
            shown[name] = _value(name)
        except InvalidOptionError:  # its text, redacted: a key pasted into the wrong variable is not handed out
            shown[name] = redacted(os.environ[_ENV[name]])
    if said := problems():
        import warnings

        warnings.warn(
            "noesis_nb settings from the environment: " + "; ".join(said) + " (start()/solve() refuse a wrong value)",
            UserWarning,
            stacklevel=_user_level(),
        )
    return shown


def problems() -> list[str]:
    """One line per ``NOESIS_*`` environment variable set to a value noesis_nb refuses (or misspelt), with the fix."""
    said = []
    for name in _DEFAULTS:
        try:
            _value(name)
        except InvalidOptionError as exc:
            said.append(str(exc))
    for check in (approver_from_env, approver_id_from_env, capture_from_env, principal_from_env):
        try:
            check()
        except InvalidOptionError as exc:
            said.append(str(exc))
    if cache := cache_problem():  # the cache is not used: loads still work, each reading every run
        said.append(cache)
    said.extend(
        f"${name} is not read by noesis_nb (did you mean {meant}?)"
        for name, meant in sorted(misspelt([*ENV_NAMES, *_ENV.values()]).items())
    )
    said.extend(
        f"${name}={value_shown(raw)} is ignored: noesis_nb does not implement Noēsis' {quoted(key)} (it behaves as at "
        f"its default "
        f"{quoted(NOT_IMPLEMENTED[key])}); unset it"
        for name, key, raw in _unimplemented()
    )
    return said


def _value(key: str) -> Any:
    with _lock:
        if key in _overrides:
            return _overrides[key]
    env = _ENV.get(key)
    if key == "runs_dir":  # a path: stripped (a pasted space or line end named another folder), control chars refused
        return path_from_env(_ENV["runs_dir"]) or _DEFAULTS[key]
    if env and os.environ.get(env, "").strip():  # empty or blank: unset
        raw = os.environ[env]
        default = _DEFAULTS[key]
        choices = sorted(str(c) for c in _CHOICES.get(key, ()) if c is not None)
        if choices and raw not in choices:  # named here: the call that reads it never saw the variable
            raise InvalidOptionError(f"${env}={value_shown(raw)}{typo_hint(raw, choices)}: use one of {choices}")
        if isinstance(default, bool):
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if isinstance(default, int) and not isinstance(default, bool):
            try:
                return int(raw)
            except ValueError:
                return default
        return raw
    return _DEFAULTS[key]


def check_path(value: Any, name: str = "runs_dir", *, reading: bool = False) -> Any:
    """``value`` when it can name a folder (a str or ``os.PathLike``) or is None; else one error naming it. An empty
    (or blank) string is refused: as a path it is this process's working folder, where an empty ``$NOESIS_RUNS_DIR``
    means the default, so ``--runs-dir ''`` would write runs wherever the kernel happens to run. A NUL in it is
    refused too (no path holds one), and, unless ``reading`` (a folder only read is never refused for its name), a
    character dangerous to show or parse (``_envvars.path_character_problem``)."""
    if isinstance(value, str) and not value.strip():
        raise InvalidOptionError(
            f"{name}={quoted(value)} names no folder: leave it out for the configured runs dir, or pass '.' for the "
            f"working folder"
        )
    if isinstance(value, (str, os.PathLike)) and _holds_nul(value):  # the OS refuses it: a bare "embedded null byte"
        raise InvalidOptionError(
            f"{name}={quoted(value, 80)} holds a NUL character ('\\x00'), which no path can hold: pass the folder's "
            "path without it"
        )
    if isinstance(value, (str, os.PathLike)):
        refuse_url(value, name)
        try:
            text = os.fspath(value)
        except Exception:  # a PathLike whose __fspath__ fails: said where it is used
            text = None
        if isinstance(text, str) and not reading:  # a line end or an ANSI escape: refused as $NOESIS_RUNS_DIR is
            refuse_control_in_path(text, name)
    if value is None or isinstance(value, (str, os.PathLike)):
        return value
    many = isinstance(value, (list, tuple, frozenset, builtins.set))
    hint = " (one folder: a runs root holds many runs)" if many else ""
    raise InvalidOptionError(f"{name}={quoted(value, 80)} is no path: pass a folder as a str or pathlib.Path{hint}")


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def refuse_url(value: str | os.PathLike[Any], name: str = "runs_dir") -> None:
    """Refuse a URL (``s3://bucket/runs``, ``file:///data/runs``) where a local folder is written or searched: as a
    path it names a folder ``s3:`` under the working folder, which nothing that reads the URL would find. Runs are
    written locally; ``upload_to=`` copies a batch's runs to a bucket, and the frames read URLs."""
    try:
        text = os.fspath(value)
    except Exception:  # said where it is used
        return
    if not isinstance(text, str) or _URL.match(text) is None:
        return
    scheme = text.split("://", 1)[0].lower()
    if scheme == "file":
        fix = f"pass the folder's path itself, {quoted(text[len('file://') :], 80)}"
    else:
        url = quoted(text, 60)  # a URL shown whole is the example; a hidden one's length is none
        url = url if url.startswith(("'", '"')) else repr(f"{scheme}://bucket/runs")
        fix = (
            "pass a local folder (episodes are written on this machine), and copy runs there with "
            f"batch(..., upload_to={url}) or upload_run(run_dir, url); runs_df, events_df, tools_df and "
            "usage_df read the URL itself"
        )
    raise InvalidOptionError(f"{name}={quoted(text, 80)} is a URL, not a folder: {fix}")


def _holds_nul(value: str | os.PathLike[Any]) -> bool:
    """True when the path ``value`` names holds a NUL, which every OS call refuses with a bare ValueError."""
    try:
        text = os.fspath(value)
    except Exception:  # a PathLike whose __fspath__ fails or returns no str/bytes: said where it is used
        return False
    return (b"\x00" if isinstance(text, bytes) else "\x00") in text


def check_runs_folder(value: str | os.PathLike[str] | None) -> None:
    """A runs dir being set is judged now, not at the next run: something other than a folder there, or a folder
    that cannot be made (a file or an unwritable folder in its way), is one RunsDirError. A folder not made yet is
    fine: the first run makes it. An existing folder is not asked to be writable (runs may be only read from it)."""
    if value is None or not os.fspath(value):
        return
    path = Path(value).expanduser()
    if what := _not_a_folder(path):
        raise RunsDirError(
            f"runs_dir {quoted(str(path))} is {what}, not a folder; pass a folder (one not made yet is made by the first run)"
        )
    if os.path.lexists(path):
        return
    parent = next((p for p in path.parents if os.path.lexists(p)), None)
    if parent is None:
        return
    if what := _not_a_folder(parent):
        raise RunsDirError(
            f"runs_dir {quoted(str(path))} cannot be made: {quoted(str(parent))} is {what}, not a folder; pass a path "
            f"under a folder"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise RunsDirError(
            f"runs_dir {quoted(str(path))} cannot be made: {quoted(str(parent))} may not be written by this user (or is on a "
            "read-only file system); make the folder first, or pass one under a folder you can write"
        )


def _not_a_folder(path: Path) -> str | None:
    """What ``path`` is when it exists as something other than a folder ("a file"…); None for a folder or nothing."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there, or a link leading nowhere (a missing target, a loop)
        return "a symbolic link that leads nowhere" if os.path.islink(path) else None
    if stat.S_ISDIR(mode):
        return None
    kinds = ((stat.S_ISREG, "a file"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device")


def runs_dir(explicit: str | os.PathLike[str] | None = None, *, reading: bool = False) -> Path:
    """Where new episodes go: explicit, then ``ns.set(runs_dir=…)``/``$NOESIS_RUNS_DIR``, then ``./.noesis/episodes``.
    ``reading``: ``explicit`` is only read (an inbox, a listing), so its name is not refused (``check_path``)."""
    if explicit is not None:
        return Path(check_path(explicit, reading=reading)).expanduser()
    configured = _value("runs_dir")
    if not configured:
        return Path(".noesis") / "episodes"
    if "runs_dir" not in _overrides:  # (set through ns.set: checked there) $NOESIS_RUNS_DIR is read only here
        refuse_url(configured, "$" + _ENV["runs_dir"])
    return Path(configured).expanduser()


_env_checked = False


def check_env_names() -> None:
    """Before an episode starts: refuse a ``$NOESIS_NB_PRINCIPAL`` that cannot name who asks for tools (it would
    stop the episode at its first tool call), and warn once per process about a ``NOESIS_*`` variable that does
    nothing here: one that looks like a misspelt one noesis_nb reads, or a Noēsis setting noesis_nb does not
    implement set off its default. Other names are left alone (tools of their own may use the prefix)."""
    global _env_checked
    principal_from_env()  # InvalidOptionError naming the variable, its value and the fix
    if _env_checked:
        return
    _env_checked = True
    said = [f"{name} (did you mean {meant}?)" for name, meant in sorted(misspelt([*ENV_NAMES, *_ENV.values()]).items())]
    said += [
        f"{name}={value_shown(raw)} (noesis_nb does not implement Noēsis' {quoted(key)})" for name, key, raw in _unimplemented()
    ]
    if said:
        import warnings

        warnings.warn(
            f"environment variable {', '.join(said)} is not read by noesis_nb, so it does nothing",
            UserWarning,
            stacklevel=_user_level(),
        )


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_level() -> int:
    """The ``stacklevel`` of the first caller outside noesis_nb (``ns.get()``, ``start()`` …): a warning points
    at the user's line, not at the package's own. 2 (this function's caller's caller) when none is found."""
    frame: FrameType | None = sys._getframe(1)  # the function warning
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 2


def _unimplemented() -> list[tuple[str, str, str]]:
    """(variable, setting, text) of each Noēsis variable set for a setting noesis_nb does not implement, off its default."""
    return [
        (name, key, raw)
        for name, key in NOESIS_ENV.items()
        if (raw := os.environ.get(name, "").strip()) and not is_default(raw, NOT_IMPLEMENTED[key])
    ]
