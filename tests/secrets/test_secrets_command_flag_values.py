"""A command flag that gives nothing but a password hides its value by the value alone: a placeholder (``secret``,
``password``, ``xxx``, ``<pass>``, ``$LDAP_PW``) stays, any other word is hidden. ``ldapsearch -w X`` and ``7z a -pX``
hid only a value shaped as a password (a digit or a symbol in it, mixed cases), as prose-like commands do (``echo X
| sudo -S``, ``net user NAME X``), so ``-w hunter`` or ``-p Summer`` were written in clear; redis-cli's ``AUTH X`` at
its prompt likewise, and ``mongosh -p X`` was never read (no hint of it passed the prefilter). The other commands'
flags (``sshpass -p``, ``sqlcmd -P``, ``keytool -storepass``…) already decided so, and are held to it here."""

from __future__ import annotations

import pytest

from noesis_nb.secrets import redact, shown

_FLAGS = [
    "ldapsearch -x -H ldap://db -D cn=admin,dc=ex -w {w} -b dc=ex",
    "ldapadd -D cn=admin -w {w} -f users.ldif",
    "ldapmodify -x -D cn=admin -w '{w}' -f change.ldif",
    "ldappasswd -D cn=admin -w {w} -s N3w uid=bob",
    "ldapwhoami -x -D uid=bob -w {w}",
    "7z a -p{w} backup.7z data/",
    "7za x -p{w} backup.7z",
    "unrar x -p{w} archive.rar",
    "rar a -p{w} archive.rar docs/",
    "127.0.0.1:6379> AUTH {w}",
    "127.0.0.1:6379[2]> auth default {w}",
    "localhost:6379> auth {w}",
    "redis:6379> AUTH {w}",
    "[::1]:6379> auth {w}",
    "redis-1:6380[3]> auth default {w}",
    "10.0.0.5:6379> AUTH {w}",
    "mongosh -u admin -p {w} --authenticationDatabase admin",
    "sshpass -p {w} ssh root@h",
    "ssh-keygen -p -P {w} -N '' -f key",
    "mysqladmin -u root password {w}",
    "htpasswd -b .htpasswd admin {w}",
    "smbpasswd -w {w}",
    "psexec \\\\h -u admin -p {w} cmd",
    "az login -u bob@ex.com -p {w}",
    "sqlcmd -S db -U sa -P {w}",
    "keytool -list -keystore k.jks -storepass {w}",
    "smbclient //h/share -U bob%{w}",
    "redis-cli -a {w} ping",
    "docker login -u bob -p {w} registry.ex.com",
    "zip -P {w} out.zip file",
    "openssl enc -aes256 -k {w} -in f",
    "curl -u bob:{w} https://api.ex.com",
    "requirepass {w}",
    "plink -ssh root@h -pw {w}",
]
_WORDS = ["hunter", "Summer", "reboot", "letmein", "TIGER", "orange-cat"]
_PLACEHOLDERS = ["secret", "password", "xxx", "<pass>", "$LDAP_PW", "${DB_PASSWORD}", "changeme", "****"]


@pytest.mark.parametrize("form", _FLAGS)
@pytest.mark.parametrize("word", _WORDS)
def test_any_word_given_to_a_password_flag_is_hidden(form: str, word: str) -> None:
    text = form.format(w=word)
    out, _ = redact({"cmd": text})
    assert word not in shown(text) and word not in out["cmd"]


@pytest.mark.parametrize("form", _FLAGS)
@pytest.mark.parametrize("word", _PLACEHOLDERS)
def test_a_placeholder_given_to_a_password_flag_stays(form: str, word: str) -> None:
    text = form.format(w=word)
    assert word in shown(text)


@pytest.mark.parametrize(
    "text",
    [
        "find . -name '*.rar' -print",  # ``rar`` inside a file's name: no command
        "ls backups/*.7z -p",
        "unrar x -p- archive.rar",  # ``-p-``: no password
        "7z x archive.7z -o/tmp/out",
        "ldapsearch -x -W -b dc=ex uid=bob",  # ``-W`` asks for the password
        "> Auth flow overview",
        "Auth required",
        "the rar format has a -print option",
        # a clock time before ``>`` is no redis-cli prompt (no host before its ``:port``)
        "10:30> auth server responded",
        "[10:30> auth failed again",
        "12:05:33> auth token refreshed",
        "at 9:15> auth service restarted",
    ],
)
def test_commands_giving_no_password_are_kept(text: str) -> None:
    assert shown(text) == text
