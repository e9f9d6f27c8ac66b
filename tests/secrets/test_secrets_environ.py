"""Secrets held in the process environment under names that say so (``DB_PASSWORD``, ``STRIPE_SECRET``,
``MY_APP_CREDENTIALS``): an agent that prints or returns such a value without naming its variable leaves it in no file
of the run and in no view, as written, percent-encoded or base64-encoded; a variable set after import is learned by the
runs started after it; other variables' values, and ``PWD``'s directory, are kept. Each case runs in a fresh Python
process given that environment."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote

import noesis_nb
from noesis_nb.secrets.environ import environ_secrets, names_secret

from .child import clean_env, run_child

_REPO = Path(__file__).resolve().parents[2]  # this checkout's package, whatever the environment installed
_CHILD = r"""
import base64, json, os, sys
from urllib.parse import quote
import noesis_nb
from noesis_nb.secrets import shown

root, late = sys.argv[1], sys.argv[2]
os.environ["LATE_API_TOKEN"] = late  # set after import: learned by the run started after it
values = [os.environ[k] for k in ("DB_PASSWORD", "STRIPE_SECRET", "MY_APP_CREDENTIALS", "LATE_API_TOKEN")]
kept = [os.environ["GREETING_TEXT"], os.environ["PWD"]]

def agent(task, ctx):
    for v in values + kept:
        ctx.emit("note", {"text": f"using {v} now", "enc": quote(v, safe=""), "b64": base64.b64encode(v.encode()).decode()})
        ctx.emit("note", {**{f"field_{i}": i for i in range(8)}, "said": f"x {v}", "cut": f"x {v[:-2]}"})  # flat, 10 keys
    return " / ".join(values + kept)

episode = noesis_nb.solve("plain task", using=agent, runs_dir=root)
print(json.dumps({"episode": episode, "shown": [shown(f"a view of {v} here") for v in values + kept]}))
"""


def test_environment_secrets_are_hidden_in_the_run_and_its_views(tmp_path: Path) -> None:
    secrets = {
        "DB_PASSWORD": "correcthorsebatterystaple",
        "STRIPE_SECRET": "Qm9vbGVhbkZhbHNlVHJ1ZQ",
        "MY_APP_CREDENTIALS": "user42:Pa55w0rd/Long+Enough",
    }
    late = "late-value-7Hq2Lm9Xw"
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = clean_env(**secrets, GREETING_TEXT="hello-world-of-runs-42", PWD=str(workdir))
    report = run_child(_CHILD, str(tmp_path / "runs"), late, env=env, cwd=workdir)
    files = [p for p in (tmp_path / "runs" / report["episode"]).rglob("*") if p.is_file()]
    assert {"events.jsonl", "state.json", "summary.json"} <= {p.name for p in files}
    data = "\n".join(p.read_text("utf-8", "replace") for p in files)
    for value in [*secrets.values(), late]:
        assert value[:-2] not in data, value  # its cut-off start too
        forms = [value, quote(value, safe=""), base64.b64encode(value.encode()).decode().rstrip("=")]
        for form in forms:
            assert form not in data, form
            assert json.dumps(form)[1:-1] not in data, form
        assert not any(value in text for text in report["shown"]), value
    # what no secret-looking name holds is written and shown as it is
    assert "hello-world-of-runs-42" in data and str(workdir) in data
    assert f"a view of {workdir} here" in report["shown"]


def test_names_that_say_secret() -> None:
    secret = ["DB_PASSWORD", "STRIPE_SECRET", "MY_APP_CREDENTIALS", "OPENAI_API_KEY", "GITHUB_TOKEN", "apiKey", "DB_PASSWD"]
    plain = ["PWD", "OLDPWD", "PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEYBOARD_LAYOUT", "GIT_ASKPASS", "XAUTHORITY"]
    assert [n for n in secret if not names_secret(n)] == []
    assert [n for n in plain if names_secret(n)] == []


_UNDECODABLE_CHILD = r"""
import base64, json, os, sys
from urllib.parse import quote
import noesis_nb

raw = os.environb[b"DB_PASSWORD"]

def agent(task, ctx):
    ctx.emit("note", {"enc": quote(raw, safe=""), "b64": base64.b64encode(raw).decode(), "kept": "plain-text-7Hq2"})
    return "done"

