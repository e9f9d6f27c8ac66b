"""An id holding a credential is refused before anything is made; an id that only looks random is kept whole.

Run files store a credential redacted. An episode id holding one (``ep_ghp_…``, ``run-AKIA…-x``) named the run's
folder, its draft files and its checkpoint in clear while state.json and the log said ``ep_[REDACTED]``: no
decision or resume found the run again, and it stayed paused for good. The same held for a hex trace id or a
random-looking id: the writer found it random in a text quoting the draft id, learned it as a secret, and hid it
in every later record.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import shutil
import string
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import InvalidIdError, InvalidOptionError, NoesisNbError
from noesis_nb.ids import new_checkpoint_id, new_episode_id, validate_id
from noesis_nb.integrations.taisce import import_taisce
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.text import find_in_text

# built from parts: no whole credential stands in the repository's text
_GH = "ghp" + "_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb12"
_AWS = "AK" + "IA" + "Z7Q3X5RTYP2M4WN8"
_OPENAI = "sk-" + "proj-" + "Qw8Er7Ty6Ui5Op4As3Df2Gh1"
_JWT = "ey" + "JhbGciOiJIUzI1NiJ9" + ".ey" + "JzdWIiOiIxIn0.abc"
CREDENTIAL_IDS = {
    "github": f"ep_{_GH}",
    "aws inside": f"run-{_AWS}-x",
    "openai": f"ep_{_OPENAI}",
    "jwt": f"ep_{_JWT}",
    "name=value": "run-pass" + "word=hunter22x",
}
SECRETS = (_GH, _AWS, _OPENAI, _JWT, "hunter22x")


def agent(task: str, ctx: Any) -> Any:
    argv = [sys.executable, "-c", "print('hi')"]
    return ctx.tool("fs.write_file", {"argv": argv}, effect="write", risk="high")["returncode"]


def _refused(call: Any, root: Path, kind: type[Exception] = InvalidIdError) -> str:
    with pytest.raises(kind) as caught:
        call()
    message = str(caught.value)
    assert kind is not InvalidIdError or "credential" in message, message
    assert not any(s in message for s in SECRETS), message  # named redacted
    assert not root.exists(), sorted(map(str, root.rglob("*")))  # not even the runs root was made
    return message


@pytest.mark.parametrize("bad", CREDENTIAL_IDS.values(), ids=CREDENTIAL_IDS.keys())
def test_an_episode_id_holding_a_credential_is_refused_by_every_way_in_before_anything_is_written(
    bad: str, tmp_path: Path
) -> None:
    root = tmp_path / "runs"
    message = _refused(lambda: noesis_nb.solve("t", using=agent, runs_dir=root, approver="ask", episode_id=bad), root)
    assert "leave episode_id out" in message
    _refused(lambda: ns.solve("t", using=agent, runs_dir=root, approver="ask", episode_id=bad), root)
    _refused(lambda: asyncio.run(noesis_nb.solve_async("t", using=agent, runs_dir=root, episode_id=bad)), root)

    async def started() -> None:
        noesis_nb.start("t", using=agent, runs_dir=root, episode_id=bad)

    _refused(lambda: asyncio.run(started()), root)
    transcript = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    _refused(lambda: import_taisce(transcript, runs_dir=root, episode_id=bad), root)


@pytest.mark.parametrize("bad", CREDENTIAL_IDS.values(), ids=CREDENTIAL_IDS.keys())
def test_a_batch_id_holding_a_credential_is_refused_before_any_record_exists(bad: str, tmp_path: Path) -> None:
    """(A batch also refuses names that look random, which it writes as they are: ``spec._refuse_secret_name``.)"""
    root = tmp_path / "runs"

    async def main() -> None:
        await noesis_nb.batch(["a"], using=lambda task: task, runs_dir=root, batch_id=bad)

    _refused(lambda: asyncio.run(main()), root, NoesisNbError)


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_a_checkpoint_or_a_principal_named_with_a_credential_is_refused_and_writes_nothing(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(An approver id is a value of the decision, redacted as any: it names no file, and is taken.)"""
    episode = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="ask")
    before = _tree(runs_dir)
    with pytest.raises(InvalidIdError, match="credential"):
        noesis_nb.resume_run(episode, runs_dir=runs_dir, checkpoint_id=f"chk_{_AWS}")
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", f"user:{_GH}")  # it keys the tool records' idempotency file names
    with pytest.raises(InvalidOptionError, match="credential") as caught:
        noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="ask")
    assert _GH not in str(caught.value)
    assert _tree(runs_dir) == before


