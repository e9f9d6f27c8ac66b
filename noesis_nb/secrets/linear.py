"""Linear-time forms of the detect-secrets patterns that backtrack quadratically on adversarial text.

Every event, tool output and foreign frame passes through ``find_in_text``: a pattern that retries a long
scan from every start (``secret_secret_…``, ``sk-sk-…``) would freeze the kernel for minutes. Each form
below finds exactly what the original finds (a differential test holds them to that):

- keyword detector: ``(password|…)\\w*…`` tried from every keyword inside one word scans to the word's end
  each time, and ``\\w*`` can give nothing back that the rest could use (it is followed by a quote, space,
  ``:``, ``=`` or a bounded ``[^\\s]{0,50}?``). So only the first keyword of each word is tried, atomically,
  with a possessive ``\\w*+``, and looked for only at the places just before a literal (``_match_word``).
  The no-op lookahead ``(?=[^\\v'"]*)`` of its value part, a scan to the next
  quote from every attempt, is dropped (``(?=\\w+)`` is kept as ``(?=\\w)``).
- keyword comparison ``'value' == password``: a value opened by a backtick may hold backticks, so from every
  backtick of a long stretch the original scans the stretch (Markdown with inline code took seconds per 40 KB).
  Only the quote opening a stretch and its first backtick before a word character are tried (``_QuotedComparison``).
- keyword ``password `value`;``: a value opened by a backtick runs to the stretch's last backtick followed by
  ``;``, so from every keyword before a backtick of a long stretch with none the original scanned the stretch
  (``password `a `` repeated: 80 KB took 27 s). The backticks that can neither open nor close a value are
  searched as commas, which that pattern treats alike everywhere else (``_Unopened``).
- Cloudant, IBM and SoftLayer ``name = value``: the spaces around the sign are taken possessively (three
  quantifiers could share them in cubic many ways: 1,000 spaces took 8 s).
- OpenAI (``sk-…T3BlbkFJ…``), JWT (``eyJ….…``) and npm (``//….npmrc/:_authToken=``): a match lies inside
  one word (one line for npm), and the first start in it succeeds whenever a later one would. Only that
  first start is tried (``_FirstStart``, found by ``str.find``), and only in text holding a literal every
  match needs. The same for ``mysql … -p…`` and ``curl … -u …`` (``per_line``), which search the rest of their
  line from every start.
- ``widen_all``: each value found is taken to the end of its word once; many values are found in one pass
  over the text (``occurrences``), not by a search per value (32,000 distinct keys in 670 KB took 20 s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import _detect
from .gates import Gate, folded, places
from .occurrences import occurrences

__all__ = ["keyword_maps", "linear_plugins", "widen_all", "per_line", "KeywordFirst", "keyword_search"]


def keyword_maps(maps: Iterable[Mapping[re.Pattern[str], int]], *, gated: bool = True) -> tuple[dict[re.Pattern[str], int], ...]:
    """The keyword detector's pattern maps, each pattern in its linear form (same groups, same matches); ``gated``:
    a pattern opening with a keyword is tried only at the words holding one (``KeywordFirst``, the same matches)."""
    _detect.load()
    from detect_secrets.plugins import keyword

    prefix = keyword.DENYLIST_REGEX
    first_keyword = r"(?<!\w)(?>\w*?(" + "|".join(keyword.DENYLIST) + r"))\w*+"
    value = r"(?=[^\v\'\"]*)(?=\w+)"
    gated = gated and _literals_cover(keyword.DENYLIST) and _within_reach(keyword.DENYLIST)
    return tuple({_rewritten(p, prefix, first_keyword, value, gated): group for p, group in m.items()} for m in maps)


def _rewritten(pattern: re.Pattern[str], prefix: str, first_keyword: str, value: str, gated: bool = True) -> Any:
    text = pattern.pattern.replace(value, r"(?=\w)")
    opens = text.startswith(prefix)
    if opens:
        text = first_keyword + text[len(prefix) :]
    compiled = re.compile(text, pattern.flags)
    if text.startswith(_QUOTED_OPEN):
        return _QuotedComparison(compiled)
    if text.endswith(_CLOSED_BY_SEMICOLON):
        return _Unopened(compiled, gated and opens)
    return KeywordFirst(compiled) if gated and opens else compiled


# ``'value' == password``: the value is opened by a quote or a backtick and may hold backticks, so from every
# backtick of a long line the original scans the line (Markdown with inline code took seconds per 40 KB)
_QUOTED_OPEN = "([\\'\"`])((?=\\w)[^\\v\\'\\\"]*"
_SEGMENT_ENDS = re.compile("[\v'\"]")
_WORD = re.compile(r"\w")


class _QuotedComparison:
    """The comparison pattern's ``search`` (all the keyword detector uses) trying, in each stretch of text
    between quotes and line ends, the quote opening it and the first backtick followed by a word character:
    a value runs to no quote or line end, so when the first backtick of a stretch fails every later one
    fails too (it reaches fewer closing backticks, each judged the same). Found: the original's first match."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex, self.pattern, self.flags = regex, regex.pattern, regex.flags

    def search(self, text: str) -> re.Match[str] | None:
        begin = 0
        while begin <= len(text):
            opened = begin < len(text) and text[begin] in "'\""  # a stretch opened by a quote: it ends at the next
            end = _SEGMENT_ENDS.search(text, begin + 1 if opened else begin)
            stop = end.start() if end is not None else len(text)
            if opened and (found := self.regex.match(text, begin)) is not None:
                return found
            tick = text.find("`", begin, stop)
            while tick >= 0 and _WORD.match(text, tick + 1) is None:  # the value starts with a word character
                tick = text.find("`", tick + 1, stop)
            if tick >= 0 and (found := self.regex.match(text, tick)) is not None:
                return found
            if end is None:
                return None
            begin = stop if text[stop] in "'\"" else stop + 1
        return None


