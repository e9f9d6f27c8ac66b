"""Secrets inside one string, found by value: detect-secrets' plugins plus the shapes they lack.

detect-secrets (Yelp) supplies the token detectors (AWS, GitHub, GitLab, Slack, Stripe, Twilio,
SendGrid, npm, PyPI, OpenAI, JWT, Discord, Azure, Mailchimp, Square, Telegram, IBM, SoftLayer,
Cloudant), the URL-credential detector, the keyword detector and the Shannon entropy measure.
They are loaded on first use and run offline (``plugins``). Added here: key formats newer than its
plugins (GitHub fine-grained, Anthropic/OpenAI ``sk-``, Google, Hugging Face), Bearer values,
whole PEM private-key blocks, ``name=value`` / ``--name value`` / ``?name=value`` for secret-looking
names, unquoted high-entropy words (``randomness``: detect-secrets only measures quoted strings), and text read as
it shows once its disguises are undone (``disguise.plain``): without the invisible characters that
would split a secret (zero-width spaces, BOM, soft hyphen, the NULs of UTF-16 bytes stored as text),
with its character escapes decoded (``\\u0070assword=…``, a token spelled in ``\\uXXXX`` or ``&#x..;``),
percent-decoded, and a form body's or query's values decoded (``password=correct+horse``: ``+`` is a space there). A base64 word
is judged by what it encodes (``decoded``), not by its randomness.

``might_contain`` is the cheap test run on every event: it is True for any serialised text in
which ``find_in_text`` or a secret-looking key could find something (a property test holds it to that).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, unquote_plus

import orjson

from .decoded import basic_credentials, encoded_secrets
from .disguise import (
    ESCAPE,
    SHOWN_BYTES,
    folded,
    hidden,
    hides,
    maybe_disguised,
    percent_decoded,
    plain,
    reads_differently,
    unescape,
    written_end,
)
from .exact import exact
from .gates import Gate, forget
from .joined import chunk_texts
from .known import for_text
from .labels import HINT_WORDS, LABEL_HINT, LABEL_SAID, labelled_secrets
from .linear import per_line, widen_all
from .names import REDACTED_VALUE, is_secret_key, names_no_value, names_variable, stands_for, unwrapped
from .pairs import COMMAND_HINT, COMMAND_HINT_BYTES, command_passwords, named_values
from .plugins import plugins
from .prose import (
    PGPASS_HINT,
    PGPASS_HINT_BYTES,
    SAID_HINT,
    SHORT_SAID_HINT,
    pgpass_passwords,
    prose_passwords,
)
from .randomness import CLOUD_KEY_IN_ID, PROVIDER_ID, entropy_ok, ids_out_of_values, random_words, without_ids
from .url_parts import URL_QUERY, URL_USER, url_secrets
from .verdicts import LONG_TEXT, judged
from .wrapped import WRAP_LOWER, WRAP_MARKS, might_wrap, wrapped_keys

__all__ = [
    "find_in_text",
    "might_contain",
    "payload_might_contain",
    "flat_might_contain",
    "entropy_ok",
    "lists_joined",
    "chunk_runs",
]

# -- the prefilter -------------------------------------------------------------------------------
# ``%`` too: a word written percent-encoded (``%2B``) reads shorter decoded, where the randomness rule measures it
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-%"
# the bytes of the invisible characters' UTF-8 forms (C2 AD, E2 80 8B, EF BB BF, …; see ``disguise.hidden``) count as
# token characters: a token split by one is still one long word to the prefilter
# (and the control characters that show as nothing, ``disguise.CONTROL``; a letter with its accent or of another
# script drawn as a Latin one, ``ѕ`` or ``ś``, cuts the word here, but its reading, ``plain``, is judged too)
_HIDING_BYTES = bytes(range(0x80, 0xC0)) + b"\xc2\xcd\xd8\xe1\xe2\xef\x00" + bytes((*range(1, 9), *range(14, 28), 127))
_RUNS = bytes(0x61 if i in _TOKEN_CHARS or i in _HIDING_BYTES else 0x20 for i in range(256))
_LONG_RUN = b"a" * 20
# the short names that are secret as a word of their own (``pin``, ``otp``, ``pw``: not ``mapping``, ``shipping``),
# each starting with a letter and looking back after it (a pattern opening with a look-behind is tried at every place)
_SHORT_NAMES = rb"(?:pin(?<![a-z]pin)|pw(?<![a-z]pw)|otp(?<![a-z]otp)|[th]otp(?<![a-z][th]otp))(?![a-z])"
_KEYWORDS = re.compile(  # grouped by first letter: sre tries fewer branches per position
    rb"p(?:ass|wd|odman)|s(?:ecret|shpass)|token|key|auth|c(?:ookie|red|ontras|url)|bearer|eyj|xox|hooks\.slack|m(?:ysql|ariadb)"
    # the commands given a password by a flag of their own (``docker login -p``, ``redis-cli -a``, ``zip -P``, ``openssl -k``)
    rb"|docker|nerdctl|redis-cli|zip|openssl"
    # a URL's password, or (``url_parts``) its user name or query holding a credential; a URL written percent-encoded.
    # The password may hold a quote (``:pa"ss@``, JSON ``:pa\"ss@``), as the URL detector reads it
    rb"|://(?:[^\s\"/@:]*+(?::[^\s/@]*|" + URL_USER + rb")@|" + URL_QUERY + rb")|%3a%2f%2f"
)


# every keyword above holds one of these, each starting at one of its rarer letters: a text with none of
# them has no keyword, and most texts are cleared after trying far fewer positions (a test holds it to that).
# The last two mark a character escape (``\u0070``, ``\x70``, ``\160``, ``\N{…}``, ``\/``, ``&#x70;``): text holding one is
# also judged as it reads decoded (a keyword or token spelled in escapes holds no keyword as written)
# Each anchor starts at the keyword's rarest letter (``mysql`` at its ``q``, ``eyj`` at its ``j``, the letters before it
# checked looking back): the search tries a branch only where such a letter stands, about half the places of prose.
# ``%`` and two hex digits is a character escape too: ``%70assword=…`` reads ``password=…`` percent-decoded.
# The branches stand in the order their letters start words of prose, most often first (a search tries them in turn at
# each such letter); ``://`` is anchored at its second ``/``, looking back: ``:`` stands after every key of a JSON text.
_KEYWORD_ANCHORS = re.compile(
    rb"uth|c(?:ret|red|ontras|url|tl(?<=nerdctl))|p(?:ass|wd|odman|enssl)|b(?:earer|(?<=mariadb))|k(?:en|ey|ie|s\.slack|er)"
    rb"|j(?<=eyj)|xox|ql(?<=mysql)|zip|-cli(?<=redis-cli)"
    rb"|//(?<=://)|%[0-9a-f]{2}|\\(?:[ux0-3/]|n\{)|&#"
)
# a JSON key that is one of the short secret names (``"pin": …``, ``"otp": …``): too common inside words to be keywords
# (``shipping``, ``design``: the keyword search would run on most prose), they are looked for as whole keys only
_SHORT_KEY = re.compile(rb'"(?:[a-z0-9_.-]*[_.-])?(?:pin|pw|[th]?otp)(?:[_.-][a-z0-9_.-]*)?"\s*:')
# what a text naming no keyword holds when a rule may still read it, on lowered text: ``pairs.COMMAND_HINT_BYTES`` (a
# command given a password by a flag of its own: ``sudo``, ``net user``, ``sqlplus``, ``expdp``, ``dgmgrl``, ``rman``,
# ``jdbc:oracle``, ``ldap``, ``7z``, ``psexec``, ``rar``), ``prose.SHORT_SAID_HINT_BYTES`` (``my pw is X``) and
# ``labels.HINT_WORDS`` (``Kennwort``, ``sqlcmd``, ``пароль``, …) in one search, each anchored as the keyword anchors are:
# at a rarer letter, its next letters tested first, then what stands before it looking back (a leading ``\b`` or
# ``(?i)``, or a look-behind first, has the search try a branch at every place of a text: the three searches cost ~5
# times this one on a short event). ``net  user``'s blanks are looked back over up to two, and any run of three before
# ``user`` passes. Words of other scripts start at their first (non-ASCII) byte. A test holds this to find whatever
# those found
_FOREIGN_HINTS = sorted(w.encode() for w in HINT_WORDS if not w[0].isascii())  # (not ``hasło``, ``lösenord``)
# each of them at its first byte, the words sharing one in one branch (a branch each costs a test at every candidate
# place of every text; and a branch opening with a set of bytes, not one, has the search try every place)
_FOREIGN = b"|".join(
    re.escape(bytes([first])) + b"(?:" + b"|".join(re.escape(w[1:]) for w in _FOREIGN_HINTS if w[0] == first) + b")"
    for first in sorted({w[0] for w in _FOREIGN_HINTS})
)
# ``pw`` naming a value as a word of a name (``pw=X``, ``user_pw=X``, ``db_pw: X``, ``DB_PW="X"``, ``-pw X``, PuTTY's
# ``plink -pw X``), read past the ``pw`` of ``my pw is X``: the name may go on in name characters (``pw2``, ``pw_new``;
# ``is_secret_key`` judges it), then a separator, or a flag's blank. Too common inside words for a keyword (``pwned``,
# ``mapping``), it is taken only so (an ordinary ``pw`` stands before no ``=``/``:``)
_PW_STARTS = rb"(?:(?<![a-z]pw)|(?<=\\[nrt]pw))"  # a word starts there, after a JSON escape too (``\npw = X``)
_PW_NAMED = rb"""(?![a-z])[a-z0-9_.-]{0,40}+\\?["']?[ \t]*[=:]|(?<=-pw)[ \t]"""
# a password flag's ``-p`` after a blank (an escaped tab in JSON text) or opening a string (an argv's word): the
# commands ``labels.FLAGGED_HINT_WORDS`` names are read only beside it (``mongodump -u u -p X``, ``twine upload -p X``,
# ``helm registry login -p X``), so they are looked for there, not at their words' common letters
_FLAG_P = rb'(?<=[\x20\t"]-p)|(?<=\\t-p)'
_HINTS = (
    rb"s(?:enha|alasana|ifre|lo(?:(?<=haslo)|(?<=[hg]eslo))|enord(?<=losenord)|h(?<=mongosh))"
    rb"|r(?:man\b(?<!\wrman)|ar\b(?:(?<!\wrar)|(?<=unrar)(?<!\wunrar)))|d(?:ap(?<=ldap)|p(?:(?<=mdp)|(?<=impdp)|(?<=expdp))|gmgrl)"
    rb"|c(?:ontrase|lave|le\x20api|h(?:twoord(?<=wachtwoord)|luessel(?<=schluessel))|urestring(?<=securestring))"
    rb"|u(?:do(?<=sudo)\b|ser\s(?:(?<=net\suser\s)|(?<=net\s\suser\s)|(?<=net\.exe\suser\s)|(?<=net\.exe\s\suser\s)"
    rb"|(?<=\s\s\suser\s))|th(?:\x20(?<=auth\x20)|(?<=masterauth))|lt(?<=vault))"
    rb"|p(?:w"
    + _PW_STARTS
    + rb"(?:d?[ \t]+(?:is|was)[ \t]|"
    + _PW_NAMED
    + rb")|aro(?:l|ol)|cclient(?<=rpcclient)|"
    + _FLAG_P
    + rb")|b(?:cp\x20|client(?<=smbclient))"
    rb"|fied(?<=identified)|k(?:ennwort|ode(?<=adgangskode)|en(?<=with-token)|ata\x20(?:sandi|laluan))|xec(?<=psexec)"
    rb"|jdbc:oracle"
    rb"|z(?:(?<=\b7z)a?\b|\x20login(?<=az\x20login)|inka(?<=lozinka)|(?<=jelsz))|q(?:l(?<=sql)(?:plus|ldr|cmd)|uirepass(?<=requirepass))"
    rb"|\xc5\x82(?<=has\xc5\x82)o|\xc3\xb6(?<=l\xc3\xb6)senord|" + _FOREIGN
)
_HINT = re.compile(_HINTS)


def might_contain(blob: bytes) -> bool:
    """Cheap test on serialised text (JSON bytes): False means no detector can find a secret in it."""
    if _might_contain(blob):
        return True
    joined = lists_joined(blob)
    return joined is not None and _might_contain(joined)


_ADJACENT = b'","'
# a run of adjacent strings in a list: after ``[`` or ``,``, and followed by ``]`` or ``,`` (a key is followed by ``:``)
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRING_RUN = re.compile(rb"[\[,](" + _STRING + rb"(?:," + _STRING + rb")+)(?=[\],])")


def lists_joined(blob: bytes) -> bytes | None:
    """The runs of adjacent strings of the lists in the JSON text, each joined (a secret split across the
    strings of a list is read joined, see ``joined``); None when there are none."""
    if blob.find(_ADJACENT) < 0:
        return None
    runs = [m.group(1).replace(_ADJACENT, b"") for m in _STRING_RUN.finditer(blob)]
    return b" ".join(runs) if runs else None


def _might_contain(blob: bytes) -> bool:
    if blob.translate(_RUNS).find(_LONG_RUN) >= 0 or blob.find(b"Q~") >= 0:  # an Entra secret's ``~`` and ``.`` cut it up
        return True
    if might_wrap(blob):  # a key's lead before a line break: the key may go on on the next line
        return True
    lowered = blob.lower()
    anchored = _KEYWORD_ANCHORS.search(lowered) is not None
    if anchored and _KEYWORDS.search(lowered) is not None:
        return True
    if _SHORT_KEY.search(lowered) is not None:
        return True
    if PGPASS_HINT_BYTES.search(blob) is not None:  # a ``.pgpass`` line names no keyword (``prose``)
        return True
    if _HINT.search(lowered) is not None:  # ``net user NAME X``, ``my pw is X``, ``Kennwort: X`` name none
        return True
    if not anchored and blob.isascii() and not blob.translate(None, SHOWN_BYTES):
        return False
    # an escape or an invisible character may hide a keyword or a token: the text as it reads is judged too
    text = blob.decode("utf-8", "replace")
    read = plain(text)
    if read != text and _might_contain(read.encode("utf-8", "replace")):
        return True
    return _percent_might_contain(text, lambda reading: _might_contain(reading.encode("utf-8", "replace")))


def _percent_might_contain(text: str, judge: Any) -> bool:
    """Whether ``text`` read percent-decoded (``%70assword=…``, as ``find_in_text`` reads it too) may hold a secret."""
    if "%" not in text or _PERCENT.search(text) is None:
        return False
    reading = unquote(text, errors="replace")
    return reading != text and bool(judge(reading))


def _hides(blob: bytes) -> bool:
    """Whether non-ASCII serialised text may hold an invisible character (one may split a keyword) or one read as
    another (``ｐａｓｓｗｏｒｄ``); False means it holds neither."""
    return reads_differently(blob.decode("utf-8", "replace"))


KEYWORDS_STR = _KEYWORDS_STR = re.compile(_KEYWORDS.pattern.decode())  # the keywords, in text
# besides letters, every name-based or format rule needs one of these in the text (``name=value``,
# ``--name value``, ``a:b@host``, ``eyJ….``, quotes); without them only "Bearer <token>" can match
_PUNCT = re.compile("[" + re.escape("=:-'\"(;.`/@\\,%") + "]")  # %: ``password%3D…``, percent-encoded
_KEY_VERDICTS: dict[Any, tuple[bool, bool]] = {}  # key -> (keyword in its name, secret-named)
_NAMED_PLAINLY: set[str] = set()  # the keys cached there that are not secret-named: a payload's keys in one test
_UNDER_KEY = re.compile(rb'":[{\[]')  # ``":{`` or ``":[``: an object or a list as a key's value


def payload_might_contain(payload: Mapping[str, Any], blob: bytes) -> bool:
    """``might_contain(blob)`` for a payload and its JSON bytes, faster for flat payloads of plain text
    (the event hot path): keys are judged once each, numbers only by their key, and text by itself
    (a long key such as ``cache_write_input_tokens`` is not a random word: the detectors read values)."""
    # (``bytes.find`` throughout, not ``in``: ``in`` on bytes first tries the needle as an int, and pays for that
    # exception; a third of the cost of a short event's screen went to four such tests)
    runs = blob.translate(_RUNS).find(_LONG_RUN) >= 0  # no long word anywhere: no value needs the per-value test
    lowered = blob.lower()
    plain_ascii = blob.isascii()
    if (
        not runs
        # a keyword's anchor, a hint (``net user NAME X``, ``my pw is X``, ``Kennwort: X``) or a list of records
        and (_ASCII_ANCHORS_HINTS_OR_CHUNKS if plain_ascii else _ANCHORS_HINTS_OR_CHUNKS).search(lowered) is None
        # a ``.pgpass`` line names no keyword (``prose``): its 4 colons come beside each key's one
        and (blob.count(b":") < len(payload) + 4 or PGPASS_HINT_BYTES.search(blob) is None)
        # ``_short_keyed``'s answer without its call in the common case, a flat payload of keys judged before
        and not (
            (_UNDER_KEY.search(lowered) is not None or not _NAMED_PLAINLY.issuperset(payload)) and _short_keyed(payload, lowered)
        )
        and (plain_ascii or not _hides(blob))
        # (no call on the event path: a mark before a break, or after one, a lead's rest, is what ``might_wrap`` needs)
        and (
            ((marks := blob.translate(WRAP_MARKS, WRAP_LOWER)).find(b"X\\") < 0 and marks.find(b"\\X") < 0)
            or not might_wrap(blob)
        )
    ):
        # ``_might_contain(blob)`` is False: no detector can find anything in any key or value, and every
        # secret-looking name holds a keyword (a test keeps ``is_secret_key`` to that), unless an escape
        # (an anchor) or an invisible character splits it; strings of a list may hold one only joined, and
        # there is no list of records (``},{``) whose texts may hold one joined
        if blob.find(_ADJACENT) < 0:
            return False
        joined = lists_joined(blob)
        return joined is not None and _might_contain(joined)
    found = flat_might_contain(payload)
    if found is None:  # nested data: the whole-text test
        return might_contain(blob) or (blob.find(_CHUNKS) >= 0 and _chunks_might_contain(payload))
    return found


def _short_keyed(payload: Mapping[str, Any], lowered: bytes) -> bool:
    """Whether a key of the payload may be one of the short secret names (``pin``, ``otp``): a flat payload's keys
    by their cached verdicts (the pattern over its JSON cost a third of the screen of a short event), any other
    by the pattern."""
    if _UNDER_KEY.search(lowered) is not None:  # a container under a key: its keys are in the text only
        return _SHORT_KEY.search(lowered) is not None
    if _NAMED_PLAINLY.issuperset(payload):  # every key judged before, none secret-named (the loop's answer, in C)
        return False
    for key in payload:
        verdict = _KEY_VERDICTS.get(key)
        if verdict is None:
            verdict = _key_verdict(key)
            if verdict is None:  # not text, or text that needs the detectors itself
                return True
        if verdict[1]:
            return True
    return False


def _key_verdict(key: Any) -> tuple[bool, bool] | None:
    """(a keyword in its name, secret-named) for a text key, cached; None for a key that is no text or is text that
    needs the detectors itself (a token used as a name: not cached)."""
    if type(key) is not str or _text_might_contain(key):
        return None
    if len(_KEY_VERDICTS) > 4096:
        _KEY_VERDICTS.clear()
        _NAMED_PLAINLY.clear()
    secret = is_secret_key(key)  # (a short name, ``pin``, holds no keyword)
    verdict = _KEY_VERDICTS[key] = (secret or _KEYWORDS_STR.search(plain(key).lower()) is not None, secret)
    if not secret:
        _NAMED_PLAINLY.add(key)
    return verdict


_CONTAINERS = (dict, list, tuple)
_CHUNKS = b"},{"  # a list of records: maybe streamed chunks, whose texts are read joined (``joined.chunk_texts``)
# the anchors, the hints (``_HINT``) and ``_CHUNKS`` in one search (one more test in the hot path would cost as much as
# the search), ``_CHUNKS`` anchored at its ``{`` looking back: ``}`` ends every JSON object, and each payload's text is
# one. The branches of anchors and hints starting at one letter are merged (``contras`` holds ``contrase``, ``uth``
# ``auth ``, ``en`` ``with-token``): a place holding one of the letters is tried branch by branch, each branch more a
# test there. A test holds it to find what both find
_ASCII_BRANCHES = (
    rb"s(?:enha|alasana|ifre|lo(?:(?<=haslo)|(?<=[hg]eslo))|enord(?<=losenord)|h(?<=mongosh))"
    rb"|r(?:man\b(?<!\wrman)|ar\b(?:(?<!\wrar)|(?<=unrar)(?<!\wunrar)))"
    rb"|d(?:ap(?<=ldap)|p(?:(?<=mdp)|(?<=impdp)|(?<=expdp))|gmgrl|b(?<=mariadb))"
    rb"|c(?:ret|red|ontras|url|tl(?<=nerdctl)|lave|le\x20api|h(?:twoord(?<=wachtwoord)|luessel(?<=schluessel))"
    rb"|urestring(?<=securestring))"
    rb"|u(?:th|do(?<=sudo)\b|ser\s(?:(?<=net\suser\s)|(?<=net\s\suser\s)|(?<=net\.exe\suser\s)"
    rb"|(?<=net\.exe\s\suser\s)|(?<=\s\s\suser\s))|lt(?<=vault))"
    rb"|p(?:ass|wd|odman|enssl|w"
    + _PW_STARTS
    + rb"(?:d?[ \t]+(?:is|was)[ \t]|"
    + _PW_NAMED
    + rb")|aro(?:l|ol)|cclient(?<=rpcclient)|"
    + _FLAG_P
    + rb")"
    rb"|b(?:earer|cp\x20|client(?<=smbclient))|fied(?<=identified)"
    rb"|k(?:en|ey|ie|s\.slack|er|ennwort|ode(?<=adgangskode)|ata\x20(?:sandi|laluan))"
    rb"|x(?:ox|ec(?<=psexec))|j(?:(?<=eyj)|dbc:oracle)|q(?:l(?:(?<=mysql)|(?<=sql)(?:plus|ldr|cmd))|uirepass(?<=requirepass))"
    rb"|z(?:ip|(?<=\b7z)a?\b|\x20login(?<=az\x20login)|inka(?<=lozinka)|(?<=jelsz))"
    rb"|-cli(?<=redis-cli)|//(?<=://)|%[0-9a-f]{2}|\\(?:[ux0-3/]|n\{)|&#|\{(?<=\},\{)"
)
_ANCHORS_HINTS_OR_CHUNKS = re.compile(_ASCII_BRANCHES + rb"|\xc5\x82(?<=has\xc5\x82)o|\xc3\xb6(?<=l\xc3\xb6)senord|" + _FOREIGN)
# the same search for ASCII text (most events'): the branches opening at a byte past ASCII cannot match there, and each
# is a test at every place the search tries; without them the search takes about half the time (a test holds both to
# find the same in ASCII text, and the branches left out to open past ASCII)
_ASCII_ANCHORS_HINTS_OR_CHUNKS = re.compile(_ASCII_BRANCHES)


def _chunks_might_contain(payload: Any) -> bool:
    """Whether the texts of a list of streamed chunk records anywhere in ``payload``, joined, may hold a secret."""
    return any(run is None or _might_contain(run) for run in chunk_runs(payload))


def chunk_runs(payload: Any) -> Iterator[bytes | None]:
    """The texts of each list of streamed chunk records in ``payload`` joined, as JSON text (a record without
    one breaks the run with a line break); None last when ``payload`` is too large to walk (then assume all)."""
    stack, budget = [payload], 10_000
    while stack and budget > 0:
        value = stack.pop()
        budget -= 1
        if isinstance(value, dict):  # the payload passed ``orjson.dumps``: its containers are dicts, lists, tuples
            stack.extend(v for v in value.values() if isinstance(v, _CONTAINERS))
        elif isinstance(value, (list, tuple)):
            chunks = chunk_texts(value) if len(value) > 1 else None
            if chunks is not None:
                yield orjson.dumps("".join(c[1] if c is not None else "\n" for c in chunks))
            stack.extend(v for v in value if isinstance(v, _CONTAINERS))
    if stack:
        yield None


_INT_RANGE = range(-(2**63), 2**64)  # what JSON writers (orjson) hold exactly
_SURROGATE = re.compile("[\ud800-\udfff]")  # text that cannot be written as UTF-8


def flat_might_contain(payload: Mapping[str, Any]) -> bool | None:
    """``payload_might_contain`` judged value by value, without serialising the payload: for a flat
    payload (text keys; text, 64-bit ints, floats, bools and None as values). None for anything else
    (nested data, other types): such a payload needs its JSON text.

    It answers as the JSON test does: a value is judged only when it could hold what the whole-text
    prefilter looks for (a long word, a keyword), so a payload that test clears is cleared here too.
    False also means every value can be written as JSON; True may come before an unwritable value.
    """
    if _NAMED_PLAINLY.issuperset(payload):  # every key judged before and none secret-named (a model call's): a number,
        return _flat_plain_keys(payload)  # a bool or None is then cleared by its type alone
    for key, value in payload.items():
        if type(key) is not str:  # (a ``str`` subclass may pass for a key judged before: its own ``__eq__``)
            return None
        verdict = _KEY_VERDICTS.get(key)
        if verdict is None:
            verdict = _key_verdict(key)
            if verdict is None:  # a key is text too (a token used as a name): not cached, it ends the test
                return True
        if value is None:
            continue
        kind = type(value)
        if kind is str:
            if not value.isascii() and _SURROGATE.search(value) is not None:
                return None
            if verdict[0]:
                return True
            if key in _PROVIDER_ID_KEYS and PROVIDER_ID.fullmatch(value) and _no_cloud_key(value):
                continue  # a provider's own request or response id: its fixed shape holds no secret
            if len(value) > _CACHED_LEN:
                if _text_might_contain(value):
                    return True
                continue
            found = _TEXT_VERDICTS.get(value)
            if found is None:  # short texts repeat (model names, providers, stop reasons): judged once each
                if len(_TEXT_VERDICTS) > 8192:
                    _TEXT_VERDICTS.clear()
                found = _TEXT_VERDICTS[value] = _text_might_contain(value)
            if found:
                return True
        elif kind is int or kind is float or kind is bool:
            if kind is int and value not in _INT_RANGE:
                return None
            if verdict[1]:  # {"password": 1234}: the value of a secret-named key is redacted whatever it is
                return True
        else:
            return None
    return False


_TEXT_VERDICTS: dict[str, bool] = {}


def _flat_plain_keys(payload: Mapping[str, Any]) -> bool | None:
    """``flat_might_contain`` for a payload whose keys are all in ``_NAMED_PLAINLY`` (none secret-named): the same
    tests in the same order, without looking up the verdict of a key whose value is a number, a bool or None."""
    for key, value in payload.items():
        if type(key) is not str:  # a ``str`` subclass passes for a plain key by its own ``__eq__`` and ``__hash__``
            return None
        kind = type(value)
        if kind is str:
            if not value.isascii() and _SURROGATE.search(value) is not None:
                return None
            verdict = _KEY_VERDICTS.get(key)  # (None only if another thread emptied the cache just now)
            if verdict is None or verdict[0]:
                return True
            if (
                key in _PROVIDER_ID_KEYS
                and PROVIDER_ID.fullmatch(value)
                and ((value.find("A") < 0 and value.find("SK") < 0) or CLOUD_KEY_IN_ID.search(value) is None)
            ):  # a provider's own request or response id: its fixed shape holds no secret (``_no_cloud_key``, inline:
                continue  # a model call's two ids pass here at every captured call)
            if len(value) > _CACHED_LEN:
                if _text_might_contain(value):
                    return True
                continue
            found = _TEXT_VERDICTS.get(value)
            if found is None:
                if len(_TEXT_VERDICTS) > 8192:
                    _TEXT_VERDICTS.clear()
                found = _TEXT_VERDICTS[value] = _text_might_contain(value)
            if found:
                return True
        elif kind is int:
            if value not in _INT_RANGE:
                return None
        elif value is not None and kind is not float and kind is not bool:
            return None
    return False


def _text_might_contain(value: str) -> bool:
    """Whether one text value (under a name holding no keyword) needs the detectors."""
    if maybe_disguised(value):  # judged as it reads too: ``pass\u200bword=…``, ``\u0070assword=…``
        read = plain(value)
        if read != value and _text_might_contain(read):
            return True
    if _percent_might_contain(value, _text_might_contain):  # and percent-decoded: ``%70assword=…``
        return True
    if _LONG_RUN_STR.search(value) is not None or (
        not value.isascii() and _LONG_RUN in value.encode("utf-8", "replace").translate(_RUNS)  # as in the JSON test
    ):
        return len(value) > _CACHED_LEN or bool(find_in_text(value))  # a long text is screened whole when written
    if might_wrap(value):  # a key's lead before a line break
        return True
    if _PUNCT.search(value) is None:  # (``my password is X``: a name said in words, ``prose``)
        lowered = value.lower()
        return (
            "bearer" in lowered
            or ("pass" in lowered and SAID_HINT.search(lowered) is not None)
            or SHORT_SAID_HINT.search(lowered) is not None
            or _COMMAND_HINT_STR.search(value) is not None
            or LABEL_HINT.search(lowered) is not None
            or LABEL_SAID.search(lowered) is not None
        )
    return (
        _KEYWORDS_STR.search(value.lower()) is not None
        or PGPASS_HINT.search(value) is not None
        or _COMMAND_HINT_STR.search(value) is not None
        or _SHORT_NAMED.search(value.lower()) is not None
        or LABEL_HINT.search(value.lower()) is not None
    )


# ``my pw is X`` (``prose.SHORT_SAID_HINT``) or ``pw`` naming a value (``user_pw=X``, ``--pw X``), on lowered text
_SHORT_NAMED = re.compile(r"pw(?<![a-z]pw)(?:d?[ \t]+(?:is|was)[ \t]|" + _PW_NAMED.decode() + ")")


_COMMAND_HINT_STR = re.compile(COMMAND_HINT_BYTES.pattern.decode())


# request and response ids as OpenAI and Anthropic issue them (chatcmpl-…, resp_…, msg_…, req_…): random,
# so they would take the full detector pass on every captured call, and nothing but letters and digits
_PROVIDER_ID_KEYS = frozenset({"request_id", "response_id"})


def _no_cloud_key(value: str) -> bool:
    """No key of the formats made of letters and digits in an id (``CLOUD_KEY_IN_ID``): each starts as a branch of
    ``ALNUM_TOKEN`` does, with ``A`` or ``SK``, so an id holding neither is told by two substring tests, without the
    pattern; a start too near the id's end for a key to follow (a random id's ``…SKVvx8``) is none, and the id is not
    judged by every detector at each call that returns one. (``_flat_plain_keys`` makes these tests inline.)"""
    if value.find("A") < 0 and value.find("SK") < 0:
        return True
    return CLOUD_KEY_IN_ID.search(value) is None


_LONG_RUN_STR = re.compile("[" + re.escape(_TOKEN_CHARS.decode()) + "]{" + str(len(_LONG_RUN)) + "}")


# -- detectors -----------------------------------------------------------------------------------
_FLAG_VALUE = r"""(?:"([^"\n]+)"|'([^'\n]+)'|([^\s'"]+))"""  # a flag's value, quoted (with its spaces) or a word
_EXTRA = [
    re.compile(p)
    for p in (
        r"github_pat_[A-Za-z0-9_]{22,255}",  # GitHub fine-grained PAT
        # Microsoft Entra (Azure AD) client secret: three characters, a digit, ``Q~``, then 31-34 more
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        r"gh[pousr]_[A-Za-z0-9]{30,255}",  # GitHub tokens of other lengths than 36
        # Anthropic, OpenAI: a key of a named kind (sk-proj-…) is one wherever it is, glued to a word too
        r"sk-(?:ant-|proj-|svcacct-|admin-)[A-Za-z0-9_-]{20,}",
        # a bare sk-… only where a word starts: a word ending in "sk" (``task-<hex>``, ``disk-…``) is an id, not a
        # key; after an escape of JSON or a string (``\nsk-…``, ``\u003esk-…``) a word starts
        r"(?:(?<![A-Za-z0-9])|(?<=\\[a-z])|(?<=\\u[0-9a-fA-F]{4}))sk-[A-Za-z0-9_-]{20,}",
        r"AIza[0-9A-Za-z_-]{35}",  # Google API key
        r"ya29\.[0-9A-Za-z_-]{20,}",  # Google OAuth access token
        r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
        r"npm_[A-Za-z0-9]{36}",  # npm (detect-secrets needs the .npmrc line)
        r"glpat-[A-Za-z0-9_-]{20,}",  # GitLab
        # URL credentials, also with an empty user; a password holding ``@`` runs to the last one before the host
        r"://[^\s/@:]*:([^\s/@]+(?:@[^\s/@\"'<>\\?#]+)*)@",
        r"xox[abposre]-[A-Za-z0-9-]{10,}",  # Slack tokens beyond detect-secrets' shape
        r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})",  # Authorization: Bearer <token>
        r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?!\s)([^\s'\"]+)",  # mysql -pSECRET
        r"(?i)\bsshpass\s+-p\s*([^\s'\"]+)",
        r"(?i)\bcurl\b[^\n]*?\s(?:-u|--user|-U|--proxy-user)[\s=]*+['\"]?[^\s:'\"]*:([^\s'\"]+)",  # curl -u user:SECRET
        # a command's own password flag, to the end of its command (``&&``, ``;``, ``|`` start another)
        r"(?i)\b(?:docker|podman|nerdctl)(?:\s+\S+){0,4}?\s+login\b[^\n;&|]*?\s-p(?:\s+|=)?" + _FLAG_VALUE,
        r"\bredis-cli\b[^\n;&|]*?\s(?:-a|--pass)\s+" + _FLAG_VALUE,
        r"\b(?:zip|unzip|zipcloak)\b[^\n;&|]*?\s-P\s*" + _FLAG_VALUE,
        r"(?i)\bopenssl\b[^\n;&|]*?\s-k\s+" + _FLAG_VALUE,
        r"(?i)-pass(?:in|out|word)?\s+['\"]?pass:([^\s'\"]+)",  # openssl -passin pass:SECRET
        r"(?i)\b(?:machine\s+\S+|default)\s+login\s+\S+(?:\s+account\s+\S+)?\s+password\s+(\S+)",  # .netrc
        r"(?i):_(?:authtoken|auth|password)[ \t]+['\"]?([^\s'\"]+)",  # npm config set //registry/:_authToken SECRET
    )
]
# the patterns that search the rest of their line from each start, by the start they need (see ``per_line``)
_LINE_HEADS = {
    _EXTRA[-10]: re.compile(r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb)\b"),
    _EXTRA[-8]: re.compile(r"(?i)\bcurl\b"),
    _EXTRA[-7]: re.compile(r"(?i)\b(?:docker|podman|nerdctl)\b"),
    _EXTRA[-6]: re.compile(r"\bredis-cli\b"),
    _EXTRA[-5]: re.compile(r"\b(?:zip|unzip|zipcloak)\b"),
    _EXTRA[-4]: re.compile(r"(?i)\bopenssl\b"),
}
# the patterns above the regex engine cannot skip ahead in (a look-behind, a word boundary or a case-insensitive
# literal opens them), tried only at their literals (``gates.Gate``): pattern's opening -> (literals, least and most
# characters from a match's start to one, in any case). ``unzip`` holds ``zip`` 2 characters on
_GATED = {
    r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~": (("Q~",), 4, 4, False),
    r"(?:(?<![A-Za-z0-9])|(?<=\\[a-z])|(?<=\\u[0-9a-fA-F]{4}))sk-": (("sk-",), 0, 0, False),
    r"(?i)\bbearer\s": (("bearer",), 0, 0, True),
    r"(?i)\bsshpass\s": (("sshpass",), 0, 0, True),
    r"(?i)-pass(?:in|out|word)?\s": (("-pass",), 0, 0, True),
    r"(?i)\b(?:machine\s+\S+|default)\s": (("machine", "default"), 0, 0, True),
    r"(?i):_(?:authtoken|auth|password)": ((":_",), 0, 0, False),
    r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb)\b": (("mysql", "mariadb"), 0, 0, True),
    r"(?i)\bcurl\b": (("curl",), 0, 0, True),
    r"(?i)\b(?:docker|podman|nerdctl)\b": (("docker", "podman", "nerdctl"), 0, 0, True),
    r"\bredis-cli\b": (("redis-cli",), 0, 0, False),
    r"\b(?:zip|unzip|zipcloak)\b": (("zip",), 0, 2, False),
    r"(?i)\bopenssl\b": (("openssl",), 0, 0, True),
}
_CURL_HEAD = _LINE_HEADS[_EXTRA[-8]]
_GATES: dict[Any, Any] = {
    p: Gate(p, *gate)
    for p in (*_EXTRA, *_LINE_HEADS.values())
    for opening, gate in _GATED.items()
    if p.pattern.startswith(opening)
}
_BEARER = next(p for p in _EXTRA if "bearer" in p.pattern)
# a password a login reads from its standard input, echoed into it (``echo X | docker login --password-stdin``) or
# given as a here-string (``docker login … --password-stdin <<< X``); read by ``per_line`` from each head, in a text
# holding ``--password-stdin``, and kept when its command is a ``login``
_LOGIN = r"(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|cosign)\b[^\n;&|]*?--password-stdin"
_STDIN_PASSWORD = {
    re.compile(
        r"\b(?:echo(?:\s+-[ne]+)?|printf(?:\s+['\"]?%s['\"]?)?)\s+" + _FLAG_VALUE + r"\s*\|\s*(?:sudo\s+)?" + _LOGIN
    ): re.compile(r"\b(?:echo|printf)\b"),
    re.compile(r"--password-stdin[^\n;&|<]*<<<\s*" + _FLAG_VALUE): re.compile("--password-stdin"),
}
# a command continued on the next line (``docker login \`` then `` -p X``) is read joined, as the shell reads it
_CONTINUED = re.compile(r"\\\r?\n[ \t]*")
# more vendors' key formats, found by their prefix in tool output too (where random words are kept); read in the
# text as given: a key may end in a UUID (Langfuse's ``sk-lf-<uuid>``), which ``without_ids`` blanks
_VENDOR_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"xapp-\d-[A-Za-z0-9-]{20,}|do[opr]_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dapi[a-f0-9]{32}(?:-\d+)?"
    r"|pul-[a-f0-9]{40}|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}|e2b_[a-f0-9]{40}|sbp_[a-f0-9]{40}|fc-[a-f0-9]{32}"
    r"|rubygems_[a-f0-9]{48}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|sk-lf-[0-9a-f-]{36}|key-[a-f0-9]{32}|hv[sb]\.[A-Za-z0-9_-]{24,}"
    r"|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}|dp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9._-]{40,}|tvly-[A-Za-z0-9-]{32,}"
    r"|lin_api_[A-Za-z0-9]{40}|gsk_[A-Za-z0-9]{48,}|r8_[A-Za-z0-9]{37}|xai-[A-Za-z0-9]{60,}|pplx-[A-Za-z0-9]{48}"
    r"|nvapi-[A-Za-z0-9_-]{60,}|figd_[A-Za-z0-9_-]{40,}|sntry[su]_[A-Za-z0-9+/=_-]{40,}|[sr]k_(?:live|test)_[A-Za-z0-9]{20,}"
    r"|whsec_[A-Za-z0-9+/=]{24,}|AGE-SECRET-KEY-1[0-9A-Z]{58}|tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"
    r"|gl(?:ptt|dt|rt|cbt|imt|ft|oas|soat|agent)-[A-Za-z0-9_-]{20,}|jina_[A-Za-z0-9]{40,}|fw_[A-Za-z0-9]{24,}"
    # Atlassian (Jira, Confluence, Bitbucket cloud); Heroku's, a UUID after its prefix too (ids are kept, not these);
    # Terraform Cloud's and Airtable's with their id parts (the whole token is the credential)
    r"|AT(?:ATT|CTT)3[A-Za-z0-9_=-]{40,}|HRKU-(?:AA[0-9A-Za-z_-]{58}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})"
    r"|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"
    r")(?![A-Za-z0-9_-])"
)
_PEM = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)
_PEM_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}")
_NAME_MAX = 81  # the longest name ``_ASSIGN`` reads: a first character and up to 80 more
# (``::`` is no separator: ``TestAuth::test_token`` names a test, ``Auth::token`` a member). A value may stand on
# the next line (YAML's ``password:\n  hunter2``), but a name there is a nested key, not the value of the one above
# (``auth:\n  token: X``: read as auth's value, ``token:`` hid the name and X was kept)
_NEXT_LINE = r"(?![ \t]*\r?\n[ \t]*[A-Za-z_][A-Za-z0-9_.-]*[ \t]*:)"
# a value stays on its name's line (``api_key = `` at a line's end and ``parses the file`` on the next: no value), but
# for the indented line under a ``name:`` (YAML, JSON laid out; blank lines before it): spaces or tabs around the sign
_SEPARATOR = r"[ \t]*(?:=[ \t]*|:(?!:)" + _NEXT_LINE + r"[ \t]*(?:(?:\r?\n[ \t]*)*\r?\n[ \t]+)?)"
# a value goes on past ``,``, ``;`` and ``&`` with more of it after (``DB_PASSWORD=Tr0ub4dor&3xyz``, ``pw=ab;cd``,
# ``password: a,b``: cut there, the rest was written in clear), and ends there before a blank, a quote, the end, another
# of them (``&&``) or a next ``name=``/``name:`` (``Password=X;Database=y``, ``user=x,password=X,uid=1000``, a form's
# ``a=1&b=2``); a closing ``) } ]`` is part of it before a letter or a digit only (``Pa(ss)w0rd``; ``f(password=X)``,
# ``{pw: X}`` end there). A quote ends it (``os.environ["KEY"]``, ``{'sha256'``: code; a quoted value is read whole by
# ``_quoted_values``). Inside a URL's query (a ``?`` or ``&`` before the name) ``&`` always ends it (``_assignments``)
_INSIDE = r"[,;&](?![\s\"',;&)}\]\\]|\Z|[A-Za-z_][A-Za-z0-9_.\[\]-]{0,80}[ \t]*[=:])|[)}\]](?=[A-Za-z0-9])"
# a quote between two letters or digits is part of the value (YAML's plain ``password: O'Brien2024``, ``DB_PASSWORD=
# Tr0ub'3xyz``, ``--password=a'b``, ``'Zq8\'Lm2'``; cut there, the rest was written in clear); one opening or closing a
# string (``["KEY"]``, ``"X",``, ``'X'}``) still ends it
_INNER_QUOTE = r"(?:(?<=[A-Za-z0-9])\\?|(?<=[A-Za-z0-9]\\))[\"'](?=[A-Za-z0-9])"
# letters around such a quote read as words (``password: it's complicated``, ``token: don't share``, ``O'Reilly``): no value
_QUOTED_WORD = re.compile(r"[A-Za-z]+(?:\\?[\"'][A-Za-z]+)+")
# (a value's run of plain characters is read possessively: the same match; read one by one through the alternation it
# cost half a microsecond a character, seconds for a JSON string holding a long word)
_ASSIGN = re.compile(  # name = value, name: value, "name": "value", -H 'Name: value', JSON in a string: \"name\": \"value\"
    rf"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{{0,{_NAME_MAX - 1}}})"
    r"\\?[\"']?"
    + _SEPARATOR
    + r"(?!\\[nrt])\\?[\"']?(?P<value>(?:[^\s\"',;&)}\]\\]++|\\(?![\"'])|"
    + _INSIDE
    + "|"
    + _INNER_QUOTE
    + r")+)"
)
# where a name may end: right after a name character, the separator ``_ASSIGN`` reads after a name, and all of it
_NAME_END = re.compile(r"(?<=[A-Za-z0-9_.-])\\?[\"']?" + _SEPARATOR + r"\\?[\"']?")


