"""A URL whose host is a key-like word is named in an error by its length, and the error's example is usable.

``export_otel(endpoint="otelcollectorZq8v…")`` said ``endpoint='EDACTED]' … e.g. 'http://EDACTED]'``: the word
was read with the ``//`` a scheme put before it (``http:[REDACTED]``), and cutting that scheme off again ate
the marker's ``[``. ``ns.set(runs_dir="s3://<key>")`` suggested ``upload_to='s3:[REDACTED]'``. A URL's ``//`` is
no part of a key now, a URL that is all key save its scheme is named as a key is, and an example never holds a
marker. A URL that shows is still quoted whole, its password still hidden.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import InvalidOptionError
from noesis_nb.integrations.otel import export_otel
from noesis_nb.secrets import shown
from noesis_nb.secrets.quoted import quoted

KEY_LIKE = "otelcollectorZq8vN3kLm2Xp7Rt4"
NAMED = "<a {}-character value that looks like a key, not shown>"


@pytest.fixture()
def run_dir(runs_dir: Path) -> Path:
    return runs_dir / noesis_nb.solve("x", using=lambda task, ctx: "ok", runs_dir=runs_dir)


@pytest.mark.parametrize("endpoint", [KEY_LIKE, KEY_LIKE + ":4318", "ftp://" + KEY_LIKE])
def test_export_otel_names_a_key_like_endpoint_without_garbling_it(run_dir: Path, endpoint: str) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        export_otel(run_dir, endpoint=endpoint)
    message = str(raised.value)
    assert KEY_LIKE not in message and "EDACTED]'" not in message.replace("[REDACTED]", ""), message
    assert "e.g. 'http://localhost:4318'" in message, message
    if ":4318" not in endpoint:
        assert f"endpoint={NAMED.format(len(endpoint))}" in message, message


def test_export_otel_still_quotes_a_plain_endpoint_and_builds_the_example_from_it(run_dir: Path) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        export_otel(run_dir, endpoint="collector.local:4318")
    assert "endpoint='collector.local:4318'" in str(raised.value)
    assert "e.g. 'http://collector.local:4318'" in str(raised.value)


def test_a_url_runs_dir_of_a_key_suggests_a_usable_upload_to() -> None:
    with pytest.raises(InvalidOptionError) as raised:
        ns.set(runs_dir="s3://" + KEY_LIKE)
    message = str(raised.value)
    assert f"runs_dir={NAMED.format(len(KEY_LIKE) + 5)}" in message, message
    assert "upload_to='s3://bucket/runs'" in message and "[REDACTED]" not in message, message


def test_a_url_runs_dir_that_shows_is_its_own_example() -> None:
    with pytest.raises(InvalidOptionError) as raised:
        ns.set(runs_dir="s3://my-bucket/runs")
    assert "upload_to='s3://my-bucket/runs'" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("s3://" + KEY_LIKE, "s3://[REDACTED]"),
        ("see http://" + KEY_LIKE + ":4318/v1 now", "see http://[REDACTED]:4318/v1 now"),
        ("http://alice:Zq8vN3kLm2Xp7Rt4@127.0.0.1:9/", "http://alice:[REDACTED]@127.0.0.1:9/"),
    ],
)
def test_a_url_keeps_its_slashes_when_its_host_is_hidden(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_a_key_after_slashes_that_are_no_url_is_hidden_whole() -> None:
    # base64 may start with ``/``: only the ``//`` after a scheme's ``:`` is left out
    assert KEY_LIKE not in shown("x //" + KEY_LIKE) and "//" not in shown("x //" + KEY_LIKE)


def test_quoted_url_reads_a_url_without_its_scheme() -> None:
    from noesis_nb.secrets.quoted import quoted_url

    assert quoted_url("alice:Zq8vN3kLm2Xp7Rt4@h:4318") == "'alice:[REDACTED]@h:4318'"
    assert quoted_url(KEY_LIKE) == NAMED.format(len(KEY_LIKE))
    assert quoted("s3://" + KEY_LIKE) == NAMED.format(len(KEY_LIKE) + 5)
