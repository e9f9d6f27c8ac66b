"""Keys printed wrapped across lines: ``sk-proj-Ab3…`` folded at 64 columns, ``AKIA…`` cut by ``textwrap``.

A break (a line break, or ``\\n`` / ``\\r\\n`` written escaped, then any indentation) is read only where the run of
key characters before it starts with a known format's lead (``might_wrap``: one search of the text read backwards,
anchored at each break, so text whose lines end in words or punctuation costs one pass). There the pieces on the
following lines are joined, and a join is kept only when it is a whole key of that format: a fixed-length format at
its exact length, any other with every piece after the first reading as random (not a word or a name), and a line
full before each piece after the second, as a folded key is (``ghp_<36>\\nContinued`` stays two words).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["WRAP_LOWER", "WRAP_MARKS", "might_wrap", "wrapped_keys"]

# (lead, body after the lead, fixed): the formats ``text`` finds by value whose keys are long enough to be wrapped
_FORMATS: tuple[tuple[str, str, bool], ...] = (
    (r"sk-(?:proj|svcacct|admin)-", r"[A-Za-z0-9_-]{20,400}", False),  # OpenAI
    (r"sk-ant-[a-z]{2,8}[0-9]{2}-", r"[A-Za-z0-9_-]{20,400}", False),  # Anthropic
    (r"sk-", r"[A-Za-z0-9]{48}", True),  # OpenAI, older
    (r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)", r"[A-Z0-9]{16}", True),  # AWS access key ids
    (r"gh[pousr]_", r"[A-Za-z0-9]{36}", True),  # GitHub
    (r"github_pat_", r"[A-Za-z0-9]{22}_[A-Za-z0-9]{59}", True),
    (r"AIza", r"[0-9A-Za-z_-]{35}", True),  # Google API key
    (r"ya29\.", r"[0-9A-Za-z_-]{20,400}", False),  # Google OAuth
    (r"xox[abposre]-", r"[0-9]{6,}-[A-Za-z0-9-]{10,300}", False),  # Slack
    (r"xapp-", r"[0-9]-[A-Za-z0-9-]{20,300}", False),
    (r"[sr]k_(?:live|test)_", r"[A-Za-z0-9]{20,300}", False),  # Stripe
    (r"whsec_", r"[A-Za-z0-9+/=]{24,200}", False),
    (r"eyJ", r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", False),  # JWT
    (r"hf_", r"[A-Za-z0-9]{34}", True),  # Hugging Face
    (r"glpat-", r"[A-Za-z0-9_-]{20}", True),  # GitLab
    (r"npm_", r"[A-Za-z0-9]{36}", True),
    (r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", True),  # SendGrid
    (r"do[opr]_v1_", r"[a-f0-9]{64}", True),  # DigitalOcean
    (r"shp(?:at|ss|ca|pa)_", r"[a-fA-F0-9]{32}", True),  # Shopify
    (r"(?:e2b|sbp)_", r"[a-f0-9]{40}", True),
    (r"pul-", r"[a-f0-9]{40}", True),  # Pulumi
    (r"rubygems_", r"[a-f0-9]{48}", True),
    (r"lin_api_", r"[A-Za-z0-9]{40}", True),  # Linear
    (r"gsk_", r"[A-Za-z0-9]{48,60}", False),  # Groq
    (r"r8_", r"[A-Za-z0-9]{37}", True),  # Replicate
    (r"xai-", r"[A-Za-z0-9]{60,120}", False),
    (r"pplx-", r"[A-Za-z0-9]{48}", True),
    (r"nvapi-", r"[A-Za-z0-9_-]{60,120}", False),
    (r"tvly-", r"[A-Za-z0-9-]{32,80}", False),
    (r"hv[sb]\.", r"[A-Za-z0-9_-]{24,200}", False),  # Vault
    (r"AGE-SECRET-KEY-1", r"[0-9A-Z]{58}", True),
    # private key bodies without their PEM lines (PKCS#1/#8 RSA, SEC1 EC, OpenSSH): base64 lines, folded at 64 or 70
    (
        r"(?:MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)|MHcCAQEE|MIG[A-Za-z0-9+/]AgEA|b3BlbnNzaC1rZXktdjE)",
        r"[A-Za-z0-9+/]{40,8000}={0,2}",
        False,
    ),
)
_LEADS = [re.compile(lead) for lead, _, _ in _FORMATS]
_WHOLE = [re.compile(lead + body) for lead, body, _ in _FORMATS]
_FIXED = [fixed for _, _, fixed in _FORMATS]
# the leads as literal words, for the backwards search (each alternative its written form reversed)
_LITERALS = (
    "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-ant-", "sk-", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA",
    "ANPA", "ANVA", "APKA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AIza", "ya29.", "xoxa-", "xoxb-",
    "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_",
    "eyJ", "hf_", "glpat-", "npm_", "SG.", "doo_v1_", "dop_v1_", "dor_v1_", "shpat_", "shpss_", "shpca_", "shppa_",
    "e2b_", "sbp_", "pul-", "rubygems_", "lin_api_", "gsk_", "r8_", "xai-", "pplx-", "nvapi-", "tvly-", "hvs.", "hvb.",
    "AGE-SECRET-KEY-1", "MII", "MHcCAQEE", "MIG", "b3BlbnNzaC1rZXktdjE",
)  # fmt: skip
# a lead cut by the break itself (``sk-pr`` / ``oj-…``): its first three characters or more right before it
_CUT = sorted({w[:n] for w in _LITERALS for n in range(3, len(w))} - set(_LITERALS), key=len, reverse=True)
_HEADS = sorted({*_LITERALS, *_CUT}, key=len, reverse=True)
# a lead cut after its first one or two characters (``s`` / ``k-proj-…``, ``gh`` / ``p_…``, ``AI`` / ``za…``): the
# word ending the line is too common to search for, so the next line's start is searched (each such rest holds one of
# ``-_.``, a capital or a digit but ``za``, whose ``AI`` is marked before the break), then the word before the break
_SHORT: dict[str, tuple[str, ...]] = {}
for _word in _LITERALS:
    for _n in (1, 2):
        if _n < len(_word):
            _SHORT[_word[:_n]] = (*_SHORT.get(_word[:_n], ()), _word[_n:])
_SHORT_BYTES = {head.encode(): tuple(t.encode() for t in tails) for head, tails in _SHORT.items()}
_FIRSTS = tuple(_HEADS)
# leads of four characters or more: a line opening with one starts a key of its own, never the rest of the one above
# (a random body opens so about once in 62**4 lines)
_OTHER_LEADS = tuple(w for w in _LITERALS if len(w) >= 4)
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_KEY_CHARS = r"A-Za-z0-9_.+/=-"
_MOST_HEAD = 400  # characters of a key on the line its lead is on


def _trie(words: list[str]) -> str:
    """``words`` as one alternation grouped by their characters (the engine tries one branch per character, not one
    per word)."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, Any]) -> str:
    parts = [re.escape(char) + _branches(rest) for char, rest in sorted(node.items()) if char]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    return f"(?:{body})?" if "" in node else body