# runs of name characters long enough that trying a name at each of their places costs more than going from
# separator to separator (``_by_separators``)
_LONG_NAME_RUN = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{24,}")  # tried at run starts only


def _assign_matches(text: str) -> Iterator[re.Match[str]]:
    """``_ASSIGN.finditer(text)``. The pattern tries a name at every place, reading the rest of the place's run of
    name characters each time: cheap in prose and JSON (short runs), ~1.5 s a megabyte in a base64 blob. A text
    that is mostly long runs is read from separator to separator instead (the same matches)."""
    if len(text) < 4096 or 8 * sum(m.end() - m.start() for m in _LONG_NAME_RUN.finditer(text)) < len(text):
        return _ASSIGN.finditer(text)
    return _by_separators(text)


def _by_separators(text: str) -> Iterator[re.Match[str]]:
    """``_ASSIGN.finditer(text)`` found from the separators: a name ends where its run of name characters does,
    at a separator, so it starts at most ``_NAME_MAX`` characters before one (``_NAME_END``). Each is searched from there in
    the text cut two characters past the separator (the name, the separator and the value's first character lie
    there, and the one after it, which decides whether a leading backslash may be read), and the match read
    whole where it starts."""
    pos = 0
    for sep in _NAME_END.finditer(text):
        lo = max(pos, sep.start() - _NAME_MAX)
        if lo >= sep.start():  # within the value of the match before
            continue
        m = _ASSIGN.search(text, lo, sep.end() + 2)
        if m is None:
            continue
        whole = _ASSIGN.match(text, m.start())  # what matched in the cut text matches whole from there too
        if whole is None:  # never so (a generated test); were it, the plain search from here gives the answer
            yield from _ASSIGN.finditer(text, m.start())
            return
        yield whole
        pos = whole.end()


