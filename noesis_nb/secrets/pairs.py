"""Secret-named values written as text in the shapes that give a name and its value apart.

A tool's output prints configuration: ``kubectl get deploy -o json|yaml`` an env entry (``{"name": "DB_PASSWORD",
"value": "…"}`` as JSON text, ``- name: DB_PASSWORD`` then ``value: …`` as YAML), Maven's ``settings.xml`` an element
named like a secret (``<password>…</password>``), a Dockerfile ``ENV DB_PASSWORD …`` (its older form, the name and
the value apart by a space) or ``ARG``. ``name = value`` and ``"name": "value"`` are read by ``text._assignments``; in
these shapes the value does not follow its name, and was written in clear. ``named_values(text)`` gives each such
value as written (``text`` judges it as any value given to a secret-looking name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .names import is_secret_key, stands_for

__all__ = ["named_values", "command_passwords", "COMMAND_HINT", "COMMAND_HINT_BYTES"]

_Q = r"""\\?["']?"""  # a quote around a field's name or value, escaped inside a JSON string (``\"name\"``)
_NAME_FIELD = r"(?:name|key|Name|Key|ParameterKey|OptionName|header|Header)"
_VALUE_FIELD = r"(?:value|Value|ParameterValue)"
_FIELD_NAME = r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})"
# a field's value: quoted (to its closing quote, on its line) or a bare word to its line's end (YAML), of at most
# 1,024 characters (a longer one is no pair here: the randomness rule judges a long word). Each is taken whole, never
# given back (possessive), and bounded: a value the pattern then finds no name after is no pair, and trying every
# shorter cut of it, each with its 200 characters between, or reading each ``value:`` of a long line to the line's
# end, made one long line of prose cost seconds
_FIELD_VALUE = (
    r"""(?:\\?"(?P<dq>[^"\\\n]{1,1024}+)(?![^"\\\n])|'(?P<sq>[^'\n]{1,1024}+)'"""
    r"""|(?P<bare>[^\s"'{}\[\],][^\n"'{}\[\],]{0,1023}+)(?![^\n"'{}\[\],]))"""
)
# what stands between the two fields of one entry: no brace or bracket (another object), no new YAML list item
_BETWEEN = r"(?:(?!\n[ \t]*-[ \t])[^{}\[\]]){0,200}?"
_SEP = r"[ \t]*:[ \t]*"
_PAIR = re.compile(
    rf"(?<![\w-]){_Q}{_NAME_FIELD}{_Q}{_SEP}{_Q}{_FIELD_NAME}{_Q}{_BETWEEN}(?<![\w-])(?P<field>{_Q}{_VALUE_FIELD}){_Q}{_SEP}{_FIELD_VALUE}"
)
_PAIR_REVERSED = re.compile(
    rf"(?<![\w-]){_Q}{_VALUE_FIELD}{_Q}{_SEP}{_FIELD_VALUE}{_BETWEEN}(?<![\w-])(?P<field>{_Q}{_NAME_FIELD}){_Q}{_SEP}{_Q}{_FIELD_NAME}"
    r"(?![A-Za-z0-9_.-])"
)
# an XML element named like a secret, holding text: ``<password>…</password>``, ``<db.password>``, ``<ns:token>``
_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]{0,80})(?:[ \t][^<>\n]*)?>(?P<value>[^<>\n]{1,256})</(?P=tag)[ \t]*>")
# an XML element's attributes naming a setting and giving its value (.NET ``<add key="DbPassword" value="…"/>``,
# ``<param name="password" value="…"/>``), in either order, inside one tag
_ATTR_NAME = r"""\b(?:key|name|Key|Name)[ \t]*=[ \t]*(?P<nq>["'])(?P<name>[A-Za-z_][\w.:-]{0,80})(?P=nq)"""
_ATTR_VALUE = r"""\b(?:value|Value)[ \t]*=[ \t]*(?P<vq>["'])(?P<value>[^"'<>\n]{1,1024})(?P=vq)"""
_ATTRIBUTES = (
    re.compile(rf"<[A-Za-z_][\w.:-]{{0,80}}[ \t][^<>]{{0,400}}?{_ATTR_NAME}[^<>]{{0,400}}?{_ATTR_VALUE}"),
    re.compile(rf"<[A-Za-z_][\w.:-]{{0,80}}[ \t][^<>]{{0,400}}?{_ATTR_VALUE}[^<>]{{0,400}}?{_ATTR_NAME}"),
)
# a connection string's value in braces (ODBC: required when it holds ``;`` or ``}``, a ``}`` in it doubled): ``PWD={…}``
# The value holds no ``={`` (another value's start): each character is read by one start at most, never given back, so
# a line of ``PWD={PWD={…`` is read once (from each ``{`` to the next ``}``, 1,024 characters, it cost seconds)
_BRACED = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z_][\w .-]{0,40}?)[ \t]*=[ \t]*\{"
    r"(?P<value>(?:[^}\n=]|=(?![ \t]*\{)|\}\}){1,1024}+)\}(?!\})"
)
# a command line giving a password by a flag or word of its own meaning (what the flag means depends on the command:
# ``ssh-keygen -N`` is a passphrase, ``grep -N`` none); a value quoted (with its spaces) or a word, to the command's end.
# The flag is looked for within 300 characters of the command's word: read to the command's end from each word, a
# line of ``sshpass sshpass …`` (or ``ldapsearch``, ``7z a``) cost seconds per 100 KB
_CMD_VALUE = r"""(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s'";&|]+))"""
_COMMANDS = re.compile(
    r"(?:\bsshpass\b[^\n;&|]{0,300}?\s-p[ \t]*"  # sshpass -p X
    r"|\bssh-keygen\b[^\n;&|]{0,300}?\s-[NP][ \t]*"  # ssh-keygen -N X (new passphrase), -P X (old one)
    r"|\bmysqladmin\b[^\n;&|]{0,300}?\s(?:password|-p(?=\S))[ \t]*"  # mysqladmin … password X
    r"|\b(?:htpasswd|htdigest)\b[^\n;&|]{0,300}?\s-\w*b\w*\s+\S+\s+\S+\s+"  # htpasswd -b file user X
    r"|\bsmbpasswd\b[^\n;&|]{0,300}?\s-w[ \t]*"  # smbpasswd -w X
    r"|\bpsexec(?:\.exe)?\b[^\n;&|]{0,300}?\s-p[ \t]+"  # psexec -u user -p X
    r"|\b(?:ldapsearch|ldapadd|ldapmodify|ldapdelete|ldappasswd|ldapwhoami|ldapcompare|ldapmodrdn|ldapexop)\b"
    r"[^\n;&|]{0,300}?\s-w[ \t]*"  # ldapsearch -w X (``-W`` asks for it)
    # 7z a -pX, at its command's place (``find -name '*.rar' -print`` gives none; ``unrar x -p-``: no value)
    r"|(?<![\w.*/-])(?:7z|7za|7zr|unrar|rar)(?:\.exe)?[ \t]+[a-z](?=[ \t])[^\n;&|]{0,300}?\s-p(?=\S)"
    # these read as prose or other commands too (``the net user base grows``, ``echo hello | sudo -S``): their word
    # is taken only shaped as a password (``_shaped``)
    r"|(?P<shaped>\bnet(?:\.exe)?[ \t]+user[ \t]+[^\s/]+[ \t]+(?=[^\s/*])"  # net user NAME X /add
    r"|\b(?:echo(?:[ \t]+-[ne]+)?|printf(?:[ \t]+['\"]?%s(?:\\n)?['\"]?)?)[ \t]+"
    r"(?=\S+[ \t]*\|[ \t]*sudo\b[^\n;&|]{0,300}?\s-\w*S)"
    r"))" + _CMD_VALUE
)
# Oracle's ``user/password@connect`` (``sqlplus app/X@ORCL``, ``jdbc:oracle:thin:app/X@//db:1521/ORCL``, ``expdp``)
_ORACLE = re.compile(
    r"(?i)(?:\b(?:sqlplus|sqlldr|expdp|impdp|exp|imp|dgmgrl|rman[ \t]+(?:target|catalog)|sql)\b(?:[ \t]+-\w+)*[ \t]+['\"]?"
    r"|jdbc:oracle:\w+:)[\w$#]{1,30}/(?P<value>[^\s@/'\"]{1,256})@"
)
#: what a command or connection form above needs in its text (a text holding none is not read by them); the
#: prefilters let a text holding one of those that name no secret-looking word through (``COMMAND_HINT_BYTES``)
COMMAND_HINT = re.compile(
    r"(?i)sshpass|ssh-keygen|mysqladmin|htpasswd|htdigest|smbpasswd|ldap|psexec|7z|rar|net|sudo|oracle|sql|exp|imp|rman"
)
COMMAND_HINT_BYTES = re.compile(
    rb"(?i)sudo\b|\bnet(?:\.exe)?\s+user\s|sql(?:plus|ldr)|expdp|impdp|dgmgrl|\brman\b|jdbc:oracle|ldap|\b7za?\b"
    rb"|psexec|\b(?:un)?rar\b"
)


