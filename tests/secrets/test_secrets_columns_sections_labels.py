"""Secrets in a column under a secret header, in a section named for secrets, after a label in more languages and
layouts, given to more commands' own flags, or in the environment under a PIN's or a one-time code's name.

Each was written in clear: ``user,password`` then ``admin,X`` (CSV, TSV, Markdown, psql, ``sqlite3 -header``),
``<th>Password</th><td>X</td>``, ``Password (prod): X``, ``password → X``, ``api_keys:`` then ``  openai: X``,
``[credentials]`` then ``admin = X``, ``{"tokens": {"ci": X}}``, ``lozinka: X``, ``APIキー: X``, ``helm registry login
-p X``, ``mongodump -p X``, ``SET PASSWORD … = PASSWORD('X')``, ``ANSIBLE_BECOME_PASS=X``, ``OPENAI_KEY=X``, a
``MASTER_PIN`` in the environment. Ordinary tables, sections, prose and settings beside each stay as written, and each
new form costs linear time on 100 KB of hostile text."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets import guard, redact
from noesis_nb.secrets.environ import names_secret
from noesis_nb.secrets.names import is_secret_key
from noesis_nb.secrets.text import find_in_text
from tests.secrets.child import clean_env, run_child
from tests.secrets.cpualarm import cpu_seconds

P = "Zk7vQm2xLp9R"

# a password under a header naming its column, or after a label laid out as none was read
_COLUMNS_AND_LAYOUTS = {
    "csv header": "user,password\nadmin,{P}\n",
    "tsv header": "user\tpassword\nadmin\t{P}\n",
    "markdown header row": "| user | password |\n|---|---|\n| admin | {P} |",
    "psql output": " usename | passwd \n---------+--------------\n admin   | {P}\n(1 row)",
    "sqlite3 -header": "user|password\nadmin|{P}",
    "csv, second row": "id,user,api_key,note\n1,bob,Qq1-nothing,x\n2,admin,{P},y",
    "html th/td": "<tr><th>Password</th><td>{P}</td></tr>",
    "html td/td": "<td>password</td><td>{P}</td>",
    "definition list": "<dt>Password</dt><dd>{P}</dd>",
    "qualified label": "Password (prod): {P}",
    "label for what": "password for prod: {P}",
    "label for two words": "the password for the db: {P}",
    "backticked label": "`password`: `{P}`",
    "arrow": "password → {P}",
    "ascii arrow": "token -> {P}",
    "dotted leader": "Password ....... {P}",
}
# the same layouts holding no secret: a header naming none, a cell or value that is a word, prose with commas
_ORDINARY_LAYOUTS = [
    "user,password_hint\nadmin,Remember2Dog\n",
    "| name | password policy |\n|---|---|\n| admin | Min8-Chars |",
    "token,count\nHello,5\nWorld,7\n",
    "The password, as said, is fine\nHello2World, again and again\n",
    "id,password\n1,required\n2,********\n",
    " usename | usesuper \n---------+---------\n admin2024 | t\n(1 row)",
    "Password (optional): leave blank",
    "password for the account: required",
    "password → required",
    "Password ....... Required",
    "<th>Password</th><td>********</td>",
    "<dt>Password</dt><dd>Required</dd>",
    "<th>User</th><td>admin2024</td>",
]

# a secret-named section of configuration text: its entries are secrets; and as data, a plural parent
_SECTIONS = {
    "yaml api_keys": "api_keys:\n  openai: {P}\n  anthropic: {P}\n",
    "yaml credentials": "credentials:\n  admin: {P}\n",
    "yaml passwords list": "passwords:\n  - {P}\n",
    "ini credentials": "[credentials]\nadmin = {P}\n",
    "toml tokens list": 'tokens = ["{P}"]\n',
    "yaml secrets": "secrets:\n  db: {P}\n",
    "nested yaml": "app:\n  secrets:\n    db: {P}\n  name: shop\n",
}
_ORDINARY_SECTIONS = [
    "auth:\n  type: basic\n  username: admin2024\n",
    "secrets:\n  db:\n    host: db.example.com\n    port: 5432\n",
    "tokens:\n  - the\n  - cat\n",
    "credentials:\n  enabled: true\n  provider: GitHub\n",
    "[credentials]\nusername = admin2024\nurl = https://example.com/login\n",
    "settings:\n  theme: Dark-Mode2\n",
    'max_tokens = ["Gpt4-8192"]\n',
]
# a tokenizer's or a log-probability table, a policy for passwords, and references to secrets kept elsewhere: a cell
# under a ``token`` or ``password`` header that is a word, a measure or a reference is none (hidden, it would be
# learned and hidden in every later text of the run)
_NOT_CREDENTIALS = [
    "| token | logprob |\n|---|---|\n| Paris. | -0.01 |\n| Hello, | -2.30 |\n| ĠLondon | -4.1 |\n",
    "token,count\nThe,12\ndon't,3\nĠworld,9\n##ing2,4\n",
    "token\ttoken_id\tlogprob\nĠConstantinople\t34567\t-0.5\n▁Washington2\t1234\t-1.2\n",
    'tokens = ["The", "capital", "Paris.", "ĠFrance", "##ing2"]\n',
    "tokens:\n  - Hello,\n  - ĠLondon\n  - Paris.\n",
    "| rule | password |\n|---|---|\n| length | 12chars |\n| rotation | 90-days |\n| history | 24-passwords |\n",
    "name,secret\ndb,vault/prod/db\napi,env:ANTHROPIC_KEY\nci,${CI_TOKEN}\nweb,{{web_password}}\n",
    "secrets:\n  db: vault/prod/db-password\n  api: env:ANTHROPIC_KEY\n  aws: arn:aws:secretsmanager:eu-west-1:secret\n",
    "<th>Password</th><td>12chars</td>",
    "<dt>Secret</dt><dd>vault/prod/db</dd>",
]

# labels in more languages: each the word for password (or "API key") in its language
_LANGUAGES = [
    "كلمة المرور",  # ar
    "סיסמה",  # he
    "पासवर्ड",  # hi
    "رمز عبور",  # fa
    "รหัสผ่าน",  # th
    "mật khẩu",  # vi
    "kata sandi",  # id
    "jelszó",  # hu
    "lozinka",  # hr/sr/bs
    "лозинка",  # sr (Cyrillic)
    "geslo",  # sl
    "parool",  # et
    "slaptažodis",  # lt
    "parole",  # lv
    "парола",  # bg
    "clé API",  # fr
    "APIキー",  # ja
    "API-Schlüssel",  # de
    "ключ API",  # ru
]

# commands given a password by a flag (or a word) of their own, and names ending so
_COMMANDS = {
    "ansible become pass": "ansible-playbook site.yml -e ansible_become_pass={P}",
    "ANSIBLE_BECOME_PASS": "ANSIBLE_BECOME_PASS={P}",
    "mysql set password": "SET PASSWORD FOR app = PASSWORD('{P}');",
    "mysql set password plain": "SET PASSWORD = '{P}';",
    "helm registry login": "helm registry login -u u -p {P} ghcr.io",
    "skopeo login": "skopeo login -u u -p {P} quay.io",
    "oras login": "oras login -u u --password {P} r.io",
    "passwd --stdin": "echo {P} | passwd --stdin app",
    "JWT_KEY": "JWT_KEY={P}",
    "OPENAI_KEY": "OPENAI_KEY={P}",
    "mongo -p": "mongo -u u -p {P}",
    "mongodump -p": "mongodump -u u -p {P} --db app",
    "mongorestore --password": "mongorestore --username u --password {P}",
    "twine upload -p": "twine upload -u __token__ -p {P} dist/*",
    "gh secret set --body": "gh secret set DB_PASSWORD --body {P}",
    "vault login": "vault login {P}",
}
_ORDINARY_COMMANDS = [
    "ssh login -p 22 host",
    "vault login -method=userpass username=bob",
    "mongodump --db app --out Backup2024",
    "twine upload dist/*",
    "gh secret set DB_PASSWORD < secret.txt",
    "SET GLOBAL validate_password.length = 12;",
    "echo done | passwd --status",
    "helm registry login ghcr.io --password-stdin",
]
_ARGVS = {
    "mongo": ["mongo", "-u", "u", "-p", P],
    "mongodump": ["mongodump", "-u", "u", "-p", P],
    "mongoexport": ["mongoexport", "--password", P],
    "twine": ["twine", "upload", "-u", "__token__", "-p", P, "dist/*"],
    "gh secret set": ["gh", "secret", "set", "DB_PASSWORD", "--body", P],
    "vault login": ["vault", "login", P],
    "helm registry login": ["helm", "registry", "login", "-u", "u", "-p", P, "ghcr.io"],
    "skopeo login": ["skopeo", "login", "-u", "u", "-p", P, "quay.io"],
}
_ORDINARY_ARGVS = [
    ["ssh", "-p", "2222", "host"],
    ["mongo", "--port", "27017"],
    ["gh", "pr", "create", "--body", "Fixes2024-bug"],
    ["vault", "login", "-method=userpass", "username=bob"],
    ["helm", "install", "-p", "Chart2024-x"],
]


@pytest.mark.parametrize("name", list(_COLUMNS_AND_LAYOUTS) + list(_SECTIONS) + list(_COMMANDS))
def test_a_secret_in_a_column_section_or_command_is_found(name: str) -> None:
    text = {**_COLUMNS_AND_LAYOUTS, **_SECTIONS, **_COMMANDS}[name].format(P=P)
    assert P in find_in_text(text), text


@pytest.mark.parametrize("label", _LANGUAGES)
def test_a_password_label_in_another_language_is_read(label: str) -> None:
    capitals = [f"{label.upper()}: {P}"] if label.isascii() else []  # (the prefilter lowers ASCII letters only)
    for text in (f"{label}: {P}", f"| {label} | {P} |", *capitals):
        assert P in find_in_text(text), text


@pytest.mark.parametrize("text", _ORDINARY_LAYOUTS + _ORDINARY_SECTIONS + _ORDINARY_COMMANDS + _NOT_CREDENTIALS)
def test_ordinary_tables_sections_and_commands_are_kept(text: str) -> None:
    assert find_in_text(text, entropy=False) == set(), text


@pytest.mark.parametrize("label", ["parole", "lozinka", "geslo", "jelszó", "clé API"])
def test_a_foreign_label_before_a_word_is_kept(label: str) -> None:
    for text in (f"{label}: required", f"{label}: Vergessen", f"the {label} is long"):
        assert find_in_text(text, entropy=False) == set(), text


@pytest.mark.parametrize("name", list(_ARGVS))
def test_an_argv_giving_a_password_by_its_own_flag_is_redacted(name: str) -> None:
    redacted, _ = redact({"argv": _ARGVS[name]})
    assert P not in str(redacted), redacted


@pytest.mark.parametrize("argv", _ORDINARY_ARGVS, ids=lambda a: " ".join(a[:2]))
def test_an_ordinary_argv_is_kept(argv: list[str]) -> None:
    redacted, _ = redact({"argv": argv})
    assert redacted == {"argv": argv}


@pytest.mark.parametrize(
    "data",
    [{"api_keys": {"openai": P}}, {"tokens": {"ci": P}}, {"access_tokens": [P]}, {"private_keys": {"deploy": P}}],
    ids=str,
)
def test_a_plural_secret_parent_hides_its_values_as_a_singular_one_does(data: dict) -> None:
    redacted, _ = redact(data)
    assert P not in str(redacted), redacted


@pytest.mark.parametrize(
    "data",
    [
        {"tokens": {"input": 100, "output": 250}},
        {"tokens": ["Hello", " world", "Zk7v"]},
        {"max_tokens": {"gpt": "Gpt4-8192"}},
        {"input_tokens": 123456},
        {"sort_keys": {"a": "Name-2024"}},
        {"tokens": {"bos": "<s>", "eos": "</s>", "pad": "<pad>", "unk": "<unk>"}},
        {"tokens": {"bos": "<|begin_of_text|>", "eos": "<|end_of_text|>"}},
    ],
    ids=str,
)
def test_counts_and_model_tokens_under_a_plural_are_kept(data: dict) -> None:
    assert redact(data)[0] == data


def test_names_ending_in_a_secret_word_and_ordinary_ones() -> None:
    secret = ["ansible_become_pass", "sudo_pass", "OPENAI_KEY", "JWT_KEY", "stripe_key", "api_keys", "access_tokens"]
    plain = ["test_pass", "num_pass", "sort_key", "cache_key", "primary_key", "max_tokens", "input_tokens", "keys"]
    assert [n for n in secret if not is_secret_key(n)] == []
    assert [n for n in plain if is_secret_key(n)] == []


_PIN_NAMES = ["MASTER_PIN", "ADMIN_PASSCODE", "TOTP_SEED", "HOTP_SECRET_SEED", "BANK_OTP", "SIM_PIN_2"]
# words holding PIN, OTP or a passcode's letters inside another: no secret's name
_NOT_PIN_NAMES = ["PIPELINE_ID", "SPINNER_STYLE", "PIN_MEMORY", "PINECONE_ENV", "SHIPPING_REGION", "OTP_VERSION"]
_NOT_PIN_NAMES += ["TOPIC", "SNAPSHOT_DIR", "OPTIONS", "DATALOADER_PIN_MEMORY_DEVICE"]


def test_pin_passcode_and_one_time_code_names_are_secret_names() -> None:
    assert [n for n in _PIN_NAMES if not names_secret(n)] == []
    assert [n for n in _NOT_PIN_NAMES if names_secret(n)] == []


_CHILD = r"""
import json, os, sys
import noesis_nb