_QUERY = re.compile(  # ?access_token=value&… (a URL is one word to ``_ASSIGN``: its parameters are read here)
    r"[?&;](?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})=(?P<value>[^\s\"'&#]+)"
)
_FLAG = re.compile(  # --name value, -name value (command lines written out as text)
    r"(?<![\w-])--?(?P<name>[A-Za-z][A-Za-z0-9_-]{0,80})[ \t]+[\"']?(?P<value>[^\s\"'-](?:[^\s\"']++|" + _INNER_QUOTE + r")*)"
)
_SCHEMES = {"bearer", "basic", "token", "digest", "apikey", "api-key", "key"}


def _plausible(value: str, least: int = 4) -> bool:
    v = value.strip()
    return (
        len(v) >= least
        and not names_no_value(v)
        and not names_variable(v)
        and "REDACTED" not in v
        and not v.startswith(("<", "%("))
        and not (v[:1] == "$" and stands_for(v))  # ``$DB_PASSWORD``, ``${VAR}``: not ``$uperS3cret99``
        and not set(v) <= {"*", "x", "X", ".", "-", "#"}
    )


_NOT_A_SECRET = re.compile(r"(?i)[a-z][a-z0-9+.-]*://[^@\s]*$|~?/|\.\.?/")  # a plain URL or a path


