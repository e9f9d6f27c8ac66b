"""Public build and request ids that read as random words are kept: a Nix store path's hash (32 characters of Nix's
base 32) and a Cloudflare ray id (16 hex digits and an airport code). Before, ``/nix/store/<hash>-python3-3.11.6``
lost its package name (``/nix/store/[REDACTED].11.6``) and ``cf-ray: <id>-FRA`` was hidden whole; keys beside
them are still found."""

from __future__ import annotations

import json
import secrets as stdlib_secrets
import string
from pathlib import Path

import noesis_nb

_NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"  # Nix's base 32: no e, o, t, u
_ALNUM = string.ascii_letters + string.digits


def _word(n: int, alphabet: str) -> str:
    return "".join(stdlib_secrets.choice(alphabet) for _ in range(n))


def _shown_lines(tmp_path: Path, lines: list[str]) -> list[str]:
    """``lines`` as ``events_df`` shows them from a run another program wrote (never screened, so read here)."""
    ep = "ep_build_ids"
    run = tmp_path / ep
    run.mkdir()
    events = [
        {"episode_id": ep, "id": f"00000000-0000-4000-8000-{i:012x}", "phase": phase, "payload": payload,
         "agent_id": "system", "timestamp": f"2026-12-07T07:00:{i:02d}+00:00"}
        for i, (phase, payload) in enumerate(
            [("start", {"task": "t"}), ("model", {"lines": lines}), ("terminate", {"status": "ok"})], start=1
        )
    ]  # fmt: skip
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (run / "summary.json").write_text(json.dumps({"episode_id": ep, "status": "ok", "task": "t"}))
    frame = noesis_nb.events_df(tmp_path)
    [payload] = [p for p in frame.payload if isinstance(p, dict) and "lines" in p]
    return list(payload["lines"])


def test_nix_store_paths_and_ray_ids_are_kept(tmp_path: Path) -> None:
    lines = []
    for package in ("python3-3.11.6", "source", "openssl-3.0.12-dev", "hello-2.12.1.drv"):
        lines.append(f"/nix/store/{_word(32, _NIX32)}-{package}/bin/tool")
        lines.append(f"ExecStart=/nix/store/{_word(32, _NIX32)}-{package}")
    for code in ("FRA", "SJC", "LHR"):
        lines.append(f"cf-ray: {_word(16, '0123456789abcdef')}-{code}")
    assert _shown_lines(tmp_path, lines) == lines


def test_keys_beside_them_are_still_found(tmp_path: Path) -> None:
    nix = _word(32, _NIX32)
    github, aws = "ghp_" + _word(36, _ALNUM), "AKIA" + _word(16, string.ascii_uppercase + string.digits)
    random_key = _word(40, _ALNUM)
    lines = [
        f"/nix/store/{nix}-env/bin/deploy --token {github}",
        f"cf-ray: {aws}",
        f"/nix/store/{random_key}",  # no Nix hash: a random word of 40 characters after the path's root
        f"cf-ray: {_word(16, '0123456789abcdef')}-FRA api_key={random_key[::-1]}",
    ]
    shown = "\n".join(_shown_lines(tmp_path, lines))
    for key in (github, aws, random_key, random_key[::-1]):
        assert key not in shown
    assert f"/nix/store/{nix}-env/bin/deploy" in shown and "-FRA" in shown
