"""An OTLP endpoint given with credentials (``http://user:<token>@host``, ``?token=…``) is named without them.

``export_otel`` names the endpoint in the error it raises when the collector refuses the spans (printed
in the cell's traceback), in the one it raises for an endpoint that is not an HTTP URL, and in a live
export's repr and errors: every shape of the secret corpus is redacted there.
"""

from __future__ import annotations

import asyncio
import random
import traceback
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.hardening.secret_corpus import corpus, leaks
from tests.otlp_collector import closed_port

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
SHAPES = [s for s in corpus(random.SystemRandom().randrange(2**32)) if "\n" not in s.value]


def _endpoints(shape: Any, port: int) -> list[str]:
    return [f"http://deploy:{shape.value}@127.0.0.1:{port}", f"http://127.0.0.1:{port}/v1/traces?token={shape.value}"]


def test_a_refused_export_and_a_wrong_endpoint_name_it_without_its_credentials(tmp_path: Path) -> None:
    episode_id = noesis_nb.solve("deploy", using=lambda task, ctx: "done", runs_dir=tmp_path)
    port, printed = closed_port(), []
    for shape in SHAPES:
        for endpoint in [*_endpoints(shape, port), f"deploy:{shape.value}@127.0.0.1:{port}"]:
            with pytest.raises((ConnectionError, ValueError)) as raised:
                noesis_nb.export_otel(episode_id, endpoint=endpoint, runs_dir=tmp_path, timeout=0.5)
            printed.append((shape.name, "".join(traceback.format_exception(raised.value)).encode()))
    assert leaks(SHAPES, printed) == []
    assert all(b"[REDACTED]" in blob for _, blob in printed)


def test_a_live_export_names_its_endpoint_without_its_credentials(tmp_path: Path) -> None:
    port, shape = closed_port(), SHAPES[0]

    async def main() -> list[tuple[str, bytes]]:
        shown = []
        for endpoint in _endpoints(shape, port):
            handle = noesis_nb.start("deploy", using=lambda task, ctx: "done", runs_dir=tmp_path)
            live = noesis_nb.export_otel(handle, endpoint=endpoint, live=True, interval=0.05, timeout=0.5)
            await handle
            await asyncio.to_thread(live.wait, 30)
            shown += [("repr", repr(live).encode()), ("errors", repr(live.errors).encode())]
        return shown

    shown = asyncio.run(main())
    assert leaks([shape], shown) == []