def _backwards(breaks: str) -> str:
    leads = _trie([h[::-1] for h in _LITERALS])
    cut = _trie([h[::-1] for h in _CUT])
    # every lead holds one of ``-_.``, a capital or a digit: a line ending in a lower-case word is passed over at once;
    # a lead starts a word: no letter or digit before it, but for the ``n`` of an escaped break (``\\nAKIA…``)
    return (
        rf"(?:{breaks})(?P<run>(?=[a-z]*+[-_.A-Z0-9+/=])[{_KEY_CHARS}]{{0,{_MOST_HEAD}}}?{leads}|{cut})"
        r"(?:(?![A-Za-z0-9])|(?=[nrt]\\))"
    )


# text read backwards: ``\n`` or ``\r\n``, then a run of key characters ending in a lead; and a break escaped (``\\n``,
# in JSON ``\\\\n`` too). Each opens with its literal: the engine skips to those places, not trying every one
_BACK_LINE = re.compile(_backwards(r"\n\r?"))
_BACK_ESCAPED = re.compile(_backwards(r"n\\{1,4}(?:r\\{1,4})?"))
_BACK_LINE_BYTES = re.compile(_BACK_LINE.pattern.encode())
_BACK_ESCAPED_BYTES = re.compile(_BACK_ESCAPED.pattern.encode())
# a lead holds one of ``-_.``, a capital or a digit, so a run holding one ends in one and lower-case letters: with
# those letters deleted and a break's backslash or line break kept, such a character stands right before a break
# (``…3\n``, ``…-\r\n``). Two passes in C clear a line-broken text, most often at once
_MARKS = bytes(
    0x58 if (48 <= i <= 57 or 65 <= i <= 90 or i in b"-_.+/=") else 0x5C if i in b"\\\n\r" else 0x20 for i in range(256)
)
_LOWER = bytes(range(0x61, 0x7B)) + b" \t"  # (indentation too: a lead's rest may follow it)


