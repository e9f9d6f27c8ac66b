"""An approval card reads as what will run: no invisible character, no hidden variable, no line that reads as two.

The command a card shows is what a person approves. A zero-width space in ``safe\u200b.txt``, a bidi mark, a
line separator or a tag character renders as nothing in a browser, so the card must show each one (as
``\ufffd``); the environment the command runs with is shown whole, values included; and a line break, an
odd variable name or a quote switches the card to the argument list, where each part stands alone.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.gate import PendingApproval
from noesis_nb.tools import render_command_line
from noesis_nb.widgets import InboxView
from noesis_nb.widgets.cards import decision_html, pending_html, veto_decision_html
from noesis_nb.widgets.render import label, visible

# every character a browser shows as nothing or that reorders text around it (by Unicode category: controls,
# format characters, line and paragraph separators), except the tab and line breaks HTML shows as space
INVISIBLE = [
    chr(cp)
    for cp in range(sys.maxunicode + 1)
    if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp") and chr(cp) not in "\t\n\r"
]


def _card(payload: dict, tool: str = "shell.run") -> str:
    """The card of a subprocess draft, its command line made as the runtime makes it."""
    return pending_html(
        PendingApproval(
            draft_id="draft:ep_1:req_1", request_id="req_1", tool=tool, protocol="subprocess", effect_kind="write",
            risk_tier="high", redacted_payload=payload, command_line=render_command_line(payload),
            fingerprint="sha256:f", impact_hash=None, requested_at="2026-01-01T00:00:00Z",
        )
    )  # fmt: skip


def test_no_invisible_character_reaches_a_card_in_any_part_of_the_command() -> None:
    assert len(INVISIBLE) > 200  # controls, format characters (zero-width, bidi, tags), separators
    missed = {}
    for char in INVISIBLE:
        for payload in (
            {"argv": ["cat", f"safe{char}.txt"]},
            {"argv": ["cat", "it's", f"safe{char}.txt"]},  # the argument list
            {"argv": ["cat", "x"], "cwd": f"/srv{char}/a", "env": {"MODE": f"fa{char}st"}},
        ):
            html = _card(payload)
            if char in html:
                missed[f"U+{ord(char):04X} {unicodedata.name(char, '?')}"] = payload
    assert not missed, f"{len(missed)} invisible characters reach the card as they are: {sorted(missed)[:12]}"


@pytest.mark.parametrize("char", ["\u200d", "\u200c", "\u2060", "\U000e0041"])
def test_a_tool_name_that_only_looks_the_same_is_shown_apart(char: str) -> None:
    html = _card({"argv": ["ls"]}, tool=f"shell.run{char}")
    assert char not in html and "shell.run\ufffd" in html
    assert label(f"fs.read{char}") == "fs.read\ufffd"


def test_prose_keeps_the_joiners_of_emoji_and_words() -> None:
    family, persian = "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    assert visible(family) == family and visible(persian) == persian
    assert visible("a\u200bb\u202ec") == "a\ufffdb\ufffdc"
    # what writing needs stays: a flag's tag characters, an emoji's variation selector, Persian's right-to-left
    # mark, Hebrew's left-to-right mark, Arabic's letter mark, German soft hyphens
    for prose in (
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "I \u2764\ufe0f it",
        "\u0633\u0644\u0627\u0645\u200f 2024",
        "\u05e9\u05dc\u05d5\u05dd\u200e ABC",
        "\u061c\u0661\u0662",
        "Donau\u00addampf\u00adschiff",
    ):
        assert visible(prose) == prose and "\ufffd" in visible(prose, exact=True)


def test_the_environment_is_shown_with_its_values_in_the_argument_list() -> None:
    html = _card({"argv": ["python", "-c", "print('hi')"], "env": {"LD_PRELOAD": "/srv/evil.so", "API_TOKEN": "t0k3n-value"}})
    assert "<dt>argv</dt>" in html  # a quote in an argument: one argument a line
    assert "LD_PRELOAD=/srv/evil.so" in html  # what runs with it, not only its name
    assert "API_TOKEN=[REDACTED]" in html and "t0k3n-value" not in html


@pytest.mark.parametrize(
    "env",
    [
        {"GREETING": "hi\nrm -rf ~"},  # the line break would show as a space inside quotes
        {"A B": "1"},  # ``A B=1 ls`` reads as running ``A``
        {"X": "it's"},  # shell quoting ``'it'"'"'s'`` hides where the value ends
    ],
)
def test_a_variable_that_would_not_read_plainly_switches_to_the_list(env: dict) -> None:
    html = _card({"argv": ["ls", "-l"], "env": env})
    assert "<dt>command</dt>" not in html and "<dt>argv</dt><dd><ol><li>ls</li><li>-l</li></ol>" in html
    (name, value), *_ = env.items()
    shown = f"{name}={value}".replace("'", "&#x27;").replace("\n", "<br>")
    assert f"<li>{shown}</li>" in html


def test_a_line_break_in_an_argument_stays_a_line_break() -> None:
    html = _card({"argv": ["git", "commit", "-m", "first line\nsecond\tline\r"]})
    assert "<li>first line<br>second\ufffdline\ufffd</li>" in html


@pytest.fixture(scope="module")
def paused_on_hidden_command(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("hidden-command")

    async def agent(task: str, ctx) -> int:
        argv = ["ls", "safe\u200b.txt", "a\u200eb"]
        out = await ctx.tool_async("shell.run", {"argv": argv, "env": {"K": "v\nrm"}}, effect="write", risk="high")
        return out["returncode"]

    ep = noesis_nb.solve("list", using=agent, runs_dir=runs, approver="ask")
    return runs / ep


def test_a_paused_run_shows_the_hidden_characters_on_its_card_and_inbox_row(paused_on_hidden_command: Path) -> None:
    html = noesis_nb.show(paused_on_hidden_command).mimebundle()["text/html"]
    card = html[html.index('<div class="nnb-card">') : html.index('<div class="nnb-steps">')]
    assert "\u200b" not in card and "\u200e" not in card
    assert "<li>safe\ufffd.txt</li>" in card and "<li>K=v<br>rm</li>" in card
    inbox = InboxView(paused_on_hidden_command.parent)
    try:
        [row] = inbox.rows.values()
        assert "\u200b" not in row.body.value and "safe\ufffd.txt" in row.body.value
    finally:
        inbox.close()


@pytest.mark.parametrize("char", ["\u200d", "\u200b", "\u202e"])
def test_who_decided_is_shown_with_every_hidden_character(char: str) -> None:
    decision = {"status": "approved", "approver_id": f"ana{char}", "decided_at": "2026-01-01T00:00:00Z"}
    for html in (decision_html(decision), veto_decision_html(decision)):
        assert char not in html and "by ana\ufffd at" in html
