"""Secrets given by a label in another language or layout, by a command's own flag, or by code naming no
``name=value`` (``secrets.labels``): ``Passwort: X``, ``**Password:** X``, ``| password | X |``, ``the secret is X``,
``sqlcmd -P X``, ``IDENTIFIED BY 'X'``, ``auth=('bob', 'X')``, ``os.getenv("API_KEY", "X")``, ``?pass=X``. Before, each
was written by a live run and shown by views in clear. Their ordinary neighbours (a label given a word, code naming
variables, a question) stay whole."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets import shown
from tests.secrets.saidkit import password, scan_costs, shown_per_run, text_run, texts_read_back, written_by_live_run

_SAYINGS = {
    "go": lambda pw: f'password := "{pw}"',
    "go_token": lambda pw: f'apiToken := "{pw}"',
    "de": lambda pw: f"Passwort: {pw}",
    "de_kennwort": lambda pw: f"Kennwort = {pw}",
    "fr": lambda pw: f"mot de passe : {pw}",
    "ru": lambda pw: f"пароль: {pw}",
    "uk_token": lambda pw: f"токен: {pw}",
    "pl": lambda pw: f"hasło: {pw}",
    "nl": lambda pw: f"wachtwoord: {pw}",
    "pt": lambda pw: f"senha: {pw}",
    "tr": lambda pw: f"şifre: {pw}",
    "sv": lambda pw: f"lösenord: {pw}",
    "ja": lambda pw: f"パスワード：{pw}",
    "zh": lambda pw: f"密码：{pw}",
    "ko": lambda pw: f"비밀번호: {pw}",
    "fullwidth": lambda pw: f"password：{pw}",
    "em_dash": lambda pw: f"password — {pw}",
    "en_dash_token": lambda pw: f"API token – {pw}",
    "bold": lambda pw: f"**Password:** {pw}",
    "bold_outside": lambda pw: f"**Secret**: {pw}",
    "next_line": lambda pw: f"Password:\n{pw}",
    "table": lambda pw: f"| user | password |\n|---|---|\n| bob | x |\n| password | {pw} |",
    "secret_is": lambda pw: f"the secret is {pw}",
    "token_is": lambda pw: f"my token is {pw}",
    "api_key_was": lambda pw: f"Your new api key was: {pw}",
    "az": lambda pw: f"az login -u me@x.com -p {pw}",
    "sqlcmd": lambda pw: f"sqlcmd -S db -U sa -P {pw}",
    "bcp": lambda pw: f"bcp dbo.t out t.dat -S db -U sa -P '{pw}'",
    "keytool": lambda pw: f"keytool -import -storepass {pw} -file c.crt",
    "keytool_keypass": lambda pw: f"keytool -genkey -alias a -keypass {pw}",
    "smbclient": lambda pw: f"smbclient //srv/s -U bob%{pw}",
    "gh": lambda pw: f"echo {pw} | gh auth login --with-token",
    "chpasswd": lambda pw: f"echo 'root:{pw}' | chpasswd",
    "chpasswd_sudo": lambda pw: f'echo "deploy:{pw}" | sudo chpasswd',
    "identified": lambda pw: f"CREATE USER 'bob'@'%' IDENTIFIED BY '{pw}';",
    "identified_with": lambda pw: f'ALTER USER bob IDENTIFIED WITH mysql_native_password BY "{pw}";',
    "redis_auth": lambda pw: f"127.0.0.1:6379> AUTH {pw}",
    "redis_auth_user": lambda pw: f"AUTH default {pw}",
    "requirepass": lambda pw: f"CONFIG SET requirepass {pw}",
    "masterauth": lambda pw: f"masterauth {pw}",
    "requests_auth": lambda pw: f"requests.get(url, auth=('bob', '{pw}'))",
    "basic_auth": lambda pw: f'HTTPBasicAuth("bob", "{pw}")',
    "getenv": lambda pw: f'os.getenv("API_KEY", "{pw}")',
    "environ_get": lambda pw: f"os.environ.get('DB_PASSWORD', '{pw}')",
    "setter": lambda pw: f'ds.setPassword("{pw}");',
    "setter_snake": lambda pw: f"client.set_api_key('{pw}')",
    "query_pass": lambda pw: f"https://x/login?user=bob&pass={pw}",
    "query_pwd": lambda pw: f"https://x/api?id=3&pwd={pw}&lang=en",
    "input": lambda pw: f'<input type="password" value="{pw}">',
    "input_value_first": lambda pw: f"<input name=pw value='{pw}' type=password>",
    "securestring": lambda pw: f"ConvertTo-SecureString '{pw}' -AsPlainText -Force",
}
_KEPT = [
    "the password field is required",
    'password := ""',
    'password := os.Getenv("DB_PASSWORD")',
    "Passwort vergessen?",
    "Passwort: vergessen",
    "mot de passe : obligatoire",
    "пароль: неверный",
    "password — required",
    "**Password:** required",
    "| password | string | the user's password |",
    "the secret is out",
    "my token is expired",
    "the key is missing",
    "auth=(user, pw)",
    "requests.get(url, auth=(os.environ['U'], os.environ['P']))",
    'os.getenv("API_KEY", "")',
    'os.getenv("LOG_LEVEL", "warning-2")',
    'setTitle("Quarterly-2024 report")',
    "setPassword(newPassword);",
    "https://x/search?q=passport&page=2",
    '<input type="password" name="pw" placeholder="Password">',
    "GRANT ALL ON db.* TO 'bob'@'%';",
    "AUTH required",
    "echo hello | gh auth status",
    "sqlcmd -S db -E -Q 'select 1'",
    "smbclient -L //srv -N",
    "ConvertTo-SecureString -String $plain -AsPlainText",
]


@pytest.mark.parametrize("name", sorted(_SAYINGS))
def test_each_is_hidden_where_shown(name: str) -> None:
    pw = password()
    text = _SAYINGS[name](pw)
    out = shown(text)
    assert pw not in out, out
    assert "[REDACTED" in out


def test_a_live_run_writes_them_redacted(tmp_path: Path) -> None:
    given = {name: password() for name in _SAYINGS}
    written = written_by_live_run(tmp_path, [say(given[name]) for name, say in _SAYINGS.items()], "note")
    assert [name for name, pw in given.items() if pw in written] == []


def test_a_run_from_elsewhere_shows_them_redacted(tmp_path: Path) -> None:
    given = {name: password() for name in _SAYINGS}
    shown_runs = shown_per_run(tmp_path, {name: say(given[name]) for name, say in _SAYINGS.items()}, raw_utf8=True)
    shown_bare = [n for n, pw in given.items() if pw in shown_runs[n]]
    assert shown_bare == []


@pytest.mark.parametrize("text", _KEPT)
def test_ordinary_neighbours_stay_whole(text: str) -> None:
    assert shown(text) == text


def test_ordinary_neighbours_stay_whole_in_a_run(tmp_path: Path) -> None:
    text_run(tmp_path, "ep_kept", _KEPT, raw_utf8=True)
    assert texts_read_back(tmp_path) == _KEPT


@pytest.mark.parametrize(
    "unit", ["passwort: ", "| password ", "the secret is ", "keytool -x ", "echo a ", "<input type=password ", "auth=('a', "]
)
def test_hostile_lines_are_read_in_linear_time(unit: str) -> None:
    """One line of the patterns' openings repeated, 50 KB then 200 KB: linear costs 4 times as much, quadratic 16."""
    costs = scan_costs([unit * (size // len(unit)) for size in (50_000, 200_000)])
    assert costs[1] < 8 * max(costs[0], 0.01), costs


@pytest.mark.parametrize(
    "text",
    ["$pw = ConvertTo-SecureString -String $plain -AsPlainText", "$token = Get-Secret -Name gh -AsPlainText"]
    + ["$password = Read-Host -AsSecureString 'Password'"],
)
def test_a_powershell_cmdlet_given_to_a_secret_name_is_no_value(text: str) -> None:
    assert shown(text) == text


@pytest.mark.parametrize("key", ["password_hint", "passwordHint", "password_strength", "password_rules"])
def test_what_is_said_about_a_password_is_no_password(key: str) -> None:
    payload = {key: "your first pet's name", "note": "x"}
    assert noesis_nb.secrets.redact(payload)[0] == payload


def test_a_basic_auth_tuple_loses_its_password_not_its_brackets() -> None:
    pw = password()
    out = shown(f"requests.get(url, auth=('bob', '{pw}'))")
    assert pw not in out
    assert out.startswith("requests.get(url, auth=('bob', '") and out.endswith("'))"), out