def agent(task, ctx):
    for name in sys.argv[2].split(","):
        ctx.emit("note", {"printed": "value is " + os.environ[name]})
    return "done"

print(json.dumps({"episode": noesis_nb.solve("print", using=agent, runs_dir=sys.argv[1])}))
"""


def test_a_pin_or_one_time_seed_in_the_environment_is_hidden_when_printed_without_its_name(tmp_path: Path) -> None:
    secrets = {"MASTER_PIN": "Zk48213975xQ", "ADMIN_PASSCODE": "ZkPc7731aBq", "TOTP_SEED": "JBSWY3DPEHPK3PXPZK"}
    settings = {"PIPELINE_ID": "pipeline-2024-nightly", "SPINNER_STYLE": "dots12-Braille"}
    names = ",".join([*secrets, *settings])
    report = run_child(_CHILD, str(tmp_path / "runs"), names, env=clean_env(**secrets, **settings))
    data = (tmp_path / "runs" / report["episode"] / "events.jsonl").read_text("utf-8")
    assert [n for n, v in secrets.items() if v in data] == []
    assert [n for n, v in settings.items() if v not in data] == []


def test_a_run_writes_none_of_them(tmp_path: Path) -> None:
    texts = [t.format(P=P) for t in (*_COLUMNS_AND_LAYOUTS.values(), *_SECTIONS.values(), *_COMMANDS.values())]
    texts += [f"{label}: {P}" for label in _LANGUAGES]

    def agent(task: str, ctx: object) -> dict:
        for text in texts:
            ctx.emit("note", {"stdout": text})  # type: ignore[attr-defined]
        ctx.emit("note", {"argv": _ARGVS["mongodump"]})  # type: ignore[attr-defined]
        return {"stdout": texts[0]}

    episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    written = [p.name for p in (tmp_path / episode).rglob("*") if p.is_file() and P in p.read_text("utf-8", "replace")]
    assert written == []


def test_a_word_in_a_token_table_is_not_learned_and_hidden_later(tmp_path: Path) -> None:
    table = "| token | logprob |\n|---|---|\n| Paris. | -0.01 |\n| Hello, | -2.30 |\n"

    def agent(task: str, ctx: object) -> str:
        ctx.emit("note", {"text": table})  # type: ignore[attr-defined]
        ctx.emit("note", {"special": {"tokens": {"bos": "<s>", "eos": "</s>"}}})  # type: ignore[attr-defined]
        ctx.emit("note", {"answer": "The capital is Paris. Hello, <s> opens it."})  # type: ignore[attr-defined]
        return "Paris."

    episode = noesis_nb.solve("capital?", using=agent, runs_dir=tmp_path, approver="auto")
    events = (tmp_path / episode / "events.jsonl").read_text("utf-8")
    assert "The capital is Paris. Hello, <s> opens it." in events.replace("\\u003c", "<").replace("\\u003e", ">")
    assert "[REDACTED]" not in events


_FRESH = itertools.count()
_SIZE = 100_000


def _fill(unit: str) -> str:
    return f"{next(_FRESH)} " + (unit * (_SIZE // len(unit) + 1))[:_SIZE]


@pytest.fixture(scope="module")
def baseline() -> float:
    """CPU seconds for 100 KB of ``password: a `` (a name and a short value over and over, which every name rule reads)."""
    guard.for_run("ep_columns_linear").learn(["Zq8-learned-Vw3x"])  # as a process that has learned secrets
    return cpu_seconds(find_in_text, _fill("password: a "), budget=60.0)


@pytest.mark.parametrize(
    "unit",
    [
        "password,",  # a header of nothing but secret columns, one long line
        "password,\n",
        "password|a\n|",  # a header then rows, each a header again
        "| password |\n|---|\n",
        "api_keys:\n",  # sections opened over and over
        "api_keys:\n  a: b\n",
        "[credentials]\n",
        'tokens = ["a", ',
        "tokens = [",
        "<th>password</th>",
        "<td>password</td> \n <td>",
        "<dt>password",
        "password (",
        "password for a b c d ",
        "password for ",
        "`password`",
        "password ....",
        "password → ",
        "login -p ",
        "login ",
        "mongodump ",
        "twine ",
        "gh secret set ",
        "vault login -a ",
        "vault login ",
        "echo a ",
        "set password ",
        "lozinka ",
        "ключ API ",
        "पासवर्ड ",
        # blank runs a header cell's text, its colon and the cell's end could share (``<td>`` then 200 blanks)
        "password\n" + ("<td>" + " " * 200) * 4,
        "password\n<th><b>" + " " * 40 + "a" + " " * 40,
        "lozinka:" + " " * 2000 + "<",
        "lozinka " + " " * 1000 + "**" + " " * 1000 + "<",
        "password —" + " " * 2000 + "<",
    ],
)
def test_100_kb_of_a_new_form_costs_a_few_times_plain_assignments(unit: str, baseline: float) -> None:
    budget = 4 * baseline + 0.3
    took = cpu_seconds(find_in_text, _fill(unit), budget=budget)
    assert took <= budget, (took, baseline)
