"""A well-known default credential, or a word of the name that gives it, is redacted where it is given, and only
there: it is not learned as a value to hunt in every other text of the run. A tool's name shows whatever was learned.

Docker's ``POSTGRES_PASSWORD=postgres`` in a tool's environment made the task read ``Start [REDACTED] in docker`` (on
disk, rewritten after the fact) and a later ``postgres.query`` draft was saved with the namespace ``[REDACTED]``: the
approver could not see which tool would run. Ollama's documented ``api_key="ollama"`` made ``usage_df.provider``
read ``[REDACTED]``. The rule is ``names.hunted``, the one the SDK capture path applies to a client's key too.
A real password (``hunter2``) is still hunted everywhere.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import noesis_nb

ENV = {"PATH": os.environ.get("PATH", "")}


def _shell(ctx: Any, code: str, **env: str) -> Any:
    argv = [sys.executable, "-c", code]
    return ctx.tool("shell.run", {"argv": argv, "env": {**ENV, **env}}, effect="read", risk="low")


def _texts(run_dir: Path) -> str:
    return "\n".join(p.read_text() for p in run_dir.rglob("*") if p.is_file() and p.suffix in {".json", ".jsonl"})


def test_docker_postgres_default_is_hidden_in_its_field_only(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        _shell(ctx, "print('up')", POSTGRES_PASSWORD="postgres")
        return _shell(ctx, "print('psql (PostgreSQL) 16.3; user postgres; db postgres')")["stdout"]

    episode = noesis_nb.solve("Start postgres in docker and check the postgres version", using=agent, runs_dir=runs_dir)
    assert noesis_nb.runs_df(runs_dir).task.tolist() == ["Start postgres in docker and check the postgres version"]
    summary = json.loads((runs_dir / episode / "summary.json").read_text())
    assert summary["task"] == "Start postgres in docker and check the postgres version"
    assert "user postgres; db postgres" in json.dumps(summary)
    prepared = [json.loads(p.read_text()) for p in (runs_dir / episode / "tool_invocations" / "prepared").iterdir()]
    envs = [r["payload"]["normalized_payload"]["env"] for r in prepared if "POSTGRES_PASSWORD" in json.dumps(r)]
    assert envs and all(e["POSTGRES_PASSWORD"] == "[REDACTED]" for e in envs), envs


def test_a_local_servers_placeholder_key_leaves_the_provider_named(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("memory", {"event_name": "client.config", "base_url": "http://localhost:11434/v1", "api_key": "ollama"})
        ctx.model_call("llama3.1:8b", provider="ollama", input_tokens=50, output_tokens=5)
        return "ollama says hi"

    episode = noesis_nb.solve("ask the local ollama server", using=agent, runs_dir=runs_dir)
    assert noesis_nb.usage_df(runs_dir).provider.tolist() == ["ollama"]
    assert noesis_nb.runs_df(runs_dir).task.tolist() == ["ask the local ollama server"]
    assert '"api_key":"[REDACTED]"' in (runs_dir / episode / "events.jsonl").read_text()


def test_a_value_that_is_a_word_of_its_own_name_is_not_hunted(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"env": {"WEBSHOP_PASSWORD": "webshop"}})
        ctx.emit("note", {"text": "webshop started on port 8080"})
        return "ok"

    episode = noesis_nb.solve("start webshop", using=agent, runs_dir=runs_dir)
    events = (runs_dir / episode / "events.jsonl").read_text()
    assert "webshop started on port 8080" in events and '"WEBSHOP_PASSWORD":"[REDACTED]"' in events


def test_a_real_short_password_is_still_hunted_everywhere(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        _shell(ctx, "print('up')", DB_PASSWORD="hunter2")
        return _shell(ctx, "print('connected with hunter2')")["stdout"]

    episode = noesis_nb.solve("connect", using=agent, runs_dir=runs_dir)
    texts = _texts(runs_dir / episode)
    assert "hunter2" not in texts and "connected with [REDACTED]" in texts


def test_a_learned_value_does_not_hide_the_name_of_the_tool_the_approver_is_shown(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        _shell(ctx, "print('up')", DB_PASSWORD="deploy9")
        return ctx.tool("deploy9.migrate", {"argv": ["true"]}, effect="write", risk="high")["stdout"]

    episode = noesis_nb.solve("migrate", using=agent, runs_dir=runs_dir, approver="ask")
    run_dir = runs_dir / episode
    prepared = [json.loads(p.read_text()) for p in (run_dir / "tool_invocations" / "prepared").iterdir()]
    assert {"namespace": "deploy9", "name": "migrate", "version": None} in [r["tool"] for r in prepared]
    events = (run_dir / "events.jsonl").read_text()
    assert "tool.deploy9.migrate" in events and "approval required: deploy9.migrate" in events
    assert "[REDACTED].migrate" not in _texts(run_dir)
    assert "deploy9.migrate" in noesis_nb.tools_df(runs_dir).tool.tolist()
    # where the secret-looking name gives it, the value is still hidden
    assert all(
        r["payload"]["normalized_payload"]["env"]["DB_PASSWORD"] == "[REDACTED]" for r in prepared if "env" in json.dumps(r)
    )


def test_the_rule_learns_keys_and_passwords_not_defaults_or_a_names_own_word() -> None:
    from noesis_nb.secrets.names import hunted

    for value in ("postgres", "ollama", "lm-studio", "EMPTY", "sk-no-key-required", "minioadmin", "changeme"):
        assert not hunted(value), value
    assert not hunted("myapp", "MYAPP_PASSWORD") and not hunted("redis", "redisPassword")
    for value in ("hunter2", "Zq8vN3kLm2Xp7Rt4", "sk-proj-Ab3dEf6hIjKlMnOp"):
        assert hunted(value) and hunted(value, "DB_PASSWORD"), value


def test_a_value_that_is_a_key_by_itself_stays_hunted_in_a_tools_name() -> None:
    from noesis_nb.secrets.guard import RunSecrets

    key, random = "sk-proj-Ab3dEf6hIjKlMnOpQr5tUv", "Zq8vN3kLm2Xp7Rt4Wq9Lm3Xa"
    secrets = RunSecrets()
    secrets.learn([key, random, "deploy9"])
    for name in (f"vendor.{key}", f"{random}.run", "deploy9.migrate"):
        secrets.name_shown(name)
    assert secrets.scrub_text(f"ran vendor.{key} and {random}.run") == "ran vendor.[REDACTED] and [REDACTED].run"
    assert secrets.scrub_text("ran deploy9.migrate") == "ran deploy9.migrate"
    secrets.learn(["deploy9"])  # learned again after the name was shown: still not hunted
    assert secrets.scrub_text("deploy9") == "deploy9"
