"""What the view benchmarks share: cells run in a real kernel (jupyter_client) with the widget comm traffic
they caused counted, and a comm that counts what ipywidgets would send when there is no kernel."""

from __future__ import annotations

import json
import os
import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

Cell = Callable[[str], tuple[str, int, int]]


def message_size(msg: dict[str, Any]) -> int:
    """Bytes of one iopub message as counted here: header + parent header + metadata + content."""
    return sum(len(json.dumps(msg.get(k) or {}, default=str)) for k in ("header", "parent_header", "metadata", "content"))


@contextmanager
def kernel_cells(cwd: Path, *, timeout: float = 600) -> Iterator[Cell]:
    """A fresh kernel; yields ``cell(code) -> (stdout, comm bytes, comm messages)``, which runs ``code``
    and counts every widget comm message (comm_open, comm_msg, comm_close) seen until the kernel is idle."""
    from jupyter_client.manager import start_new_kernel

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd), env=env, startup_timeout=60)

    def cell(code: str) -> tuple[str, int, int]:
        msg_id = kc.execute(code)
        stdout, comm_bytes, comm_msgs = "", 0, 0
        while True:
            try:
                msg = kc.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(code) from None
            if msg["msg_type"].startswith("comm_"):
                comm_bytes += message_size(msg)
                comm_msgs += 1
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                stdout += msg["content"]["text"]
            elif msg["msg_type"] == "error":
                raise RuntimeError("\n".join(msg["content"]["traceback"]))
            elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return stdout, comm_bytes, comm_msgs

    try:
        yield cell
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def count_comm_bytes(sizes: list[int]) -> None:
    """Make ipywidgets' comms append the size of each message they would send to ``sizes`` (no kernel)."""
    import comm
    from comm.base_comm import BaseComm

    class CountingComm(BaseComm):  # type: ignore[misc]
        def publish_msg(self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any) -> None:
            sizes.append(len(json.dumps({"data": data, "metadata": metadata or {}, **keys}, default=str)) + 600)  # + headers

    comm.create_comm = lambda *a, **k: CountingComm(*a, **k)
