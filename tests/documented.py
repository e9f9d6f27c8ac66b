"""The package's documentation as the tests read it: README.md, then every page under docs/. A promise moved from
the README to a docs page stays documented, and a test checking it still fails if it is removed from both."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pages() -> list[Path]:
    """README.md first, then docs/*.md and docs/notes/*.md, each in name order."""
    docs = ROOT / "docs"
    return [ROOT / "README.md", *sorted(docs.glob("*.md")), *sorted((docs / "notes").glob("*.md"))]


def documented() -> str:
    """The text of every page, joined by blank lines."""
    return "\n\n".join(page.read_text(encoding="utf-8") for page in pages())
