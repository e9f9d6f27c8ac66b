"""Unquoted words that look random (a key without a known prefix), and the ids and digests that are not secrets.

detect-secrets measures only quoted strings; here any word of 20+ characters is measured, with a limit
that follows its length, once UUIDs, ULIDs and labelled digests are blanked out and prose-like words
(paths, CamelCase names, model ids with dates) are set aside. A name Kubernetes generates (``payments-api-7d9f8b6c5d-x2k9p``)
is judged by the name it was given: its hashes made one in ten such names of 32+ characters read as random.

A bare hex word of 32+ random digits stays a secret: 32 and 64 hex digits are also how many keys are
written (HMAC and webhook signing secrets, Ed25519 seeds, Twilio and Datadog keys), and nothing in the word
tells a key from a digest. What does is a label in front of it: ``sha256:``, ``commit``, ``blob``, ``tree``,
``object``, ``oid``, ``rev``, ``HEAD``, ``etag``, ``digest=``, ``hash`` (also with ``is``/``was``/``now at``
between: ``HEAD is now at …``; also joined by ``_``: ``base_commit``, ``commit_sha=``), a git command naming it
(``git checkout …``, ``git reset --hard …``), or sha256sum's ``<digest>  <file>`` lines. Tool output is screened without
this rule (``RunSecrets.redact(entropy=False)``), so the digests a tool prints are kept there.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .gates import Gate
from .plugins import plugins
from .public_ids import new_text, public_id
from .wordlike import reads_as_word, surprise

__all__ = [
    "entropy_ok", "without_ids", "ids_out_of_values", "random_words", "path_parts", "temp_plain", "RUN_ID",
    "PROVIDER_ID", "ALNUM_TOKEN", "CLOUD_KEY_IN_ID",
]  # fmt: skip

# a run id, or its start as typed or cut (``ep_01M8Y6TF``): ``ep_`` and ULID characters, which mix cases with digits
RUN_ID = re.compile(r"(?<![A-Za-z0-9])ep_[0-7][0-9A-HJKMNP-TV-Z]{0,25}(?![A-Za-z0-9])")
_NOT_RANDOM = [
    re.compile(p)
    for p in (
        r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",  # UUID
        # a ULID (episode and request ids), in either case (Crockford's base 32 is read in any: a TypeID's
        # ``user_01h455vb4pex5vsknk084sn02q``), in one case only: a random word mixes them
        r"(?<![A-Za-z0-9])[0-7](?:[0-9A-HJKMNP-TV-Z]{25}|[0-9a-hjkmnp-tv-z]{25})(?![A-Za-z0-9])",
        RUN_ID.pattern,
        # labelled digests: sha256:…, "sha256": "…", digest=…, commit …, SHA256 (file) = … and sha256sum's lines
        # and the ids tracing gives (trace id, span id, ``x-request-id``, ``traceId``; after ``trace`` alone, a trace
        # id's 32 digits exactly: no 64-digit key), a container's or an image's id;
        # a URL's ``/commit/<sha>``, ``/blob/<sha>/``
        r"(?i)(?<![a-z0-9])(?:sha(?:-?(?:1|224|256|384|512)|3_256)?|md5|blake2[bs]|digest|checksum|hash|commit|blob|tree|object|oid|rev(?:ision)?|head|etag"
        r"|(?:trace|span|request|correlation|container|image)[ _-]?id|(?P<trace>trace))(?:sum)?(?![a-z0-9])"
        r"(?: \([^()\n]{1,200}\))?(?: (?:is|was|now|at|->|=>)){0,3}[\"']?\s*[:=/-]?\s*[\"']?"
        r"(?(trace)[0-9a-f]{32}|[0-9a-f]{16,})(?![0-9a-z])",
        # git naming a commit: ``git checkout <sha>``, ``git reset --hard <sha>``, ``git cherry-pick -x <sha>``
        r"(?i)\bgit\s+(?:-C\s+\S+\s+)?[a-z][a-z-]*(?:\s+-{1,2}[a-z][a-z-]*)*\s+[0-9a-f]{7,}(?![0-9a-z])",
        r"(?m)^[0-9a-f]{32,128}(?= [ *]\S)",
        # a Subresource Integrity digest (``integrity: sha512-<base64>``, npm's lock files)
        r"(?<![A-Za-z0-9])sha(?:256|384|512)-[A-Za-z0-9+/]{40,}={0,2}",
        # a ULID of these decades (``01…``: minted 2004-2039) cut short where a text ends: an excerpt's last word
        # (``input_excerpt`` is the task's first 120 characters), after a prefix or not, in one case
        r"(?<![A-Za-z0-9])(?:[a-z]{1,8}_)?01(?:[0-9A-HJKMNP-TV-Z]{8,23}|[0-9a-hjkmnp-tv-z]{8,23})(?:…|\.\.\.)?\s*\Z",
        # a Nix store path's hash (``/nix/store/<hash>-python3-3.11.6``): 32 characters of Nix's base 32 (no e, o, t,
        # u), a digest of what the package was built from, public; only after ``nix/store/`` and before its ``-``
        r"nix/store/[0-9a-df-np-sv-z]{32}(?=-)",
        # a Cloudflare ray id (``cf-ray: 7d9f8b6c5d4e3f2a-FRA``): 16 hex digits, a data centre's airport code; its 16
        # digits alone read as no key, the code made the word one of 20
        r"(?<![A-Za-z0-9-])[0-9a-f]{16}-[A-Z]{3}(?![A-Za-z0-9])",
        # a commit named as git's own messages name it: ``Reverts <sha>.`` (git revert), ``merge <sha> into main``,
        # ``cherry-picked from <sha>`` (cherry-pick -x), ``parent <sha>`` (a commit object's header); a git abbreviation
        # (7-40 hex digits), nothing longer: a 64-digit key after ``merge`` is no commit
        r"(?i)(?<![a-z0-9])(?:revert(?:s|ed|ing)?|merg(?:e|es|ed|ing)|cherry[- ]pick(?:s|ed|ing)?(?: -x)?|parent)"
        r"(?: (?:commit|branch|from))*\s+[0-9a-f]{7,40}(?![0-9a-z])",
        # a pinned pip requirement: ``git+https://host/org/repo@<sha>`` (the commit after the URL's ``@``; a user name and
        # no password before the host: ``git+ssh://git@…``)
        r"(?i)(?<![a-z0-9])git\+[a-z]+://(?:[\w.-]+@)?[^\s@/]+(?:/[^\s@/]+)*@[0-9a-f]{7,40}(?![0-9a-z])",
        # a digest labelled by its algorithm, in base64 or base64url of a digest's length (md5 16 bytes, sha1 20,
        # sha256 32, sha384 48, sha512 64) or in hex: a wheel's RECORD (``x.py,sha256=<base64url>,4924``),
        # ``Digest: SHA-256=<base64>``, ``Content-MD5: <base64>``, ``x-goog-hash: md5=…``, PyPI's ``blake2b_256=<hex>``
        r"(?i)(?<![a-z0-9])(?:sha-?(?:1|224|256|384|512)|md5|blake2[bs](?:[_-]?(?:128|160|224|256|384|512))?)[\"']?"
        r"[ \t]*[:=][ \t]*[\"']?(?:[0-9a-f]{32,128}(?![0-9a-z])|(?:[A-Za-z0-9+/_-]{86}(?:==)?|[A-Za-z0-9+/_-]{64}"
        r"|[A-Za-z0-9+/_-]{43}=?|[A-Za-z0-9+/_-]{27}=?|[A-Za-z0-9+/_-]{22}(?:==)?)(?![A-Za-z0-9+/=_-]))",
    )
]
# those the regex engine cannot skip ahead in, tried only at their literals (``gates.Gate``): a UUID's first ``-`` 8
# characters on; the others start at their literal (in any case where the pattern is case-insensitive)
_DIGEST_NAMES = ("sha", "md5", "blake2", "digest", "checksum", "hash", "commit", "blob", "tree", "object", "oid", "rev")
_GATES = {
    0: (("-",), 8, 8, False),
    2: (("ep_",), 0, 0, False),
    3: ((*_DIGEST_NAMES, "head", "etag", "trace", "span", "request", "correlation", "container", "image"), 0, 0, True),
    4: (("git",), 0, 0, True),
    6: (("sha",), 0, 0, False),
    9: (("-",), 16, 16, False),
    10: (("revert", "merg", "cherry", "parent"), 0, 0, True),
    11: (("git+",), 0, 0, True),
    12: (("sha", "md5", "blake2"), 0, 0, True),
}
_NOT_RANDOM_GATED = [Gate(p, *_GATES[i]) if i in _GATES else p for i, p in enumerate(_NOT_RANDOM)]
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,3}(?![A-Za-z0-9+/=_-])")
_PATH_ROOT = re.compile(r"/[A-Za-z][a-z]+/")  # a path's first part: a plain word (see ``path_parts``)
# a path's part that reads as a name: ``runs``, ``Library``, ``pytest-of-root``, ``test_x0``, ``T``, and the names
# ``tempfile`` makes (``tmp`` and 8 of its letters)
_PLAIN_PART = re.compile(r"[A-Za-z][a-z]*(?:[-_.][a-z]+)*[-_.]?[0-9]*|tmp[a-z0-9_]{8}")
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_WORDLIKE = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])|\d{4,}|[/_.-]")
# a short prefix (letters and digits, in up to three parts) and 32+ hex digits, maybe a short hex check after them
_HEX_TAIL = re.compile(r"[A-Za-z][A-Za-z0-9]{0,11}(?:[_-][A-Za-z0-9]{1,8}){0,2}[_-]?([0-9a-fA-F]{32,})(?:[_-][0-9a-fA-F]{4,12})?")
# what a ``_HEX_TAIL`` word holds from its 32nd character to its 13th from the end (its prefix is at most 31 characters
# long, its check at most 13): hex digits. A long word of them with another character near its end (``AAAA…key``)
# made the pattern give its hex digits back one by one, for each length of the prefix (a second a megabyte)
_HEX_INSIDE = re.compile(r"[0-9a-fA-F]*+")
_VOWELS = frozenset("aeiouyAEIOUY")
# the ids services issue and answer with (OpenAI's ``chatcmpl-…``, ``resp_…``, ``call_…``, ``asst_…``; Anthropic's
# ``msg_…``, ``toolu_…``, ``req_…``; Stripe's ``pi_…``, ``cus_…``): random by design and public, an agent returns and
# logs them. No key format starts so (Stripe's keys are ``sk_live_…``, ``rk_live_…``; a payment's client secret
# ``pi_…_secret_…`` is no such id), and the token detectors still read such a word (``msg_AKIA…``)
PROVIDER_ID = re.compile(
    r"(?:chatcmpl-|cmpl-|resp_|msg_|req_|rs_|fc_|call_|ctc_|toolu_|srvtoolu_|asst_|thread_|run_|step_|file-|file_"
    r"|batch_|msgbatch_|vs_|ftjob-|modr-"
    r"|cus_|pi_|pm_|ch_|evt_|sub_|in_|txn_|prod_|price_|acct_|seti_)[A-Za-z0-9]{16,48}"  # Stripe's object ids
)
# the starts of the token formats made of letters and digits only (AWS, Google, Twilio): ``text``'s fast path, which
# runs no detector, screens a provider id holding one
ALNUM_TOKEN = re.compile(r"A3T|AKIA|ASIA|ABIA|ACCA|AIza|SK|AC")
# such a start with room after it for the rest of its key (AWS's 16 characters, 12 as a quoted key's start is read;
# Twilio's 32; Google's 35): a start with fewer characters after it (``chatcmpl-…SKVvx8``, one random id in forty)
# holds no key
CLOUD_KEY_IN_ID = re.compile(r"(?:A3T|AKIA|ASIA|ABIA|ACCA)[A-Za-z0-9]{12}|(?:SK|AC)[A-Za-z0-9]{32}|AIza[A-Za-z0-9]{35}")
_ASCII_DIGIT = re.compile(r"[0-9]")
# a name Kubernetes generates (``payments-api-7d9f8b6c5d-x2k9p``): the name it was given (a Deployment's, a Job's, a
# container's), then a ReplicaSet's hash (6-10 characters) or a CronJob's schedule time, then a pod's 5 characters;
# or a ReplicaSet's name (its hash alone). Generated parts are drawn from 27 characters with no vowel and no 0, 1
# or 3, so a random key of letters and digits matches this shape as good as never (see ``entropy_ok``)
_K8S = "bcdfghjklmnpqrstvwxz2456789"
_GENERATED_NAME = re.compile(
    rf"(?P<name>[a-z0-9]+(?:[-_.][a-z0-9]+)*?)(?:(?:-(?:[{_K8S}]{{6,10}}|[0-9]{{6,12}}))?(?:-[{_K8S}]{{5}}){{1,2}}"
    rf"|-[{_K8S}]{{6,10}})"
)
_NAME_WORD = re.compile(r"[a-z]*[aeiouy][a-z]*")  # a word of the given name: a run of letters holding a vowel
_NAME_PARTS = re.compile(r"[-_.0-9]+")


def entropy_ok(word: str, b64: Any = None, hexp: Any = None, *, ids: bool = True) -> bool:
    """Whether an unquoted word of ≥ 20 characters looks random (see ``random_words``). ``ids=False`` judges a
    service's id shape too (a value a credential's name governs, ``?code=run_…``, is a credential whatever its shape)."""
    if b64 is None:
        _, _, _, b64, hexp = plugins()
    if word.isdigit():  # numbers (ids, timestamps, big integers) are not credentials
        return False
    if ids and public_id(word):  # a wallet address or content id its checksum proves (``public_ids``)
        return False
    if ids and PROVIDER_ID.fullmatch(word) is not None:  # the token detectors still read it (``msg_AKIA…``)
        return False
    if ids and "-" in word and word.islower() and (given := _GENERATED_NAME.fullmatch(word)) is not None:  # a pod's name
        name = given.group("name")
        if len(name) >= 20 and entropy_ok(name, b64, hexp):  # a random word with generated parts after it
            return True
        if _reads_as_words(name):  # a name given by a person: the generated parts are no secret
            return False
    if _HEX.fullmatch(word):
        digits = word[2:] if word[:2].lower() == "0x" else word
        return len(digits) >= 32 and hexp.calculate_shannon_entropy(digits) > hexp.entropy_limit
    tail = _HEX_TAIL.fullmatch(word) if _HEX_INSIDE.fullmatch(word, 31, max(31, len(word) - 13)) is not None else None
    if tail is not None:  # a vendor's prefix on a hex key (``shpat_<hex>``, ``dop_v1_<hex>``): judged as the bare key
        return bool(hexp.calculate_shannon_entropy(tail.group(1)) > hexp.entropy_limit)
    classes = _classes(word)
    if classes < 2:
        return False
    # detect-secrets' 4.5-bit limit suits 40+ characters; a shorter random word cannot reach it, so the
    # limit follows the length: 0.82·log2 n below 32 characters (99.8% of random base62 words of 20-31 pass; a model
    # id with a date, ``gpt-4o-mini-2024-07-18``, does not), 0.78·log2 n from 32, where 0.82 left 0.1-0.2% of random
    # base62 and base64 keys unseen (one in 500 keys) and 0.78 leaves one in 20,000; a hyphenated word of 32+
    # (``checkout-service-qw4mqnhqcr-bl4bm``, ``my-bucket-logs-us-east-1-5f3a…``) keeps 0.82: generated names
    factor = 0.78 if len(word) >= 32 and "-" not in word else 0.82  # a hyphenated name (a pod's, a bucket's) stays
    if b64.calculate_shannon_entropy(word) <= min(b64.entropy_limit, factor * math.log2(len(word))):
        return False
    # prose-like words (paths, CamelCase names, model ids with dates) are mostly real words and separators
    covered = sum(
        len(m.group())
        for m in _WORDLIKE.finditer(word)
        if len(m.group()) == 1 or m.group().isdigit() or _VOWELS.intersection(m.group())
    )
    return covered / len(word) < 0.6 or _unspelt_mixed(word)  # random: 97% of 20-char, 99.6% of 32+-char words pass


# a word of letters and digits mixing cases (base62, maybe padded), whose runs of letters ``_unspelt_mixed`` reads: runs
# of small letters (``Grnuku``), and with them runs of capitals (``USIOM``, also an acronym: ``AESGCM``); digits
# between letters (``As0Tt``, ``e2c``: a name's are at a word's end, ``Ed25519Private``, ``utf8Decode``)
_MIXED_CASE_WORD = re.compile(r"(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]+={0,2}")
_SMALL_RUN = re.compile(r"[A-Z]?[a-z]{3,}")
_LETTER_RUNS = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])")
_DIGITS_INSIDE = re.compile(r"(?<=[A-Za-z])[0-9]{1,2}(?=[A-Za-z])")
# the mean surprise (bits a letter pair, ``wordlike``) past which runs are drawn at random: small runs alone; with
# capitals (acronyms read less like words); with capitals in a word holding 3+ digits between letters
_SMALL_BITS, _ALL_BITS, _DIGITS_BITS = 4.6, 4.8, 4.3
_LEAST_PAIRS = 4


def _mean_surprise(word: str, runs: re.Pattern[str]) -> float:
    """The mean surprise of the letter pairs of ``word``'s ``runs``, judged together; 0 with under 4 pairs."""
    bits = pairs = 0
    for m in runs.finditer(word):
        more, count = surprise(m.group())
        bits, pairs = bits + more, pairs + count
    return bits / pairs if pairs >= _LEAST_PAIRS else 0.0