# code giving a secret-looking name its value from a call or a lookup, cut where a value ends (at a quote, ``)`` or
# ``,``): ``os.environ[``, ``self.get_token(``, ``getpass.getpass(``, ``bcrypt.hashpw(pw``. Taken as secrets, each was
# hidden in every later text of the run (the code the agent wrote or read, its answer)
_CODE_VALUE = re.compile(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*[(\[]|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\(\w+"
    # a PowerShell cmdlet (``$pw = ConvertTo-SecureString …``, ``$token = Get-Secret …``)
    r"|(?:Get|Set|New|Add|Remove|Read|Write|Import|Export|Invoke|Select|Test|Start|Stop|Out|ConvertTo|ConvertFrom|Unprotect"
    r"|Protect)-[A-Z][A-Za-z]+"
)


def _assigned(value: str) -> bool:
    """A value given to a secret-looking name: plausible, and not a path, a URL without credentials or code."""
    return _plausible(value) and not _NOT_A_SECRET.match(value) and not _CODE_VALUE.fullmatch(value)


# (where ``_ASSIGN`` ends a value: ``password=Tr0ub4dor&3xyzQ`` is one value, ``password=X&next=1`` ends at ``&``)
_TRIMMED = re.compile(r"(?:[^\s,;&'\"`)\]}]++|" + _INSIDE + "|" + _INNER_QUOTE + ")+")


def _trim(value: str) -> str:
    """A keyword match runs to the end of the line; the secret is its first word (none when it reads as a word with an
    apostrophe: ``it's``)."""
    match = _TRIMMED.match(value.strip())
    return match.group() if match and _QUOTED_WORD.fullmatch(match.group()) is None else ""


_SCHEME_VALUE = re.compile(r"\s+([^\s\"',;]+)")  # the token after ``Authorization: Bearer``
# values a short labelled value may be without being a secret: ``auth: no``, ``password=-``
_FLAG_WORDS = frozenset({"no", "yes", "on", "off", "ok", "n/a", "na", "-", "?", "tbd", "set"})


_BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})
_BLOCK_LINE = re.compile(r"[ \t]*\r?\n[ \t]+(\S[^\n]*)")


_NEGATIONS = ("no-", "no_", "disable-", "disable_", "skip-", "skip_", "without-", "without_")


# a value opening a tuple, a list or a call in code, no secret: ``(``, ``('``, ``(user,``, ``(os.environ[`` (not ``[ab``)
_OPENS_CODE = re.compile(r"""[(\[]['"].*|\((?:[A-Za-z_][\w.]*[,\[(]?)?|\[[A-Za-z_][\w.]*[,\[(]""")
_FIRST_QUOTED = re.compile(r"""(['"])([^'"\n]+)\1""")


_NESTED = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,80}[=:]")