WRAP_MARKS, WRAP_LOWER = _MARKS, _LOWER  # for a caller that tests ``_marked``'s way inline (a hot path: no call)


def _marked(data: bytes) -> bool:
    return data.translate(_MARKS, _LOWER).find(b"X\\") >= 0


_BREAK = re.compile(r"(?:\r?\n|(\\\\?)(?:r\1)?n)((?:[ \t]|\1t)*)")
# a break (escaped too), its indentation, and the rest of a lead cut after its first one or two characters
# (each alternative opens with a literal: the engine skips to a line break or a backslash, not trying every place;
# a ``\r\n``'s ``\r`` is stepped over before the word ending the line is read)
_AFTER_BREAK = r"(?:\n|\\\\{0,3}(?:r\\{1,4})?n)(?:[ \t]|\\{1,4}t)*"
_SHORT_REST = re.compile(
    _AFTER_BREAK + "(" + _trie(sorted({t for ts in _SHORT.values() for t in ts})) + ")(?=[" + _KEY_CHARS + "])"
)
_SHORT_REST_BYTES = re.compile(_SHORT_REST.pattern.encode())
_RUN = re.compile(f"[{_KEY_CHARS}]*")
# a run on the lines after the lead's may hold a part already redacted (the rest of a key the run knew)
_PIECE = re.compile(rf"(?:[{_KEY_CHARS}]|\[REDACTED\])*")
_REDACTED = "[REDACTED]"
# a piece that reads as a word or a name: the next line's text, not the rest of a key
_WORDLIKE = re.compile(r"(?:[A-Z]?[a-z]+)+[0-9]{0,4}|[A-Z]+[0-9]{0,4}|(?:[A-Za-z][a-z]*[_.-])+(?:[A-Za-z][a-z]*)?")
_NAME = re.compile(r"(?:[A-Z][a-z]{3,}){2,}[0-9]{0,4}|[A-Z]?[a-z]{4,}(?:[_.-][a-z]{2,})*[_.-]?|[a-z]{2,}(?:[_.-][a-z]{2,})+")
_LONGEST = 8400
_CLOSING = ("", '"', "'", "`", "\\")


def might_wrap(text: str | bytes) -> bool:
    """Whether a line break in ``text`` (or JSON text) stands right after a run of key characters opened by a lead, or
    right before the rest of a lead cut after its first one or two characters (``gh`` / ``p_…``)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    marks = data.translate(_MARKS, _LOWER)
    if marks.find(b"X\\") >= 0:
        if isinstance(text, bytes):
            back = text[::-1]
            if _BACK_ESCAPED_BYTES.search(back) is not None or _BACK_LINE_BYTES.search(back) is not None:
                return True
        else:
            backwards = text[::-1]
            if _BACK_ESCAPED.search(backwards) is not None or _BACK_LINE.search(backwards) is not None:
                return True
    # a lead's rest holds a mark: with lower-case letters and indentation deleted, one stands right after the break
    return marks.find(b"\\X") >= 0 and bool(_short_starts(text))


def _short_starts(text: str | bytes) -> list[int]:
    """Where each key whose lead is cut after its first one or two characters starts: a break, then the rest of a lead,
    after a word that is the lead's first characters (``…is gh\\np_…``)."""
    pattern: Any = _SHORT_REST_BYTES if isinstance(text, bytes) else _SHORT_REST
    short: Any = _SHORT_BYTES if isinstance(text, bytes) else _SHORT
    starts = []
    for m in pattern.finditer(text):
        at = m.start() - (m.start() > 0 and text[m.start() - 1 : m.start()] in ("\r", b"\r"))
        for n in (2, 1):
            tails = short.get(text[at - n : at]) if at >= n else None
            if tails is not None and text.startswith(tails, m.start(1)) and _word_at(text, at - n):
                starts.append(at - n)
                break
    return starts


