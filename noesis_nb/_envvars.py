"""The environment variables noesis_nb reads or knows, and the checks of their names and values.

Kept apart from ``config`` (the settings themselves): a misspelt or ignored variable does nothing, so it is named.
"""

from __future__ import annotations

import os
import unicodedata
from typing import Any

from ._safetext import NAME_JOINERS, unseen_character, unseen_escaped, unseen_said
from .errors import InvalidOptionError
from .ids import holds_credential
from .secrets.quoted import quoted, typo_hint

__all__ = [
    "ENV_NAMES",
    "NOESIS_ENV",
    "APPROVERS",
    "CAPTURE_ENV",
    "approver_from_env",
    "capture_from_env",
    "approver_id_from_env",
    "check_approver_id",
    "path_from_env",
    "refuse_control_in_path",
    "principal_from_env",
    "principal_problem",
    "one_name",
    "lookalike_problem",
    "PRINCIPAL_ENV",
    "REMOTE_TIMEOUT_ENV",
    "misspelt",
    "is_default",
    "value_shown",
]

#: the ``NOESIS_NB_*`` variables noesis_nb reads (``NOESIS_NB_SECRET_<PATH>`` are a family, by prefix)
ENV_NAMES = (
    "NOESIS_NB_APPROVER",
    "NOESIS_NB_APPROVER_ID",
    "NOESIS_NB_CACHE_DIR",
    "NOESIS_NB_CAPTURE",
    "NOESIS_NB_PRINCIPAL",
    "NOESIS_NB_REMOTE_TIMEOUT_S",
)
#: the seconds one file (or index page) of an http(s) runs source may take (``frames.remotefetch``)
REMOTE_TIMEOUT_ENV = "NOESIS_NB_REMOTE_TIMEOUT_S"

#: ``approver=`` by name (also ``$NOESIS_NB_APPROVER``)
APPROVERS = ("ask", "auto", "deny")
CAPTURE_ENV = "NOESIS_NB_CAPTURE"
APPROVER_ID_ENV = "NOESIS_NB_APPROVER_ID"
PRINCIPAL_ENV = "NOESIS_NB_PRINCIPAL"
_APPROVER_ID_MAX = 200
_ON = {"1", "true", "yes", "on"}
_OFF = {"0", "false", "no", "off"}


def value_shown(raw: str, limit: int = 80) -> str:
    """A variable's text as a message quotes it (``secrets.quoted``): redacted, key-like words hidden, then cut. A key
    pasted into the wrong variable is not printed, in part or whole, by the warning or error naming it."""
    return quoted(raw, limit)


def capture_from_env() -> bool:
    """``$NOESIS_NB_CAPTURE`` as on/off (unset: on); another value raises InvalidOptionError naming it."""
    given = os.environ.get(CAPTURE_ENV, "")
    raw = given.strip().lower()
    if not raw or raw in _ON:
        return True
    if raw in _OFF:
        return False
    raise InvalidOptionError(
        f"{CAPTURE_ENV}={value_shown(given)}: use 1/0 (or true/false, on/off) to turn model-call capture on or off"
    )


def approver_from_env() -> str:
    """``$NOESIS_NB_APPROVER`` (unset: ``"ask"``); another value raises InvalidOptionError naming it, redacted."""
    given = os.environ.get("NOESIS_NB_APPROVER", "ask")
    if given in APPROVERS:
        return given
    raise InvalidOptionError(
        f"$NOESIS_NB_APPROVER={value_shown(given)}{typo_hint(given, APPROVERS)}: use 'ask', 'auto', 'deny' (or pass approver=)"
    )


#: scripts whose letters are drawn like Latin ones: a word mixing them with Latin reads as another name
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK")


def one_name(name: str) -> str:
    """``name`` as an approver id or a principal is recorded: NFKC-normalised, so two names that read the same
    (``'José'`` composed or with a combining accent, fullwidth ``'ａｎａ'`` and ``'ana'``) are one name."""
    return unicodedata.normalize("NFKC", name)