# ``password `value`;``: the value, opened by a quote or a backtick, ends at its stretch's last ``X`;``
_CLOSED_BY_SEMICOLON = "([\\'\"`])((?=\\w)[^\\v\\'\\\"]*[^\\v,\\'\\\"`])(\\2);"


class _Unopened:
    """The ``…`value`;`` pattern's ``search`` with each backtick after the last ``X`;`` of its stretch (``X`` not
    a comma or backtick) read as a comma: such a backtick opens no value (none can close it) and closes none,
    and elsewhere in the pattern (a keyword's ``[^\\s]``, a value's inside and last character) the two are
    alike. Each stretch is then scanned once, by the one value it opens. Found: the original's first match,
    its groups read from ``text``."""

    def __init__(self, regex: re.Pattern[str], gated: bool = False) -> None:
        self.regex, self.pattern, self.flags, self.gated = regex, regex.pattern, regex.flags, gated

    def search(self, text: str) -> Any:
        masked = _unopened_as_commas(text) if "`" in text else text
        found = keyword_search(self.regex, masked) if self.gated else self.regex.search(masked)
        return found if found is None or masked is text else _Found(found, text)


def _unopened_as_commas(text: str) -> str:
    """``text`` with the backticks after the last ``X`;`` of their stretch (between quotes and line ends) as commas."""
    parts, done = [], 0
    tick = text.find("`")
    while tick >= 0:
        end = _SEGMENT_ENDS.search(text, tick)
        stop = end.start() if end is not None else len(text)
        close = text.rfind("`;", tick, stop)
        while close > 0 and text[close - 1] in ",`\v'\"":  # ``X`` is in the stretch, not a comma or backtick
            close = text.rfind("`;", tick, close)
        keep = close + 1 if close > 0 else tick
        parts += [text[done:keep], text[keep:stop].replace("`", ",")]
        done, tick = stop, text.find("`", stop)
    return "".join(parts) + text[done:] if parts else text