def _word_at(text: str | bytes, at: int) -> bool:
    """Whether a word starts at ``at``: no letter or digit before it, but for the ``n`` of an escaped break."""
    if at == 0:
        return True
    before = text[at - 1 : at]
    return not before.isalnum() or (before in ("n", "r", "t", b"n", b"r", b"t") and text[at - 2 : at - 1] in ("\\", b"\\"))


def _breaks(backwards: str) -> list[re.Match[str]]:
    """The matches of both searches in ``backwards``, in its order (the text's order reversed)."""
    found = [*_BACK_LINE.finditer(backwards), *_BACK_ESCAPED.finditer(backwards)]
    return sorted(found, key=lambda m: m.start())


def wrapped_keys(text: str) -> set[str]:
    """The keys wrapped across lines in ``text``: each as written (breaks and indentation in it) and joined."""
    found = _glued(text) if _REDACTED in text else set()
    if not might_wrap(text):
        return found
    size, backwards = len(text), text[::-1]
    runs = []  # (start, end) of each run of key characters ending at a break after a lead, in the text's order
    for m in _breaks(backwards):
        run_end = _end(_RUN, backwards, m.start("run"))  # the whole run before the break, past the lead found in it
        runs.append((size - run_end, size - m.start("run")))
    done = -1
    for start in _short_starts(text):
        key = _joined_at(text, start)
        if key is not None:
            found.update(key)
    for begin, end in reversed(runs):
        for start in range(max(begin, done), end):
            if text.startswith(_FIRSTS, start) and (start == 0 or _starts_word(text, start)):
                key = _joined_at(text, start)
                if key is not None:
                    found.update(key)
                    done = start + len(key[0])
                    break
    return found


def _glued(text: str) -> set[str]:
    """The rest of each key a part of which is redacted already where key characters glued to the redaction run to
    the line's end (``[REDACTED]r\\n7T[REDACTED]U\\ne3Ko7Xw``): the key goes on, so its next lines are read too. Only
    a run that reads as a key's rest counts: several random characters, or letters and digits where the key plainly
    runs through the redaction (glued before it too, or the next line holding one); never ``.``, ``/``, ``=``,
    ``.py`` ending a sentence, a path or a padding before a log line, a uuid or a hash."""
    found: set[str] = set()
    at = text.find(_REDACTED)
    while at >= 0:
        begin = at + len(_REDACTED)
        end = _end(_RUN, text, begin)
        brk = _BREAK.match(text, end) if end > begin else None
        if brk is not None and (_keylike(text[begin:end]) or (text[begin:end].isalnum() and _through(text, at, brk.end()))):
            found.update(_rest(text, list(_pieces(text, begin)), begin, 0))
        at = text.find(_REDACTED, end)
    return found


def _keylike(run: str) -> bool:
    """Whether characters glued to a redaction read as a key's rest by themselves: several, random once the
    punctuation around them is taken off (not ``.py``, ``.json``, ``/``)."""
    core = run.strip("._+/=-")
    return len(core) >= 4 and _random_like(core) and not _named(core)


def _through(text: str, at: int, after: int) -> bool:
    """Whether the key runs through the redaction at ``at``: a letter, a digit or another redaction glued before it,
    or the line from ``after`` (past the break) holding a redaction among key characters (``7T[REDACTED]U``)."""
    glued = text[at - 1 : at].isalnum() or text.endswith(_REDACTED, 0, at)
    return glued or _REDACTED in text[after : _end(_PIECE, text, after)]


