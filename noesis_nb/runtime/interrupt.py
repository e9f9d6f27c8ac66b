"""The kernel's interrupt (■, SIGINT) while a cell runs or awaits an episode.

ipykernel turns SIGINT during an async cell into a cancellation of the cell, but schedules it
with a plain ``call_soon`` from the signal handler: a loop asleep in ``select`` until its next
timer (an agent's ``asyncio.sleep(60)``) would not see it for a minute. While a cell waits on an
episode, :func:`watch_interrupts` chains a handler in front of the kernel's that notes the
interrupt and wakes the loop, so the cancellation lands at once and the waiter can tell an
interrupt (say what became of the run in one line) from any other cancellation.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from types import FrameType
from typing import TYPE_CHECKING, Any

from .._safetext import error_text
from ..errors import EpisodeInterrupted
from ..secrets import shown
from ..secrets.quoted import quoted
from ..store import is_sealed

if TYPE_CHECKING:
    from .episode import Episode

__all__ = [
    "InterruptWatch",
    "watch_interrupts",
    "held_interrupts",
    "HeldInterrupt",
    "carried_interrupt",
    "interrupted_before_resume",
    "interrupted",
    "interrupts_noted",
    "killed_by_interrupt",
]


class InterruptWatch:
    """``seen``: whether a SIGINT landed since the watch began."""

    def __init__(self, start: int):
        self._start = start

    @property
    def seen(self) -> bool:
        return _state.count > self._start or _kernel_interrupted()


def _kernel_interrupted() -> bool:
    """Whether ipykernel's SIGINT handler of the async cell running (its ``handle_sigint``) noted the interrupt: one
    in the cell's first milliseconds comes before any watch began, and its cancellation lands later, in the episode.

    ipykernel keeps no public record of it: the cell's cancellation carries no message, and ``Task.cancelling()``
    counts any cancel (a ``wait_for`` timeout around the call too). What tells the interrupt is the future its handler
    (a closure of ``_cancel_on_sigint``, ipykernel 6 and 7) sets to 1 before it cancels the cell, read here. Should a
    later ipykernel hold no future there, an ipykernel handler in place and the running task being cancelled count."""
    handler = signal.getsignal(signal.SIGINT)
    if handler is _on_sigint:
        handler = _state.previous
    if not str(getattr(handler, "__module__", "")).startswith("ipykernel"):
        return False
    futures = []
    for cell in getattr(handler, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, asyncio.Future):
            futures.append(value)
    if futures:
        return any(f.done() and not f.cancelled() and f.result() == 1 for f in futures)
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no loop running here
        return False
    return task is not None and task.cancelling() > 0


class _State:
    """The one chained handler of this process: installed by the first watch, removed by the last."""

    def __init__(self) -> None:
        self.count = 0  # SIGINTs noted while installed
        self.previous: Any = None
        self.loops: list[asyncio.AbstractEventLoop] = []  # one per watch begun and not ended: the watches' count


_state = _State()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _state.count += 1
    for loop in list(_state.loops):  # wake the loop first: the kernel's handler may raise KeyboardInterrupt
        try:
            loop.call_soon_threadsafe(_nothing)
        except RuntimeError:  # closed meanwhile
            pass
    keeping = _keeping(frame)
    if keeping is not None:  # landed in a watch's entry or exit: handed on once that is whole
        watching, held = keeping
        setattr(watching, held, getattr(watching, held) + 1)
        return
    _hand_on(signum, frame)


def _hand_on(signum: int, frame: FrameType | None) -> None:
    """Hand a SIGINT to the handler the first watch found in place (the kernel's)."""
    previous = _state.previous
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        signal.default_int_handler(signum, frame)


def _nothing() -> None:
    return None


class _Watching:
    """One ``watch_interrupts`` block. Its entry and exit change what the whole process shares (the watched loops,
    whose count says when to put ``_on_sigint`` in place and when to put the kernel's handler back): a
    KeyboardInterrupt raised halfway through would leave the count one too high, and no later watch would put its
    handler in place, for the rest of the process. So a SIGINT landing in them is held (``_on_sigint`` sees the frame
    it landed in) and handed on once they are whole: at the entry's end (the entry undone if that raises, as for one
    landing before the block), at the exit's end to the handler then in place."""

    __slots__ = ("loop", "entering", "leaving", "done")

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop this watch added to the process's list
        self.entering = 0  # SIGINTs held in its entry, not yet handed on
        self.leaving = 0  # ... in its exit
        self.done = False  # its exit is whole: a SIGINT now goes straight on

    def __enter__(self) -> InterruptWatch:
        watch = InterruptWatch(_state.count)
        if threading.current_thread() is threading.main_thread():  # where signals land
            try:
                loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None and (_state.loops or self._chain()):
                _state.loops.append(loop)
                self.loop = loop
        while self.entering:  # (one landing after this last look, where the interpreter runs no handler, is noted)
            self.entering = 0
            try:
                _hand_on(signal.SIGINT, None)
            except BaseException:
                self.__exit__(None, None, None)  # as though it landed before the block
                raise
        return watch

    def _chain(self) -> bool:
        """Put ``_on_sigint`` in front of the handler in place; False where that is refused (an embedded
        interpreter): the watch then watches nothing."""
        try:
            previous = signal.signal(signal.SIGINT, _on_sigint)
        except (ValueError, OSError):
            return False
        if previous is not _on_sigint:  # never hand a SIGINT on to itself
            _state.previous = previous
        return True

    def __exit__(self, *exc_info: object) -> None:
        self._leave()
        self.done = True
        if self.leaving:
            self.leaving = 0
            handler = signal.getsignal(signal.SIGINT)
            if handler is _on_sigint:
                _hand_on(signal.SIGINT, None)
            elif callable(handler):
                handler(signal.SIGINT, None)
            elif handler == signal.SIG_DFL:
                signal.default_int_handler(signal.SIGINT, None)

    def _leave(self) -> None:
        """Take this watch's loop off the process's list; the last one puts the handler it found back."""
        loop, self.loop = self.loop, None
        if loop is not None and loop in _state.loops:
            _state.loops.remove(loop)
            if not _state.loops and threading.current_thread() is threading.main_thread():
                previous, _state.previous = _state.previous, None
                if signal.getsignal(signal.SIGINT) is _on_sigint:  # someone who came later keeps theirs
                    signal.signal(signal.SIGINT, previous)

    def __del__(self) -> None:
        # a block whose exit never ran (cut at a bytecode no handler of its frame covers) leaves once collected, as
        # the finally of a generator's block would; a SIGINT landing meanwhile has no one to be raised to: noted only.
        # Off the main thread the handler stays chained, handing on as before.
        if getattr(self, "loop", None) is not None:
            self._leave()


#: the code of a watch's entry and exit, and which count of the watch holds a SIGINT landing in it
_BOOKKEEPING = {
    _Watching.__enter__.__code__: "entering",
    _Watching.__exit__.__code__: "leaving",
    _Watching.__del__.__code__: "leaving",
}


def _keeping(frame: FrameType | None) -> tuple[_Watching, str] | None:
    """The watch whose entry or exit ``frame`` (where a SIGINT landed) is in, or in a call made from it (the
    ``signal`` module's own wrappers), and the count holding it; None once that exit is whole."""
    while frame is not None:
        held = _BOOKKEEPING.get(frame.f_code)
        if held is not None:
            watching = frame.f_locals.get("self")
            if not isinstance(watching, _Watching) or watching.done:
                return None
            return watching, held
        frame = frame.f_back
    return None


def watch_interrupts() -> AbstractContextManager[InterruptWatch]:
    """Notice a SIGINT while the body runs, keeping whatever handler was set (the kernel's) in charge.

    Only on the main thread with a running loop there (where signals land); elsewhere ``seen`` stays False.
    A SIGINT landing in the watch's own entry or exit is handed on once they are done, never halfway.
    """
    return _Watching()


class HeldInterrupt:
    """A SIGINT held back while a run was created (``held_interrupts``): ``deliver`` hands it on afterwards."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.seen = False

    def note(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True

    def deliver(self) -> None:
        """Hand a held SIGINT to the handler it was held from: the default one raises KeyboardInterrupt here."""
        if not self.seen:
            return
        self.seen = False
        previous = self.previous
        if previous == signal.SIG_DFL or previous is None:
            signal.default_int_handler(signal.SIGINT, None)
        elif callable(previous):
            previous(signal.SIGINT, None)


#: a SIGINT its caller held back just before a run was asked for (an import reading a stream ahead for its first
#: time): the next ``held_interrupts`` starts holding it, so the run it makes is sealed ``cancelled`` as it exists
carried_interrupt: ContextVar[bool] = ContextVar("noesis_nb_carried_interrupt", default=False)

#: an interrupt that landed in ``resume_run`` before its resume took a first step (the run untouched, still paused):
#: the resume made again under it checks what it checks, then runs nothing and seals the run ``cancelled``, as one
#: landing a moment later stops it (``resume_blocking``)
interrupted_before_resume: ContextVar[bool] = ContextVar("noesis_nb_interrupted_before_resume", default=False)


@contextmanager
def held_interrupts(*, carried: bool = True) -> Iterator[HeldInterrupt]:
    """Hold a SIGINT back while the body runs (a new run's folder, lock and first files: made whole or not at all,
    never left half made, locked, by a KeyboardInterrupt landing between two of their writes); the caller then
    ``deliver``s it, once the run exists to be sealed ``cancelled``. Only on the main thread, where signals land.

    ``carried=False``: leave a ``carried_interrupt`` to the run it is meant for (a seal holds only its own)."""
    held = HeldInterrupt()
    if carried and carried_interrupt.get():
        held.seen = True
        carried_interrupt.set(False)
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    try:
        held.previous = signal.signal(signal.SIGINT, held.note)
    except (ValueError, OSError):  # not allowed here (an embedded interpreter): nothing held
        yield held
        return
    try:
        yield held
    finally:
        if signal.getsignal(signal.SIGINT) == held.note:  # someone who came later keeps theirs
            signal.signal(signal.SIGINT, held.previous)


def interrupted(episode: Episode) -> EpisodeInterrupted:
    """The one line a cell ends with when the interrupt stopped ``episode``, or the cell's wait on it."""
    episode_id, status = episode.recorder.episode_id, episode.status
    if status == "paused":
        waiting = ", ".join(p.draft_id for p in episode.gate.pending) or "a governance veto"
        said = (
            f"stopped waiting for episode {episode_id}; it is still paused for a decision on {waiting}: "
            "approve or reject it in its view, with handle.approve() / handle.reject(), or with approve_draft"
        )
    elif status == "running":
        said = (
            f"episode {episode_id} was told to stop by the interrupt, but its adapter has not ended yet; "
            "it seals its run cancelled once it does"
        )
    elif not is_sealed(episode.recorder.run_dir):
        said = f"episode {episode_id} stopped by the interrupt, its run left unsealed; resume_run({quoted(episode_id)}) seals it"
    elif status == "cancelled":
        said = f"episode {episode_id} stopped by the interrupt; its run is sealed cancelled"
    else:
        error = episode.error
        reason = f" ({type(error).__name__}: {shown(error_text(error, 400))})" if error is not None else ""
        said = f"episode {episode_id} ended {status} as the interrupt came{reason}; its run is sealed"
    return EpisodeInterrupted(said, episode_id=episode_id, status=status)


def interrupts_noted() -> int:
    """How many SIGINTs this process has noted so far (while a watch was installed): compare before and after."""
    return _state.count


async def killed_by_interrupt(result: Any, since: int, cancelled: Any = None, wait_s: float = 0.5) -> bool:
    """Whether a ``subprocess`` tool that died of SIGINT died of the interrupt (Ctrl-C, the kernel's ■, which goes
    to the whole process group, so the tool's process may die of it a moment before this process notes it).

    Only when this process notes a SIGINT since ``since`` (waiting up to ``wait_s`` for it) or ``cancelled()``
    turns true: a tool killed by SIGINT for any other reason (it signalled itself, another program sent it) is a
    tool failure as any other, which the adapter may handle. A cancellation landing meanwhile propagates."""
    output = getattr(result, "output", None)
    died_of_sigint = (
        getattr(result.status, "value", result.status) == "failed"
        and isinstance(output, dict)
        and set(output) >= {"argv", "returncode"}
        and output.get("returncode") == -signal.SIGINT
    )
    if not died_of_sigint:
        return False
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        if _state.count > since or (cancelled is not None and cancelled()):
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.01)