# a Dockerfile's ``ENV NAME value`` (the rest of the line) and ``ARG``/``ENV NAME=value``
_DOCKER = re.compile(r"(?m)^[ \t]*(?:ENV|ARG)[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]{0,80})(?:[ \t]+|=)(?P<value>[^\n]+)")


def named_values(text: str) -> Iterator[str]:
    """The values of secret-looking names in ``text`` written as an env entry (JSON or YAML), an XML element or a
    Dockerfile's ``ENV``/``ARG``, each stripped of the quotes around it."""
    if "alue" in text:
        for pattern in (_PAIR, _PAIR_REVERSED):
            for m in pattern.finditer(text):
                if is_secret_key(m.group("name")) and (m.group("bare") is None or _line_start(text, m.start("field"))):
                    yield (m.group("dq") or m.group("sq") or m.group("bare") or "").strip()
    if "</" in text:
        for m in _ELEMENT.finditer(text):
            if is_secret_key(m.group("tag").rpartition(":")[2]):
                yield m.group("value").strip()
    if "alue" in text and "<" in text:
        for pattern in _ATTRIBUTES:
            for m in pattern.finditer(text):
                if is_secret_key(m.group("name").rpartition(":")[2]):
                    yield m.group("value").strip()
    if "={" in text or "= {" in text:
        read_to = 0  # where the last braced value ended: no value opened before it holds what follows
        for m in _BRACED.finditer(text):
            value = m.group("value") if _secret_brace(m.group("name")) else _braced_around(text, m, read_to)
            read_to = m.end()
            if value:
                # the value as written (each ``}`` in it doubled: only so is it in the text and hidden there) and as
                # it reads, the password itself (``PWD={k3Y{q=7}}zP}``: ``k3Y{q=7}zP`` alone was hunted, and shown)
                yield value
                if "}}" in value:
                    yield value.replace("}}", "}")
    if "ENV" in text or "ARG" in text:
        for m in _DOCKER.finditer(text):
            if is_secret_key(m.group("name")):
                yield m.group("value").strip().strip("\"'")


