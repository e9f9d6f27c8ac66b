"""``%load_ext noesis_nb``: the ``%noesis`` line magic and ``%%noesis run`` cell magic.

Each subcommand parses its arguments and calls one public function, so everything a magic
does can be done from Python:

    run       noesis_nb.start(task, using=…) + noesis_nb.widgets.display_handle(handle)
    batch     noesis_nb.batch(tasks, using=…, concurrency=…, batch_id=…, score=…, score_timeout_s=…) (the cell shows it)
    list      noesis_nb.store.list_runs(limit, runs_dir=…)
    show      noesis_nb.show(episode)
    approve   noesis_nb.approve_draft(episode, draft, approver_id=…)  (+ resume_run with --resume)
    reject    noesis_nb.reject_draft(episode, draft, reason=…)
    resume    noesis_nb.resume_run(episode, unknown_outcome=…) then noesis_nb.show(episode)
    stop      handle.cancel(drain_s=…) for an episode running in this kernel
    steer     handle.steer(text, mode=…, sender=…) for an episode running in this kernel
    runs-dir  noesis_nb.config.set(runs_dir=…) / noesis_nb.config.runs_dir()
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import warnings
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

from . import config
from ._argsplit import split_line
from ._envvars import approver_id_from_env
from ._safetext import magic_word, visible
from .batch import batch
from .errors import DraftNotFoundError, EpisodeStateError, NoesisNbError, UsingResolutionError
from .runtime.api import SCORE_TIMEOUT_S, RunRecovered, approve_draft, reject_draft, resume_run, start
from .runtime.diskrun import DiskRun
from .runtime.gate import DecisionStands
from .runtime.handle import drain_seconds
from .runtime.registry import live_handles
from .runtime.resolve import did_you_mean, resolve_using
from .runtime.resume import NothingToResume
from .runtime.steer import check_steer
from .secrets import keys_hidden, quoted
from .secrets.quoted import quoted_text
from .store import find_run_dir, is_sealed, list_runs
from .store.listing import status_of
from .store.ownership import held_here, holder
from .store.roots import check_root, linked_to, refuse_run_as_root
from .store.staging import stale_staging
from .store.status import LOST_HINT
from .store.vocab import STEER_MODES

__all__ = ["NoesisMagics", "build_parser", "load_ipython_extension", "unload_ipython_extension", "RunTable"]


_EXPAND_MAX = 10_000  # longer arguments (a pasted document) are taken as typed
_STEER_SHOWN = 200  # characters of a steer's text the confirmation line shows (the steer event keeps it whole)


class _HelpShown(Exception):
    """argparse printed help; the magic returns quietly."""


class _Parser(argparse.ArgumentParser):
    #: the subcommands' own parsers, by name (set on the top-level parser)
    subcommands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> None:  # type: ignore[override]
        # a subcommand's parser is named by its own prog ("%noesis run"), and points to its own help
        # argparse quotes the value it refuses whole (``invalid choice: 'sk-…'``): a key typed there is hidden
        message = _choice_hint(message)
        if self.prog == "%noesis batch" and message.endswith("required: using"):  # one word given: taken as the tasks
            message += " (the tasks come first, then the agent(s): %noesis batch <tasks> <agent> …)"
        raise UsageError(f"{self.prog}: {keys_hidden(message)}\n{self.format_usage().strip()}\n(see {self.prog} --help)")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if status:
            raise UsageError(message or f"%noesis exited with status {status}")
        raise _HelpShown


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<value>[^']*)' \(choose from (?P<choices>.*)\)$")


def _closest(word: str, names: Any, cutoff: float = 0.6) -> list[str]:
    """The one name in ``names`` closest to ``word``, whatever either's case (``RUN`` is ``run`` misspelt, which
    ``difflib`` alone would not see: it compares characters as they are)."""
    spelt = {str(n).lower(): str(n) for n in reversed(list(names))}
    return [spelt[c] for c in difflib.get_close_matches(word.lower(), list(spelt), n=1, cutoff=cutoff)]


def _choice_hint(message: str) -> str:
    """argparse's ``invalid choice: 'enforced' (choose from 'off', 'audit', 'enforce')`` with the closest choice named,
    as the Python twins do (``did you mean 'enforce'?``)."""
    found = _INVALID_CHOICE.search(message)
    if found is None:
        return message
    choices = re.findall(r"'([^']*)'", found["choices"])
    close = _closest(found["value"], choices)
    return f"{message} (did you mean {close[0]!r}?)" if close else message


def _number(kind: type, what: str, example: str) -> Any:
    """An argparse ``type`` that refuses a wrong number with the value, what it should be and an example
    (argparse says only ``invalid float value: '2s'``)."""

    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid {kind.__name__} value: {quoted(text)}; pass {what}, e.g. {example}"
            ) from None

    parse.__name__ = kind.__name__
    return parse


def _seconds_or_none(text: str) -> float | None:
    """``--score-timeout``: seconds, or ``none`` for no limit (the batch checks the number itself)."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a number of seconds; pass e.g. 60, or 'none' for no limit"
        ) from None