def _end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of ``pattern`` (a ``*``: it always matches) from ``pos`` ends."""
    m = pattern.match(text, pos)
    return pos if m is None else m.end()


def _starts_word(text: str, at: int) -> bool:
    return text[at - 1] not in _ALNUM or (at > 1 and text[at - 2] == "\\" and text[at - 1] in "nrt")


def _pieces(text: str, start: int) -> Iterator[tuple[int, int, int, bool]]:
    """The runs of key characters from ``start`` on and each next line's: (start, end, where its line starts, whether
    it ends its line or the text)."""
    pos, total = start, 0
    line = _line_start(text, start)
    while total < _LONGEST:
        end = _end(_PIECE if pos > start else _RUN, text, pos)
        brk = _BREAK.match(text, end)
        yield pos, end, line, brk is not None or text[end : end + 1] in _CLOSING
        if brk is None or _end(_PIECE, text, brk.end()) == brk.end():
            return
        total += end - pos
        line = brk.end() - len(brk.group(2))  # (the indentation is on the line)
        pos = brk.end()


_FIXED_MOST = 120  # characters past which a join is no key of a fixed-length format (the longest is 93)


def _read(text: str, start: int) -> list[tuple[int, int, int, bool]]:
    """The pieces from ``start`` that ``_kept`` may join: up to the first after which it stops whatever the format (the
    one after a line shorter than a line above it or after a word, one opening with another key's lead, or one
    past ``_FIXED_MOST`` characters when no lead of a format without a fixed length opens them), that one included
    (read on to ``_LONGEST`` from each line starting like a key, lines of ``sk-abcdefghij`` cost time quadratic in
    their number)."""
    out: list[tuple[int, int, int, bool]] = []
    lines: list[int] = []
    top, size = 0, 0  # the widest line above the piece before the last, the characters read
    for piece in _pieces(text, start):
        out.append(piece)
        lines.append(piece[1] - piece[2])
        n, part = len(out), text[piece[0] : piece[1]]
        size += len(part)
        if n >= 2 and part.startswith(_OTHER_LEADS):
            break
        if n >= 3:
            top = max(top, lines[n - 3])
            before = text[out[n - 2][0] : out[n - 2][1]]
            if (lines[n - 2] < top and not before.endswith("-")) or _named(before):
                break
        if size > _FIXED_MOST and size - len(part) <= _FIXED_MOST:
            head = "".join(text[a:b] for a, b, _, _ in out)
            if not any(not _FIXED[i] and lead.match(head) is not None for i, lead in enumerate(_LEADS)):
                break
    return out


def _line_start(text: str, at: int) -> int:
    """Where the line holding ``at`` starts: after a line break, an escaped one, or the quote opening the text holding
    it (its first line is the lead's in ``"log": "Your key is sk-…\\nAb3…"``). Searched back in windows growing four
    times: searched from the text's start, JSON text of lines each starting like a key was read whole at each."""
    width = 256
    while True:
        lo = max(0, at - width)
        found = max(text.rfind("\n", lo, at), text.rfind("\\n", lo, at) + 1, text.rfind('"', lo, at))
        if found >= lo or lo == 0:
            return found + 1
        width *= 4


def _joined_at(text: str, start: int) -> tuple[str, ...] | None:
    """(as written, joined) for the longest wrapped key starting at ``start``, else None."""
    pieces = _read(text, start)
    if len(pieces) < 2:
        return None
    parts = [text[a:b] for a, b, _, _ in pieces]
    lines = [b - line for _, b, line, _ in pieces]  # a folded key fills every line (as the lead's is filled) but its last
    alone = [ends for _, _, _, ends in pieces]
    glued = [not ends and _goes_on(text, b) for _, b, _, ends in pieces]
    head = "".join(parts)
    for i, lead in enumerate(_LEADS):
        if lead.match(head) is None:
            continue
        count = _kept(parts, lines, alone, glued, i)
        if count:
            return text[start : pieces[count - 1][1]], "".join(parts[:count])
        cut = next((n for n, part in enumerate(parts) if _REDACTED in part), 0)
        if cut:  # the key goes on into a part the run redacted already: what stands before it is its head, what
            # stands after it its rest
            written = text[start : pieces[cut][0] + parts[cut].find(_REDACTED)]
            read = list(_pieces(text, start))  # (all of them: the rest is read past where a join stops)
            widest = max((e - ls for p, e, ls, _ in read[:cut] if _REDACTED not in text[p:e]), default=0)
            a, b = read[cut][:2]
            rest = _rest(text, read[cut:], text.rfind(_REDACTED, a, b) + len(_REDACTED), widest)
            return written, "".join(parts[:cut]) + parts[cut].partition(_REDACTED)[0], *rest
    return None


def _rest(text: str, pieces: list[tuple[int, int, int, bool]], begin: int, widest: int) -> list[str]:
    """The rest of a key from ``begin`` in the first of ``pieces``, a line holding a part redacted already (its width
    no longer tells), as written and joined: the characters there and each next line a folded key goes on on (after
    a line as wide as ``widest`` and the lines above it, or one holding a redaction; not a word, nor another key's
    lead). A redaction stopping at a line's end left the next lines in clear (``sk-\\n[REDACTED]z1Wc\\n0Jf2…``)."""
    (a, b, line, _), end = pieces[0], pieces[0][1]
    for p, e, ls, ends in pieces[1:]:
        before, part = text[a:b], text[p:e]
        if a != pieces[0][0] and _REDACTED not in before:
            if b - line < widest and not before.endswith("-"):
                break
            widest = max(widest, b - line)
        if part.startswith(_OTHER_LEADS) or _named(part) or not (_random_like(part) or (ends and len(part) <= 4)):
            break
        if not ends and _goes_on(text, e):
            break
        a, b, line, end = p, e, ls, e
    out = [w for w in text[begin:end].split(_REDACTED) if w]
    return [*out, *(_BREAK.sub("", w) for w in out)]


def _goes_on(text: str, end: int) -> bool:
    """Whether the line goes on right after a run of key characters ending at ``end``, glued to it by one other
    character (``2026-12-06T11`` / ``:53:00Z``): a log line's or a path's head, not a folded key's last line."""
    return text[end + 1 : end + 2].isalnum() and not text[end : end + 1].isspace()


def _kept(parts: list[str], lines: list[int], alone: list[bool], glued: list[bool], i: int) -> int:
    """How many of ``parts`` (2 or more) make a whole key of format ``i``, else 0: a fixed-length format's length, or
    lines each as full as every line above it and a last piece that reads as random or ends its line after full lines
    (``…\nJZPG\n``, not ``…\nDone, 3 files``), or is as short as a folded key's end may be (3 characters); never one
    glued to more on its line (``…\n2026-12-05T12:00:01Z``)."""
    whole, fixed = _WHOLE[i], _FIXED[i]
    best, top = 0, 0  # top: the widest line above the piece before the last
    # a lead cut across a break (``s`` / ``k_live_…``) ends in the second piece: a short last piece is read as after
    # a whole lead (``it`` opening the line after the key is a word, not the key's end)
    lead = _LEADS[i].match("".join(parts))
    cut = int(lead is not None and lead.end() > len(parts[0]))
    for n in range(2, len(parts) + 1):
        if parts[n - 1].startswith(_OTHER_LEADS):  # another key's lead opens that line (``sk-proj-\nAIzaSy…``): its own
            break
        if n > 2 and len(parts[n - 1]) >= 4 and parts[n - 1] in parts[1 : n - 1]:
            break  # a line the key's lines above already hold (``sk-proj-\n0x7ff3a012d840\n0x7ff3a012d840``): a random
            # key folded never repeats a line
        top = max(top, lines[n - 3]) if n > 2 else top
        if n > 2 and ((lines[n - 2] < top and not parts[n - 2].endswith("-")) or _named(parts[n - 2])):
            break  # the piece before was the key's last: its line is shorter than a line above it (a folded key's are
            # as full as the lead's and as each other), not cut after a hyphen as textwrap does; or it reads as a word
        key = "".join(parts[:n])
        if whole.fullmatch(key) is not None:
            piece, m = parts[n - 1], n - cut  # m: pieces counted from the one the lead ends in, as for a whole lead
            last = (
                not _named(piece)
                and not glued[n - 1]
                and (_random_like(piece) or (alone[n - 1] and (m > 2 or len(piece) <= 4)) or (m > 2 and len(piece) <= 3))
            )
            # a fixed length: its last piece as above or the key begun on the lead's line, and not every piece after the
            # lead's a word (``AKIAEXAMPLE\nERROR\nDEBUG``, ``glpat-\n0x7ff3a012d840\nreturn``)
            if fixed:
                lead = _LEADS[i].match(key)
                body = len(parts[0]) - (lead.end() if lead else 0)  # characters on the lead's line after it
                ok = _random_like(piece) or body >= 2 or (n > 3 and alone[n - 1])  # (a lead alone on its line: more)
                return n if ok and any(_random_like(p) for p in parts[1:n]) else 0
            if last:
                best = n
        elif len(key) > 120 and fixed:
            break
    return best if best and _head_random(parts[0], i) else 0


def _named(piece: str) -> bool:
    """A piece that reads as a word or a name (``HistGradientBoostingClassifier2``); capitals alone may be a key's."""
    return _NAME.fullmatch(piece) is not None


def _random_like(piece: str) -> bool:
    return _WORDLIKE.fullmatch(piece) is None


def _head_random(head: str, i: int) -> bool:
    """A bare ``sk-`` is read only before a body that does not read as a word (``sk-learn``)."""
    if _FORMATS[i][0] != "sk-":
        return True
    return len(head) >= 9 and _random_like(head[3:])