_NAME_BEFORE = re.compile(r"(?<![\w.-])([A-Za-z_][\w .-]{0,40}?)[ \t]*\Z")


def _secret_brace(name: str) -> bool:
    name = name.strip()
    return is_secret_key(name) or name.lower() == "pwd"  # (``PWD`` alone names the working directory elsewhere)


def _braced_around(text: str, m: re.Match[str], read_to: int) -> str:
    """A secret's braced value holding ``={`` (``PWD={k3={q7}}zP}``), as written: ``_BRACED`` reads no value through
    ``={`` (so each character is read by one start), and took ``k3={q7}}zP}`` for a value of its own, under ``k3``.
    Looked for back from it, on its line, to the last ``={`` with a secret-looking name before it; "" when none.

    The look-back reads only what lies between the braced value before (``read_to``: its closing ``}`` ends any value
    opened before it, ``}}}`` too) and this one, each stretch once: stopping at each ``={`` and rescanning from there, a
    line of ``b={c}}}`` cost seconds per 14 KB."""
    lo = max(read_to, m.start() - 1024, text.rfind("\n", read_to, m.start()) + 1)
    if text.rfind("={", lo, m.start()) < 0:
        return ""
    for close in _SINGLE_CLOSE.finditer(text, lo, m.start()):  # (``PWD={a}b={c}``: a value closed before this one)
        lo = close.end()
    window = max(0, m.start() - 1024, text.rfind("\n", max(0, lo - 48), m.start()) + 1)  # where a name may start
    at = text.rfind("={", lo, m.start())
    while at >= 0:  # (``PWD={a={b={c}``: each ``={`` back, each looked at once)
        name = _NAME_BEFORE.search(text, max(window, at - 48), at)
        if name is not None and _secret_brace(name.group(1)):
            return text[at + 2 : m.end("value")]
        at = text.rfind("={", lo, at)
    return ""


_SINGLE_CLOSE = re.compile(r"(?<!\})\}(?!\})")  # a ``}`` not doubled: the end of a braced value


def _line_start(text: str, at: int) -> bool:
    """Whether a YAML entry's field stands first on its line (after its indent, or its list item's ``-``): an unquoted
    value is read only so (``the name: password and value: lowered`` is prose)."""
    return text[text.rfind("\n", 0, at) + 1 : at].strip(" \t-") == ""


def command_passwords(text: str) -> Iterator[str]:
    """The passwords command lines in ``text`` give by a flag or word of their own (``sshpass -p X``, ``ssh-keygen -N
    X``, ``mysqladmin password X``, ``net user NAME X``, ``echo X | sudo -S``) and Oracle's ``user/X@db``."""
    if COMMAND_HINT.search(text) is None:
        return
    for m in _COMMANDS.finditer(text):
        value = m.group("dq") or m.group("sq") or m.group("bare")
        if m.group("shaped") is None or _shaped(value):
            yield value
    for m in _ORACLE.finditer(text):
        yield m.group("value")


def _shaped(value: str) -> bool:
    """Whether a command's word is shaped as a password, not as a word or a message (``hello``, ``done``, ``y``,
    ``true``, ``Yes``, ``$PASSWORD``): 6 characters or more, holding a digit or a symbol or mixing cases past its first
    letter, and no reference to another value (``names.stands_for``)."""
    if len(value) < 6 or (value[:1] == "$" and stands_for(value)):
        return False
    return not (value.isalpha() and (value.islower() or value.isupper() or value[1:].islower()))
