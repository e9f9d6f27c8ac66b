"""The prefilter finds every hint the detectors need with one anchored search (issue 16: it runs on every event).

The command, short-name and other-language hints (``sudo``, ``net user``, ``my pw is``, ``Kennwort``, ``пароль``) were
four searches of their own, each tried at most places of a text (``(?i)``, a leading ``\\b``, words opening with common
letters): ~10 µs of an ordinary event's screen. They are now branches of the keyword-anchor search, each starting at a
rarer letter and looking back. What the patterns as first written found, the prefilter still lets through."""

from __future__ import annotations

import re

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import guard
from noesis_nb.secrets.labels import FLAGGED_HINT_WORDS, HINT_WORDS
from noesis_nb.secrets.text import _ANCHORS_HINTS_OR_CHUNKS, _HINT, _KEYWORD_ANCHORS, might_contain
from tests.callcount import calls_per_event

#: the hint patterns as first written (``pairs``, ``prose``, ``labels``), each searched on its own
OLD_COMMAND = re.compile(
    rb"(?i)sudo\b|\bnet(?:\.exe)?\s+user\s|sql(?:plus|ldr)|expdp|impdp|dgmgrl|\brman\b|jdbc:oracle|ldap|\b7za?\b"
    rb"|psexec|\b(?:un)?rar\b"
)  # on the text as written
OLD_SHORT_SAID = re.compile(rb"(?<![a-z])pwd?[ \t]+(?:is|was)[ \t]")  # on the lowered text
_OLD_WORDS = (
    "kennwort", "mdp", "contrase", "clave", "senha", "wachtwoord", "hasło", "haslo", "heslo", "пароль", "токен",
    "şifre", "sifre", "parola", "lösenord", "losenord", "adgangskode", "salasana", "κωδικ", "συνθηματικ", "パスワード",
    "暗証番号", "トークン", "密码", "密碼", "口令", "令牌", "密钥", "비밀번호", "암호", "토큰",
    "sqlcmd", "bcp ", "az login", "smbclient", "rpcclient", "identified", "with-token", "requirepass", "masterauth",
    "securestring", "auth ",
)  # fmt: skip
OLD_LABEL = re.compile("|".join(re.escape(w) for w in _OLD_WORDS).encode())  # on the lowered text


def old_found(blob: bytes) -> bool:
    lowered = blob.lower()
    return any((OLD_COMMAND.search(blob), OLD_SHORT_SAID.search(lowered), OLD_LABEL.search(lowered)))


# every hint's words, cut and whole, with the flags, blanks and signs around them, in ordinary words
_COMMANDS = [
    "sudo", "SUDO", "net", "net.exe", "NET", "user", "User", "sqlplus", "sqlldr", "sql", "expdp", "impdp", "exp", "imp",
    "dgmgrl", "rman", "RMAN", "jdbc:oracle", "jdbc", "oracle", "ldap", "ldapsearch", "7z", "7za", "7Z", "z", "psexec",
    "PsExec", "rar", "unrar", "UnRAR", "pw", "pwd", "PW", "is", "was", "my", "-p", "-S", "-w",
]  # fmt: skip
_ORDINARY = ["thought", "number", "about", "benchmark", "step", "run", "a", "x", "9", "_", "-", "/", ".", "=", ":", '"']
_SEPARATORS = [" ", "  ", "   ", "\t", "\n", "", ",", "(", "'"]
_WORDS = [*_OLD_WORDS, *(w.upper() for w in _OLD_WORDS), *(w[:-1] for w in _OLD_WORDS), *(w[1:] for w in _OLD_WORDS)]
pieces = st.sampled_from(_COMMANDS + _ORDINARY + _WORDS) | st.text(max_size=6)
texts = st.lists(st.tuples(pieces, st.sampled_from(_SEPARATORS)), max_size=10).map(lambda parts: "".join(p + s for p, s in parts))


@settings(max_examples=3000, deadline=None)
@given(text=texts)
def test_the_prefilter_lets_through_whatever_the_hints_as_written_found(text):
    raw = text.encode("utf-8", "surrogatepass")
    if old_found(raw):
        assert _HINT.search(raw.lower()) is not None, raw
    payload = {"step": 5, "text": text}
    try:
        blob = orjson.dumps(payload)
    except TypeError:  # a lone surrogate: no JSON text, nothing to screen
        return
    lowered = blob.lower()  # the event path's one search finds exactly what the anchors, the hints and ``},{`` find
    each = _KEYWORD_ANCHORS.search(lowered) or _HINT.search(lowered) or lowered.find(b"},{") >= 0
    assert (_ANCHORS_HINTS_OR_CHUNKS.search(lowered) is not None) == bool(each), blob
    if old_found(blob):  # the event path's gate (``payload_might_contain``: past it, each value is judged) and the text's
        assert _ANCHORS_HINTS_OR_CHUNKS.search(blob.lower()) is not None, blob
        assert might_contain(blob), blob


def test_every_hint_word_is_found_whole():
    # a word added to ``labels.HINT_WORDS`` needs a branch here too: anchored at a rarer letter, looking back
    for word in HINT_WORDS:
        for text in (word, f"the {word} x", f'{{"text":"{word.upper()}: x"}}'):
            data = text.encode().lower()
            if OLD_LABEL.search(data) is not None:  # (``bytes.lower`` lowers ASCII only: ``HASŁO`` stays)
                assert _HINT.search(data) is not None, text
        if word in FLAGGED_HINT_WORDS:  # (read only beside their ``-p``: anchored there, ``--password`` holds ``pass``)
            assert _HINT.search(f"{word} -u u -p x".encode()) is not None, word
            continue
        assert word in _OLD_WORDS or _HINT.search(word.encode()) is not None, word


def test_ordinary_text_holds_no_hint():
    for text in ("thought number 5 about benchmark", "the user said so", "a password-free mapping", "shipping design"):
        assert _HINT.search(text.encode()) is None, text


#: ``re.Pattern.search`` calls the screen of an ordinary flat event makes: the keyword anchors, hints and list-of-records
#: test in one, the look for a container under a key, and the stream's keyword test of its ``text`` (a streamed piece's
#: key, ``streamed``); 6 while each hint was a search of its own
SEARCH_BUDGET = 3


def test_an_ordinary_event_is_screened_with_few_pattern_searches(runs_dir):
    guard.for_run(runs_dir / "ep_x").learn(["Zq9vT3kLmN8pR2sW7xY4bH6d"])  # as in CI: a process that learned secrets
    counts: list[int] = []

    def agent(task, ctx):
        counts.extend(calls_per_event(ctx, task, _a_pattern_search))
        ctx.emit("reason", {"note": "my pw is Hx7-corral-Vb2q9"})  # a hint alone still sends it to the detectors
        return "ok"

    episode = noesis_nb.solve("benchmark", using=agent, runs_dir=runs_dir)
    fewest = min(counts)
    assert fewest <= SEARCH_BUDGET, f"an ordinary event made {fewest} pattern searches (budget {SEARCH_BUDGET})"
    lines = (runs_dir / episode / "events.jsonl").read_bytes().splitlines()
    reasons = [orjson.loads(line) for line in lines if b'"phase":"reason"' in line]
    assert [r["payload"].get("step") for r in reasons[3:23]] == list(range(20))
    assert "Hx7-corral-Vb2q9" not in reasons[-1]["payload"]["note"]


def _a_pattern_search(event: str, arg: object) -> bool:
    """A profiler's call of some compiled pattern's ``search``."""
    return (
        event == "c_call" and getattr(arg, "__name__", "") == "search" and isinstance(getattr(arg, "__self__", None), re.Pattern)
    )