def _unspelt_mixed(word: str) -> bool:
    """Whether a word of letters and digits mixing cases, read as prose-like by its runs of letters, is drawn at random
    all the same: its runs of letters, judged together, are spelt as no words are (``LmGrnukuZvqoxAs0Tt2z…``:
    ``Grnuku``, ``Zvqox``, ``Cxsgo`` held vowels and covered 60% of it, so a random key under ``shared_key`` or after
    ``leaked`` was shown). A name (``getUserAccountSettings``, ``KnnAlgoParamEfSearch``) is spelt as words, judged so
    over all its runs, not one by one (``Algo``, ``Week`` alone read random). An alphabet (``ABC…Zabc…z0…9``), a third
    of its neighbours one letter apart, is no key. Random 40-character keys left unseen: one in 300 before, one in
    15,000 with it (of those whose letters keep one case for 5 in a row, a third before, one in 6,000); of 23,500
    prose-like words in installed packages' sources, it takes 10, each random (AWS's ``EXAMPLE…`` keys, a keyboard
    mashed)."""
    if len(word) < 20 or _MIXED_CASE_WORD.fullmatch(word) is None:  # (a URL's short user name: ``JohnSmith1985``)
        return False
    if 3 * sum(ord(b) - ord(a) == 1 for a, b in zip(word, word[1:], strict=False)) >= len(word):
        return False
    if _mean_surprise(word, _SMALL_RUN) > _SMALL_BITS:
        return True
    limit = _DIGITS_BITS if len(_DIGITS_INSIDE.findall(word)) >= 3 else _ALL_BITS
    return _mean_surprise(word, _LETTER_RUNS) > limit


