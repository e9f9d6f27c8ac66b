"""Every relative link of README.md and the docs pages reaches a file of the repository, and a ``#anchor`` a heading
of that file (as GitHub names it): the README's contents and each page's way back must not lead nowhere."""

from __future__ import annotations

import re
from pathlib import Path

from tests.documented import ROOT, pages

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's ids of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    ids = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.M):
        ids.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return ids


def _broken(page: Path, root: Path = ROOT) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in _LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: — not a file of the repository
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or root not in file.parents:
            broken.append(f"{page.relative_to(root)}: {target} (no such file)")
        elif anchor and anchor not in _anchors(file):
            broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return broken


def test_every_relative_link_leads_somewhere() -> None:
    found = [target for page in pages() for target in _LINK.findall(page.read_text(encoding="utf-8"))]
    assert len(found) > 20  # the README's contents and the pages' links were found
    broken = [line for page in pages() for line in _broken(page)]
    assert not broken, broken


def test_a_link_to_a_missing_file_or_heading_is_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Steer, stop, replay\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    good = "[a](docs/page.md#steer-stop-replay) [b](#set-up) [c](https://example.com/x#y)"
    readme.write_text(f"# Top\n\n## Set up\n\n{good} [d](docs/gone.md) [e](docs/page.md#steer)\n", encoding="utf-8")
    assert _broken(readme, root=tmp_path.resolve()) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/page.md#steer (no such heading)",
    ]