class _Found:
    """A match found in a masked copy of ``text``, its groups read from ``text`` (the same spans)."""

    def __init__(self, match: re.Match[str], text: str) -> None:
        self.match, self.text = match, text

    def span(self, group: int = 0) -> tuple[int, int]:
        return self.match.span(group)

    def start(self, group: int = 0) -> int:
        return self.match.start(group)

    def end(self, group: int = 0) -> int:
        return self.match.end(group)

    def group(self, *groups: int) -> Any:
        found = tuple(self._text(g) for g in groups or (0,))
        return found[0] if len(found) == 1 else found

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(default if self.match.start(g) < 0 else self._text(g) for g in range(1, self.match.re.groups + 1))

    def _text(self, group: int) -> Any:
        start, end = self.match.span(group)
        return None if start < 0 else self.text[start:end]


# every keyword of the detector holds one of these (``api_?key``, ``db_?pass``, ``contraseña``; checked against its list
# when the maps are made): a pattern opening with a keyword matches only from the start of a word holding one
KEYWORD_LITERALS = ("key", "pass", "pwd", "secret", "contras")
_LITERAL = re.compile("|".join(KEYWORD_LITERALS), re.IGNORECASE)  # the detector's own case folding (``K``, ``ſ``)
_WORD_TAIL = re.compile(r"(?<!\w)\w*+\Z")  # searched up to a place: the start of the word it ends in
_WORD_REST = re.compile(r"\w*+")
# starts tried one by one before a text dense in keywords is left to the pattern's own search: this many, and one
# more per this many characters read (a start costs about what the pattern's search spends on that many)
_TRIED, _TRIED_PER = 256, 12


# every keyword is at most this long: one starts no further than this before the first literal of its word
_REACH = 16
_OPENING = r"(?<!\w)(?>\w*?("  # how ``keyword_maps`` opens a pattern: the keyword first in its word
_CLOSING = r"))\w*+"


def _within_reach(words: Iterable[str]) -> bool:
    """Whether every keyword (both forms of an optional ``_``) is at most ``_REACH`` characters long."""
    return all(len(w.replace("_?", "_")) <= _REACH for w in words)


def _literals_cover(words: Iterable[str]) -> bool:
    """Whether every keyword (both forms of an optional ``_``) holds one of ``KEYWORD_LITERALS``."""
    forms = [w.replace("_?", sep) for w in words for sep in ("", "_")]
    return all(any(lit in form.lower() for lit in KEYWORD_LITERALS) for form in forms)


class KeywordFirst:
    """A keyword pattern's ``search`` (all the keyword detector uses of it) tried only where a match can start.

    The pattern opens with ``(?<!\\w)(?>\\w*?(keyword))``: a match starts at the start of a word holding a keyword,
    and each keyword holds one of ``KEYWORD_LITERALS``. Those literals are found by ``str.find`` (a few passes at
    memory speed, where each pattern's own search tried every place of the text), and the pattern is tried at the
    start of each word holding one, in order: the first match is the one its search finds (``keyword_search``)."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex, self.pattern, self.flags = regex, regex.pattern, regex.flags

    def search(self, text: str) -> Any:
        return keyword_search(self.regex, text)


def _literal_finder(text: str) -> Any:
    """``next(pos)``: the first place at or after ``pos`` where a keyword literal starts (any case), or -1. Each
    literal's place is kept until passed, so a text is read once per literal however often it is asked."""
    lowered = folded(text)
    if lowered is None:  # places not kept by lowering: the pattern's case folding, by a pattern of the literals

        def by_pattern(pos: int) -> int:
            found = _LITERAL.search(text, pos)
            return -1 if found is None else found.start()

        return by_pattern
    return places(KEYWORD_LITERALS, lowered)


def _word_start(text: str, floor: int, at: int) -> int:
    """The start of the word (run of ``\\w``) holding ``text[at]``, known to start at or after ``floor``: looked for
    in a stretch before ``at`` that grows fourfold (a word is read a few times at most)."""
    reach = 64
    while True:
        low = max(floor, at - reach)
        found = _WORD_TAIL.search(text, low, at)
        if found is not None:
            return found.start()
        reach *= 4  # (``low == floor`` always finds it: the word starts there or later)


