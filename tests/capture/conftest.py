"""The capture tests' provider: one loopback server per test module, answering in each SDK's documented shapes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .provider_stub import ProviderStub


@pytest.fixture(scope="module")
def stub() -> Iterator[ProviderStub]:
    server = ProviderStub()
    yield server
    server.close()