def build_parser() -> _Parser:
    parser = _Parser(
        prog="%noesis",
        description="Run, watch and decide noesis_nb episodes from a notebook.",
        epilog="Cell form: %%noesis run <using> [options] takes the task from the cell body.",
    )
    sub = parser.add_subparsers(
        dest="command", metavar="{run,batch,list,show,inbox,approve,reject,resume,stop,steer,runs-dir}", parser_class=_Parser
    )

    run = sub.add_parser("run", help="start an episode in the background and show its live view")
    run.add_argument("using", help="adapter: a name in the notebook namespace, 'pkg.mod:attr', a path, or a short name")
    run.add_argument("task", nargs="?", help='the task, quoted: "summarise the logs" (or the cell body with %%%%noesis)')
    run.add_argument(
        "--approver",
        default=None,
        help="ask (Approve/Reject buttons), auto, deny, or a callable's name (default: $NOESIS_NB_APPROVER, else ask)",
    )
    run.add_argument(
        "--governance", choices=("off", "audit", "enforce"), default=None, help="governance mode (default: configured)"
    )
    run.add_argument("--runs-dir", default=None, help="where the run directory goes (default: configured runs dir)")
    run.add_argument(
        "--seed",
        type=_number(int, "a whole number", "--seed 7"),
        default=0,
        help="a whole number recorded with the run and given to the adapter as ctx.seed (default 0)",
    )
    run.add_argument("--tag", action="append", default=[], metavar="KEY=VALUE", help="a tag (repeatable)")
    run.add_argument(
        "--idle-timeout",
        type=_number(float, "a number of seconds", "--idle-timeout 30 (no unit)"),
        default=None,
        metavar="SECONDS",
        help="end the episode if idle this long",
    )

    batch = sub.add_parser("batch", help="run every task of a list with each adapter (a batch), in the background")
    batch.add_argument("tasks", help="the name of a list of tasks (strings or dicts) in the notebook")
    batch.add_argument("using", nargs="+", help="one or more adapters: notebook names, 'pkg.mod:attr' or paths")
    batch.add_argument("--concurrency", type=_number(int, "a whole number", "--concurrency 4"), default=8)
    batch.add_argument("--batch-id", default=None, help="continue (or name) a recorded batch")
    batch.add_argument("--score", default=None, help="the name of a scorer (task, result) -> number or bool")
    batch.add_argument(
        "--score-timeout",
        type=_seconds_or_none,
        default=SCORE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up on a score after this long, or 'none' (default {SCORE_TIMEOUT_S:g})",
    )
    batch.add_argument("--runs-dir", default=None)
    batch.add_argument("--rerun-failed", action="store_true", help="run failed episodes of a recorded batch again")

    listing = sub.add_parser("list", help="list runs, newest first, as a table")
    listing.add_argument("--limit", type=_number(int, "a whole number", "--limit 20"), default=20)
    listing.add_argument("--runs-dir", default=None)

    show = sub.add_parser("show", help="show one run's view (live, finished or paused on disk)")
    show.add_argument("episode", help="episode id or run directory")
    show.add_argument("--runs-dir", default=None)
    show.add_argument("--text", action="store_true", help="print the timeline as text instead")

    inbox = sub.add_parser("inbox", help="every pending draft and veto of the paused runs under the runs dir, to decide")
    inbox.add_argument("--runs-dir", default=None)
    inbox.add_argument(
        "--approver-id", default=None, help="who decides, recorded in each decision (default: $NOESIS_NB_APPROVER_ID, else human)"
    )

    for name, verb in (("approve", "approve"), ("reject", "reject")):
        p = sub.add_parser(name, help=f"{verb} a pending tool draft (live in this kernel, or paused on disk)")
        p.add_argument("episode", help="episode id or run directory")
        p.add_argument("draft", nargs="?", default=None, help="draft id (or a unique part); default: the one pending draft")
        p.add_argument("--reason", default=None)
        p.add_argument("--approver-id", default=None, help="who decides, recorded (default: $NOESIS_NB_APPROVER_ID, else human)")
        p.add_argument("--runs-dir", default=None)
        p.add_argument("--resume", action="store_true", help="for a run paused on disk: resume it after deciding")

    resume = sub.add_parser("resume", help="resume a run paused on disk whose draft is decided")
    resume.add_argument("episode")
    resume.add_argument("--runs-dir", default=None)
    resume.add_argument(
        "--unknown-outcome",
        choices=("retry", "fail"),
        default=None,
        help="a draft whose tool was cut off before its result was recorded: run it again, or record it failed",
    )

    stop = sub.add_parser("stop", help="cancel episodes running in this kernel (each ends 'cancelled', sealed)")
    stop.add_argument("episode", nargs="+", help="one episode id, or several (a re-run cell's note lists them in one line)")
    stop.add_argument(
        "--drain",
        type=_number(float, "a number of seconds", "--drain 5 (no unit)"),
        default=None,
        metavar="SECONDS",
        help="let running calls finish (≤ SECONDS)",
    )

    steer = sub.add_parser("steer", help='tell an episode running in this kernel something: %%noesis steer <id> "<text>"')
    steer.add_argument("episode")
    steer.add_argument("text", help="what to tell the agent, quoted")
    steer.add_argument("--mode", choices=STEER_MODES, default=STEER_MODES[0], help="when the agent hears it")
    steer.add_argument("--sender", default="human", help="who says it (recorded with the steer)")

    runs_dir = sub.add_parser("runs-dir", help="show or set the runs dir used by later commands")
    runs_dir.add_argument("path", nargs="?", default=None)
    parser.subcommands = dict(sub.choices)
    return parser