def keyword_search(regex: re.Pattern[str], text: str) -> Any:
    """``regex.search(text)`` for a pattern opening with ``(?<!\\w)(?>\\w*?(keyword))``: tried at the start of each word
    holding a keyword literal, in order; a word that fails is passed whole (every start in it is that one start).
    Past a budget of failed starts (a text of keywords) the pattern's own search goes on from the next one, which
    finds the same: no match starts before it. So it is never much slower than that search, and mostly far faster."""
    following = _literal_finder(text)
    tried = 0
    floor = 0  # every word holding a literal before this has been tried; a word starts here or later
    while (at := following(floor)) >= 0:
        start = _word_start(text, floor, at)
        tried += 1
        if tried > _TRIED + at // _TRIED_PER:
            return regex.search(text, start)
        rest = _WORD_REST.match(text, at)  # (``\w*+`` matches everywhere)
        end = rest.end() if rest is not None else at + 1
        found = _match_word(regex, text, (start, end), at, following)
        if found is not None:
            return found
        floor = end
    return None


def _match_word(regex: re.Pattern[str], text: str, word: tuple[int, int], at: int, following: Any) -> Any:
    """``regex.match(text, start)`` for the word ``start`` to ``end`` whose first keyword literal is at ``at``
    (``following`` gives the next). The pattern's lazy ``\\w*?(keyword)`` tries every keyword at every place from the
    word's start to its end: a long word (``AAAA…key…``) cost about a microsecond a character per pattern. A keyword
    holds a literal at most ``_REACH`` characters after its start, so only the places that close before a literal
    are tried, in order; the rest of the pattern is matched after the first keyword found: the same groups, and
    the match starts at ``start``, as the original's does."""
    forms = _word_forms(regex)
    start, end = word
    if forms is None:
        return regex.match(text, start)
    first, after = forms
    tried = start  # every place before this is tried
    while 0 <= at < end:
        for place in range(max(tried, at - _REACH), at + 1):
            if first.match(text, place, end) is not None:  # (a keyword is made of word characters: it lies in the word)
                found = after.match(text, place)
                return _Started(found, start) if found is not None else None
        tried = at + 1
        at = following(at + 1)
    return None


_FORMS: dict[re.Pattern[str], tuple[re.Pattern[str], re.Pattern[str]] | None] = {}


