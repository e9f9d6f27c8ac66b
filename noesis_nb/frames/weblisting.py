"""Walking an http(s) root's index pages: every file inside the root, and each link or folder that could not be
followed, said rather than dropped.

fsspec's own walk keeps only links spelled under the page's URL: a link to another host, a protocol-relative link
(``//host/ep_…/``, which it asked of the root's own host as a path) and a folder linked without its ``/`` were
dropped without a word; a folder whose page answered 500 failed the whole load, and one redirecting away was
dropped. Here each page is asked without following redirects blindly: the root's page moving on the same server
(``/old/`` to ``/runs/``, http to https of its host) is followed and the root is where it moved to (its runs named
there); a folder's page moving within the root is followed; any other move is not. A link leaving the root is
``refused`` (one problem row each), a folder of the root whose page cannot be read is ``unlisted`` with why (its runs
unknown, not absent), and the other folders still load. Only the root's own page failing fails the load.

The whole walk takes at most the seconds one page may ($NOESIS_NB_REMOTE_TIMEOUT_S): folder pages are asked
``PAGES_AT_ONCE`` at a time (with the HEADs asking whether a link is a folder: one semaphore for the walk), each within
what is left, and a folder not listed by then is ``unlisted`` saying so. Asked one after another, a server sending each
page just within the limit held a load that limit per folder. A link that is no URL (``http://[bad/x``) is refused.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any, NamedTuple
from urllib.parse import unquote, urljoin, urlsplit

from ..secrets.quoted import quoted_text
from .remotefetch import TIMEOUT_ENV, TIMEOUT_S, timed_out, timed_out_said, whole_within
from .webmoves import MAX_REDIRECTS, same_server
from .webmoves import shown as _shown

__all__ = ["walk", "MAX_PAGE_BYTES"]

#: bytes of one index page read at most (a page past it is a folder that cannot be listed)
MAX_PAGE_BYTES = 64 << 20

# fsspec's two link patterns; the ``<a`` one spelled so that its time is linear in the page (fsspec's
# ``<(a|A)\s+(?:[^>]*?\s+)?(href|HREF)=`` took cubic time on ``<a`` and a run of spaces)
_HREF = re.compile(r"""<[aA]\s[^<>]*?(?<=\s)(?:href|HREF)\s*=\s*["'](?P<url>[^"']+)""")
_BARE = re.compile(r"""(?P<url>http[s]?://[-a-zA-Z0-9@:%_+.~#?&/=]+)""")
_PARENT = ("..", "../")  # a server's "parent directory" link: not a link of the listing
#: folder pages (and questions whether a link is a folder) asked at once: a slow server holds a load about one
#: timeout in all, not one per folder
PAGES_AT_ONCE = 8


class Listing(NamedTuple):
    """What ``walk`` found under an http(s) root."""

    files: dict[str, dict[str, Any]]  # as fsspec's ``find(detail=True)`` gives them
    refused: dict[str, str]  # links not followed -> why
    unlisted: dict[str, str]  # folders whose page gave no listing -> why
    root: str  # the root where its page was found (the URL asked, or where the server moved it)


class PageRefused(Exception):
    """One index page that gave no listing: ``why`` says what the server did."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def walk(fs: Any, root: str, seconds: float | None) -> Listing:
    """The files, links refused and folders unlisted of the http(s) ``root``, and the root where its page was found.
    The root's own page failing raises (``FileNotFoundError`` for a 404), as fsspec does."""
    from fsspec.asyn import sync

    got: Listing = sync(fs.loop, _walk, fs, root.rstrip("/"), seconds)
    return got


async def _walk(fs: Any, root: str, seconds: float | None) -> Listing:
    deadline = None if seconds is None else asyncio.get_running_loop().time() + seconds
    found = Listing({}, {}, {}, root)
    try:
        text, moved = await _page(fs, root + "/", root, seconds)
    except PageRefused:
        raise
    except Exception as exc:  # the connection's own (refused, reset, timed out)
        if isinstance(exc, OSError) and not timed_out(exc):
            raise FileNotFoundError(root) from exc  # not reached: said as a root that is not there, with why
        raise
    found = found._replace(root=moved)
    seen = {root, moved}
    # the whole walk's requests, folder pages and HEADs alike; HEADs hold one fewer, so a folder whose page is due
    # is asked while every other slot waits on slow HEADs (sharing all of them, it waited until they were answered)
    pages = asyncio.Semaphore(PAGES_AT_ONCE)
    heads = asyncio.Semaphore(PAGES_AT_ONCE - 1)
    tasks: set[asyncio.Task[None]] = set()

    async def visit(folder: str) -> None:
        async with pages:
            left = _left(deadline)
            if left is not None and left <= 0:
                found.unlisted[folder] = _late_said(seconds)
                return
            try:
                text, moved = await _page(fs, folder + "/", found.root, left)
            except PageRefused as exc:
                found.unlisted[folder] = exc.why
                return
            except Exception as exc:  # the connection's own (refused, reset, timed out)
                found.unlisted[folder] = _failed_said(exc, folder, seconds, _left(deadline))
                return
        if moved != folder:  # within the root (``_page`` refuses any other move): listed once, where it is
            if moved in seen:
                return
            seen.add(moved)
        await follow(moved, text)

    def start(name: str) -> None:
        if name not in seen:
            seen.add(name)
            tasks.add(asyncio.ensure_future(visit(name)))

    async def follow(folder: str, text: str) -> None:
        await _links_of(fs, folder, text, found, seconds, deadline, start, (heads, pages))

    try:
        await follow(found.root, text)
        while tasks:  # each folder's page in turn starts its own folders' tasks
            await tasks.pop()
    finally:
        for task in tasks:  # only when one failed: none is left running
            task.cancel()
    return found


def _left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (None: no deadline of ours)."""
    return None if deadline is None else deadline - asyncio.get_running_loop().time()


def _failed_said(exc: BaseException, folder: str, seconds: float | None, left: float | None) -> str:
    """Why a folder's page request failed: the listing's time ran out (``left`` seconds of it are left), the page's
    own wait, or the connection's error."""
    if not timed_out(exc):
        return _error_said(exc)
    return _late_said(seconds) if left is not None and left < 0.05 else timed_out_said(folder, seconds)


def _late_said(seconds: float | None) -> str:
    """Why a folder's page was not listed: the whole listing's time ran out first."""
    return (
        f"not listed in time: listing the whole root may take {seconds:g} s, and they ran out before this folder's "
        f"page was read (the server answered too slowly); check that the server is up, or give it more time "
        f"({TIMEOUT_ENV}=<seconds>, default {TIMEOUT_S:g})"
    )


async def _links_of(
    fs: Any,
    folder: str,
    text: str,
    found: Listing,
    seconds: float | None,
    deadline: float | None,
    start: Callable[[str], None],
    asks: tuple[asyncio.Semaphore, asyncio.Semaphore],
) -> None:
    """``start`` each folder ``folder``'s page links inside the root (as soon as it is known); its files go into
    ``found.files`` and the links it makes out of the root into ``found.refused``. A link without ``/`` is asked
    whether it is a folder within what is left of the deadline, holding both ``asks`` (the walk's HEADs', then its
    requests' semaphore: all pages' questions and pages together are ``PAGES_AT_ONCE`` requests at most); one not
    answered by then is ``found.unlisted``."""
    kept: list[tuple[str, bool]] = []
    for link, href in _links(text):
        try:
            target = _kept(folder, link, href, found)
        except ValueError as exc:  # no URL at all (``http://[bad/x``: urllib's "Invalid IPv6 URL"): this link only
            if href:
                found.refused.setdefault(_written(folder, link), _malformed_said(exc))
            continue
        if target is not None:
            kept.append((target, target.endswith("/") or _has_suffix(target)))

    async def is_folder(target: str, known: bool) -> bool | None:
        """Whether ``target`` is a folder; None when the listing's time ran out before it was answered."""
        if known:
            return target.endswith("/")
        async with asks[0], asks[1]:
            left = _left(deadline)
            if left is not None and left <= 0:
                return None
            try:
                return await _moves_to_folder(fs, target, left)
            except Exception as exc:  # said, if it is a file, when it is read
                late = timed_out(exc) and left is not None and (_left(deadline) or 0) < 0.05
                return None if late else False

    async def take(target: str, known: bool) -> None:
        folder_too = await is_folder(target, known)
        if folder_too is None:  # maybe a folder: its runs unknown, not absent
            found.unlisted.setdefault(target.rstrip("/"), _late_said(seconds))
        elif folder_too:
            start(target.rstrip("/"))
        elif target not in found.files:
            found.files[target] = {"name": target, "size": None, "type": "file"}

    await asyncio.gather(*(take(target, known) for target, known in kept))


def _kept(folder: str, link: str, href: bool, found: Listing) -> str | None:
    """The URL of ``folder``'s page link ``link`` when it lies inside the root; None for one to no file, or one
    leaving the root (an ``<a href>`` kept in ``found.refused`` with why). ``ValueError`` for a link that is no URL."""
    target = _resolved(folder, link)
    if target == "":
        return None
    if target is None:
        if href:
            found.refused.setdefault(_absolute(folder, link), _off_root_said(folder, link))
        return None
    if not _within(target, found.root):
        if href and not _ancestor(target, folder):  # a page's link to its parents is no link of the listing
            found.refused.setdefault(target, _off_root_said(folder, link))
        return None
    if (bad := _bad_part(found.root, target)) is not None:  # ``../x``, a name holding ``/`` once decoded
        found.refused.setdefault(*bad)
        return None
    return target


async def _page(fs: Any, url: str, root: str, seconds: float | None) -> tuple[str, str]:
    """(the index page at ``url``, the folder it was found at): a move of the root's page on the same server, or of
    a folder's within the root, is followed (``MAX_REDIRECTS`` at most); ``PageRefused`` for an error status, any
    other move, or a page past ``MAX_PAGE_BYTES``; ``FileNotFoundError`` for the root's 404."""
    session = await fs.set_session()
    is_root = url.rstrip("/") == root
    limit = whole_within(seconds)
    for _ in range(MAX_REDIRECTS + 1):
        async with session.get(fs.encode_url(url), allow_redirects=False, **fs.kwargs, **limit) as r:
            if 300 <= r.status < 400:
                target = urljoin(url, r.headers.get("Location", "")).split("#", 1)[0]
                folder = target.split("?", 1)[0].rstrip("/")
                if target.rstrip("/") == url.rstrip("/") or (
                    same_server(url, target) if is_root else folder.startswith(root + "/")
                ):
                    url = folder + "/"
                    continue
                where = "another server" if is_root else "out of the root"
                raise PageRefused(f"the server answered HTTP {r.status}, moving it to {_shown(target)}; not followed ({where})")
            if r.status == 404 and is_root:
                raise FileNotFoundError(url)
            if r.status >= 400:
                raise PageRefused(
                    f"the server answered HTTP {r.status}" + (f" {quoted_text(str(r.reason), 60)}" if r.reason else "")
                )
            mimetype = r.headers.get("Content-Type", "").partition(";")[0].strip() or None
            if mimetype not in ("text/html", None):
                return "", url.rstrip("/")
            body = await _body(r, MAX_PAGE_BYTES + 1)
            if len(body) > MAX_PAGE_BYTES:
                raise PageRefused(f"its index page is larger than {MAX_PAGE_BYTES:,} bytes; not read")
            return str(body.decode(errors="ignore")), url.rstrip("/")
    raise PageRefused(f"the server moved it more than {MAX_REDIRECTS} times (last to {_shown(url)}); not followed")


async def _body(r: Any, most: int) -> bytes:
    """The response's body up to ``most`` bytes, read to its end: one ``read(n)`` gives only what is buffered yet (a
    long page was cut short, its later runs silently not listed)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in r.content.iter_chunked(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size >= most:
            break
    return b"".join(chunks)[:most]


async def _moves_to_folder(fs: Any, url: str, seconds: float | None) -> bool:
    """Whether a link without ``/`` (``ep_x``) is a folder: its server moves it to ``ep_x/`` (as stock servers do);
    the request's error raises."""
    session = await fs.set_session()
    async with session.head(fs.encode_url(url), allow_redirects=False, **fs.kwargs, **whole_within(seconds)) as r:
        location = r.headers.get("Location", "")
        return bool(300 <= r.status < 400 and urljoin(url, location).split("?", 1)[0] == url + "/")


def _links(text: str) -> list[tuple[str, bool]]:
    """(link, whether it is an ``<a href>``) of a page, in order; a bare URL in its text is a link too (as fsspec)."""
    found = [(m.group("url"), True) for m in _HREF.finditer(text)]
    return found + [(m.group("url"), False) for m in _BARE.finditer(text)]


def _resolved(folder: str, link: str) -> str | None:
    """The URL ``link`` of ``folder``'s page names (query and fragment dropped), joined as fsspec joins a relative
    one (``..`` kept: the scan refuses it by name); '' for a link to no file (``?C=N``, ``#top``, the parent link);
    None for one of another scheme (``mailto:``)."""
    link = link.split("#", 1)[0].split("?", 1)[0]
    if not link or link in _PARENT:
        return ""
    scheme = urlsplit(folder).scheme
    if link.startswith("//"):  # protocol-relative: another host, maybe
        link = f"{scheme}:{link}"
    elif link.startswith("/"):
        parts = urlsplit(folder)
        link = f"{parts.scheme}://{parts.netloc}{link}"
    elif ":" in link.split("/", 1)[0]:
        if link.split(":", 1)[0].lower() not in ("http", "https"):
            return None
    else:
        return folder + "/" + link
    return link


def _bad_part(root: str, target: str) -> tuple[str, str] | None:
    """(the link as written up to its bad part, why) for a link under ``root`` whose decoded names leave it (``..``)
    or hold a path separator; None for a good one. Locally a link out of the root is never followed either."""
    parts = target[len(root) + 1 :].rstrip("/").split("/")
    names = [unquote(part) for part in parts]
    for i, name in enumerate(names):
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            up = name in ("", ".", "..")
            end = i + 1
            while up and end < len(names) and names[end - 1] in ("", ".", ".."):
                end += 1  # the link as written (``../ep_parent``), not only its ``..``
            why = "it leads out of the root" if up else "its decoded name holds a path separator"
            return "/".join([root, *parts[:end]]), why
    return None


def _within(target: str, root: str) -> bool:
    """Whether ``target`` lies under ``root`` (http and https taken alike, as fsspec does); '' counts as inside."""
    if not target:
        return True
    return _plain(target).startswith(_plain(root) + "/")


def _ancestor(target: str, folder: str) -> bool:
    return (_plain(folder) + "/").startswith(_plain(target).rstrip("/") + "/")


def _plain(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    return f"http://{rest}" if sep and scheme.lower() in ("http", "https") else url


def _has_suffix(url: str) -> bool:
    """Whether the last name of ``url`` has a suffix (``events.jsonl``): a file, never asked whether it is a folder."""
    return "." in url.rstrip("/").rsplit("/", 1)[-1]


def _absolute(folder: str, link: str) -> str:
    return link if "://" in link else urljoin(folder + "/", link)


def _written(folder: str, link: str) -> str:
    """``link`` as ``folder``'s page names it, made absolute by text alone (urllib refuses a link that is no URL)."""
    if "://" in link:
        return link
    if link.startswith("//"):
        return f"{folder.partition('://')[0]}:{link}"
    return f"{folder}/{link}"


def _malformed_said(exc: ValueError) -> str:
    return f"it is no valid URL: {quoted_text(str(exc), 80)}"


def _off_root_said(folder: str, link: str) -> str:
    target = _absolute(folder, link if not link.startswith("//") else f"{urlsplit(folder).scheme}:{link}")
    if urlsplit(_plain(target)).netloc != urlsplit(_plain(folder)).netloc:
        return f"it leads to another host ({_shown(target)})"
    return "it leads out of the root"


def _error_said(exc: BaseException) -> str:
    said = str(exc).split("?", 1)[0] if "://" in str(exc) else str(exc)
    return f"{type(exc).__name__}: {quoted_text(said, 200)}"
