"""The hardening suite: every test here is marked ``hardening``; its figures print after the run."""

from __future__ import annotations

import grp
import os
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .forkserver import ForkServer
from .report import FIGURES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/hardening/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.hardening)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not FIGURES:
        return
    terminalreporter.section("hardening figures")
    for title, values in FIGURES:
        terminalreporter.write_line(f"{title}: " + ", ".join(f"{k} {v}" for k, v in values.items()))


@pytest.fixture(scope="module")
def crash_server() -> Iterator[ForkServer]:
    """A fork server of ``crashkit.py`` (imports done once, each scenario run in a fresh fork), one per module."""
    forks = ForkServer(Path(__file__).resolve().parent / "crashkit.py")
    yield forks
    forks.close()


@pytest.fixture(scope="session")
def group_with_others() -> Iterator[int]:
    """The gid of a real group another user is in (made with groupadd and useradd, removed after): a folder
    group-writable by it may be written by someone else. Giving a folder to a group one is not in needs root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a folder to a group with other users needs root (groupadd, useradd, chown): run as root")
    suffix = secrets.token_hex(4)
    group, user = f"nnbgrp{suffix}", f"nnbusr{suffix}"
    subprocess.run(["groupadd", group], check=True, capture_output=True, timeout=60)
    try:
        subprocess.run(
            ["useradd", "--no-create-home", "--no-user-group", "--gid", group, "--groups", group, "--shell", "/bin/false", user],
            check=True,
            capture_output=True,
            timeout=60,
        )
        try:
            yield grp.getgrnam(group).gr_gid
        finally:
            subprocess.run(["userdel", user], check=False, capture_output=True, timeout=60)
    finally:
        subprocess.run(["groupdel", group], check=False, capture_output=True, timeout=60)