def _spaced_path(words: list[str], extra: list[str], command: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """A hint naming the path the first unrecognised word continues, quoted whole (``"/tmp/my runs/ep_x"``), when it
    can only be the rest of a path split at a space: it follows a value (a positional, or an option's when every
    positional is given), not the subcommand or an option; "" otherwise."""
    at = next((i for i in range(2, len(words)) if words[i] == extra[0]), None)
    if at is None:
        return ""
    before = words[at - 1]
    if before.startswith("-"):  # --runs-dir=/tmp/my runs: the value starts after '='
        if not before.startswith("--") or "=" not in before:
            return ""
        after_option, before = True, before.split("=", 1)[1]
    else:
        after_option = words[at - 2].startswith("-") and "=" not in words[at - 2]
    unfilled = [a.dest for a in command._actions if not a.option_strings and getattr(args, a.dest, None) is None]
    if after_option and unfilled:  # %noesis reject ep_x --runs-dir d draft: the draft, given after an option
        return ""
    end = next((j for j in range(at, len(words)) if words[j].startswith("-")), len(words))
    value = " ".join([before, *words[at:end]])
    if not any(sep in value for sep in ("/", os.sep)):  # %noesis show ep_a ep_b: two ids, not a path cut in two
        return ""
    positionals = [a for a in command._actions if not a.option_strings]
    example = f': "{value}"' if after_option or len(positionals) == 1 else ""  # else the path's start is unknown
    return f" (a path that holds spaces is one argument: put it in quotes{example})"


def parse_line(line: str, expand: Any = None) -> argparse.Namespace:
    """The magic's arguments (each passed through ``expand``, IPython's ``$name``/``{expr}``, once split);
    an option the subcommand does not know is named with that subcommand's usage."""
    parser = build_parser()
    words = split_line(line)
    if expand is not None:
        words = [expand(word) for word in words]
    if words and words[0] == "help":  # %noesis help [subcommand]: what --help prints (it was an unknown subcommand)
        words = [words[1], "--help"] if len(words) == 2 and words[1] in parser.subcommands else ["--help"]
    _refuse_before_subcommand(parser, words)
    args, extra = parser.parse_known_args(words)
    if args.command is not None:
        _refuse_repeated(args.command, parser.subcommands[args.command], words)
    if extra:
        command = parser.subcommands.get(args.command or "", parser)
        options = [o for action in command._actions for o in action.option_strings if o.startswith("--")]
        typed = extra[0].split("=", 1)[0]
        close = _closest(typed, options)
        twin = _KEYWORD_OPTIONS.get(typed.lstrip("-").replace("-", "_").lower())
        if twin in options and not close:  # the Python twin's keyword (batch(root=…), idle_timeout_s=…)
            close = [twin]
        hint = f" (did you mean {close[0]}?)" if close else ""
        elsewhere = _owners(parser, typed, args.command)
        if elsewhere and typed not in options:  # an option of another subcommand: say so, not a look-alike's name
            hint = f" ({typed} belongs to {elsewhere}{_ELSEWHERE_NOTES.get((args.command, typed), '')})"
        if typed in options and "--" in words and extra[0] in words[words.index("--") + 1 :]:  # run a x -- --seed 3
            given = [w for w in words if w != "--"]
            fixed = f": %noesis {' '.join(magic_word(w) for w in given)}" if all(_plain(w) for w in given) else ""
            hint = f" (after -- every word is read as a value, not an option: give {typed} before the --, or drop it{fixed})"
        spaced = _spaced_path(words, extra, command, args)
        options_given = any(w.startswith("-") for w in words[1:])
        if not extra[0].startswith("-"):
            words = [a.dest for a in command._actions if not a.option_strings]
            if any(w in ("task", "text") for w in words):
                hint = " (quote text that holds spaces: the task, a steer)"
            elif spaced:  # %noesis show /tmp/my runs/ep_x: a path with a space, split in two
                hint = spaced
            elif words and not options_given:  # %noesis show ep_a ep_b
                hint = f" (%noesis {args.command} takes {' '.join(words)}: one value each)"
            elif words:  # %noesis reject ep_x --runs-dir d draft: argparse takes no word after an option
                hint = f" (give {' '.join(words)} before the options: %noesis {args.command} {' '.join(words)} --…)"
            elif "--runs-dir" in options and len(extra) == 1:  # %noesis list wrong/dir: a folder, given as a word
                typed = magic_word(extra[0]) if _plain(extra[0]) else quoted(extra[0], 200)
                hint = f" (a runs folder goes after --runs-dir: %noesis {args.command} --runs-dir {typed})"
            else:
                hint = f" (%noesis {args.command} takes only options)"
        name = f"%noesis {args.command}" if args.command else "%noesis"
        raise UsageError(
            f"{name}: unrecognized arguments: {' '.join(w if _plain(w) else quoted(w, 200) for w in extra)}{hint}\n"
            f"{command.format_usage().strip()}\n(see {name} --help)"
        )
    return args


def _plain(word: str) -> bool:
    """``word`` shows as typed: no control, bidi or invisible character (a U+202E echoed raw reorders the line)."""
    return word.isprintable() and visible(word, exact=True) == word


def _owners(parser: _Parser, option: str, command: str | None) -> str:
    """The other subcommands that take ``option`` (``%noesis approve, %noesis reject``), or ''."""
    names = [
        name
        for name, sub in parser.subcommands.items()
        if name != command and any(option in action.option_strings for action in sub._actions)
    ]
    return ", ".join(f"%noesis {name}" for name in names)


#: what to say beside "--x belongs to …" where this subcommand has a look-alike of another meaning
_ELSEWHERE_NOTES = {
    ("run", "--approver-id"): (
        "; a run's decisions record who decides from $NOESIS_NB_APPROVER_ID, or from --approver-id where you decide;"
        " --approver here is the policy: ask, auto, deny"
    ),
}


#: keywords of the Python twins whose option here is named otherwise
_KEYWORD_OPTIONS = {
    "root": "--runs-dir",
    "dir": "--runs-dir",
    "idle_timeout_s": "--idle-timeout",
    "score_timeout_s": "--score-timeout",
    "drain_s": "--drain",
    "approver": "--approver-id",
    "tags": "--tag",
    "limit": "--limit",
}


def _refuse_before_subcommand(parser: _Parser, words: list[str]) -> None:
    """The first word names the subcommand: a misspelt one is named with the closest, and an option put before
    it with the subcommand that takes it (argparse would call the option's value an invalid subcommand)."""
    if not words or words[0] in ("-h", "--help") or words[0] in parser.subcommands:
        return
    names = list(parser.subcommands)
    if not words[0].startswith("-"):
        close = _closest(words[0], names)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(
            f"%noesis: unknown subcommand {quoted(words[0])}{guess}; use one of {', '.join(names)}\n(see %noesis --help)"
        )
    option = words[0].split("=", 1)[0]
    takers = [n for n, p in parser.subcommands.items() if any(option in a.option_strings for a in p._actions)]
    named = next((w for w in words if w in parser.subcommands), None)
    if named in takers:
        takers = [named]
    if len(takers) > 2:
        said = f"{option} goes after the subcommand: %noesis <subcommand> … {option} … ({', '.join(takers)} take it)"
    elif takers:
        where = " or ".join(f"%noesis {n} … {option} …" for n in takers)
        said = f"{option} goes after the subcommand: {where}"
    else:
        said = f"{option} is no option of %noesis{f' {named}' if named else ''}; options go after the subcommand"
    raise UsageError(f"%noesis: {said}\n(see %noesis --help)")


def _refuse_repeated(command: str, parser: argparse.ArgumentParser, words: list[str]) -> None:
    """An option given twice (``--seed 3 --seed 4``) is an error: argparse would keep the last one without a word."""
    single = {o: a for a in parser._actions if not isinstance(a, argparse._AppendAction) for o in a.option_strings}
    seen: dict[argparse.Action, str] = {}
    for word in words[words.index(command) + 1 :]:
        if word == "--":
            break
        name = word.split("=", 1)[0]
        if not name.startswith("--"):
            continue
        matches = [o for o in single if o == name] or [o for o in single if o.startswith(name)]
        action = single[matches[0]] if len({single[o] for o in matches}) == 1 else None
        if action is None:
            continue
        if action in seen:
            raise UsageError(f"%noesis {command}: {action.option_strings[-1]} is given twice; give it once")
        seen[action] = word
    return None


_DECIDE_FIRST = re.compile(
    r"run noesis_nb\.approve_draft\('(?P<ep>[^']+)', approver_id=\.\.\.\) or reject_draft\(\.\.\.\) first, then resume_run"
)


#: the fix for a draft whose outcome is unknown, said as ``%noesis resume``'s option
_UNKNOWN_OUTCOME = re.compile(
    r"call resume_run\('(?P<ep>[^']+)', unknown_outcome='retry'\) to run it again(?P<comma>,?) or unknown_outcome='fail'"
)


#: several drafts waiting (parallel tool calls): each decided by its id, then the run resumed
_DECIDE_EACH = re.compile(
    r"pass draft_id= to decide each \(approve_draft\('(?P<run>[^']+)', draft_id=\.\.\., approver_id=\.\.\.\)\), "
    r"then resume_run\('[^']+'\)"
)


def _decide_each(m: re.Match[str]) -> str:
    run = magic_word(m.group("run"))
    return f"decide each with %noesis approve {run} <draft id> (or %noesis reject {run} <draft id>), then %noesis resume {run}"


def _as_option(message: str) -> str:
    """An error's fix said for the magic: the keyword ``runs_dir=`` a function takes is the option ``--runs-dir`` here,
    and a run to decide before ``%noesis resume`` is decided with ``%noesis approve|reject … --resume``."""
    message = message.replace("pass runs_dir= or the run directory path", "pass --runs-dir or the run directory path")
    message = _UNKNOWN_OUTCOME.sub(
        r"run %noesis resume \g<ep> --unknown-outcome retry to run it again\g<comma> or --unknown-outcome fail", message
    )
    message = _DECIDE_EACH.sub(_decide_each, message)
    return _DECIDE_FIRST.sub(r"decide it first: %noesis approve \g<ep> --resume (or %noesis reject \g<ep> --resume)", message)


def _is_usage_error(exc: BaseException) -> bool:
    """noesis_nb's own errors (a wrong option, an unknown run, a sealed run…) are the user's to fix: one line, no traceback."""

    return isinstance(exc, NoesisNbError)


def _linked_line(root: str | os.PathLike[str]) -> str:
    """A line naming the folder runs really go to when ``root`` leads there through a symbolic link ("" otherwise)."""
    target = linked_to(root)
    return "" if target is None else f"runs in {str(root)!r} are in {target!r} (a symbolic link leads there)"


def _staging_line(root: str) -> str:
    """A line counting the staging folders left by processes that died creating a run (removed by the next run
    created here, or by hand); "" when there are none."""
    left = stale_staging(root)
    if not left:
        return ""
    return (
        f"{len(left)} unfinished run folder(s) ({left[0]}{', …' if len(left) > 1 else ''}) left in {root!r} by a process "
        "that stopped while creating a run; remove them with noesis_nb.store.staging.remove_stale_staging(runs_dir)"
    )


def _unreadable_line(rows: list[dict[str, Any]]) -> str:
    """A line naming the run folders this user may not read (listed with every field unknown); "" when none."""
    shut = [r["run_dir"] for r in rows if r["status"] is None and not os.access(r["run_dir"], os.R_OK | os.X_OK)]
    if not shut:
        return ""
    return (
        f"{len(shut)} run folder(s) cannot be read by this user ({shut[0]}{', …' if len(shut) > 1 else ''}); "
        "ask their owner for read access (chmod -R a+rX on the folder)"
    )


def _stray_line(problems: list[dict[str, Any]]) -> str:
    """A line naming what in the root is named like a run but is no run folder (left out of the table); "" when none."""
    if not problems:
        return ""
    first = problems[0]["path"]  # shown escaped already (list_runs)
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"{first}{more}: {problems[0]['reason']}"


class RunTable(list[dict[str, Any]]):
    """``list_runs`` rows that display as a table (HTML, escaped) and as aligned text; empty, a hint how to start a run."""

    where = "the runs dir"
    note = ""  # why there are none, when it is not that none were started (the folder is not there)
    lines: tuple[str, ...] = ()  # said above the table: where the runs really are (a linked root), folders left behind

    def _repr_html_(self) -> str:
        from .widgets.render import esc
        from .widgets.snapshot import runs_table_html

        said = "".join(f"<p>{esc(line)}</p>" for line in self.lines)
        return said + runs_table_html(self, where=self.where, note=self.note)

    def __repr__(self) -> str:
        from .widgets.snapshot import runs_table_text

        return "".join(f"{line}\n" for line in self.lines) + runs_table_text(self, where=self.where, note=self.note)


def _status_line(run: DiskRun) -> str:
    """The run's status after its ``--text`` timeline, and what to do next: the events alone say neither (a run
    whose process died reads as one still running, a pause as its last event)."""
    from .widgets.reach import magic_line  # the run named as a new cell finds it: its folder, every hidden character shown
    from .widgets.render import ending_word

    def typed(command: str) -> str:
        return magic_line(command, run.episode_id, run.run_dir)

    line = f"status: {ending_word(run.status, run.events)}"  # as the view says it: 'rejected' for a rejected tool call
    if run.hint:  # lost, or an override that needs the run's adapter
        return f"{line}; {visible(run.hint)}"
    if run.pending:
        drafts = "a tool draft" if len(run.pending) == 1 else f"{len(run.pending)} tool drafts"
        return f"{line}, waiting for a decision on {drafts}: {typed('approve')} or {typed('reject')}"
    if run.paused_on_veto and run.veto_decision() is None:
        return f"{line} on a governance veto: {typed('approve')} overrides it, {typed('reject')} upholds it"
    if run.can_resume:
        return f"{line}, decided: {typed('resume')} continues it"
    return line


@magics_class
class NoesisMagics(Magics):
    @no_var_expand  # expanded per argument below: a value holding quotes or spaces stays one argument
    @line_cell_magic
    def noesis(self, line: str, cell: str | None = None) -> Any:
        """Run, list, show and decide episodes: ``%noesis run <using> "<task>"``, ``%noesis list``,
        ``%noesis show <episode>``, ``%noesis inbox``, ``%noesis approve <episode> [draft]``, ``%noesis reject …``,
        ``%noesis resume <episode>``, ``%noesis stop <episode>… [--drain S]``, ``%noesis steer <episode> "<text>"``,
        ``%noesis runs-dir [path]``.
        ``%noesis --help`` and ``%noesis <command> --help`` print the options."""
        try:
            return self._run_line(line, cell)
        except UsageError as exc:  # every refusal echoes what was typed: a key or a URL's token in it is hidden
            said = keys_hidden(str(exc))
            if said == str(exc):
                raise
            raise UsageError(said) from None

    def _run_line(self, line: str, cell: str | None) -> Any:
        """``noesis`` itself: the line parsed and its subcommand run (a ``UsageError`` is screened by the caller)."""
        try:
            args = parse_line(line, expand=self._expand)
        except _HelpShown:
            return None
        except ValueError as exc:  # unbalanced quotes
            raise UsageError(f"%noesis: cannot parse {quoted(line, 100)}: {exc}; close the quote or escape it with \\") from None
        if args.command is None:
            raise UsageError(
                "%noesis: name a subcommand: run, batch, list, show, inbox, approve, reject, resume, stop, steer, runs-dir "
                "(see %noesis --help)"
            )
        if cell is not None and args.command != "run":
            raise UsageError(f"%%noesis takes a cell body only for 'run' (the task); got {quoted(args.command)}")
        handler = getattr(self, "_" + args.command.replace("-", "_"))
        try:
            return handler(args, cell)
        except UsageError:
            raise
        except Exception as exc:
            if _is_usage_error(exc):
                raise UsageError(f"%noesis {args.command}: {_as_option(keys_hidden(str(exc)))}") from exc
            raise  # anything else is a bug: keep its type and traceback

    def _expand(self, word: str) -> str:
        """IPython's ``$name`` / ``{expr}`` in one argument, from the notebook's names; unchanged when it fails (as
        IPython leaves it) or when the argument is over 10,000 characters (IPython's expansion is quadratic)."""
        if self.shell is None or len(word) > _EXPAND_MAX or ("$" not in word and "{" not in word):
            return word
        from IPython.utils.text import DollarFormatter

        try:
            return str(DollarFormatter().vformat(word, args=[], kwargs=self.shell.user_ns))
        except Exception as exc:  # said, not silent: the run would take the text as written for the value meant
            print(f"%noesis: {quoted(word, 80)} is used as written ({_expansion_failed(word, exc)})", file=sys.stderr)
            return word

    # -- subcommands ----------------------------------------------------------------------------
    def _resolve(self, name: str | None) -> Any:
        """A notebook name (``my_agent``) wins over the engine's string resolution."""
        if name is None:
            return None
        ns = self.shell.user_ns if self.shell is not None else {}
        return ns[name] if name.isidentifier() and name in ns else name

    def _run(self, args: argparse.Namespace, cell: str | None) -> Any:
        from .widgets import display_handle

        task = cell.strip() if cell is not None and cell.strip() else args.task
        if cell is not None and cell.strip() and args.task:
            raise UsageError("%%noesis run: give the task either as the argument or as the cell body, not both")
        if not task:
            raise UsageError('%noesis run: missing the task, e.g. %noesis run my_agent "summarise the logs"')
        tags = {}
        for item in args.tag:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"%noesis run: --tag {quoted(item)} is not KEY=VALUE")
            if key in tags:  # the later one would replace the first without a word
                raise UsageError(f"%noesis run: --tag {quoted_text(key)}=… is given twice; give each key once")
            tags[key] = value
        approver = args.approver
        if approver is not None and approver not in ("ask", "auto", "deny"):
            approver = self._resolve(approver)
            if isinstance(approver, str):
                close = _closest(args.approver, ("ask", "auto", "deny"))
                guess = f" (did you mean {close[0]!r}?)" if close else ""
                raise UsageError(
                    f"%noesis run: --approver {quoted(args.approver)}{guess} is not ask/auto/deny nor a callable in the notebook"
                )
        using = self._resolve(args.using)
        try:
            if isinstance(using, str) and using.isidentifier():  # no notebook name: a typo is named whether or not a loop runs
                using = resolve_using(using)  # resolved once (a factory is called once)
            handle = start(
                task,
                using=using,
                runs_dir=args.runs_dir,
                approver=approver,
                governance=args.governance,
                seed=args.seed,
                tags=tags or None,
                idle_timeout_s=args.idle_timeout,
            )
        except UsingResolutionError as exc:
            hint = "" if "did you mean" in str(exc) else did_you_mean(args.using, dict(self.shell.user_ns if self.shell else {}))
            raise UsageError(f"%noesis run: {keys_hidden(str(exc))}{hint}") from exc
        display_handle(handle)
        return handle

    def _batch(self, args: argparse.Namespace, cell: str | None) -> Any:
        tasks = self._resolve(args.tasks)
        if callable(tasks) and any(isinstance(self._resolve(name), (list, tuple)) for name in args.using):
            lists = [name for name in args.using if isinstance(self._resolve(name), (list, tuple))]
            rest = [name for name in [args.tasks, *args.using] if name not in lists]
            raise UsageError(
                f"%noesis batch: the tasks come first, then the agent(s) (the other way round from %noesis run): "
                f"%noesis batch {lists[0]} {' '.join(rest)}"
            )
        if isinstance(tasks, str):
            raise UsageError(
                f"%noesis batch: {quoted(args.tasks)} is not a list in the notebook; define it first, e.g. tasks = [...]"
            )
        score = self._resolve(args.score)
        if isinstance(score, str):
            raise UsageError(f"%noesis batch: --score {quoted(args.score)} is not a function in the notebook")
        names = _adapter_names(args.using)
        adapters = [self._resolve(name) for name in args.using]
        return batch(
            tasks,
            using=adapters[0] if len(adapters) == 1 else dict(zip(names, adapters)),
            concurrency=args.concurrency,
            batch_id=args.batch_id,
            score=score,
            score_timeout_s=args.score_timeout,
            root=args.runs_dir,
            rerun_failed=args.rerun_failed,
        )

    def _list(self, args: argparse.Namespace, cell: str | None) -> RunTable:

        if args.limit is not None and args.limit < 1:
            raise UsageError(f"%noesis list: --limit must be at least 1, got {args.limit}")
        rows = list_runs(args.limit, runs_dir=args.runs_dir)
        table = RunTable(rows)
        table.where = str(config.runs_dir(args.runs_dir, reading=True))  # read, as list_runs reads it: never refused
        table.note = "" if os.path.isdir(table.where) else " (no such folder)"
        said = (_linked_line(table.where), _staging_line(table.where), _unreadable_line(table), _stray_line(rows.problems))
        table.lines = tuple(line for line in said if line)
        return table

    def _show(self, args: argparse.Namespace, cell: str | None) -> Any:
        if args.text:
            from .widgets.snapshot import problems_text, timeline_text

            run = DiskRun(args.episode, runs_dir=args.runs_dir)
            print(timeline_text(run.events))
            if run.problems:  # lines left out of the timeline, a damaged draft: named after it, never silent
                print(problems_text(run.problems))
            print(_status_line(run))
            return None
        from .widgets import show

        show(args.episode, runs_dir=args.runs_dir)
        return None

    def _inbox(self, args: argparse.Namespace, cell: str | None) -> Any:
        from .widgets import inbox

        if args.approver_id is not None and not args.approver_id.strip():
            raise UsageError("%noesis inbox: --approver-id must name who decides, e.g. --approver-id ana")
        return inbox(args.runs_dir, approver_id=args.approver_id)

    def _approve(self, args: argparse.Namespace, cell: str | None) -> Any:
        return self._decide(args, approve=True)

    def _reject(self, args: argparse.Namespace, cell: str | None) -> Any:
        return self._decide(args, approve=False)

    def _decide(self, args: argparse.Namespace, *, approve: bool) -> Any:
        args.approver_id = approver_id_from_env(args.approver_id)
        try:
            with warnings.catch_warnings():  # the line printed below says "already approved …; nothing changed"
                warnings.simplefilter("ignore", DecisionStands)
                if approve:
                    decision = approve_draft(
                        args.episode, args.draft, approver_id=args.approver_id, reason=args.reason, runs_dir=args.runs_dir
                    )
                else:
                    decision = reject_draft(
                        args.episode, args.draft, reason=args.reason, approver_id=args.approver_id, runs_dir=args.runs_dir
                    )
        except (DraftNotFoundError, EpisodeStateError):
            if args.draft is not None or not self._tell_standing_decision(args):
                raise
            return None
        print(_decision_line(decision))
        if args.resume:
            return self._resume(args, None)
        return None

    def _tell_standing_decision(self, args: argparse.Namespace) -> bool:
        """Nothing waits for a decision: say the one that stands (``already approved by ana at …``), if there is one."""
        disk = DiskRun(find_run_dir(args.episode, args.runs_dir))
        if not disk.decisions:
            return False
        latest = dict(disk.decisions[-1], created=False)
        from .widgets.render import ending_word

        shown = ending_word(disk.status, disk.events)
        print(_decision_line(latest) + f"; run {visible(disk.episode_id, exact=True)} is {shown}")
        return True

    def _resume(self, args: argparse.Namespace, cell: str | None) -> Any:
        from .widgets import show

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NothingToResume)
            warnings.simplefilter("always", RunRecovered)
            resume_run(args.episode, runs_dir=args.runs_dir, unknown_outcome=getattr(args, "unknown_outcome", None))
        for warning in caught:
            if issubclass(warning.category, NothingToResume):
                print(f"nothing to resume: {warning.message}")
            elif issubclass(warning.category, RunRecovered):
                print(f"recovered: {warning.message}")
            else:  # someone else's warning: re-issue it unchanged
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        show(args.episode, runs_dir=args.runs_dir)
        return None

    def _live(self, command: str, episode: str) -> Any:
        handle = live_handles().get(episode)
        if handle is None:
            running = sorted(live_handles()) or "none"
            raise UsageError(
                f"%noesis {command}: no episode {quoted(episode)} is running in this kernel; running: {running}"
                + _elsewhere(episode, command)
            )
        return handle

    def _stop(self, args: argparse.Namespace, cell: str | None) -> Any:
        drain_seconds(args.drain)  # the option first, before the episode is looked up
        episodes = list(dict.fromkeys(args.episode))
        if len(episodes) == 1:
            self._stop_one(self._live("stop", episodes[0]), episodes[0], args.drain)
            return None
        live = live_handles()  # several (a re-run cell's note lists those it left): one that ended meanwhile is said
        if not any(e in live for e in episodes) and any(sep in e for e in episodes for sep in ("/", os.sep)):
            joined = " ".join(args.episode)  # %noesis stop /tmp/my run: one path cut at its space, not two episodes
            raise UsageError(
                f"%noesis stop: no episode {quoted(joined)} is running in this kernel "
                f'(a path that holds spaces is one argument: put it in quotes: "{joined}")'
            )
        for episode in episodes:
            if episode in live:
                self._stop_one(live[episode], episode, args.drain)
            else:
                print(f"{quoted(episode)} is not running in this kernel (it ended, or never ran here); nothing to stop")
        return None

    def _stop_one(self, handle: Any, episode: str, drain: float | None) -> None:
        if not handle.done() and handle.stop_requested and not handle.draining:  # a second stop: nothing more to do
            print(f"{episode} is already cancelling; it is ending 'cancelled'")
            return
        was_draining = handle.draining
        if handle.done() or not handle.cancel(drain_s=drain):
            print(_not_stopped_line(episode, handle))
        elif was_draining:  # a second stop during a drain stops at once
            print(f"stopping {episode} at once: its drain is cut short")
        else:
            print(f"cancelling {episode}" + (f" once its running calls finish (≤ {drain:g} s)" if drain is not None else ""))

    def _steer(self, args: argparse.Namespace, cell: str | None) -> Any:
        from .widgets.render import short

        check_steer(args.text, args.mode, "human" if args.sender is None else args.sender)  # before the lookup
        steer = self._live("steer", args.episode).steer(args.text, mode=args.mode, sender=args.sender)
        # one visible line: the text may come from a variable ($t) holding a terminal escape, which the output obeys
        print(f"sent to {args.episode} ({steer.mode}): {short(steer.text, _STEER_SHOWN)}")
        return None

    def _runs_dir(self, args: argparse.Namespace, cell: str | None) -> Any:

        if args.path is not None:
            root = check_root(args.path)  # a file or FIFO holds no runs: say so now
            refuse_run_as_root(root)  # nor does a run's own folder
            config.set(runs_dir=str(root))
        where = config.runs_dir()
        print(f"{where} (no such folder yet: the first run makes it)" if not os.path.lexists(where) else where)
        if linked := _linked_line(config.runs_dir()):
            print(linked)
        return None


