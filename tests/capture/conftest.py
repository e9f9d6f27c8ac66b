"""The capture tests' provider: one loopback server per test module, answering in each SDK's documented shapes;
a real OTLP/HTTP collector on loopback (``otlp_collector``, ``otlp_collectors``); and a tracer of a real
OpenTelemetry SDK provider carrying noesis_nb's span processor (``tracer``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import noesis_nb

from ..otlp_collector import otlp_collector, otlp_collectors
from .provider_stub import ProviderStub

__all__ = ["otlp_collector", "otlp_collectors", "stub", "tracer"]


@pytest.fixture(scope="module")
def stub() -> Iterator[ProviderStub]:
    server = ProviderStub()
    yield server
    server.close()


@pytest.fixture
def tracer() -> Iterator[Any]:
    """A tracer of a real SDK provider that carries noesis_nb's processor (as a program would attach it)."""
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(noesis_nb.capture.span_processor())
    yield provider.get_tracer("test")
    provider.shutdown()
