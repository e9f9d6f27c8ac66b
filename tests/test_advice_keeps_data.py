"""The fix a message gives never destroys a user's data: no "delete it" for a draft record, a run, a log's line.

A prepared draft, a decision, a run folder or a log line the package cannot read is evidence (what was prepared,
decided, done): the message says what to restore, which call decides it, or where to move it, naming it. Only what
noesis_nb makes and makes again may be removed: its cache folders, a link (what it leads to stays), a staging
folder it left empty, a lock file.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.tools.errors import ToolRecordError

_PACKAGE = Path(noesis_nb.__file__).parent

#: "delete it", "remove the folder", "rm the file", "or remove that line", "delete the run"...
_DESTROYS = re.compile(
    r"(?<!never )(?<!not )\b(?:delete|remove|rm|erase|unlink)\s+(?:it|them|(?:the|that|this|those)\s+\w+)\b", re.IGNORECASE
)

#: advice about things noesis_nb makes again, by module: (module, what the words remove)
_REMADE = {
    ("_cachedir.py", "remove it"),  # the package's own cache folder, made again private
    ("_cachedir.py", "remove the"),  # a dangling link where the cache folder goes
    ("runtime/recorder.py", "delete it"),  # its own empty staging folder
    ("magics.py", "remove them"),  # staging folders a stopped process left (noesis_nb.store.staging.remove_staging)
    ("store/staging.py", "remove the"),
    ("frames/eventids.py", "remove the repeated"),  # a line written twice: its copy stays
    ("tools/exec_checks.py", "remove it from"),  # a character from an argument the caller passes
    ("secrets/guard.py", "remove the known"),  # a docstring: what a function does to a secret's values
}
#: a link is no data: removing it leaves what it leads to as it is
_LINK = "remove the link"


def _texts(tree: ast.AST) -> list[str]:
    """Every string a module holds: literals, and f-strings' literal parts joined (a message's words)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values]
            out.append("".join(parts))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


def test_no_message_advises_destroying_what_it_cannot_read() -> None:
    found = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        module = path.relative_to(_PACKAGE).as_posix()
        for text in _texts(ast.parse(path.read_text(encoding="utf-8"))):
            for hit in _DESTROYS.finditer(text):
                words = text[hit.start() :].lower()
                if not words.startswith(_LINK) and not any(module == m and words.startswith(w) for m, w in _REMADE):
                    found.append((module, text[max(0, hit.start() - 60) : hit.end() + 20]))
    assert found == [], found


def _asks(task: str, ctx) -> object:
    return ctx.tool("fs.write", {"argv": ["true"]}, effect="write", risk="high")


@pytest.mark.parametrize("renamed", [False, True])
def test_a_prepared_draft_record_that_cannot_be_read_says_restore_or_move_naming_it(tmp_path: Path, renamed: bool) -> None:
    """A real run paused on a draft; its record damaged, or renamed by hand to another draft's name: deciding it
    names the file and the draft, says to move it back (renamed) or restore it, and never to delete it."""
    episode = noesis_nb.solve("p", using=_asks, runs_dir=tmp_path)
    (record,) = (tmp_path / episode / "tool_invocations" / "prepared").glob("*.json")
    draft = json.loads(record.read_text())["draft_id"]
    if renamed:
        other = draft[:-4] + ("AAAA" if not draft.endswith("AAAA") else "BBBB")
        asked = other
        record.rename(record.with_name(f"{other}.json"))
    else:
        asked = draft
        record.write_text('{"draft_id": ')  # cut short
    with pytest.raises(ToolRecordError) as caught:
        noesis_nb.approve_draft(episode, asked, approver_id="ana", runs_dir=tmp_path)
    said = str(caught.value)
    assert not _DESTROYS.search(said), said
    assert f"{asked}.json" in said and "never delete" in said, said
    if renamed:
        assert f"move it back to {draft}.json" in said, said
        tools = noesis_nb.tools_df(tmp_path)
        reasons = [e["reason"] for e in tools.attrs["errors"]]
        assert any(f"move it back to {draft}.json" in r and not _DESTROYS.search(r) for r in reasons), reasons
    else:
        assert "restore" in said.lower() and "move it out of the run folder" in said, said