def _with_nested(text: str) -> Iterator[re.Match[str]]:
    """``_assign_matches(text)``, and after a match whose value starts with a name and its sign (``config:
    password=X``, ``opts=token:X``) the assignment there: a value runs on past ``&`` and the like, so the outer one
    read it whole and the inner value's rest was left to rules that end it there. One level (each value is read at
    most twice: linear)."""
    for m in _assign_matches(text):
        yield m
        value = m.group("value")
        if ("=" in value or ":" in value) and _NESTED.match(value) is not None:
            inner = _ASSIGN.match(text, m.start("value"))
            if inner is not None:
                yield inner


def _assignments(text: str) -> tuple[list[str], list[str]]:
    """``(values, short)``: the values given to secret-looking names, and each value shorter than
    ``_plausible`` allows (``password=a+b``) with the ``=`` or ``:`` before it (see ``_short_assignment``)."""
    found, short = [], []
    for m in (*_with_nested(text), *_FLAG.finditer(text), *_QUERY.finditer(text)):
        name = m.group("name").lstrip("-")
        value = m.group("value")
        if "&" in value and m.start("name") and text[m.start("name") - 1] in "?&":  # a URL query's: ``&`` ends it
            value = value.partition("&")[0]
        if not _names_secret(name, value) or name.lower().startswith(_NEGATIONS):  # ``--no-auth flag`` takes no value
            continue
        prefixed = _quoted_after(text, m)  # ``password = b'X'``: ``_quoted_values`` reads X (``b'a'``: a short value)
        if prefixed is not None or _annotation(text, m):  # (``password: str = 'X'``: code, its value read there too)
            if (
                prefixed is not None
                and len(prefixed[0]) < 4
                and _plausible(prefixed[0], least=1)
                and prefixed[0].lower() not in _FLAG_WORDS
            ):
                sep = text[m.end("name") : m.start("value")]
                short.append(text[m.end("name") + max(sep.rfind("="), sep.rfind(":"), 0) : prefixed[1]])
            continue
        if _QUOTED_WORD.fullmatch(value) is not None:  # ``password: it's complicated``: prose
            continue
        if _OPENS_CODE.fullmatch(value) is not None:  # ``auth=(user, pw)``: code; ``token=("X")``: its string
            quoted = _FIRST_QUOTED.match(value, 1)
            if quoted is None or (value.endswith(",") and name.lower().endswith("auth")):  # (``labels``: the tuple)
                continue
            value = quoted.group(2)
        if value.lower() in _SCHEMES:  # Authorization: Bearer <token>
            rest = _SCHEME_VALUE.match(text, m.end("value"))  # at its place: a copy of the rest of the text is n per scheme
            value = rest.group(1) if rest else ""
        elif value in _BLOCK_SCALARS:  # YAML's ``password: |`` and the value on the indented line below
            block = _BLOCK_LINE.match(text, m.end("value"))
            value = block.group(1).strip() if block else ""
        elif len(value.strip()) < 4 and _short_assignment(text, m):  # from its ``=``/``:`` or the space of a flag
            sep = text[m.end("name") : m.start("value")]
            at = max(sep.rfind("="), sep.rfind(":"), 0)
            short.append(text[m.end("name") + at : m.end("value")])
        found.append(value)
    return found, short