print(json.dumps({"episode": noesis_nb.solve("plain task", using=agent, runs_dir=sys.argv[1])}))
"""


def test_a_secret_variable_holding_bytes_that_are_no_utf8_neither_stops_runs_nor_is_written(tmp_path: Path) -> None:
    """A secret-named variable whose value is no UTF-8 (Python reads it with surrogates): importing noesis_nb raised
    (percent-encoding the value), and once past that every run ended unsealed (its text cannot be written). Runs
    work; the value's percent- and base64-encoded forms are still hidden."""
    raw = b"abc\xff\xfedefgh12"
    env = {k.encode(): v.encode("utf-8", "surrogateescape") for k, v in os.environ.items() if not names_secret(k)}
    env.update({b"DB_PASSWORD": raw, b"PYTHONPATH": str(_REPO).encode()})
    result = subprocess.run(
        [sys.executable, "-c", _UNDECODABLE_CHILD, str(tmp_path / "runs")], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    episode = json.loads(result.stdout.strip().splitlines()[-1])["episode"]
    run = tmp_path / "runs" / episode
    assert noesis_nb.runs_df(tmp_path / "runs").status.tolist() == ["ok"]
    assert (run / "manifest.json").is_file()  # sealed
    written = "".join(p.read_text() for p in run.rglob("*") if p.is_file() and p.suffix in {".json", ".jsonl"})
    assert "plain-text-7Hq2" in written
    for form in (quote(raw, safe=""), base64.b64encode(raw).decode().rstrip("=")):
        assert form not in written, form


def test_a_thread_reading_the_environment_while_another_learns_a_change_gets_the_new_secrets() -> None:
    # one thread reads the changed environment (the forms of 50 values: milliseconds); another starting a run
    # meanwhile must not be told "unchanged" with the old set (the copy of the environment was once stored before the
    # set computed from it)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for turn in range(100):
            for name in [n for n in os.environ if n.startswith("RACE_")]:
                del os.environ[name]
            for i in range(50):
                os.environ[f"RACE_{turn}_{i}_TOKEN"] = f"zQ{turn}x{i:04d}-Vb7Lm2Np9Rt4Wy8"
            environ_secrets()
            new = f"Kp{turn}-Xq7Lm2Np9Rt4Vw8Yz3Bc6"
            os.environ[f"RACE_{turn}_PASSWORD"] = new
            learner = threading.Thread(target=environ_secrets)
            learner.start()
            missed = 0
            while learner.is_alive():
                missed += new not in environ_secrets()
            learner.join()
            assert missed == 0, f"round {turn}: {missed} reads without the new secret"
            assert new in environ_secrets()
    finally:
        sys.setswitchinterval(interval)
        for name in [n for n in os.environ if n.startswith("RACE_")]:
            del os.environ[name]
        environ_secrets()


_QUALIFIED_CHILD = r"""
import json, os, sys
import noesis_nb

names = sys.argv[2].split(",")

def agent(task, ctx):
    for name in names:
        ctx.emit("note", {"stdout": os.environ[name] + "\n"})
    return "done"

print(json.dumps({"episode": noesis_nb.solve("print config", using=agent, runs_dir=sys.argv[1])}))
"""


def test_a_secret_name_with_a_word_after_its_secret_word_is_learned_and_a_pointer_is_not(tmp_path: Path) -> None:
    secrets = {"DB_PASSWORD_PROD": "Qm7vT2xLp9Rk4W02", "GITHUB_TOKEN_RO": "Qm7vT2xLp9Rk4W04"}
    secrets["JWT_SECRET_B64"] = "Qm7vT2xLp9Rk4W06"
    pointers = {"DB_PASSWORD_FILE": "secret-store-item-4711", "VAULT_SECRET_ID": "kv-item-2f7c91aa"}
    env = clean_env(**secrets, **pointers)
    report = run_child(_QUALIFIED_CHILD, str(tmp_path / "runs"), ",".join([*secrets, *pointers]), env=env)
    data = (tmp_path / "runs" / report["episode"] / "events.jsonl").read_text("utf-8")
    assert [v for v in secrets.values() if v in data] == []
    assert all(v in data for v in pointers.values())
