"""Passwords given by connection strings, XML settings and command lines in forms of their own: ODBC's braced value
(``PWD={…}``), .NET's ``<add key="DbPassword" value="…"/>``, ``sshpass -p '…'`` (quoted), ``ssh-keygen -N …``,
``mysqladmin … password …``, ``htpasswd -b``. Each was written and shown in clear;
ordinary settings and commands beside them are kept."""

from __future__ import annotations

import secrets as stdlib_secrets
import string

import pytest

from noesis_nb.secrets import redact, shown


def _password() -> str:
    rnd = stdlib_secrets.SystemRandom()
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(10)) + "!t" + rnd.choice("Qq") + "w"


_FORMS = [
    "Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={{{pw}}};",
    "Server=db;Database=app;User Id=sa;Password={{{pw}}};",
    '<add key="DbPassword" value="{pw}" />',
    "<add name='smtp.password' value='{pw}'/>",
    '<setting value="{pw}" name="ApiKey" />',
    "sshpass -p '{pw}' ssh root@h",
    'sshpass -p "{pw}" scp f root@h:/tmp',
    "ssh-keygen -t ed25519 -N '{pw}' -f key",
    "ssh-keygen -p -P {pw} -N '' -f key",
    "mysqladmin -u root password {pw}",
    "mysqladmin -u root password '{pw}' && echo done",
    "htpasswd -bc /etc/nginx/.htpasswd admin {pw}",
]


@pytest.mark.parametrize("form", _FORMS)
def test_the_password_of_a_command_or_setting_form_is_hidden(form: str) -> None:
    pw = _password()
    text = form.format(pw=pw)
    out, _ = redact({"cmd": text})
    assert pw not in shown(text) and pw not in out["cmd"]


_ORDINARY = [
    "Driver={ODBC Driver 18 for SQL Server};Server=db;Trusted_Connection=yes;",
    '<add key="LogLevel" value="Debug" />',
    '<add key="PasswordPolicyUrl" value="/help/passwords" />',
    "ssh-keygen -t ed25519 -C me@example.com -f key",
    "mysqladmin -u root status",
    "7z x archive.7z -o/tmp/out",
]


@pytest.mark.parametrize("text", _ORDINARY)
def test_ordinary_settings_and_commands_are_kept(text: str) -> None:
    assert shown(text) == text


_NO_KEYWORD = [
    "jdbc:oracle:thin:app/{pw}@//db:1521/ORCL",
    "sqlplus app/{pw}@ORCL",
    "expdp system/{pw}@db schemas=app",
    "echo {pw} | sudo -S apt update",
    "echo '{pw}' | sudo -kS systemctl restart app",
    "net user admin {pw} /add",
    "ldapsearch -x -D cn=admin,dc=ex -w {pw} -b dc=ex",
    "7z a -p{pw} backup.7z data/",
]


@pytest.mark.parametrize("form", _NO_KEYWORD)
def test_the_password_of_a_command_naming_no_secret_word_is_hidden(form: str) -> None:
    pw = _password()
    text = form.format(pw=pw)
    out, _ = redact({"cmd": text})
    assert pw not in shown(text) and pw not in out["cmd"]


@pytest.mark.parametrize(
    "text",
    [
        "sqlplus / as sysdba",
        "echo hello | sudo tee /etc/motd",
        "net user admin /delete",
        "net user admin * /add",
        "7z x archive.7z -o/tmp/out",
        "The German team met Herman at the ldap meeting; sudo make me a sandwich.",
    ],
)
def test_ordinary_commands_naming_no_secret_word_are_kept(text: str) -> None:
    assert shown(text) == text