def _quoted_after(text: str, m: re.Match[str]) -> tuple[str, int] | None:
    """The quoted text after a string's prefix an unquoted value starts with (``b'X'``, ``rb"X"``, ``@"X"``, ``N'X'``),
    closed on its line, and where its closing quote ends: the value (None for no prefix, or an unclosed one:
    ``N'Brien…`` is a value of its own)."""
    prefixed = _PREFIXED.match(text, m.start("value"))  # (the value may end at the quote, or read on through it)
    if prefixed is None:
        return None
    esc, quote = prefixed.group("esc"), prefixed.group("quote")
    quoted = _quoted_at(text, prefixed.end(), esc, quote)
    return None if quoted is None else (quoted, prefixed.end() + len(quoted) + len(esc + quote))


def _annotation(text: str, m: re.Match[str]) -> bool:
    """Whether a value after a name's ``:`` is its type, an ``=`` and the value following (``password: Final = 'X'``,
    ``token: str | None = None``)."""
    if ":" not in text[m.end("name") : m.start("value")] or _TYPE.fullmatch(m.group("value")) is None:
        return False
    return _ANNOTATED.match(text, m.end("value")) is not None


# a Cookie or Set-Cookie header (a request log, an HTTP dump, ``curl -H 'Cookie: …'``, ``"Cookie": "…"``): its value runs to
# its line's end, or to the quote closing the header's text; ``_ASSIGN`` ends a value at ``; `` before a next name, so
# only the first cookie (``lang=en``) was hidden and the session's after it written in clear
_COOKIE_HEADER = re.compile(
    r"(?i)(?<![\w-])(?P<set>set-)?cookie2?(?P<closed>\\?[\"'])?[ \t]*:[ \t]*(?P<quote>\\?[\"'])?(?P<value>[^\n]*)"
)
# curl's own cookie flag: ``curl -b 'session=X'``, ``--cookie "a=1; sid=X"`` (a word without ``=`` is a file to read)
_CURL_COOKIE = re.compile(r"(?i)\bcurl\b[^\n]*?\s(?:-b|--cookie)(?:[ \t]+|=)" + _FLAG_VALUE)
_COOKIE = re.compile(r"(?:^|;)[ \t]*(?P<name>[^\s=;,]{1,128})[ \t]*=[ \t]*(?P<value>[^;]*)")
# a cookie's value that is no credential: a plain word (``lang=en``, ``theme=dark``), a boolean, a short number
_PLAIN_COOKIE = re.compile(r"[a-z]{1,12}|[A-Z]{1,12}|[A-Z]?[a-z]{1,12}|[0-9]{1,5}|true|false")


def _cookie_values(text: str) -> Iterator[str]:
    """The values of every cookie a Cookie header or ``curl -b`` gives (the first only of a Set-Cookie header: the
    rest are its attributes, ``Path=/``), each but a plain word."""
    headers = []
    for m in _COOKIE_HEADER.finditer(text):
        value = m.group("value")
        if m.group("quote") or (m.group("closed") is None and m.start() and text[m.start() - 1] in "\"'"):
            quote = (m.group("quote") or text[m.start() - 1])[-1]  # the header's text or its value is quoted
            value = value.partition(quote)[0].rstrip("\\")
        headers.append((value, m.group("set") is not None))
    for m in per_line(_CURL_COOKIE, _CURL_HEAD, text):
        headers.append((next(g for g in m.groups() if g), False))
    for value, set_cookie in headers:
        for cookie in _COOKIE.finditer(value):
            found = cookie.group("value").strip().strip('"')
            if _PLAIN_COOKIE.fullmatch(found) is None:
                yield found
            if set_cookie:
                break


# a value ``pwd`` names that reads as a folder: ``/srv/app``, ``~``, ``.``, ``$HOME/x``, ``%CD%``, ``C:\\x``, `` `pwd` ``
# (and ODBC's braced ``PWD={…}``, read whole by ``pairs``: its start alone, cut at a ``}``, is none)
_FOLDER = re.compile(r"""[\\"'`]*(?:[$%`~./\\{]|[A-Za-z]:[\\/])|[^\s]*[/\\]""")


def _names_secret(name: str, value: str) -> bool:
    """Whether ``name`` gives ``value`` as a secret: a secret-looking name (``is_secret_key``), or ``pwd`` alone, a
    password's short name as much as the working directory's (``PWD``, ``$ pwd``): taken so for a value that reads as
    no folder (``--pwd Xk9m…``, ``pwd="hunter 2"``; not ``PWD=/srv/app``, ``--pwd $HOME/x``, nor ``PWD=%CD%`` read
    percent-decoded)."""
    if is_secret_key(name):
        return True
    return name.lower() == "pwd" and _FOLDER.match(value) is None and any(c.isalnum() for c in value)


# the separator before a quoted value (``="``, ``: '``, JSON in a string's ``: \"``) and the name that may end
# before it (read back from the separator: searching a name at every place costs a blob ~1.5 s a megabyte). Between
# the separator and the quote may stand a type annotation (``password: str = 'X'``, ``token: Final[str] = "X"``), a
# string's prefix (Python's ``b r u f rb br fr rf`` in any case, C#'s ``@ $``, SQL's ``N``, the shell's ``$'…'``) and a
# secret's wrapper (``SecretStr('X')``): read as the value, the prefix letter was hidden and the secret left in clear
# a type is named by a capital (``Final``, ``Optional[str]``, ``typing.Final``) or is a builtin's (``str``, ``bytes``,
# TypeScript's ``string``): ``if password: msg = 'set'`` gives ``password`` no value
_TYPE_NAME = r"(?:[A-Z]\w{0,40}|[a-z_]\w{0,20}\.[A-Z]\w{0,40}|str|bytes|string)"
_ANNOTATION = _TYPE_NAME + r"(?:\[[\w.\[\], |]{0,60}\]\]?)?(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]{0,40}){0,3}"
_STRING_PREFIX = r"(?:[bBrRuUfF]{1,2}|[@$]{1,2}|[Nn])"
_WRAPPER = r"(?:[A-Za-z_]\w{0,40}\.)?(?:Secret(?:Str|Bytes|String|Value)?|Sensitive(?:Str|String|Value)?)\([ \t]*"
_QUOTED_SEP = re.compile(
    rf"(?:=|:(?:[ \t]*{_ANNOTATION}[ \t]*=(?!=))?)[ \t]*(?:{_WRAPPER})?(?P<prefix>{_STRING_PREFIX})?"
    r"(?P<esc>\\?)(?P<quote>\"(?:\"\")?|'(?:'')?)"
)
_NAME_BEFORE = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?P<closed>\\?[\"']?)[ \t]*\Z")
_QUOTED_MAX = 256  # the longest quoted value read whole (a passphrase, a generated password)
# a quoted value to its closing quote, on its line: one escaped by a backslash is part of it (``'Zq8\'Lm2'``,
# ``"Zq8\"Lm2"``, and inside a JSON string, where the quote is ``\"``, ``\\\"``). Read possessively, each character
# once, at most ``_QUOTED_MAX``
_TO_QUOTE = {quote: re.compile(rf"(?:[^{quote}\\\n]|\\[^\n]){{0,{_QUOTED_MAX}}}+{quote}") for quote in ("'", '"')}
_TO_ESCAPED_QUOTE = {
    quote: re.compile(
        rf"(?:\\\\(?:\\\\|\\{quote}|\\[^\\{quote}\n]|[^\\\n])|\\[^\\{quote}\n]|[^\\\n]){{0,{_QUOTED_MAX}}}+\\{quote}"
    )
    for quote in ("'", '"')
}
_ESCAPED = re.compile(r"\\([\\\"'])")
# a pair in code, a name and its value in a tuple or a list: ``("password", b'X')``, ``[('token', 'X')]``, ``("X-Api-Key",
# "X")`` (a list of headers); taken when the value reads as no name (``('password', 'email')`` is a list of fields)
_TUPLE_PAIR = re.compile(
    r"[(\[][ \t]*(?P<nq>\\?[\"'])(?P<name>[A-Za-z_][\w.-]{0,80})(?P=nq)[ \t]*,[ \t]*"
    rf"(?P<prefix>{_STRING_PREFIX})?(?P<esc>\\?)(?P<quote>[\"'])"
)
_IDENTIFIER = re.compile(r"[a-z]+(?:[_.-][a-z0-9]+)*|[A-Z]+(?:_[A-Z0-9]+)*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*")
# a string's prefix and its opening quote (``b'``, ``rb"``, ``@"``), read as a value by ``_ASSIGN``; a type annotation
_PREFIXED = re.compile(rf"{_STRING_PREFIX}(?P<esc>\\?)(?P<quote>[\"'])")
_TYPE = re.compile(_TYPE_NAME + r"(?:\[[\w.\[, |]{0,60})?")
_ANNOTATED = re.compile(r"\]{0,2}(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]{0,40}(?:\[[\w.\[\], ]{0,60}\]\]?)?){0,3}[ \t]*=(?![=>])")