def _not_stopped_line(episode: str, handle: Any) -> str:
    """Why a stop did nothing: the episode ended, or the event loop it ran on is closed (it runs no more)."""
    if handle.done():
        return f"{episode} already ended ({handle.status}); nothing to stop"
    return (
        f"{episode} cannot be stopped: the event loop it ran on is closed, so it runs no more; its run stays "
        f"{handle.status!r} on disk. Restart the kernel, then noesis_nb.resume_run({quoted(episode)}) ends it"
    )


def _adapter_names(words: list[str]) -> list[str]:
    """The batch's name for each adapter word: the word, or a path's last part (``agents/a.py`` is ``a.py``, since an
    adapter's name holds no ``/``). Two words naming one adapter are refused: the dict of adapters would keep
    one of them without a word, running each task once where twice was asked."""
    names = [_adapter_name(word) for word in words]
    for later, name in enumerate(names):
        first = names.index(name)
        if first != later:
            said = (
                f"{quoted(words[first])} is given twice"
                if words[first] == words[later]
                else f"{quoted(words[first])} and {quoted(words[later])} are both named {quoted(name)}"
            )
            raise UsageError(f"%noesis batch: {said}; give each adapter once (a batch runs each task with each adapter)")
    return names


def _adapter_name(word: str) -> str:
    """``word``, or its path's last part once trailing separators and ``.`` parts are gone (``agents/echo/`` is
    ``echo``: its last part alone is empty, which no adapter may be named)."""
    if "/" not in word and "\\" not in word:
        return word
    return os.path.basename(os.path.normpath(word.replace("\\", "/"))) or word