def _reads_as_words(name: str) -> bool:
    """Whether half of the letters and digits of a generated name's given name or more are in words (runs of 3+
    letters holding a vowel): ``payments-api``, ``node-exporter``; not ``x7kq2m9``."""
    words = sum(len(w) for w in _NAME_PARTS.split(name) if len(w) >= 3 and _NAME_WORD.fullmatch(w))
    return 2 * words >= len(name) - name.count("-") - name.count("_") - name.count(".")


def _classes(word: str) -> int:
    """How many of digits, capitals and small letters ``word`` holds. An ASCII word (every word ``random_words``
    reads) is judged at C speed: a megabyte-long one took a second character by character."""
    if word.isascii():
        return (_ASCII_DIGIT.search(word) is not None) + (word != word.lower()) + (word != word.upper())
    return any(c.isdigit() for c in word) + any(c.isupper() for c in word) + any(c.islower() for c in word)


# an SSH public key (``ssh-ed25519 AAAAC3Nz… bob@host``, an ``authorized_keys`` line): public, no secret
_SSH_PUBLIC = re.compile(
    r"(?<![A-Za-z0-9-])(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)"
    r" AAAA[A-Za-z0-9+/]+={0,3}"
)


def without_ids(text: str) -> str:
    """``text`` with UUIDs, ULIDs (episode, request and draft ids), labelled digests and SSH public keys blanked out."""
    if " AAAA" in text:  # (every match holds it: a run of ``A`` alone is not searched)
        text = _SSH_PUBLIC.sub("****", text)  # a word no rule takes as a value (``ssh_key: <public key> bob@host``)
    for pattern in _NOT_RANDOM_GATED:
        text = pattern.sub(" ", text)
    return text


