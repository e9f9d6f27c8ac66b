"""The integration tests' shared fixtures: a real OTLP/HTTP collector on loopback."""

from __future__ import annotations

from ..otlp_collector import otlp_collector, otlp_collectors

__all__ = ["otlp_collector", "otlp_collectors"]
