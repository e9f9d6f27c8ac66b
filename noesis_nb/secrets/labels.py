"""Secrets given by a label in another language or layout, by a command's own flag, or by code that names no
``name=value`` the other detectors read.

Labels: a table of the common languages' words for password, secret and token (``Passwort:``, ``mot de passe :``,
``пароль:``, ``hasło:``, ``パスワード：``), each also as Markdown writes it (``**Password:** X``, ``| password | X |``),
after a dash (``password — X``), with a fullwidth colon, or with the value alone on the next line; ``the secret is X``
and ``my token is X``. Commands: ``az login -p``, ``sqlcmd -P``, ``keytool -storepass``, ``smbclient -U user%X``,
``echo X | gh auth login --with-token``, ``chpasswd``, SQL's ``IDENTIFIED BY 'X'``, redis' ``AUTH X`` and
``requirepass X``, ``ConvertTo-SecureString 'X'``. Code: Go's ``password := "X"``, a basic-auth tuple
(``auth=('bob', 'X')``), an environment lookup's default (``os.getenv("API_KEY", "X")``), a setter
(``setPassword("X")``), a URL query's ``pass=X``, an HTML password field's ``value``.

A labelled value is taken only when it reads as no word: 6+ characters holding a digit or a symbol, or mixing cases
inside it (``Passwort vergessen?``, ``password — required``, ``the secret is out`` stay). Every pattern opens at a
literal and its repeats cannot give characters back to one another, and a command's flag or an HTML field's value is
looked for within a few hundred characters of its opening, so a long text is read in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .disguise import hidden
from .names import PLACEHOLDERS, is_secret_key, stands_for
from .tables import TABLE_HINT, column_secrets, html_cell_secrets, section_secrets

__all__ = ["FLAGGED_HINT_WORDS", "HINT_WORDS", "LABEL_HINT", "LABEL_HINT_BYTES", "LABEL_SAID", "labelled_secrets"]

# the word for password (and secret, token) in the common languages, lower case: de, fr, es, it, pt, nl, pl, cs, ru,
# uk, tr, sv, da/no, fi, el, ja, zh, ko; ar (كلمة المرور, كلمة السر), he (סיסמה, סיסמא), hi (पासवर्ड), fa (رمز عبور,
# گذرواژه), th (รหัสผ่าน), vi (mật khẩu), id (kata sandi), ms (kata laluan), hu (jelszó), hr/sr/bs (lozinka, лозинка),
# sl (geslo), et (parool), lt (slaptažodis), lv (parole), ro (parolă), bg (парола); "API key" as fr, ja, de, ru write
# it; English's own words last
_WORDS = (
    "passwort", "kennwort", "mot de passe", "mdp", "contraseña", "contrasena", "clave", "senha", "palavra-passe",
    "wachtwoord", "hasło", "haslo", "heslo", "пароль", "токен", "şifre", "sifre", "parola", "lösenord", "losenord",
    "adgangskode", "passord", "salasana", "κωδικός", "συνθηματικό", "パスワード", "暗証番号", "トークン", "密码",
    "密碼", "口令", "令牌", "密钥", "비밀번호", "암호", "토큰",
    "كلمة المرور", "كلمة السر", "סיסמה", "סיסמא", "पासवर्ड", "رمز عبور", "گذرواژه", "รหัสผ่าน", "mật khẩu",
    "kata sandi", "kata laluan", "jelszó", "jelszo", "lozinka", "лозинка", "geslo", "parool", "slaptažodis", "parole",
    "parolă", "парола", "clé api", "cle api", "apiキー", "api-schlüssel", "api-schluessel", "ключ api",
    "password", "passwd", "passphrase", "passcode", "pwd", "secret", "client secret", "token", "access token",
    "api key", "api-key", "apikey",
)  # fmt: skip
# what a text must hold for any rule here to read it (lower-cased): a table word not holding ``pass``, ``secret``,
# ``token`` or ``key`` (the other detectors' gates let those through), or a command's name
_HINT_WORDS: tuple[str, ...] = (
    "kennwort", "mdp", "contrase", "clave", "senha", "wachtwoord", "hasło", "haslo", "heslo", "пароль", "токен",
    "şifre", "sifre", "parola", "lösenord", "losenord", "adgangskode", "salasana", "κωδικ", "συνθηματικ", "パスワード",
    "暗証番号", "トークン", "密码", "密碼", "口令", "令牌", "密钥", "비밀번호", "암호", "토큰",
    "sqlcmd", "bcp ", "az login", "smbclient", "rpcclient", "identified", "with-token", "requirepass", "masterauth",
    "securestring", "auth ", "mongo",
    # the words added with ar, he, hi, fa, th, vi, id/ms, hu, hr/sr, sl, et, lt, lv, ro, bg and the "API key" labels,
    # each by a piece of it no word of the table above holds (``kata sandi``, ``ật khẩu``, ``é api``, ``üssel``)
    "كلمة", "סיסמ", "पासवर्ड", "رمز عبور", "گذرواژه", "รหัสผ่าน", "ật khẩu", "kata sandi", "kata laluan", "jelsz",
    "lozinka", "лозинка", "geslo", "parool", "žodis", "parole", "parolă", "парола", "é api", "cle api", "キー",
    "üssel", "schluessel", "ключ api",
    # the commands whose password flag a rule below reads: any ``<tool> login -p X`` (``helm registry login``,
    # ``skopeo``, ``oras``, ``vault login X``), the mongo tools, ``twine upload -p``
    "login", "twine",
)  # fmt: skip
# a word of a script writing vowels as combining marks (``पासवर्ड``, ``รหัสผ่าน``) is read without them too, as ``text``
# reads a text holding such marks (``disguise``: a mark may hide a keyword)
_HINT_WORDS += tuple(r for w in _HINT_WORDS if (r := hidden().sub("", w)) != w)
HINT_WORDS = _HINT_WORDS  # (``text``'s prefilter anchors each at a rarer letter or its flag; a test holds each found)
#: the command words of ``HINT_WORDS`` every rule here reads only beside a password flag of theirs, ``-p`` after a blank
#: (``--password`` holds ``pass``, a keyword), or as ``vault login X``: ``text``'s prefilter anchors them there (at the
#: flag's ``p`` looking back, at ``vault``'s ``u``), not at the words, whose common letters would have its one search
#: try most places of prose
FLAGGED_HINT_WORDS = ("login", "mongo", "twine")
LABEL_HINT = re.compile("|".join(re.escape(w) for w in _HINT_WORDS))
LABEL_HINT_BYTES = re.compile("|".join(re.escape(w) for w in _HINT_WORDS).encode())
# a secret's word said in prose or set off by no ASCII sign (``the secret is X``, ``password — X``, ``| token | X |``):
# a text of no ``=``, ``:`` or quote is read by the detectors only when it holds this (lower-cased)
LABEL_SAID = re.compile(r"(?:secret|token|key|pass\w*|pwd|passcode|pin|credentials?)(?:[ \t]+(?:is|was|are)\b|[ \t*_]*[—–|：→⇒])")


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"[ \t]+") for w in sorted(words, key=len, reverse=True))


_ENGLISH_FROM = _WORDS.index("password")
_UNMARKED = tuple(r for w in _WORDS[:_ENGLISH_FROM] if (r := hidden().sub("", w)) != w)  # (as the hints above)
_FOREIGN = _alternatives(_WORDS[:_ENGLISH_FROM] + _UNMARKED)
_ENGLISH = _alternatives(_WORDS[_ENGLISH_FROM:])
_VALUE = r"""[`'"]?([^\s`'"|*<>]+)"""
_RULES: tuple[re.Pattern[str], ...] = (
    # a label in another language, maybe Markdown-bold or in a table's cell, then ``:``, ``：``, ``=``, ``:=``, a dash
    # or the cell's ``|``, then the value on that line or alone on the next
    re.compile(
        rf"(?i)(?<![\w-])(?:{_FOREIGN})(?![\w-])[ \t]*+(?:\*\*|__)?[ \t]*+(?::=|[:：=]|[—–]|--?(?=[ \t])|\|)[ \t]*+"
        r"(?:\*\*|__)?[ \t]*+(?:\r?\n[ \t]*+)?" + _VALUE
    ),
    # an English label laid out as the other detectors read none (their ``name=value`` and ``name: value`` aside):
    # ``:=``, ``：``, a dash, a table's ``|``, Markdown-bold around its colon, or a colon ending its line
    re.compile(
        rf"(?i)(?<![\w-])(?:{_ENGLISH})(?![\w-])(?:[ \t]*+(?::=|[：—–|]|--?(?=[ \t]))|[ \t]*+(?:\*\*|__)[ \t]*+[:：]"
        r"|[ \t]*+[:：][ \t]*+(?:\*\*|__)|[ \t]*+:[ \t]*+(?=\r?\n))[ \t]*+(?:\*\*|__)?[ \t]*+(?:\r?\n[ \t]*+)?" + _VALUE
    ),
    # ``the secret is X``, ``my api token was: X``
    re.compile(
        r"(?i)(?<!\w)(?:the|my|our|your|its|his|her|their|this|that|new|admin)[ \t]+(?:[\w-]+[ \t]+)?"
        r"(?:secret|token|api[ _-]?key|key|passphrase|passcode|pin|credentials?)[ \t]+(?:is|was|are|=)[ \t]*:?[ \t]*" + _VALUE
    ),
    # commands given a password by a flag of their own
    re.compile(r"(?i)\baz[ \t]+login\b[^\n;&|]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)" + _VALUE),
    re.compile(r"\b(?:sqlcmd|bcp|mongosh|mongo)\b[^\n;&|]{0,300}?[ \t]-[Pp][ \t]*" + _VALUE),
    re.compile(
        r"\b(?:keytool|jarsigner)\b[^\n;&|]{0,300}?[ \t]-(?:src|dest|new)?(?:store|key)?pass(?:word)?[ \t]+(?:pass:)?" + _VALUE
    ),
    re.compile(r"\b(?:smbclient|rpcclient|smbmap|net[ \t]+rpc)\b[^\n;&|]{0,300}?[ \t](?:-U|--user=?)[ \t]*[^\s%]+%" + _VALUE),
    re.compile(r"\becho[ \t]+(?:-n[ \t]+)?" + _VALUE + r"[ \t]*\|[ \t]*gh[ \t]+auth[ \t]+login\b[^\n;&]{0,300}--with-token"),
    re.compile(r"""\becho[ \t]+(?:-e[ \t]+)?['"]?[\w.-]+:([^\s'"]+)['"]?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b"""),
    re.compile(r"""\bchpasswd\b[^\n]{0,300}?<<<[ \t]*['"]?[\w.-]+:([^\s'"]+)"""),
    re.compile(r"""(?i)\bidentified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+(?:password[ \t]+)?['"]([^'"\n]+)['"]"""),
    re.compile(r"(?im)(?:^|>[ \t]*)auth[ \t]+(?:[\w.-]+[ \t]+)?" + _VALUE + r"[ \t]*$"),
    # ... at redis-cli's prompt (``127.0.0.1:6379> AUTH X``, ``…:6379[2]> auth user X``): a password whatever its word.
    # A host stands before the port (one ending in a letter, ``localhost``, ``redis``; in a letter or a dash and up to 3
    # digits, ``redis-1``, ``db01``; an IPv4 address's last number; an IPv6 address's ``]``), and the port has 2-5 digits:
    # a clock time is none (``10:30> auth server responded`` lost its last word). Looked back at from the ``:``: a
    # pattern opening with the host would be tried at every place
    re.compile(
        r"(?m):(?:(?<=[A-Za-z_\]]:)|(?<=[A-Za-z_-][0-9]:)|(?<=[A-Za-z_-][0-9]{2}:)|(?<=[A-Za-z_-][0-9]{3}:)"
        r"|(?<=[0-9]\.[0-9]:)|(?<=[0-9]\.[0-9]{2}:)|(?<=[0-9]\.[0-9]{3}:))"
        r"[0-9]{2,5}(?:\[[0-9]{1,3}\])?>[ \t]*(?i:auth)[ \t]+(?:[\w.-]+[ \t]+)?" + _VALUE + r"[ \t]*$"
    ),
    re.compile(r"(?i)(?<![\w-])(?:requirepass|masterauth)[ \t]+" + _VALUE),
    re.compile(r"""(?i)\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?['"]([^'"\n]+)['"]"""),
    # code: a basic-auth tuple or object, an environment lookup's default, a setter, a URL query, an HTML field
    re.compile(
        r"""(?:\bauth[ \t]*=[ \t]*[(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|HTTPProxyAuth)\()[ \t]*"""
        r"""['"][^'"\n]*['"][ \t]*,[ \t]*['"]([^'"\n]+)['"]"""
    ),
    re.compile(r"(?i)[?&](?:amp;)?(?:pass|passwd|password|pwd|pw|pswd|passphrase|passcode)=([^&\s#\"'<>]+)"),
    re.compile(
        r"""(?i)<input\b[^<>]{0,400}?\btype[ \t]*=[ \t]*["']?password\b[^<>]{0,400}?\bvalue[ \t]*=[ \t]*(?:"([^"]*)"|'([^']*)')"""
    ),
    re.compile(
        r"""(?i)<input\b[^<>]{0,400}?\bvalue[ \t]*=[ \t]*(?:"([^"]*)"|'([^']*)')[^<>]{0,400}?\btype[ \t]*=[ \t]*["']?password\b"""
    ),
)
# the layouts added later, each judged as a label's value: a label qualified by what it is for (``Password (prod): X``,
# ``password for prod: X``), written as code (`` `password`: `X` ``), before an arrow (``password → X``) or a dotted
# leader (``Password ....... X``); an HTML cell naming one is ``tables``'
_ANY_WORD = f"(?:{_ENGLISH}|{_FOREIGN})"
_LAYOUT_RULES = (
    re.compile(
        rf"(?i)(?<![\w-]){_ANY_WORD}(?:[ \t]*+\([^()\n]{{1,40}}+\)"
        r"|[ \t]++(?:for|on|of|to|at)(?:[ \t]++[\w.@/-]{1,40}+){1,3}+)[ \t]*+(?::=|[:：=]|[—–→⇒]|->|=>)[ \t]*+" + _VALUE
    ),
    re.compile(rf"(?i)`{_ANY_WORD}`[ \t]*+(?::=|[:：=]|[—–→⇒]|->|=>)[ \t]*+" + _VALUE),
    re.compile(rf"(?i)(?<![\w-]){_ANY_WORD}(?![\w-])[ \t]*+(?:[→⇒]|->|=>|\.{{3,}}+|…++)[ \t]*+" + _VALUE),
)
# commands given a password by a flag of their own, read as a label's value is (judged: ``-p 2222`` is a port)
_COMMAND_RULES = (
    # any tool's login (``helm registry login``, ``skopeo``, ``oras``, ``buildah``, ``crane auth login``) by ``-p``
    re.compile(r"(?i)\blogin\b[^\n;&|]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)" + _VALUE),
    # the mongo tools (``mongo``, ``mongosh``, ``mongodump``, ``mongorestore``, ``mongoexport``, ``mongoimport``, …)
    re.compile(r"\bmongo[a-z]*\b[^\n;&|]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)" + _VALUE),
    re.compile(r"\btwine\b[^\n;&|]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)" + _VALUE),
    re.compile(r"\bgh[ \t]+secret[ \t]+set\b[^\n;&|]{0,300}?[ \t](?:-b|--body)(?:[ \t]+|=)" + _VALUE),
    # ``vault login X`` (a token given whole, no flag: ``vault login -method=userpass username=bob`` gives none)
    re.compile(r"\bvault[ \t]+login(?:[ \t]+-[\w-]+(?:=[^\s=]*)?)*+[ \t]+(?!-)([^\s`'\"|*<>=]+)(?=[ \t]*(?:$|[\n;&|]))", re.M),
    # ``echo X | passwd --stdin user`` (RHEL's passwd reads it from its standard input)
    re.compile(
        r"\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+|['\"]?%s(?:\\n)?['\"]?[ \t]+)?"
        + _VALUE
        + r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?passwd[ \t]+--stdin\b"
    ),
    # MySQL's ``SET PASSWORD [FOR user] = PASSWORD('X')`` or ``= 'X'``
    re.compile(r"""(?i)\bset[ \t]+password\b[^\n;=]{0,200}=[ \t]*(?:password[ \t]*\([ \t]*)?['"]([^'"\n]+)['"]"""),
)
_RULES += _LAYOUT_RULES + _COMMAND_RULES
# code whose first group is a name to judge (``is_secret_key``) before the value: Go's ``:=``, an environment lookup's
# default, a setter
_NAMED_RULES = (
    re.compile(r"""(?<![\w.])([A-Za-z_][\w.]{0,80})[ \t]*:=[ \t]*["'`]([^"'`\n]+)["'`]"""),
    re.compile(
        r"""\b(?:getenv|environ\.get|env\.get|ENV\.fetch|Getenv|GetEnvironmentVariable)[ \t]*\([ \t]*['"]([\w.-]+)['"]"""
        r"""[ \t]*,[ \t]*['"]([^'"\n]+)['"]"""
    ),
    re.compile(r"""\b(?:set|with|Set|With)_?([A-Za-z_]\w{0,40})[ \t]*\([ \t]*['"]([^'"\n]+)['"][ \t]*\)"""),
)
_RULES += _NAMED_RULES
_NAMED = frozenset(_NAMED_RULES)
# the rules whose value may be a word, judged as one (a label's, a saying's, a redis line's, a query's)
_JUDGED = frozenset(_RULES[:3] + _LAYOUT_RULES + _COMMAND_RULES) | {
    rule for rule in _RULES if "auth[ " in rule.pattern or "pass|passwd|" in rule.pattern
}
# a header word naming a secret column: not ``token`` alone (a tokenizer's or a log-probability table's column)
_COLUMN_WORDS = frozenset(w.lower() for w in _WORDS if w != "token") | {"pass", "api_key", "access_token", "client_secret"}
_TRAILING = ".,;:!?)]}"
_CODE = re.compile(r"[A-Za-z_][\w.]*[(\[]")


def _reads_as_no_word(value: str) -> bool:
    """Whether a labelled value reads as a credential, not a word: 6+ characters, no placeholder nor reference, and a
    digit or a symbol in it, or cases mixed inside it."""
    if len(value) < 6 or value.lower() in PLACEHOLDERS or stands_for(value) or set(value) <= set("*x•.-_#"):
        return False
    if _CODE.match(value) is not None:  # ``password := os.Getenv(``, ``Passwort: getpass(``
        return False
    if any(c.isdigit() for c in value) or not value.replace("-", "").replace("_", "").isalnum():
        return True
    return not (value.islower() or value.isupper() or value.istitle())


def labelled_secrets(text: str) -> Iterator[str]:
    """The secrets the rules above find in ``text``."""
    for rule in _RULES:
        for m in rule.finditer(text):
            if rule in _NAMED:
                if not is_secret_key(m.group(1)):
                    continue
                value = m.group(2)
            else:
                value = next((g for g in m.groups() if g), "")
            value = value.rstrip(_TRAILING) if rule in _JUDGED else value
            if not value or (rule in _JUDGED and not _reads_as_no_word(value)):
                continue
            if rule not in _JUDGED and (value.lower() in PLACEHOLDERS or stands_for(value)):
                continue
            yield value
    if TABLE_HINT.search(text.lower()) is not None or LABEL_HINT.search(text.lower()) is not None:
        yield from column_secrets(text, _COLUMN_WORDS, _reads_as_no_word)  # ``user,password`` then ``admin,X``
        yield from html_cell_secrets(text, _COLUMN_WORDS, _reads_as_no_word)  # ``<th>Password</th><td>X</td>``
        yield from section_secrets(text, _reads_as_no_word)  # ``credentials:`` then ``  admin: X``