# what the package and its peers mint: kept (the detectors find nothing in them, and the quick path agrees)
def _minted() -> list[str]:
    rng = random.Random(7)
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    out: list[str] = []
    for _ in range(300):
        ulid = rng.choice("01234567") + "".join(rng.choice(crockford) for _ in range(25))
        digest = "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((12, 16, 32, 40, 64))))
        out += [f"ep_{ulid}", f"req_{ulid}", f"batch_{ulid}", ulid, digest, f"trace-{digest}", f"draft:ep_{ulid}:req_{ulid}"]
        out += [str(uuid.UUID(int=rng.getrandbits(128), version=4)), f"thread-{uuid.UUID(int=rng.getrandbits(128))}"]
    return out


def test_minted_ids_uuids_and_hex_digests_are_kept_and_need_no_detector() -> None:
    ours = [new_episode_id(), new_checkpoint_id(), f"draft:{new_episode_id()}:req_{new_episode_id()[3:]}"]
    peers = [str(uuid.uuid4()), uuid.uuid4().hex, hashlib.sha256(b"x").hexdigest(), hashlib.sha1(b"x").hexdigest()]
    plain = ["my-experiment-1", "nightly", "ana", "user:ana", "fs.write_file", "run_abc123XYZdef456GHIjkl78"]
    for value in [*ours, *peers, *plain, *_minted()]:
        assert validate_id(value, what="id") == value
        assert not find_in_text(value, entropy=False), value  # the quick path clears only what the detectors clear


def _crafted(runs_dir: Path) -> Path:
    """A paused run as an older writer left it for an id holding a token: folder, draft file and checkpoint named
    with the token in clear, state.json and the log naming ``ep_[REDACTED]``."""
    clean = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="ask")
    bad = f"ep_{_GH}"
    run = runs_dir / bad
    shutil.move(runs_dir / clean, run)
    for path in sorted(run.rglob("*"), key=lambda p: -len(p.parts)):
        if clean in path.name:
            path.rename(path.with_name(path.name.replace(clean, bad)))
    for path in run.rglob("*"):
        if path.is_file() and path.suffix in {".json", ".jsonl"}:
            path.write_text(path.read_text().replace(clean, "ep_[REDACTED]"))
    return run


def test_a_run_crafted_with_a_credential_in_its_ids_is_read_by_every_reader_and_decided_by_none(runs_dir: Path) -> None:
    run = _crafted(runs_dir)
    for reader in (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.tools_df, noesis_nb.usage_df):
        reader(runs_dir)  # read, its problems listed: no exception
    assert len(noesis_nb.list_runs(runs_dir=runs_dir)) == 1
    for view in (noesis_nb.show(run), noesis_nb.inbox(runs_dir)):
        bundle = view._repr_mimebundle_()
        text = repr(view) + "".join(str(v) for v in (bundle[0] if isinstance(bundle, tuple) else bundle).values())
        assert _GH not in text  # the command a view names to reach the run is redacted as any of its text
    disk = noesis_nb.DiskRun(run)
    repr(disk)
    before = _tree(runs_dir)
    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(NoesisNbError):
            decide(run, approver_id="ana")
    with pytest.raises(NoesisNbError):
        noesis_nb.resume_run(run)
    assert _tree(runs_dir) == before  # nothing written under either name
    assert os.listdir(runs_dir) == [run.name]