# where a value starts: after a name's ``=`` or ``:`` (with its quote), a flag (``--api-key <uuid>``), or a
# scheme's ``Bearer``/``Token``
_VALUE_BEFORE = re.compile(r"(?:[=:][ \t]*\\?[\"']?|(?i:bearer|token)[ \t]+|(?<![\w-])--?[A-Za-z][\w-]{0,40}[ \t]+[\"']?)\Z")


def ids_out_of_values(text: str) -> str:
    """``without_ids``, keeping an id given as a value: many keys are written as UUIDs (``HEROKU_API_KEY=<uuid>``,
    ``x-api-key: <uuid>``, ``Bearer <uuid>``), and the name before one says what it is. Read by the name rules."""

    def blank(m: re.Match[str]) -> str:
        before = m.string[max(0, m.start() - 48) : m.start()]
        return m.group() if _VALUE_BEFORE.search(before) is not None else " "

    if " AAAA" in text:  # (every match holds it: a run of ``A`` alone is not searched)
        text = _SSH_PUBLIC.sub("****", text)  # a word no rule takes as a value (``ssh_key: <public key> bob@host``)
    for pattern in _NOT_RANDOM_GATED:
        text = pattern.sub(blank, text)
    return text


# the names temporary folders get, random by design: macOS's per-user root (``/var/folders/5h/6p8hxzm94w5g…00gn/T/``)
# and ``tempfile``'s (``/tmp/tmpq3k9z_ab``: ``tmp`` and 8 of ``[a-z0-9_]``) after a ``/``, also after a prefix of
# plain words given to ``mkdtemp(prefix="demo-runs-")`` (``/tmp/demo-runs-ce7m4a8y``: hidden as a key in every error
# naming the folder); 8 characters after words are no key of any format (the shortest random part of one is 16)
_TEMP_NAMES = re.compile(
    r"(?<=/var/folders/)[a-z0-9_+-]{2}/[A-Za-z0-9_+-]{16,48}(?=/[TC](?![A-Za-z0-9+_-]))"
    r"|(?<=/)(?:tmp|(?:[A-Za-z]{2,}[-_.])+)[a-z0-9_]{8}(?![A-Za-z0-9+_-])"
)
_PLAIN = str.maketrans({c: "a" for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-"})


def temp_plain(text: str) -> str:
    """``text`` with temporary folders' names read as plain letters, each character in its place."""
    if "/tmp" not in text and "/var/folders/" not in text:
        return text
    return _TEMP_NAMES.sub(lambda m: m.group().translate(_PLAIN), text)


def path_parts(word: str) -> list[tuple[int, int]] | None:
    """Where else to judge ``word`` when it reads as a file path, else None: it starts at a ``/`` (``/tmp/…``, also
    in ``~/…`` and ``./…``), holds another, and its first part is a plain word (``tmp``, ``var``, ``Users``).

    A path is judged by these pieces, never whole (judged whole, ``/tmp/tmpq3k9z_ab/runs`` or
    ``/tmp/x/e8_zfp728iw_copy`` read as one random word and was hidden): each part, and each run of parts that are
    no plain words, joined again (a base64 key holds ``/``; cut at them, its pieces may read plain)."""
    if word[:1] != "/" or _PATH_ROOT.match(word) is None:
        return None
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []  # the parts that are no plain words since the last plain one of 4+ letters
    pos = 0
    for part in (*word.split("/"), "/"):  # a last stand-in part ends the last run
        span = (pos, pos + len(part))
        pos = span[1] + 1
        if part and part != "/" and _PLAIN_PART.fullmatch(part) is None:
            spans.append(span)
            run.append(span)
            continue
        if part and part != "/":
            spans.append(span)
        if part == "/" or len(part) >= 4:  # an empty or short part (``//``, ``jv``) may lie inside a key
            if len(run) > 1:
                spans.append((run[0][0], run[-1][1]))
            run.clear()
    return spans


def _beside_public_ids(word: str, b64: Any, hexp: Any) -> list[str]:
    """A random word holding ``/``: whole, or, when parts of it between ``/`` are public ids (a URL's
    ``ipfs.io/ipfs/<cid>``, ``/address/<address>``), the runs of the other parts that read random."""
    parts = word.split("/")
    if not any(len(p) >= 20 and public_id(p) for p in parts):
        return [word]
    found, start, pos = [], 0, 0
    for part in (*parts, "/"):  # a last stand-in part ends the last run
        if part == "/" or (len(part) >= 20 and public_id(part)):
            run = word[start : pos - 1] if pos > start else ""
            if len(run) >= 20 and entropy_ok(run, b64, hexp):
                found.append(run)
            start = pos + len(part) + 1
        pos += len(part) + 1
    return found


def random_words(text: str) -> list[str]:
    new_text()
    text = without_ids(text)
    plain = temp_plain(text)  # judged as read there; what is found is taken from ``text``, in the same places
    _, _, _, b64, hexp = plugins()
    found: list[str] = []
    for m in _CANDIDATE.finditer(plain):
        word, at = m.group(), m.start()
        if word.startswith("//") and plain[at - 1 : at] == ":":  # a URL's ``//`` before its host is no part of a key:
            # taken with it, ``s3://<key>`` read ``s3:[REDACTED]``, and a message cutting its scheme off cut the marker
            at += len(word) - len(word := word.lstrip("/"))
            if len(word) < 20:
                continue
        spans = path_parts(word)  # a path is judged part by part: a folder's random name (``mkdtemp(prefix="e8_")``'s
        if spans is not None:  # ``e8_zfp728iw``) is no key and hid the whole path, while a key inside it is still found
            found += (text[at + a : at + b] for a, b in spans if b - a >= 20 and entropy_ok(word[a:b], b64, hexp))
            continue
        if "/" in word and in_url(plain, at, word):  # a URL's host and path parts are judged one by one
            found += (text[at + a : at + b] for a, b in url_parts(word) if _url_span_random(word[a:b], b64, hexp))
            continue
        if entropy_ok(word, b64, hexp):
            found += _beside_public_ids(text[at : m.end()], b64, hexp) if "/" in word else [text[at : m.end()]]
    return found


# what stands between a URL's ``://`` and a word of it: its host, port and user (``https://docs.google.``,
# ``http://127.0.0.1:``); or before a word after a bare host's names (``example.``), starting with a top-level
# domain's name or a port
_HOST = re.compile(r"[^\s\"'<>/?#]*")
_HOST_HEAD = re.compile(r"(?<![\w.@/-])(?:[A-Za-z0-9-]+\.)+\Z")
_TOP_PART = re.compile(r"[a-z]{2,24}|[0-9]{1,5}")
_URL_REACH = 512  # the longest scheme and host looked back for


def in_url(text: str, at: int, word: str) -> bool:
    """Whether the word at ``at`` in ``text``, holding ``/``, is the host and path of a URL (``com/document/d/<id>/edit``
    after ``https://docs.google.``): its parts are judged one by one (``url_parts``), never as one word: judged whole,
    ``https://docs.google.com/document/d/<id>/edit`` read ``https://docs.google.[REDACTED]``."""
    lo = max(0, at - _URL_REACH)
    sep = text.rfind("://", lo, at)
    if sep >= 0 and _HOST.fullmatch(text, sep + 3, at) is not None:
        return True
    return (
        text[at - 1 : at] == "."
        and _TOP_PART.fullmatch(word.partition("/")[0]) is not None
        and _HOST_HEAD.search(text, lo, at) is not None
    )


# a piece of a key cut at its ``/`` (base64 holds ``/``: an AWS secret key ``wJalrXUtnFEMI/K7MDENG/bPxRfiCY…``): of
# key characters, and mixing cases and digits or holding ``+`` (a path's words, ``v1``, ``rotate``, ``d``, are none)
_KEY_PIECE = re.compile(r"[A-Za-z0-9+=_-]{4,}")
_KEY_CHARS = re.compile(r"[A-Za-z0-9+=_-]+")
# letters of one case: a key's piece may be so (``doaivq``, ``HKJJYL``), as a path's words are (``rotate``,
# ``README``): told apart by reading (``wordlike``). Words joined by ``-`` or ``_`` are a name (``aaaei_bbdfgh.py``)
_ONE_CASE = re.compile(r"[a-z]+|[A-Z]+")
_KEY_START = re.compile(r"(?:sk|rk|pk)[-_]|gh[pousr]_|github_pat_|glpat-|xox[a-z]-|hf_|AKIA|AIza|ya29\.|npm_|pypi-")


def _key_piece(part: str) -> bool:
    if _KEY_PIECE.fullmatch(part) is None:
        return False
    kinds = (any(c.isupper() for c in part), any(c.islower() for c in part), any(c.isdigit() for c in part))
    return sum(kinds) >= 2 or "+" in part


def _piece_kind(part: str) -> str:
    """How a URL's part may stand in a key cut at its ``/``: ``key`` (``_key_piece``); ``loose`` (4+ letters of one
    case reading as no word, or a key's known start: the key's too, beside its pieces); ``word`` (4+ letters of one
    case reading as a word: the key's only between its pieces, a random run may read as one); or ``""`` (a number, a
    file's name, a short part: ``/Volume_17/PDF/v17i1r66`` is no key)."""
    if _key_piece(part):
        return "key"
    if len(part) < 4 or _KEY_CHARS.fullmatch(part) is None:
        return ""
    if _KEY_START.match(part) is not None:  # a key's known start cut off from the rest (``sk-abc/def123…``)
        return "loose"
    if _ONE_CASE.fullmatch(part) is None:
        return ""
    if reads_as_word(part):
        return "word"
    return "loose" if len(part) >= _LOOSE_LEAST else ""  # (``/01167d0/345c022/aaab.py``: a short name, no piece)


_LOOSE_LEAST = 6


def _url_span_random(span: str, b64: Any, hexp: Any) -> bool:
    """Whether a span of a URL's path (``url_parts``) reads random; one led by a key's known start cut off at a ``/``
    is judged by the rest (``sk-proj-ab/<rest>``: the start is no random part, its ``-`` made the whole read as a
    generated name). One holding a piece of one case is judged as the key it would be, without its ``/`` (each ``/``
    and the piece's run of capitals read as a name's); pieces mixing cases are judged as written (without their
    ``/``, two hex ids side by side read as one key)."""
    first, sep, rest = span.partition("/")
    if not sep:
        return entropy_ok(span, b64, hexp)
    if _KEY_START.match(first) is not None:
        span = rest
    parts = span.split("/")
    if any(_piece_kind(part) == "loose" for part in parts):
        span = "".join(parts)
    return entropy_ok(span, b64, hexp)


_LETTER_RUN = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}(?![a-z])")
_NOT_HEX = re.compile(r"[g-zG-Z]")


def _pieces_random(word: str, run: list[tuple[int, int, str]]) -> bool:
    """Whether a run of a URL's parts holding more than key pieces may be one key: a piece holds a letter past ``f``
    (no hex id's), and where it bridges a word, it reads random without it: its key pieces, joined, are a random
    word of 20+ characters, under a third of it spelling words (``/e7f447b/netbsd/NetBSDProcessList``: a commit, a
    folder, a file's name)."""
    pieces = [word[a:b] for a, b, kind in run if kind == "key"]
    if all(kind == "key" for _, _, kind in run):
        return True
    if not any(_NOT_HEX.search(piece) for piece in pieces):  # commits and hex ids beside a name (``/23456bb/aacdfg.py``)
        return False
    if all(kind != "word" for _, _, kind in run):
        return True
    joined = "".join(pieces)
    spelt = sum(len(m.group()) for m in _LETTER_RUN.finditer(joined) if reads_as_word(m.group()))
    return len(joined) >= 20 and 3 * spelt < len(joined) and entropy_ok(joined)


def url_parts(word: str) -> list[tuple[int, int]]:
    """The spans of ``word`` to judge: each part between its ``/`` long enough (20+ characters), but public ids
    (``public_ids``), so a URL's host and words are never hidden with a key; and each run of adjacent parts that may be
    pieces of one key (``_piece_kind``), 20+ characters together and one of them a ``_key_piece``, as one: a key
    holding ``/`` is judged whole, not as pieces each too short to judge
    (``/v1/Zq8r3kVbXw9Lm/Pq2T+tY7uJf0H/n5aBcDeRs4GhW/rotate``), also where a piece of it is in letters of one case
    (``/d/doaivq/Pq2T+tY7uJf0H/n5aBcDeRs4GhW/rotate``; between two pieces, ``/Pq2T+tY7uJf0H/kelora/n5aBcDeRs4GhW/``,
    even one that reads as a word). The run of its ``key`` pieces alone is judged too."""
    spans: list[tuple[int, int]] = []
    runs: list[list[tuple[int, int, str]]] = [[], []]  # the parts that may be the key's since a word; its key pieces
    pos = 0
    for part in [*word.split("/"), "/"]:  # a last stand-in part closes the last runs
        if len(part) >= 20 and not public_id(part):
            spans.append((pos, pos + len(part)))
        kind = _piece_kind(part) if part != "/" else ""
        for run, kinds in zip(runs, (("key", "loose", "word"), ("key",)), strict=True):
            if kind in kinds:
                run.append((pos, pos + len(part), kind))
                continue
            while run and run[-1][2] == "word":  # a word ends no key: ``/<key>/rotate``, ``/files/<key>``
                run.pop()
            while run and run[0][2] == "word":
                run.pop(0)
            joined = (run[0][0], run[-1][1]) if len(run) > 1 else None
            if joined and joined[1] - joined[0] >= 20 and any(k == "key" for _, _, k in run) and joined not in spans:
                if not public_id(word[joined[0] : joined[1]]) and _pieces_random(word, run):
                    spans.append(joined)
            run.clear()
        pos += len(part) + 1
    return spans
