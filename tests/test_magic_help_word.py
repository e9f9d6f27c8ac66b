"""``%noesis help`` was refused as an unknown subcommand (pointing to ``--help``): it prints the help, and
``%noesis help run`` the help of ``run``, as ``--help`` does."""

from __future__ import annotations

from typing import Any

import pytest


def said(ip: Any, capsys: Any, line: str) -> str:
    capsys.readouterr()
    ip.run_line_magic("noesis", line)
    return capsys.readouterr().out


@pytest.mark.parametrize(("typed", "same_as"), [("help", "--help"), ("help run", "run --help"), ("help inbox", "inbox --help")])
def test_help_is_what_dash_dash_help_prints(ip: Any, capsys: Any, typed: str, same_as: str) -> None:
    text = said(ip, capsys, typed)
    assert text.strip() and text == said(ip, capsys, same_as)
    assert "unknown subcommand" not in text
