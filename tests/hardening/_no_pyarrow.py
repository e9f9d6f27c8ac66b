"""Make ``import pyarrow`` fail in this process, as on a default install (which has no pyarrow).

Imported before pandas (``python -c "import tests.hardening._no_pyarrow; ..."``), so pandas and
noesis_nb take their no-pyarrow paths even where pyarrow is installed.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder


class _Block(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"{name} is blocked to test the default install (no pyarrow)")
        return None


if "pandas" in sys.modules or "pyarrow" in sys.modules:
    raise RuntimeError("import tests.hardening._no_pyarrow before pandas")
sys.meta_path.insert(0, _Block())