def test_drafts_crafted_with_a_credential_in_their_ids_are_decided_by_none_and_nothing_is_written(runs_dir: Path) -> None:
    """The run keeps a plain id; its draft files and the log name ``draft:ep_ghp_…:req_…`` (a run copied from elsewhere)."""
    clean = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="ask")
    run, bad = runs_dir / clean, f"draft:ep_{_GH}"
    for path in sorted(run.rglob("*"), key=lambda p: -len(p.parts)):
        if f"draft:{clean}" in path.name:
            path.rename(path.with_name(path.name.replace(f"draft:{clean}", bad)))
    for path in run.rglob("*"):
        if path.is_file() and path.suffix in {".json", ".jsonl"}:
            path.write_text(path.read_text().replace(f"draft:{clean}", bad))
    for reader in (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.tools_df, noesis_nb.usage_df):
        reader(runs_dir)
    before = _tree(runs_dir)
    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(InvalidIdError, match="credential") as caught:
            decide(run, approver_id="ana")
        assert _GH not in str(caught.value)
    assert _tree(runs_dir) == before


def _hex_agent(task: str, ctx: Any) -> Any:
    return agent(task, ctx)


@pytest.mark.parametrize(
    "episode_id",
    [
        uuid.UUID(int=random.Random(5).getrandbits(128)).hex,
        hashlib.sha256(b"trace").hexdigest(),
        "ep_" + "".join(random.Random(3).choices(string.ascii_letters + string.digits, k=36)),
    ],
    ids=["hex32", "sha256", "random-looking"],
)
def test_a_run_named_by_a_hex_or_random_looking_id_is_decided_and_resumed(episode_id: str, runs_dir: Path) -> None:
    """Its id was learned as a secret from the text quoting its draft: the log and state.json said [REDACTED]."""
    assert noesis_nb.solve("t", using=_hex_agent, runs_dir=runs_dir, approver="ask", episode_id=episode_id) == episode_id
    state = json.loads((runs_dir / episode_id / "state.json").read_text())
    assert state["episode"]["id"] == episode_id
    noesis_nb.approve_draft(episode_id, approver_id="ana", runs_dir=runs_dir)
    noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    assert json.loads((runs_dir / episode_id / "summary.json").read_text())["status"] == "ok"
    ids = {json.loads(line)["episode_id"] for line in (runs_dir / episode_id / "events.jsonl").read_text().splitlines()}
    assert ids == {episode_id}


@pytest.mark.parametrize("leaf", [f"runs-{_GH}", f"{_AWS}-runs"], ids=["github", "aws"])
def test_a_runs_dir_whose_new_folder_would_hold_a_credential_is_refused_before_it_is_made(leaf: str, tmp_path: Path) -> None:
    root = tmp_path / leaf / "sub"
    with pytest.raises(NoesisNbError, match="credential") as caught:
        noesis_nb.solve("t", using=agent, runs_dir=root)
    assert not any(s in str(caught.value) for s in SECRETS)
    with pytest.raises(NoesisNbError, match="credential"):
        asyncio.run(noesis_nb.batch(["a"], using=lambda task: task, runs_dir=root))
    assert os.listdir(tmp_path) == []
    (tmp_path / leaf).mkdir()  # a folder already there is the user's own: used as it is
    assert noesis_nb.solve("t", using=lambda task: task, runs_dir=tmp_path / leaf)


def test_a_run_with_a_short_id_still_hunts_the_secrets_that_hold_it(runs_dir: Path) -> None:
    """A run never learns its own id as a secret, but a secret merely holding a short id (run ``a``) is learned."""
    secret = "Tr0ub4dor-horse-a"

    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"now {secret}"})  # plain text: redacted only because the run learned the value
        return "ok"

    noesis_nb.solve(f"log in with password={secret}", using=leaky, runs_dir=runs_dir, episode_id="a")
    assert secret not in (runs_dir / "a" / "events.jsonl").read_text()


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


