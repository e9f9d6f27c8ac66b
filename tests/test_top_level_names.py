"""``noesis_nb.<name>`` that is not at the top level says where it is, or which top-level name was meant.

The README names ``clear_cache()`` and ``Column(...)`` in ``noesis_nb.frames``, where they are; a newcomer's
``noesis_nb.clear_cache()`` or ``noesis_nb.run_df(...)`` met a bare ``has no attribute`` naming neither. The
lookup imports nothing (it runs for every ``from noesis_nb import <submodule>`` not imported yet).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_slip_of_a_top_level_name_is_named():
    printed = _run(
        """
        import noesis_nb
        try:
            noesis_nb.run_df
        except AttributeError as exc:
            print(exc)
        """
    )
    assert printed.strip() == "module 'noesis_nb' has no attribute 'run_df' (did you mean noesis_nb.runs_df?)"


def test_a_name_of_a_loaded_module_is_named_with_its_module():
    printed = _run(
        """
        import noesis_nb
        noesis_nb.runs_df  # loads noesis_nb.frames, as any analysis does
        for name in ("clear_cache", "Column", "RunNotFoundError"):
            try:
                getattr(noesis_nb, name)
            except AttributeError as exc:
                print(exc)
        """
    )
    assert printed.splitlines() == [
        "module 'noesis_nb' has no attribute 'clear_cache'; it is noesis_nb.frames.clear_cache",
        "module 'noesis_nb' has no attribute 'Column'; it is noesis_nb.frames.Column",
        "module 'noesis_nb' has no attribute 'RunNotFoundError'; it is noesis_nb.errors.RunNotFoundError",
    ]


def test_the_lookup_imports_nothing_and_submodules_still_import():
    printed = _run(
        """
        import sys
        import noesis_nb
        before = set(sys.modules)
        print(hasattr(noesis_nb, "clear_cache"), hasattr(noesis_nb, "__wrapped__"), sorted(set(sys.modules) - before))
        from noesis_nb import cost, magics  # submodules not imported yet: found through the import system
        print(cost.__name__, magics.__name__)
        """
    )
    assert printed.splitlines() == ["False False []", "noesis_nb.cost noesis_nb.magics"]