def _decision_line(decision: Any) -> str:
    """``approved by ana at 11:53:54.310 — reason (draft …)``; ``already approved …; nothing changed`` when it stood before."""
    from .widgets.approvals import as_decision
    from .widgets.cards import decision_words

    d = as_decision(decision)
    already = d.get("created") is False
    what = f"draft {d['draft_id']}" if d.get("draft_id") else "the governance veto"
    words = decision_words(d, already=already)
    if not d.get("draft_id"):
        words = (
            words.replace("approved", "overridden", 1)
            if d.get("status") == "approved"
            else words.replace("rejected", "upheld", 1)
        )
    return f"{words} ({what})" + ("; nothing changed" if already else "")


def load_ipython_extension(ip: Any) -> None:
    ip.register_magics(NoesisMagics)


def unload_ipython_extension(ip: Any) -> None:
    manager = ip.magics_manager
    for kind in ("line", "cell"):
        manager.magics[kind].pop("noesis", None)
    manager.registry.pop("NoesisMagics", None)


def _elsewhere(episode: str, command: str) -> str:
    """Where the episode's run is when it does not run here: in another process (named), or ended."""
    try:
        run_dir = find_run_dir(episode)
    except Exception:  # no such run (or no id): the line says enough
        return ""
    if is_sealed(run_dir):
        return f". Its run {run_dir.name} has ended (sealed)"
    who = holder(run_dir)
    if who is not None and held_here(who):  # this kernel writes it, outside a start() handle (solve() in a thread, resume_run)
        return (
            f". This kernel writes its run outside a handle %noesis can reach (solve() or resume_run in a thread): "
            f"{command} it from the code that started it, or start it with noesis_nb.start(…) next time"
        )
    if who is not None:
        return (
            f". Its run is being written by {quoted_text(who, 200)}: {command} it there (decisions on its drafts work from here)"
        )
    if status_of(run_dir) == "lost":  # its files say running, its writer is gone (the log's tail read, never all of it)
        return f". Its run {run_dir.name} is lost: " + LOST_HINT.format(run=quoted(run_dir.name))
    return ""


_BRACES = "write {{ and }} for literal braces"


def _expansion_failed(word: str, exc: Exception) -> str:
    """What went wrong expanding ``word`` (``$name`` or ``{expr}``) and the fix, in the form the user typed."""
    name = getattr(exc, "name", None) if isinstance(exc, NameError) else None
    if name and re.search(rf"\$\{{?{re.escape(name)}\b", word):
        return f"${name} is not defined; define it in a cell first, or write $$ for a literal $"
    if name:
        return f"{name} in {{…}} is not defined; define it in a cell first, or {_BRACES}"
    if isinstance(exc, ValueError) and ("{" in word or "}" in word):
        return f"a lone brace: {keys_hidden(str(exc))}; {_BRACES}"
    return f"{type(exc).__name__}: {keys_hidden(str(exc))[:120]}; fix the expression in {{…}}, or {_BRACES}"
