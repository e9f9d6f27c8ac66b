"""A process with its own small tmpfs (user and mount namespaces): where a disk can fill up or turn read-only."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def private_tmpfs(size: str, purpose: str) -> list[str]:
    """The command prefix ``[unshare, -Urm, sh, -c, <mount "$0" then exec "$@">]``: the mount point comes first,
    then the command. Skips (saying why) where unshare or user namespaces are not available."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip(f"needs unshare (util-linux) to mount a private tmpfs that {purpose}")
    probe = subprocess.run([unshare, "-Urm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"this machine does not allow a private tmpfs (user namespaces): {probe.stderr.strip()}")
    return [unshare, "-Urm", "sh", "-c", f'mount -t tmpfs -o size={size} tmpfs "$0" && exec "$@"']