def _script(ch: str) -> str | None:
    """The script of a letter, as its Unicode name starts (``LATIN``, ``CYRILLIC``, ``GREEK``); None for others."""
    named = unicodedata.name(unicodedata.normalize("NFKC", ch)[:1] or ch, "")
    return next((script for script in ("LATIN", *_LOOKALIKE_SCRIPTS) if named.startswith(script + " ")), None)


def lookalike_problem(name: str, at: int = 0) -> str | None:
    """Why ``name`` reads as another name (None when it does not), as words to put after it: it starts with a
    combining mark (no letter carries it: a name of marks alone reads as nothing), or a word of it mixes Latin
    letters with Cyrillic or Greek ones drawn alike (``'аnа'``, Cyrillic а). The character is named, placed from
    ``at``."""
    if name and unicodedata.category(name[0]).startswith("M"):
        return f"{unseen_said(name[0], at)}, a combining mark with no letter before it to carry it"
    word: list[tuple[int, str]] = []
    for index, ch in enumerate([*name, " "]):
        if ch.isalnum() or unicodedata.category(ch).startswith("M"):
            word.append((index, ch))
            continue
        scripts = {_script(c) for _, c in word} - {None}
        if "LATIN" in scripts and len(scripts) > 1:
            place, odd = next((i, c) for i, c in word if _script(c) in _LOOKALIKE_SCRIPTS)
            return f"{unseen_said(odd, at + place)}, in a word also spelled with Latin letters (it reads as another name)"
        word = []
    return None


def _approver_id_problem(name: str, at: int = 0) -> str | None:
    """Why ``name`` cannot record who decides (blank, over ``_APPROVER_ID_MAX`` characters, holding a control,
    invisible or unassigned character: ``_safetext.unseen_character``, the rule of every name, with ZWNJ, ZWJ and
    U+FE0F, which names are spelled with, taken; or holding a credential, as a principal may not: the id is written
    to the run in clear), as words to put after the value (" holds …", its place counted from ``at``: where
    ``name`` starts in the value shown); None when it can."""
    if not name.strip():
        return " is blank"
    if len(name) > _APPROVER_ID_MAX:
        return ""  # the value, quoted, says its length
    unseen = unseen_character(name, allowed=NAME_JOINERS, assigned=True)
    if unseen is not None:
        return f" {unseen_said(unseen, at + name.index(unseen))}"
    lookalike = lookalike_problem(name, at)
    if lookalike is not None:
        return f" {lookalike}"
    if holds_credential(name):  # the rule of ``principal_problem``: written to the run, shown in every view and frame
        return " holds what looks like a credential (a token or a password), which run files store redacted"
    return None


def _shown_name(value: str, limit: int = 80) -> str:
    """A name as a message quotes it: redacted and cut (``quoted``), each character no name may hold escaped."""
    return unseen_escaped(quoted(value, limit), allowed=NAME_JOINERS, assigned=True)


def check_approver_id(given: Any) -> str:
    """``given`` when it names who decides as the variable must (non-blank text of at most 200 characters without a
    control, invisible or unassigned character); InvalidOptionError naming it and the character otherwise. A
    decision's approver is written to the run and shown in every view and line: a line end there would break them,
    and a view made with a wrong one fails only at a click."""
    if not isinstance(given, str) or not given.strip():
        raise InvalidOptionError(f"approver_id={quoted(given, 80)}: name who decides, e.g. approver_id='ana'")
    problem = _approver_id_problem(given)
    if problem is not None:
        raise InvalidOptionError(
            f"approver_id={_shown_name(given)}{problem}: name who decides in one line of text of at most "
            f"{_APPROVER_ID_MAX} characters, each word in one script, e.g. approver_id='ana'"
        )
    return one_name(given)


