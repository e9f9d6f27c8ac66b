"""A runs source URL with a password before its host is refused, naming it without the password.

``runs_df("s3://<key>:<secret>@bucket/runs")``: s3fs read the credentials as part of the bucket's
name and botocore's error quoted them; an ``https://user:<password>@host/…`` source named them in
every run's ``run_dir``. The one error says where credentials go instead (``storage_options=``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

SECRET = "wJalrXUtnFEMI/K7MDENG" + "bPxRfiCYzQ8Lm3Np"
PASSWORD = "Vq7-wrT9kLm2"
SOURCES = [
    f"s3://AKIAIOSFODNN7EXAMPLQ:{SECRET}@bucket/runs",
    f"s3://AKIAIOSFODNN7EXAMPLQ:{SECRET}@bucket/runs/ep_*",
    f"https://deploy:{PASSWORD}@runs.example.invalid/runs",
    f"simplecache::s3://AKIAIOSFODNN7EXAMPLQ:{SECRET}@bucket/runs",  # each link of a chained URL
    f" https://deploy:{PASSWORD}@runs.example.invalid/runs",
]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("frame", ["runs_df", "events_df"])
def test_a_password_in_a_source_url_is_refused_without_being_shown(source: str, frame: str) -> None:
    pytest.importorskip("fsspec")
    with pytest.raises(InvalidOptionError) as refused:
        getattr(noesis_nb, frame)(source)
    message = str(refused.value)
    assert SECRET not in message and SECRET[:8] not in message and PASSWORD not in message
    assert "storage_options" in message and source.split("@", 1)[1] in message  # the host and path are named


def test_a_password_in_a_batchs_upload_url_is_refused_before_anything_runs(tmp_path: Path) -> None:
    ran: list[str] = []

    def agent(task: str, ctx: object) -> str:
        ran.append(task)
        return "done"

    async def cell() -> None:
        noesis_nb.batch(["a"], agent, root=tmp_path, upload_to=SOURCES[0])

    with pytest.raises(InvalidOptionError) as refused:
        asyncio.run(cell())
    message = str(refused.value)
    assert SECRET[:8] not in message and "storage_options" in message
    assert ran == [] and not any(tmp_path.rglob("*.json"))  # no run, no batch record holding the URL


@pytest.mark.parametrize(
    "url",
    [
        "https://runs.example.com:8443/users/alice@example.com/runs",  # a port, and an @ in the path
        "http://10.0.0.5:9000/runs?owner=bob@corp.com",
        "http://[::1]:8000/team@x/runs",
        "github://fsspec:filesystem_spec@main/docs",  # fsspec's org:repo@ref form
        "s3://bucket/runs/ep_*",
        "simplecache::s3://bucket/runs",
        "file:///home/ana/runs",
        "memory://runs",
    ],
)
def test_a_url_without_a_password_is_not_refused(url: str) -> None:
    from noesis_nb.secrets.urls import refuse_password

    refuse_password(url, "source")  # no error: nothing to refuse