_TYPED = re.compile(r":[ \t]*(?P<type>" + _TYPE.pattern + ")" + _ANNOTATED.pattern)


def _annotated_types(text: str) -> set[str]:
    """The types annotating a name in ``text`` (``password: Final = 'X'``): what ``_ASSIGN`` reads as a value there."""
    return {m.group("type") for m in _TYPED.finditer(text)} if "=" in text else set()


def _quoted_at(text: str, start: int, esc: str, quote: str) -> str | None:
    """The quoted value starting at ``start`` as written, to its closing ``esc + quote`` (``'''``/``\"\"\"`` to the same
    three), on its line; None when it is not closed there."""
    if len(quote) == 3:
        end = text.find(quote, start, start + _QUOTED_MAX + 3)
        return text[start:end] if end >= 0 else None
    pattern = (_TO_ESCAPED_QUOTE if esc else _TO_QUOTE)[quote]
    closed = pattern.match(text, start)
    return closed.group()[: -len(esc + quote)] if closed is not None else None


def _readings(value: str, escaped: bool) -> Iterator[str]:
    """A quoted value as written, and as it reads with its escaped quotes and backslashes undone (once, and twice
    inside a JSON string): the secret itself, hunted in every other text."""
    yield value
    for _ in range(2 if escaped else 1):
        read = _ESCAPED.sub(r"\1", value)
        if read == value:
            return
        yield (value := read)


def _f_string_empty(prefix: str, value: str) -> bool:
    """Whether an interpolated string (``f"{user}:{pw}"``, ``f"Bearer {token}"``, C#'s ``$"…"``) holds too little of its
    own to be a secret: no word of 4 characters or more but a scheme's between its fields."""
    if "f" not in prefix.lower() and "$" not in prefix:
        return False
    words = _FIELDS.sub(" ", value).split()
    return not any(len(word) >= 4 and word.lower() not in _SCHEMES for word in words)


_FIELDS = re.compile(r"\{[^{}]*\}")


def _quoted_values(text: str) -> Iterator[str]:
    """The whole quoted values of secret-looking names: ``DB_PASSWORD="Xq7&Lm2p…"``, ``passphrase: "correct horse
    battery staple"``, ``password = b'X'``, ``password: str = '''X'''``. ``_ASSIGN`` ends a value at ``& ; , ) } ]``
    or a space, which a quoted value may hold: the rest of it was written in clear (all of it when the first part was
    under 4 characters)."""
    for sep in _QUOTED_SEP.finditer(text):
        name = _NAME_BEFORE.search(text, max(0, sep.start() - _NAME_MAX - 8), sep.start())
        named = name.group("name").lstrip("-") if name is not None else ""
        if name is None or not (is_secret_key(named) or named.lower() == "pwd"):
            continue
        # a name opened by a quote and not closed before the separator is inside a text (``"auth: " + user``):
        # the quote after the separator closes that text, it opens no value
        opened = name.start() > 0 and text[name.start() - 1] in "\"'" and not name.group("closed")
        if opened and not sep.group("esc"):  # (an escaped quote opens a value inside that text: JSON in a string)
            continue
        yield from _quoted_value(text, sep, named)
    if "," in text:
        for pair in _TUPLE_PAIR.finditer(text):
            if is_secret_key(pair.group("name")):
                pair_values = _quoted_value(text, pair, pair.group("name"))  # (``('api_key', 'API key')``: a label)
                yield from (v for v in pair_values if _IDENTIFIER.fullmatch(v) is None and not any(c.isspace() for c in v))


def _quoted_value(text: str, sep: re.Match[str], named: str) -> Iterator[str]:
    """The value quoted after ``sep`` (a match of ``_QUOTED_SEP`` or ``_TUPLE_PAIR``) given to ``named``."""
    esc, quote, prefix = sep.group("esc"), sep.group("quote"), sep.group("prefix") or ""
    value = _quoted_at(text, sep.end(), esc, quote) or ""
    # a value starts and ends with no blank (a streamed ``{"token": " world"}`` piece is no secret value)
    if not value or value.strip() != value or "\n" in value or _f_string_empty(prefix, value):
        return
    if not _names_secret(named, value):  # (``pwd="$HOME/app"``: the working directory)
        return
    if REDACTED_VALUE in value:  # its first word learned and redacted already (``"[REDACTED] horse battery"``)
        yield from (part.strip() for part in value.split(REDACTED_VALUE) if part.strip())
    else:
        yield from _readings(value, bool(esc))


_OPENED = frozenset({"'", '"', "}", "]"})  # what follows ``{``/``[`` opening a key or closing an empty one


def _short_assignment(text: str, m: re.Match[str]) -> bool:
    """Whether a labelled value of 1-3 characters is a secret: a password may be that short, but prose may
    also put a short word after a name (``password= and``, ``auth: no``). It is one when it is given as a
    value is (attached to ``=``/``:``, quoted, or alone at the end of its line) and is no flag word. Such a
    value would match ordinary text anywhere, so it is redacted with its separator (``password[REDACTED]``):
    too short to be hunted elsewhere (``MIN_HUNTED``), and not starting with the name (a learned
    ``password=a+b`` would make every cut-off-looking ``password`` a fragment of it)."""
    value = m.group("value")
    if value.lower() in _FLAG_WORDS or not _plausible(value, least=1) or _NOT_A_SECRET.match(value):
        return False
    if value in ("{", "[") and text[m.end("value") : m.end("value") + 1] in _OPENED:
        return False  # a nested object or array opens (``{'/etc/passwd': {'sha256': …}}``, ``"token": []``)
    sep = text[m.end("name") : m.start("value")]
    if not any(c.isspace() for c in sep) or "'" in sep or '"' in sep:
        return True
    return "\n" not in sep and text[m.end("value") : m.end("value") + 1] in ("", "\n", "\r")


_PAIR = r"[A-Za-z_][\w.\[\]-]{0,80}=[^\s&\"'<>,;)}\]#]*"
_FORM = re.compile(rf"(?:(?P<query>\?)|(?<![\w.\[\]%-])){_PAIR}(?:&(?:amp;)?{_PAIR})*")
_FORM_SEP = re.compile("&(?:amp;)?")


def _form_values(text: str) -> set[str]:
    """The values of secret-looking names in form-encoded text (a query, ``a=1&b=2`` pairs, or one lone pair),
    as written and as they read with ``+`` as a space: ``password=correct+horse`` is ``correct horse``, which
    is what a later message would show (a lone pair may be code, ``password=base+salt``: learning its
    reading too costs nothing). Other text, and the values of other names, keep their plus signs."""
    found: set[str] = set()
    for m in _FORM.finditer(text):
        pairs = _FORM_SEP.split(m.group().lstrip("?"))
        for pair in pairs:
            name, _, value = pair.partition("=")
            if "+" not in value or not is_secret_key(unquote_plus(name)):
                continue
            decoded = unquote_plus(value, errors="replace")
            if _assigned(value) and _assigned(decoded):
                found.update((value, decoded))
    return found


# a separator ending its line (``api_key = `` then ``parses the file``): detect-secrets' keyword rule would take the next
# line's first word as its value; a NUL after it ends the value there (a ``:`` keeps an indented line, YAML's value)
_LINE_END_SEP = re.compile(r"=[ \t]*(?=\r?\n)|(?<!:):[ \t]*(?=(?:\r?\n[ \t]*(?=\r?\n))*\r?\n(?![ \t\r\n]))")
_NAME_WORDS = re.compile(r"pass|pwd|secret|token|key|auth|cookie|cred|bearer|contras|" + _SHORT_NAMES.decode())


def find_in_text(text: str, *, entropy: bool = True) -> set[str]:
    """The secret substrings of ``text`` (each a whole value to redact, e.g. the password of a URL).

    Short texts are remembered: a run repeats its model names, event names and statuses on every event; so are the
    verdicts on the last long ones (``verdicts``): a payload screened again is not read again. A ``str`` subclass is
    read as written (``exact``): its own methods could hide its characters.
    """
    if type(text) is not str:
        text = exact(text)
    if len(text) < 4:
        return set()
    if len(text) >= LONG_TEXT:
        return set(judged(text, entropy, _judged))
    return _judged(text, entropy)


def _judged(text: str, entropy: bool) -> set[str]:
    """``find_in_text`` of a text of 4+ characters, read now."""
    if text.isascii():
        if text.encode().translate(None, SHOWN_BYTES):
            return _through_controls(text, entropy)
    elif reads_differently(text):
        return _through_invisible(text, entropy)
    return _find_read(text, entropy)


# a run of the ASCII control characters read as nothing, between two characters a key holds: the ESC of a colour
# code (``\x1b[32m``) has ``[`` after it, and part of no key
_CONTROLS_IN_WORD = re.compile(r"(?<=[\w+/=.-])[\x00-\x08\x0e-\x1b\x7f]+(?=[\w+/=.-])", re.ASCII)


def _through_controls(text: str, entropy: bool) -> set[str]:
    """``find_in_text`` of ASCII text holding control characters: as written, and the lines where a run of them stands
    inside a word as they read (``_through_invisible``). A terminal's colour codes, a log's NULs between words are
    not read again: a megabyte of coloured output is judged once, as written."""
    found = _find_read(text, entropy)
    end = -1
    for match in _CONTROLS_IN_WORD.finditer(text):
        if match.start() < end:  # on a line already read
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        found |= _through_invisible(text[start:end], entropy)
    return found