def approver_id_from_env(given: str | None = None) -> str:
    """Who a click or a magic records as deciding: ``given`` when named, else ``$NOESIS_NB_APPROVER_ID``, else
    ``"human"``. A value that names nobody (blank, control or invisible characters, over 200 characters) raises
    InvalidOptionError naming it and the character: a decision's approver is written to the run and shown in every
    view."""
    if given is not None:
        return check_approver_id(given)
    raw = os.environ.get(APPROVER_ID_ENV)
    if raw is None or raw == "":
        return "human"
    name = raw.strip()
    problem = _approver_id_problem(name, raw.index(name))  # placed in the value as set, spaces around it and all
    if problem is None:
        return one_name(name)
    raise InvalidOptionError(
        f"${APPROVER_ID_ENV}={_shown_name(raw)}{problem}: name who decides in one line of text of at most "
        f"{_APPROVER_ID_MAX} characters, each word in one script, e.g. export {APPROVER_ID_ENV}=ana (unset it to record 'human')"
    )


def path_from_env(name: str) -> str:
    """``$<name>`` as a folder's path: surrounding whitespace stripped (a space or line end pasted with it would
    name another folder, made under the working folder); "" when unset or blank. A control character inside
    raises InvalidOptionError naming the variable and the fix: no folder is meant to be named with one."""
    raw = os.environ.get(name, "")
    text = raw.strip()
    refuse_control_in_path(text, f"${name}", raw, f"set it to the folder's path alone, e.g. export {name}=/path/to/folder")
    return text


#: bidi embeddings, overrides and isolates: they show the characters after them in another order
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def path_character_problem(text: str) -> tuple[str, str] | None:
    """The first character of the path ``text`` that is dangerous to show or to parse, and why; None when there is
    none. Refused: C0 and C1 controls (a line end, TAB, ESC that starts a terminal sequence, DEL), the line and
    paragraph separators, and the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069). Other
    format characters that scripts write names with are taken (ZWNJ U+200C and ZWJ U+200D in Persian, Hindi or
    Kurdish words, a soft hyphen, a direction mark)."""
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Zl", "Zp") or ch in "\n\r\x0b\x0c\x85":
            return ch, "a line end: the name reads as two lines in listings and logs"
        if ch == "\x1b":
            return ch, "an escape: a terminal that shows the name runs the sequence it starts"
        if category == "Cc":
            return ch, "no folder name shows it as written: it reads as another name in listings and terminals"
        if ch in _BIDI:
            return ch, "a bidi control: the name's characters after it show in another order"
    return None


def refuse_control_in_path(text: str, name: str, shown: str | None = None, fix: str = "") -> None:
    """InvalidOptionError naming ``name``, its value (escaped, redacted), the character, why and the fix when the
    path ``text`` holds a character ``path_character_problem`` refuses: a folder named so shows in listings and
    terminals as another name. One check for every path a run is written under: the variables, the ``runs_dir=``
    argument, ``%noesis runs-dir``; a folder that is only read is not refused for its name."""
    odd = path_character_problem(text)
    if odd is not None:
        ch, why = odd
        at = text.index(ch) + (max(shown.find(text), 0) if shown is not None else 0)  # placed in the value shown
        raise InvalidOptionError(
            f"{name}={value_shown(text if shown is None else shown)} {unseen_said(ch, at)} ({why}): "
            f"{fix or 'pass the folder path alone, without it'}"
        )


def principal_problem(name: str, at: int = 0) -> str | None:
    """Why ``name`` cannot be a principal id (it names a tool record's file: ``tools._files.check_id``); None if it can.
    A character is placed counting from ``at`` (where ``name`` starts in the value a message shows)."""
    if "/" in name or "\\" in name or ".." in name:
        return "holds a path separator or '..'"
    unseen = unseen_character(name, allowed=NAME_JOINERS, assigned=True)
    if unseen is not None:  # (the rule of every name typed: ``_safetext.unseen_character``)
        return unseen_said(unseen, at + name.index(unseen))
    lookalike = lookalike_problem(name, at)
    if lookalike is not None:
        return lookalike
    if name != one_name(name):  # recorded NFKC-normalised: that form must be a principal too (fullwidth '／' is '/')
        return principal_problem(one_name(name))
    if len(name) > _APPROVER_ID_MAX:
        return f"is over {_APPROVER_ID_MAX} characters"
    if holds_credential(name):
        return "holds what looks like a credential (a token or a password), which run files store redacted"
    return None


