"""A corpus of secret shapes, freshly generated per test session, each in the forms an agent would pass it.

Every shape has its secret ``value`` (what must never be written or shown), the ``core`` parts whose
8-character fragments must not appear either, and the carriers: ``text`` (prose, a header or a
config line), ``argv`` (a command line), ``env`` (an environment) and ``kwargs`` (a Python call).
Values are random (``random.Random(seed)``), so no real-looking key is committed to the repository.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


@dataclass(frozen=True)
class Shape:
    name: str
    value: str
    text: str
    argv: list[str]
    env: dict[str, str]
    kwargs: dict[str, Any]
    core: tuple[str, ...] = field(default=())

    def fragments(self, size: int = 8) -> set[str]:
        """Every ``size``-character piece of the secret material (a format's fixed prefix such as
        ``github_pat_`` is not secret: it may appear as a name)."""
        prefix = re.match(
            r"(?:github_pat_|ghp_|AKIA|xoxb-|sk_live_|sk-proj-|sk-ant-api03-|AIza|SK|SG\.|npm_|hf_|glpat-)?", self.value
        ).group()
        cores = self.core or (self.value[len(prefix) :],)
        return {c[i : i + size] for c in cores for i in range(len(c) - size + 1)}


def _jwt(rng: random.Random) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    sig = "".join(rng.choice(ALNUM + "-_") for _ in range(43))
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': str(rng.randrange(10**9)), 'iat': 1700000000})}.{sig}"


def corpus(seed: int) -> list[Shape]:
    rng = random.Random(seed)

    def r(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    gh, ghf = "ghp_" + r(36), "github_pat_" + r(22) + "_" + r(59)
    akia, aws_secret = "AKIA" + r(16, string.ascii_uppercase + string.digits), r(40, B64)
    slack = f"xoxb-{r(12, string.digits)}-{r(13, string.digits)}-{r(24)}"
    stripe, openai, anthropic = "sk_live_" + r(99), "sk-proj-" + r(48, ALNUM + "-_"), "sk-ant-api03-" + r(93, ALNUM + "-_") + "AA"
    google, jwt = "AIza" + r(35, ALNUM + "-_"), _jwt(rng)
    pem_lines = [r(64, B64) for _ in range(4)]
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(pem_lines) + "\n-----END RSA PRIVATE KEY-----"
    basic, pg, my, rd, mongo = (r(14) + "!", "pg" + r(14), "my" + r(14), "rd" + r(14), "mg" + r(14))
    bearer, human, token_hex, mysql_p = (
        r(40, ALNUM + "._-"),
        "Hunter2!" + r(6, string.ascii_lowercase),
        r(32, "0123456789abcdef"),
        "Q" + r(11),
    )
    hex64, b64 = r(64, "0123456789abcdef"), base64.b64encode(bytes(rng.randrange(256) for _ in range(33))).decode()
    twilio, sendgrid, npm, hf = (
        "SK" + r(32, "0123456789abcdef"),
        f"SG.{r(22, ALNUM + '-_')}.{r(43, ALNUM + '-_')}",
        "npm_" + r(36),
        "hf_" + r(34),
    )
    glpat = "glpat-" + r(20, ALNUM + "-_")
    url = "https://api.example.com/v1/items"
    return [
        Shape("github_pat", gh, f"export GH_PAT={gh}", ["gh", "auth", "status", "--with-token", gh], {"GH_PAT": gh}, {"pat": gh}),
        Shape(
            "github_fine_grained",
            ghf,
            f"git clone https://x-access:{ghf}@github.com/o/r.git",
            ["git", "clone", f"https://x:{ghf}@github.com/o/r"],
            {"GITHUB_PAT": ghf},
            {"credential": ghf},
        ),
        Shape(
            "aws_access_key",
            akia,
            f"aws_access_key_id = {akia}",
            ["aws", "configure", "set", "aws_access_key_id", akia],
            {"AWS_ACCESS_KEY_ID": akia},
            {"key_id": akia},
        ),
        Shape(
            "aws_secret_key",
            aws_secret,
            f"AWS_SECRET_ACCESS_KEY={aws_secret}",
            ["aws", "configure", "set", "aws_secret_access_key", aws_secret],
            {"AWS_SECRET_ACCESS_KEY": aws_secret},
            {"aws_secret_access_key": aws_secret},
        ),
        Shape("slack", slack, f"SLACK_BOT={slack}", ["curl", "-d", f"token={slack}", url], {"SLACK": slack}, {"bot": slack}),
        Shape(
            "stripe",
            stripe,
            f"stripe key {stripe}",
            ["stripe", "--api-key", stripe, "charges", "list"],
            {"STRIPE": stripe},
            {"client": stripe},
        ),
        Shape("openai", openai, f"OPENAI_API_KEY={openai}", ["llm", "-k", openai], {"OPENAI": openai}, {"llm_key": openai}),
        Shape(
            "anthropic",
            anthropic,
            f"x-api-key: {anthropic}",
            ["curl", "-H", f"x-api-key: {anthropic}", url],
            {"ANTHROPIC": anthropic},
            {"api_key": anthropic},
        ),
        Shape(
            "google_api_key", google, f"{url}?key={google}", ["curl", f"{url}?key={google}"], {"MAPS": google}, {"maps": google}
        ),
        Shape("jwt", jwt, f"session {jwt}", ["curl", "--cookie", f"session={jwt}", url], {"SESSION": jwt}, {"session": jwt}),
        Shape("private_key", pem, pem, ["ssh-agent-load", pem], {"DEPLOY_SSH_KEY": pem}, {"private_key": pem}, tuple(pem_lines)),
        Shape(
            "basic_auth_url",
            basic,
            f"https://deploy:{basic}@registry.example.com/v2/",
            ["curl", f"https://deploy:{basic}@example.com/x"],
            {"REGISTRY": f"https://deploy:{basic}@example.com"},
            {"endpoint": f"https://deploy:{basic}@example.com"},
        ),
        Shape(
            "postgres_url",
            pg,
            f"DATABASE_URL=postgres://app:{pg}@db:5432/app",
            ["psql", f"postgresql://app:{pg}@db/app"],
            {"DATABASE_URL": f"postgres://app:{pg}@db:5432/app"},
            {"dsn": f"postgres://app:{pg}@db/app"},
        ),
        Shape(
            "mysql_url",
            my,
            f"mysql://root:{my}@db:3306/shop",
            ["migrate", "--db", f"mysql://root:{my}@db/shop"],
            {"MYSQL_URL": f"mysql://root:{my}@db:3306/shop"},
            {"db": f"mysql://root:{my}@db/shop"},
        ),
        Shape(
            "redis_url",
            rd,
            f"redis://:{rd}@cache:6379/0",
            ["worker", f"redis://:{rd}@cache:6379/0"],
            {"REDIS_URL": f"redis://:{rd}@cache:6379/0"},
            {"broker": f"redis://:{rd}@cache:6379/0"},
        ),
        Shape(
            "mongodb_url",
            mongo,
            f"mongodb+srv://svc:{mongo}@cluster0.example.net/db",
            ["mongosh", f"mongodb+srv://svc:{mongo}@c0.example.net/db"],
            {"MONGO_URI": f"mongodb+srv://svc:{mongo}@c0.example.net/db"},
            {"uri": f"mongodb+srv://svc:{mongo}@c0.example.net/db"},
        ),
        Shape(
            "bearer_header",
            bearer,
            f"Authorization: Bearer {bearer}",
            ["curl", "-H", f"Authorization: Bearer {bearer}", url],
            {"AUTH_HEADER": f"Bearer {bearer}"},
            {"headers": {"Authorization": f"Bearer {bearer}"}},
        ),
        Shape(
            "password_flag",
            human,
            f"mysql --password {human} shop",
            ["mysql", "--password", human, "shop"],
            {"DB_PASSWORD": human},
            {"password": human},
        ),
        Shape(
            "token_flag",
            token_hex,
            f"deploy --token={token_hex}",
            ["deploy", f"--token={token_hex}", "--env", "prod"],
            {"DEPLOY_TOKEN": token_hex},
            {"token": token_hex},
        ),
        Shape(
            "mysql_short_flag",
            mysql_p,
            f"mysql -uroot -p{mysql_p} shop",
            ["mysql", "-uroot", f"-p{mysql_p}", "shop"],
            {"MYSQL_PWD": mysql_p},
            {"auth": mysql_p},
        ),
        Shape("hex_entropy", hex64, f"signing with {hex64}", ["sign", "--with", hex64], {"SIGNING": hex64}, {"seed": hex64}),
        Shape("base64_entropy", b64, f"blob {b64}", ["decode", b64], {"BLOB": b64}, {"blob": b64}),
        Shape(
            "twilio", twilio, f"TWILIO_API_KEY={twilio}", ["twilio", "--api-key", twilio], {"TWILIO": twilio}, {"sid_key": twilio}
        ),
        Shape("sendgrid", sendgrid, f"SENDGRID={sendgrid}", ["mailer", sendgrid], {"SENDGRID": sendgrid}, {"mail": sendgrid}),
        Shape(
            "npm",
            npm,
            f"//registry.npmjs.org/:_authToken={npm}",
            ["npm", "publish", f"--//registry.npmjs.org/:_authToken={npm}"],
            {"NPM": npm},
            {"registry": npm},
        ),
        Shape("huggingface", hf, f"HF={hf}", ["hf", "login", "--token", hf], {"HF": hf}, {"hub": hf}),
        Shape(
            "gitlab", glpat, f"PRIVATE-TOKEN: {glpat}", ["glab", "auth", "login", "--token", glpat], {"GL": glpat}, {"gl": glpat}
        ),
    ]


# the hex a run writes of its own: UUIDs (event and decision ids) and runs of 64 hex digits (seals, fingerprints,
# digests). An 8-digit piece of a hex secret turns up in them by chance (about once in 2000 runs of the batch test,
# once per hundred suites): pieces made only of hex digits are looked for beside them, the whole secret everywhere
_OWN_HEX = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_HEX = re.compile(rb"[0-9a-f]+")


def leaks(shapes: Iterable[Shape], blobs: Iterable[tuple[str, bytes]]) -> list[tuple[str, str]]:
    """(where, shape) for every blob holding a shape's secret or an 8-character fragment of it (a fragment of hex
    digits only outside the run's own UUIDs and 64-digit digests, where such pieces occur by chance)."""
    found = []
    pieces = []
    for s in shapes:
        frags = {f.encode() for f in s.fragments()}
        hex_frags = {f for f in frags if _HEX.fullmatch(f)}
        wholes = {c.encode() for c in (*s.core, s.value)}
        pieces.append((s.name, frags - hex_frags, hex_frags, wholes))
    for where, blob in blobs:
        beside_ids = _OWN_HEX.sub(b" ", blob)
        for name, frags, hex_frags, wholes in pieces:
            if any(f in blob for f in frags) or any(f in beside_ids for f in hex_frags) or any(w in blob for w in wholes):
                found.append((where, name))
    return found


def run_files(run_dir: Path) -> list[tuple[str, bytes]]:
    return [(str(p.relative_to(run_dir)), p.read_bytes()) for p in sorted(Path(run_dir).rglob("*")) if p.is_file()]