_ULID_ID = "ep_01KBQ3Z5X8M2N4P6R8T0V2W4Y6"


@pytest.mark.parametrize("shape", ["{id}:hunt3r2!", "hunt3r2!{id}", "{id}:pw"], ids=["after", "before", "short"])
def test_a_secret_holding_the_runs_own_id_is_hunted_as_what_is_left_of_it(shape: str, runs_dir: Path) -> None:
    """The id is never learned, but a secret holding it (a password made of the run's id) was not learned at all:
    a later text quoting it wrote it in clear. What is left once the id is taken out is hunted; the id stays."""
    secret = shape.format(id=_ULID_ID)

    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("login", {"password": secret})
        ctx.emit("note", {"text": f"login with {secret} ok"})  # plain text: redacted only as a learned value
        return "ok"

    assert noesis_nb.solve("t", using=leaky, runs_dir=runs_dir, episode_id=_ULID_ID) == _ULID_ID
    rest = secret.replace(_ULID_ID, "")
    for name, data in _files(runs_dir / _ULID_ID).items():
        assert rest.encode() not in data, name
    lines = [json.loads(line) for line in (runs_dir / _ULID_ID / "events.jsonl").read_text().splitlines()]
    assert {line["episode_id"] for line in lines} == {_ULID_ID}
    assert json.loads((runs_dir / _ULID_ID / "summary.json").read_text())["status"] == "ok"


def test_a_run_named_by_a_jwt_header_still_hunts_the_jwts_it_sees(runs_dir: Path) -> None:
    """The usual HS256 header is a valid id: a run so named learned no JWT (each holds its name), and a cut-off
    JWT (a streamed chunk, a shortened log line) was written in clear. Its payload and signature are hunted."""
    header = "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    payload, signature = "ey" + "JzdWIiOiJ1c2VyLTQyIiwiZXhwIjoxOTAwMDAwMDAwfQ", "q1w2e3r4t5y6u7i8o9p0AaSsDdFfGgHhJjKkLl"
    token = f"{header}.{payload}.{signature}"

    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("request", {"authorization": f"Bearer {token}"})
        ctx.emit("note", {"text": f"got {token[:60]}"})
        return "ok"

    assert noesis_nb.solve("t", using=leaky, runs_dir=runs_dir, episode_id=header) == header
    for name, data in _files(runs_dir / header).items():
        assert payload[:16].encode() not in data and signature.encode() not in data, name
    lines = [json.loads(line) for line in (runs_dir / header / "events.jsonl").read_text().splitlines()]
    assert {line["episode_id"] for line in lines} == {header}
    assert any(line.get("payload", {}).get("text", "").startswith(f"got {header}") for line in lines)


def test_a_run_learns_none_of_its_own_draft_ids_and_no_scheme_word() -> None:
    """A value holding the id is learned as its pieces, but the run's own draft id is no secret (its ``draft:`` and
    ``:req_…`` would hide every draft id of the run), nor is the ``Bearer `` before a JWT whose header is the id.
    (Built from parts: the architecture test keeps whole draft ids to the tools.)"""
    guard = RunSecrets(_ULID_ID)
    draft = f"draft:{_ULID_ID}:req_01KBQ3Z5X8M2N4P6R8T0V2W4Y7"
    assert not guard.learn([draft, f"approval:{draft}", f"Bearer {_ULID_ID}"])
    assert guard.learn([f"draft:{_ULID_ID}:hunt3r2!"])  # no draft id of the run: its secret part is learned
    assert ":hunt3r2!" in guard.values  # with its written forms (``%3Ahunt3r2%21``…), never a part of the draft id
    assert all("hunt3r2" in v and _ULID_ID not in v and "draft" not in v for v in guard.values), guard.values
    text = f"decide {draft} with Bearer auth"
    assert guard.screen({"text": text})["text"] == text
