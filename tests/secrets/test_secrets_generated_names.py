"""Names Kubernetes generates are kept, and random keys are still found.

A pod's name is its Deployment's name, the ReplicaSet's hash (10 characters) and 5 characters of its own, the
generated parts drawn from ``bcdfghjklmnpqrstvwxz2456789``: ``payments-api-7d9f8b6c5d-x2k9p``. At 32+ characters
one in ten to fifteen such names read as a random key (the hashes' letters and digits outweigh the words) and was redacted,
erasing the id a reader looks for. A generated name is now judged by the name it was made from: kept when that
reads as words, judged as any word when it is itself random. Generated from the naming rules with a fixed seed.
"""

from __future__ import annotations

import random
import string

from noesis_nb.secrets.scan import redact

_GENERATED = "bcdfghjklmnpqrstvwxz2456789"  # Kubernetes' alphabet for generated name parts
_WORDS = (
    "payments api checkout service frontend backend worker auth user orders cart inventory search gateway redis "
    "postgres kafka consumer producer notification email billing ledger metrics prometheus grafana node exporter "
    "ingress nginx controller cert manager cluster autoscaler coredns kube proxy web app deployment name ml model "
    "serving inference batch job scheduler cron sync data pipeline etl loader admin portal internal v2 staging prod"
).split()


def _pod_names(count: int, seed: str) -> list[str]:
    """Names of 32+ characters as Kubernetes makes them: a Deployment's pods, its ReplicaSets, a DaemonSet's or a
    Job's pods, a CronJob's pods (the schedule time in minutes)."""
    draw = random.Random(seed)

    names: list[str] = []
    while len(names) < count:
        given = "-".join(draw.choice(_WORDS) for _ in range(draw.randint(1, 4)))
        name = draw.choice(
            (
                f"{given}-{_part(draw, 10)}-{_part(draw, 5)}",
                f"{given}-{_part(draw, draw.randint(8, 10))}",
                f"{given}-{_part(draw, 5)}",
                f"{given}-{draw.randint(28_000_000, 29_999_999)}-{_part(draw, 5)}",
            )
        )
        if len(name) >= 32:
            names.append(name)
    return names


def test_generated_pod_names_are_kept() -> None:
    names = _pod_names(1500, "pods")
    redacted = [name for name in names if redact(f"pod {name} restarted")[1]]
    assert redacted == [], f"{len(redacted)} of {len(names)}: {redacted[:5]}"


def test_a_generated_name_made_from_a_random_name_is_still_judged() -> None:
    draw = random.Random("random given names")
    lower = string.ascii_lowercase + string.digits
    judged = 0
    for _ in range(300):
        given = "".join(draw.choice(lower) for _ in range(draw.randint(20, 40)))
        if not redact(f"token {given} set")[1]:  # (one in four reads as words on its own)
            continue
        judged += 1
        for suffix in (f"-{_part(draw, 10)}-{_part(draw, 5)}", f"-{_part(draw, 5)}", f"-{_part(draw, 10)}"):
            assert redact(f"token {given}{suffix} set")[1], given + suffix
    assert judged > 200


def _part(draw: random.Random, n: int) -> str:
    return "".join(draw.choice(_GENERATED) for _ in range(n))


def test_random_keys_are_found_as_often_as_before() -> None:
    draw = random.Random("keys beside pods")
    alphabets = [string.ascii_letters + string.digits, string.ascii_letters + string.digits + "+/", string.hexdigits[:16]]
    alphabets.append(string.ascii_letters + string.digits + "-_")
    keys = ["".join(draw.choice(alphabets[i % 4]) for _ in range(draw.randint(32, 64))) for i in range(1600)]
    missed = [key for key in keys if not redact(f"the key is {key} here")[1]]
    assert len(missed) <= 4, missed[:5]  # (1 of these, before and after: a key that reads as words)
