"""The capture tests' provider: one loopback server per test module, answering in each SDK's documented shapes;
and a real OTLP/HTTP collector on loopback (``otlp_collector``, ``otlp_collectors``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..otlp_collector import otlp_collector, otlp_collectors
from .provider_stub import ProviderStub

__all__ = ["otlp_collector", "otlp_collectors", "stub"]


@pytest.fixture(scope="module")
def stub() -> Iterator[ProviderStub]:
    server = ProviderStub()
    yield server
    server.close()