def _find_read(text: str, entropy: bool) -> set[str]:
    """``find_in_text`` of a text without invisible characters."""
    if ("\\" in text or ("&" in text and "&#" in text)) and ESCAPE.search(text) is not None:
        return _through_escapes(text, entropy)
    if "%" in text and _PERCENT.search(text) is not None:
        return _through_percent(text, entropy)
    if len(text) <= _CACHED_LEN:
        return set(_find_short(text, entropy))
    return _find(text, entropy)


_CACHED_LEN = 120


def _through_invisible(text: str, entropy: bool) -> set[str]:
    """The secrets of ``text`` read without its invisible characters (``disguise.hidden``: zero-width and format
    characters, combining marks), and read again with the characters read as another as ASCII (``ｓｋ-…``, ``ś``,
    ``ѕ``) when it holds any, each as it stands in ``text`` (``ghp_ab\u200bcd…``, the marks on its last character too)
    and as it reads (to hunt for it elsewhere; a value found holding such characters is hunted as it reads folded
    too). The whole folded reading is judged: a keyword's value may stand past blank lines, at the end of a long line
    or run on for thousands of characters, and a stretch judged alone cut such values off (they were shown). Every
    secret is located in its reading in one pass and mapped back through the places of the characters kept (folding
    keeps each character in its place)."""
    invisible = hidden()
    shifts = [m.start() - n for n, m in enumerate(invisible.finditer(text))] if hides(text) else []
    read = invisible.sub("", text) if shifts else text
    found = _find_read(read, entropy) if len(read) >= 4 else set()
    readings = [(read, found)]
    if not read.isascii() and (as_ascii := folded(read)) != read:
        # each value found is hunted in the folded reading too, and as it reads folded (``hunteré2`` as ``huntere2``)
        refound = found | {reading for value in found if (reading := folded(value)) != value}
        refound |= _find_read(as_ascii, entropy)
        readings.append((as_ascii, refound))
    kept = kept_places(text, shifts)
    located: set[str] = set()
    for reading, found in readings:
        located |= found
        where = for_text(reading, found).starts(reading)
        located.update(text[kept(a) : written_end(text, kept(b - 1), escapes=False)] for a, b in where if b > a)
    return located


def kept_places(text: str, shifts: list[int] | None = None) -> Any:
    """``place(i)``: where the ``i``-th character kept in ``text`` (read without its invisible characters) stands in
    it. From the invisible characters' places alone (a list of every kept place cost a megabyte of text a second):
    ``i`` stands ``j`` places on, ``j`` the number of invisible characters at ``p`` with ``p - (their count before p) <= i``."""
    if shifts is None:  # (given when the invisible characters' places are known: ``m.start() - n`` of the n-th)
        shifts = [m.start() - n for n, m in enumerate(hidden().finditer(text))]

    def place(i: int) -> int:
        return i + bisect_right(shifts, i)

    return place


def _through_escapes(text: str, entropy: bool) -> set[str]:
    """The secrets of ``text`` as written and as it reads with its character escapes decoded
    (``\\u0070assword=…``, ``&#x67;&#x68;&#x70;_…``), each of the latter also as it stands in ``text``."""
    found = set(_find_short(text, entropy) if len(text) <= _CACHED_LEN else _find(text, entropy))
    decoded, starts = unescape(text)
    if decoded == text:  # escapes of no character (a lone surrogate): nothing to read differently
        return found
    hidden = find_in_text(decoded, entropy=entropy)
    found |= hidden
    found.update(text[starts[a] : starts[b]] for a, b in for_text(decoded, hidden).starts(decoded))
    return found


_PERCENT = re.compile("%[0-9A-Fa-f]{2}")


def _through_percent(text: str, entropy: bool) -> set[str]:
    """The secrets of ``text`` as written and as it reads percent-decoded (a URL or query string passed on
    encoded: ``postgres%3A%2F%2Fu%3Apass%40db``, ``password%3D…``), each also as it stands in ``text``: found
    in the reading in one pass and mapped back by offset (a pattern per value read the text once per value)."""
    found = _find_short(text, entropy) if len(text) <= _CACHED_LEN else _find(text, entropy)
    reading, starts = percent_decoded(text)
    decoded = find_in_text(reading, entropy=entropy)
    located = set(found) | decoded
    located.update(text[starts[a] : starts[b]] for a, b in for_text(reading, decoded).starts(reading))
    return located


@lru_cache(maxsize=8192)
def _find_short(text: str, entropy: bool) -> frozenset[str]:
    """``_find`` of a short text, behind the event screen's prefilter of its JSON form (``might_contain``: True for
    any text the detectors find something in, a property test holds it to that). Some microseconds a text where
    ``_find`` spends milliseconds: a payload of many short distinct strings is read in time linear in its size. A text
    JSON escapes (a quote, a backslash, a control character) is read by the detectors: the prefilter misses a URL's
    password holding a quote, ``\"`` in the JSON text."""
    try:
        blob = orjson.dumps(text)
    except orjson.JSONEncodeError:  # (a lone surrogate: read by the detectors)
        return frozenset(_find(text, entropy))
    return frozenset(_find(text, entropy)) if blob.find(b"\\") >= 0 or might_contain(blob) else frozenset()


def _stdin_passwords(text: str) -> Iterator[str]:
    """The passwords echoed into (or given as a here-string to) a login reading it with ``--password-stdin``."""
    for pattern, head in _STDIN_PASSWORD.items():
        for m in per_line(pattern, head, text):
            line = text[text.rfind("\n", 0, m.start()) + 1 : m.end()]
            if m.lastindex and "login" in line:
                yield m.group(m.lastindex)


def _find(text: str, entropy: bool) -> set[str]:
    value_plugins, keyword, maps, _, _ = plugins()
    # a URL's credentials are judged by its own rules, ids included (an OAuth code may be made of UUIDs)
    found: set[str] = url_secrets(text) if "://" in text else set()
    given, text = text, without_ids(text)  # ids (ULIDs, UUIDs, digests) may spell PWD or APIKEY by chance: never secrets
    to_widen = [v for plugin in value_plugins for v in plugin.analyze_string(text)]
    for pattern in _EXTRA:
        head = _LINE_HEADS.get(pattern)
        gated = _GATES.get(pattern, pattern)
        for m in gated.finditer(text) if head is None else per_line(pattern, _GATES.get(head, head), text):
            if m.lastindex:
                found.add(m.group(m.lastindex))
            else:
                to_widen.append(m.group())
    found |= widen_all(text, to_widen)
    if "PRIVATE KEY" in text:
        for m in _PEM.finditer(text):
            found.add(m.group())
            found.update(_PEM_LINE.findall(m.group()))
    named, short = text, list[str]()
    if _NAME_WORDS.search(named.lower()):  # the name-based rules need a secret-looking name somewhere
        by_name: set[str] = set()
        if text != given:  # an id given to a secret-looking name is its value (``x-api-key: <uuid>``)
            named = ids_out_of_values(given)
            by_name.update(m.group(1) for m in _BEARER.finditer(named))
        kept = _LINE_END_SEP.sub("\\g<0>\x00", named) if "\n" in named else named  # (a value stays on its line)
        typed = _annotated_types(named)  # (``password: Final = 'X'``: detect-secrets reads ``Final`` as the value)
        for mapping in maps:
            by_name.update(
                v
                for v in map(_trim, keyword.analyze_string(kept, denylist_regex_to_group=mapping))
                if _assigned(v) and v not in typed
            )
        values, short = _assignments(named)
        by_name.update(v for v in values if _assigned(v))
        by_name.update(v for v in _quoted_values(named) if _assigned(v))
        by_name.update(v for v in named_values(named) if _assigned(v))
        if "+" in named:
            by_name.update(_form_values(named))
        by_name.update(prose_passwords(text))  # ``my password is X``, ``htpasswd -b file user X`` (``prose``)
        found |= by_name  # "password= stays the same" loses "stays": a word after a name's "=" may be its value
    if _LONG_RUN in given.encode("utf-8", "ignore").translate(_RUNS):
        found.update(m.group() for m in _VENDOR_KEY.finditer(given))
    if "--password-stdin" in text:
        found.update(_stdin_passwords(text))
    # labels in other languages and layouts, commands' own flags, code's tuples and defaults (``labels``)
    found.update(labelled_secrets(text))
    if "ookie" in given or "OOKIE" in given or ("curl" in given and "-b" in given):  # a Cookie header, ``curl -b``
        found.update(v for v in _cookie_values(given) if _assigned(v))  # (as given: a session id may be a UUID)
    if COMMAND_HINT.search(text) is not None:  # ``sshpass -p X``, ``net user NAME X``, ``sqlplus app/X@db`` (``pairs``)
        found.update(v for v in command_passwords(text) if _assigned(v))
    if PGPASS_HINT.search(given) is not None:  # a ``.pgpass`` line: host:port:database:user:password
        found.update(pgpass_passwords(given))
    if "\n" in given or "\\" in given:  # a key wrapped across lines, as written and joined
        found |= wrapped_keys(given)
    if "\\\n" in given or "\\\r\n" in given:
        found |= _find(_CONTINUED.sub(" ", given), entropy)
    if "asic" in text:  # Authorization: Basic <base64 of user:password>
        found.update(basic_credentials(text))
    if _LONG_RUN in text.encode("utf-8", "ignore").translate(_RUNS):
        encoded, plain_words = encoded_secrets(text, find_in_text)  # base64 is judged by what it encodes
        found |= encoded
        if entropy:
            found.update(w for w in random_words(text) if w not in plain_words)
    # a value read with the backtick or quote around it (``"`TOKEN=abc`"``) is the value without them: one rule for every
    # detector, so the bare value is what is learned and hunted (a wrapped one is kept when too little is left of it)
    found = {u if (u := unwrapped(v)) == v or _plausible(u) else v for v in found if isinstance(v, str)}
    found = {v for v in found if _plausible(v)} | set(short)
    # a value written percent-encoded (a URL's ``p%40ss``) is hunted as it reads too: ``p@ss``
    decoded = {unquote(v, errors="replace") for v in found if "%" in v}
    forget()  # (the gates' shared reading of this text is not kept past its screen)
    return found | {d for d in decoded if _plausible(d)}