def principal_from_env() -> str | None:
    """``$NOESIS_NB_PRINCIPAL`` (who asks for tools), stripped; None when unset or blank. A value that cannot name
    one (a path separator, a control character, over 200 characters) raises InvalidOptionError naming it: the
    principal is written to the run and keys its tool records, so a wrong one would stop an episode mid-run."""
    raw = os.environ.get(PRINCIPAL_ENV, "")
    name = raw.strip()
    if not name:
        return None
    bad = principal_problem(name, raw.index(name))
    if bad is None:
        return one_name(name)
    raise InvalidOptionError(
        f"${PRINCIPAL_ENV}={_shown_name(raw)} {bad}: name who asks for tools in one line of text of at most "
        f"{_APPROVER_ID_MAX} characters without '/' or '\\', each word in one script, e.g. export "
        f"{PRINCIPAL_ENV}=user:ana (unset it to record user:<login name>)"
    )


#: Noēsis' variables for the settings noesis_nb does not implement (its CLI's own are left alone too)
NOESIS_ENV = {
    "NOESIS_PLANNER": "planner_mode",
    "NOESIS_DIRECTION_MIN_CONFIDENCE": "direction_min_confidence",
    "NOESIS_GOVERNANCE_TIMEOUT_MS": "governance_timeout_ms",
    "NOESIS_INTUITION_MODE": "intuition_mode",
    "NOESIS_TIMEOUT_SEC": "timeout_sec",
    "NOESIS_LEARN_HOME": "learn_home",
    "NOESIS_LEARN_MODE": "learn_mode",
    "NOESIS_LEARN_AUTO_APPLY_MIN_SUCCESSES": "learn_auto_apply_min_successes",
    "NOESIS_LEARN_AUTO_APPLY_MIN_CONFIDENCE": "learn_auto_apply_min_confidence",
    "NOESIS_PROMPT_PROVENANCE_ENABLED": "prompt_provenance_enabled",
    "NOESIS_PROMPT_PROVENANCE_MODE": "prompt_provenance_mode",
}
NOESIS_CLI_ENV = ("NOESIS_COMPACT", "NOESIS_VERBOSE", "NOESIS_DEBUG")


def misspelt(read: list[str]) -> dict[str, str]:
    """``NOESIS_*`` names set in the environment that look like a misspelt one noesis_nb reads, to that one
    (``NOESIS_RUN_DIR``, ``NOESIS_NB_CAPTUR``; the ``NB_`` part is compared too: ``NOESIS_NB_RUNS_DIR``)."""
    import difflib

    cores = {_core(name): name for name in read}
    known = {*read, *NOESIS_ENV, *NOESIS_CLI_ENV}
    return {
        name: cores[close[0]]
        for name in os.environ
        if name.startswith("NOESIS_") and name not in known and not name.startswith("NOESIS_NB_SECRET_")
        for close in [difflib.get_close_matches(_core(name), list(cores), n=1, cutoff=0.75)]
        if close
    }


def _core(name: str) -> str:
    return name.removeprefix("NOESIS_").removeprefix("NB_")


def is_default(raw: str, default: Any) -> bool:
    text = raw.lower()
    if isinstance(default, bool):
        return text in (_ON if default else _OFF)
    if isinstance(default, (int, float)):
        try:
            return float(text) == default
        except ValueError:
            return False
    return default is not None and text == str(default).lower()
