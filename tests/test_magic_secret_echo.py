"""A ``%noesis`` line refused for its shape echoes what was typed: a key or a URL's token in it is hidden there.

argparse's own refusals (``unrecognized arguments: …``) and the hints built from them (``a runs folder goes after
--runs-dir: %noesis list --runs-dir <what was typed>``) printed a GitHub token in clear into the saved notebook,
whatever subcommand.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ2b4D"


@pytest.mark.parametrize(
    "line",
    [
        f"list http://{TOKEN}@127.0.0.1:18765/ok/",  # a folder given without --runs-dir: echoed twice
        f"list {TOKEN}",
        f"list --runs-dir . --password={TOKEN}",
        f"inbox --token {TOKEN}",
        f"show ep_x {TOKEN}",
        f"runs-dir . {TOKEN}",
        f"stop ep_x --drain {TOKEN}",
    ],
)
def test_a_refused_line_never_prints_the_token_typed_in_it(ip: Any, line: str) -> None:
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", line)
    said = str(caught.value)
    assert TOKEN not in said and TOKEN[4:20] not in said, said
    assert "%noesis" in said and ("[REDACTED" in said or "not shown" in said)  # what was wrong, the value hidden
