"""A live Noeta run whose envelopes reach the subscriber out of their ``seq`` order (commits on several threads):
each task's envelopes land in the run in ``seq`` order, as Noeta committed them. They landed in the order delivered,
marked ``out_of_order``, so the timeline read a tool's result before the call that made it."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import disk_events, from_source, run

noeta_sdk = pytest.importorskip("noeta.sdk")
from noeta.sdk import Client  # noqa: E402

from noesis_nb.integrations.noeta import NoetaAdapter  # noqa: E402

from .test_noeta_client import gated_adapter  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ripgrep absent: Noeta's Grep/Glob warn


class SwappingClient(Client):
    """A real client whose subscribers get each ``MessagesAppended`` after the envelope committed next (as a commit on
    another thread delivers it); ``delivered`` keeps the order they were handed over in."""

    delivered: list[int]

    def subscribe(self, callback: Any) -> Any:
        self.delivered = []
        held: list[Any] = []

        def deliver(envelope: Any) -> None:
            if envelope.type == "MessagesAppended" and not held:
                held.append(envelope)
                return
            self.delivered.append(envelope.seq)
            callback(envelope)
            while held:
                late = held.pop()
                self.delivered.append(late.seq)
                callback(late)

        return super().subscribe(deliver)


def _swapping(tmp_path: Any) -> tuple[NoetaAdapter, list[SwappingClient]]:
    plain = gated_adapter(tmp_path)
    made: list[SwappingClient] = []

    def factory() -> SwappingClient:
        client = SwappingClient(
            plain.options, provider=plain.provider, model=plain.model, multi_turn=False, workspace_dir=tmp_path
        )
        made.append(client)
        return client

    return NoetaAdapter(client_factory=factory), made


def test_envelopes_delivered_out_of_order_land_in_seq_order(runs_dir, tmp_path):
    adapter, made = _swapping(tmp_path)
    handle, pending = run("delete x.txt", adapter, runs_dir, decide="approve")
    assert handle.status == "ok" and handle.result() == "Done." and len(pending) == 1
    (client,) = made
    assert client.delivered != sorted(client.delivered)  # the stream did deliver out of order
    rows = [e["payload"] for e in from_source(disk_events(handle), "noeta") if "seq" in e["payload"]]
    seqs = [p["seq"] for p in rows]
    assert seqs == sorted(client.delivered), seqs  # every envelope once, in Noeta's order
    assert not any(p.get("out_of_order") for p in rows)