def _word_forms(regex: re.Pattern[str]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """For a pattern opening ``(?<!\\w)(?>\\w*?(keywords))\\w*+``: its keywords alone, and the pattern from its
    keyword on (``(?>(keywords))\\w*+…``, the same groups); None for any other."""
    if regex not in _FORMS:
        pattern, forms = regex.pattern, None
        close = pattern.find(_CLOSING)
        if pattern.startswith(_OPENING) and close > 0:
            keywords = pattern[len(_OPENING) : close]
            forms = (re.compile(keywords, regex.flags), re.compile("(?>(" + pattern[len(_OPENING) :], regex.flags))
        _FORMS[regex] = forms
    return _FORMS[regex]


class _Started:
    """A match of a pattern's rest, starting where the whole pattern's would (``start``): its groups as found."""

    def __init__(self, match: re.Match[str], start: int) -> None:
        self.match, self.first, self.re, self.string = match, start, match.re, match.string

    def span(self, group: int = 0) -> tuple[int, int]:
        return (self.first, self.match.end()) if group == 0 else self.match.span(group)

    def start(self, group: int = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int = 0) -> int:
        return self.match.end(group)

    def group(self, *groups: int) -> Any:
        found = tuple(self.string[self.first : self.match.end()] if g == 0 else self.match.group(g) for g in groups or (0,))
        return found[0] if len(found) == 1 else found

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return self.match.groups(default)


# a match of each starts with a literal and lies inside one word (one line for npm), and from the first
# start in it whenever from a later one; each also needs a literal, and text without it is not searched
_FIRST_START = {  # plugin: (its pattern as detect-secrets wrote it, the start, the scope, the literal needed)
    "OpenAIDetector": (r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", "sk-", r"[A-Za-z0-9_-]*", "T3BlbkFJ"),
    "JwtTokenDetector": (r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?", "eyJ", r"[A-Za-z0-9_=-]*", "."),
    "NpmDetector": (r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*", "//", r"[^\n]*", "/:_authToken="),
}


class _FirstStart:
    """A pattern's ``findall`` (what ``analyze_string`` uses of it) trying only the first start of each word:
    when it fails from one start, every later start in that word fails too, so the word is left there."""

    def __init__(self, pattern: re.Pattern[str], start: str, scope: str, needs: str) -> None:
        self.regex, self.pattern, self.start, self.scope, self.needs = pattern, pattern.pattern, start, re.compile(scope), needs

    def findall(self, text: str) -> list[Any]:
        found: list[Any] = []
        if self.needs not in text:
            return found
        at = text.find(self.start)
        while at >= 0:
            match = self.regex.match(text, at)
            if match is None:  # on to the next word: the scope (``…*``) matches from any position
                word = self.scope.match(text, at + 1)
                at = text.find(self.start, word.end() if word is not None else at + 1)
                continue
            groups = match.groups(default="")
            found.append(match.group() if not groups else groups[0] if len(groups) == 1 else groups)
            at = text.find(self.start, max(match.end(), at + 1))
        return found


# ``name = value`` in the assignment patterns (Cloudant, IBM, SoftLayer): the spaces around the sign can be
# split among three quantifiers in cubic many ways. The sign is followed by a quote or the value, never by
# a space, ``=``, ``:`` or ``>``, so taking the spaces possessively and the longest sign first matches the same
_SEPARATOR = "(?: *)(?:=|:|:=|=>| +|::)(?: *)"
_SEPARATOR_LINEAR = " *+(?:=>|:=|::|=|:|(?<= )) *+"


# the value patterns tried only before their literals (``gates.Gate``): plugin -> {index: (a piece of the pattern as
# written, the literals a match holds, how far after its start one starts: least, most, in any case)}. A keyword
# after an optional quote, bracket, name and ``api``/separators: its distance is their lengths' sum (least and most)
_KEYS = ("key", "pwd", "pass", "token")  # (key|pwd|password|pass|token)
_CLOUDANT = "(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)"
_IBM_IAM = "|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)"
_SOFTLAYER = "(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)"
_GATED_VALUES: dict[str, dict[int, tuple[str, tuple[str, ...], int, int, bool]]] = {
    # [ " (cloudant|cl|clou) _ api (key|pwd|pw|password|pass|token): 2-14 characters before the keyword
    "CloudantDetector": {
        0: (_CLOUDANT, ("key", "pw", "pass", "token"), 2, 14, True),
        1: (_CLOUDANT, ("key", "pw", "pass", "token"), 2, 14, True),
        2: ("(?:https?\\:\\/\\/)[\\w\\-]+\\:(", ("http",), 0, 0, True),  # the URL forms: from their scheme
        3: ("(?:https?\\:\\/\\/)[\\w\\-]+\\:(", ("http",), 0, 0, True),
    },
    # [ " ibm_cloud_iam (13, the longest name) _ api _ (key|…): 0-20
    "IbmCloudIamDetector": {0: (_IBM_IAM, _KEYS, 0, 20, True)},
    # [ " ibm_cos_hmac (12) _ secret: 0-15
    "IbmCosHmacDetector": {0: ("(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret", ("secret",), 0, 15, True)},
    # [ " (softlayer|sl) _ api _ (key|…): 2-16
    "SoftlayerDetector": {0: (_SOFTLAYER, _KEYS, 2, 16, True), 1: ("(?:http|https)://api.softlayer.com", ("http",), 0, 0, True)},
    "MailchimpDetector": {0: ("[0-9a-z]{32}-us[0-9]{1,2}", ("-us",), 32, 32, False)},
    # the URL forms, case-insensitive: from their scheme
    "SlackDetector": {1: ("https://hooks\\.slack\\.com/services/", ("https://hooks",), 0, 0, True)},
    # digits, then ``:`` 8-10 characters on; a letter, then ``.`` 24-26 on
    "TelegramBotTokenDetector": {0: ("\\d{8,10}:[0-9A-Za-z_-]{35}", (":",), 8, 10, False)},
    "DiscordBotTokenDetector": {0: ("[MNO][a-zA-Z\\d_-]{23,25}\\.", (".",), 24, 26, False)},
    "AWSKeyDetector": {1: ("aws.{0,20}?(?:key|", ("aws",), 0, 0, True)},
}


def linear_plugins(value_plugins: Iterable[Any], *, gated: bool = False) -> tuple[Any, ...]:
    """The value plugins, each pattern that backtracks quadratically or worse in its linear form (a
    per-instance ``denylist``: the plugin's own ``analyze_string`` and checks still run); ``gated``: the patterns
    of ``_GATED_VALUES`` tried only before their literals (``gates.Gate``, the same matches)."""
    plugins = tuple(value_plugins)
    for plugin in plugins:
        name = type(plugin).__name__
        patterns = [p.pattern for p in plugin.denylist]
        if name in _FIRST_START and patterns == [_FIRST_START[name][0]]:
            plugin.denylist = [_FirstStart(plugin.denylist[0], *_FIRST_START[name][1:])]
        elif any(_SEPARATOR in p for p in patterns):
            plugin.denylist = [re.compile(p.pattern.replace(_SEPARATOR, _SEPARATOR_LINEAR), p.flags) for p in plugin.denylist]
        gates = _GATED_VALUES.get(name, {}) if gated else {}
        if gates:
            plugin.denylist = [_gated(regex, gates.get(i)) for i, regex in enumerate(plugin.denylist)]
    return plugins


def _gated(regex: Any, gate: tuple[str, tuple[str, ...], int, int, bool] | None) -> Any:
    """``regex`` behind its gate, when it is the pattern the gate was written for (else as it is)."""
    if gate is None or not isinstance(regex, re.Pattern):
        return regex
    piece, literals, lo, hi, fold = gate
    if piece not in regex.pattern or (regex.flags & re.IGNORECASE and not fold):
        return regex
    return Gate(regex, literals, lo, hi, fold)


_RUN = re.compile("[A-Za-z0-9_-]+")
_SEARCHED_EACH = 64  # above this many distinct values, the text is read once for all of them


def widen_all(text: str, values: Iterable[str]) -> set[str]:
    """Each value taken to its real end (a token matched by its prefix and a fixed length, Stripe's 24
    characters): the longest of it followed by ``[A-Za-z0-9_-]+`` in ``text``, or itself.

    An occurrence reaches the end of its word, and the next one counted starts after that end (as
    ``re.finditer`` of ``value[A-Za-z0-9_-]+`` would). A few values are each searched for; many are found
    in one pass (``occurrences``), so thousands of distinct values do not each cost a search of the text,
    unless they overlap so densely that the pass would report more occurrences than the input has characters.
    """
    distinct = {v for v in values if v}
    longest = {v: v for v in distinct}
    if len(distinct) > _SEARCHED_EACH:
        resume = dict.fromkeys(distinct, 0)
        # values that are suffixes of each other, packed densely (``sk-sk-…``), occur k times per position:
        # past a budget linear in the input the pass stops, and each value is searched for as below
        budget = 2 * len(text)
        for at, value in occurrences(text, distinct):
            budget -= 1
            if budget < 0:
                longest = {v: v for v in distinct}
                break
            if at >= resume[value] and (end := _RUN.match(text, at + len(value))) is not None:
                if end.end() - at > len(longest[value]):
                    longest[value] = text[at : end.end()]
                resume[value] = end.end()
        else:
            return set(longest.values())
    for value in distinct:
        at = text.find(value)
        while at >= 0:
            end = _RUN.match(text, at + len(value))
            if end is not None:
                if end.end() - at > len(longest[value]):
                    longest[value] = text[at : end.end()]
                at = text.find(value, end.end())
            else:
                at = text.find(value, at + 1)
    return set(longest.values())


def per_line(pattern: re.Pattern[str], head: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern that starts with ``head`` and then searches the rest of its
    line lazily (``mysql … -pSECRET``, ``curl … -u user:SECRET``): when it fails from one start, it fails from
    every later start on that line too, so the line is left there instead of being searched again."""
    at = 0
    while (start := head.search(text, at)) is not None:
        match = pattern.match(text, start.start())
        if match is not None:
            yield match
            at = max(match.end(), start.start() + 1)
        else:
            newline = text.find("\n", start.start())
            at = len(text) if newline < 0 else newline
