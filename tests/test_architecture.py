"""The package's shape, read from its own source: layers import downward only, no cycles, few deferred imports,
each vocabulary written once.

Layers, lowest first (a module may import its own layer or lower ones)::

    base      errors, ids, config, _jsonio, _jsonrepeat, _jsonkeys, _threads, _forks, _safetext, _keywords, _exits, _genai_rates,
              _cachedir, secrets
    store     run directories: paths, ownership, reading and writing, the run vocabulary and facts
    tools     the Noēsis tool contract
    runtime   episodes, approvals, lifecycle, resume, the RunSource protocol, DiskRun; capture (model calls of the SDKs);
              batch (many episodes, on the loop or an executor)
    analysis  cost, frames (pandas)
    plots     plotly figures
    widgets   the live view (ipywidgets)
    facade    noesis_nb (top level), ns, magics, demo, examples, integrations
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "noesis_nb"
LAYERS = {
    "base": (
        "noesis_nb.errors",
        "noesis_nb.ids",
        "noesis_nb.config",
        "noesis_nb._envvars",
        "noesis_nb._unstarted",
        "noesis_nb._jsonio",
        "noesis_nb._jsonrepeat",
        "noesis_nb._jsonkeys",
        "noesis_nb._threads",
        "noesis_nb._forks",
        "noesis_nb._safetext",
        "noesis_nb._keywords",
        "noesis_nb._exits",
        "noesis_nb._genai_rates",
        "noesis_nb._cachedir",
        "noesis_nb._sealkey",
        "noesis_nb.secrets",
    ),
    "store": ("noesis_nb.store",),
    "tools": ("noesis_nb.tools",),
    # capture runs inside an episode's adapter call (the runtime turns it on), so it sits in the runtime's layer
    "runtime": ("noesis_nb.runtime", "noesis_nb.capture", "noesis_nb.batch"),
    "analysis": ("noesis_nb.cost", "noesis_nb.frames"),
    "plots": ("noesis_nb.plots",),
    "widgets": ("noesis_nb.widgets",),
    "facade": ("noesis_nb", "noesis_nb.ns", "noesis_nb.magics", "noesis_nb.demo", "noesis_nb.scripted", "noesis_nb.integrations"),
}
ORDER = list(LAYERS)

# Imports inside functions, each there to keep ``import noesis_nb`` (and the module importing it) light:
# the target loads a heavy library (pandas, plotly, ipywidgets, IPython, detect-secrets, genai-prices, yaml,
# an integration's SDK) or is a facade name resolved on first use.
DEFERRED_OK = {
    "pandas",
    "numpy",
    "plotly",
    "ipywidgets",
    "IPython",
    "detect_secrets",
    "genai_prices",
    "yaml",
    "fsspec",
    "s3fs",
    "aiohttp",  # fsspec's http file system's client (only for an http(s) source)
    "distributed",
    "dask",
    "nbformat",
    "pyarrow",
    "tqdm",
    "ag_ui",
    "httpx",
    "noeta",
    "langgraph",
    "langchain_core",
    "crewai",
    "openai",
    "anthropic",
    "opentelemetry",
    "google.protobuf",
    "noesis_nb.capture.otel",  # imports opentelemetry (only once the program uses its SDK)
    "noesis_nb.integrations._otel_sdk",  # imports opentelemetry (only when exporting)
    "noesis_nb.integrations._otlp_answer",  # imports requests (only when exporting to a collector)
    "noesis_nb.frames",
    "noesis_nb.plots",
    "noesis_nb.widgets",
    "noesis_nb.cost",
    "noesis_nb.magics",
    "noesis_nb.secrets.text",  # loads detect-secrets' plugins
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    best = None
    for index, layer in enumerate(ORDER):
        for prefix in LAYERS[layer]:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def _imports() -> list[tuple[str, str, bool, int]]:
    """(importer, imported module, deferred, line) for every import outside ``if TYPE_CHECKING``."""
    found: list[tuple[str, str, bool, int]] = []
    for module, path in MODULES.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        _visit(ast.parse(path.read_text(encoding="utf-8")), module, package, False, found)
    return found


def _visit(node: ast.AST, module: str, package: str, deferred: bool, found: list[tuple[str, str, bool, int]]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            continue
        inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if isinstance(child, ast.Import):
            found.extend((module, alias.name, deferred, child.lineno) for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (child.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in child.names:
                candidate = f"{base}.{alias.name}"
                found.append((module, candidate if candidate in MODULES else base, deferred, child.lineno))
        _visit(child, module, package, inner, found)


IMPORTS = _imports()


def _own(target: str) -> str | None:
    """The noesis_nb module ``target`` names (or lies in), else None."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def test_layers_import_downward_only() -> None:
    upward = [
        f"{src}:{line} imports {dst} ({ORDER[_layer(src)]} -> {ORDER[_layer(own)]})"
        for src, dst, _, line in IMPORTS
        if (own := _own(dst)) and _layer(own) > _layer(src)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst, _, _ in IMPORTS:
        own = _own(dst)
        if own and own != src and not own.startswith(src + ".") and MODULES[own].name != "__init__.py":
            graph[src].add(own)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in list(graph):
        if v not in index:
            strong(v)
    assert not cycles, f"import cycles: {cycles}"


def test_deferred_imports_only_keep_the_package_light() -> None:
    def allowed(target: str) -> bool:
        return any(target == ok or target.startswith(ok + ".") for ok in DEFERRED_OK)

    extra = sorted(
        {
            f"{src}:{line} defers {dst}"
            for src, dst, deferred, line in IMPORTS
            if deferred and not allowed(dst) and (_own(dst) or dst.split(".")[0] not in {"__future__"} and not _stdlib(dst))
        }
    )
    assert not extra, "imports inside functions that do not keep the package light (import them at the top):\n" + "\n".join(extra)


def _stdlib(name: str) -> bool:
    import sys

    return name.split(".")[0] in sys.stdlib_module_names


def _literals() -> list[tuple[str, int, ast.AST]]:
    """Every constant and collection literal of the package that is not a docstring: (module, line, node)."""
    out = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, (ast.Constant, ast.Set, ast.Tuple, ast.List)) and id(node) not in docstrings:
                out.append((module, getattr(node, "lineno", 0), node))
    return out


LITERALS = _literals()


def _event_names() -> dict[str, str]:
    """Every event name the package defines, with the module that defines it."""
    from noesis_nb.store import vocab

    return {
        value: "noesis_nb.store.vocab"
        for key, value in vars(vocab).items()
        if key.isupper() and isinstance(value, str) and "." in value and "/" not in value
    }


def test_each_event_name_is_written_once() -> None:
    names = _event_names()
    copies = [
        f"{module}:{line} writes {node.value!r} (defined in {names[node.value]})"
        for module, line, node in LITERALS
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names and module != names[node.value]
    ]
    assert not copies, "use the constant instead of a second copy of the name:\n" + "\n".join(copies)


def test_the_terminal_statuses_and_token_fields_are_listed_once() -> None:
    from noesis_nb.store.vocab import TERMINAL_STATUSES, TOKEN_FIELDS

    def strings(node: ast.AST) -> set[str]:
        return {e.value for e in getattr(node, "elts", []) if isinstance(e, ast.Constant) and isinstance(e.value, str)}

    copies = [
        f"{module}:{line}"
        for module, line, node in LITERALS
        if module != "noesis_nb.store.vocab"
        and (len(strings(node) & TERMINAL_STATUSES) >= 3 or len(strings(node) & set(TOKEN_FIELDS)) >= 4)
    ]
    assert not copies, (
        "import TERMINAL_STATUSES / TOKEN_FIELDS from noesis_nb.store.vocab instead of listing them again:\n" + "\n".join(copies)
    )


def test_one_rule_names_a_draft() -> None:
    """``draft:<run>:<request>`` is split and matched only in ``tools.draftref`` (and built only in ``tools.types``)."""
    users = sorted(
        {
            module
            for module, _, node in LITERALS
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("draft:")
            and "<" not in node.value
            and module not in {"noesis_nb.tools.draftref", "noesis_nb.tools.types"}
        }
    )
    splits = sorted(
        {
            module
            for module, path in MODULES.items()
            if 'split(":", 2)' in path.read_text(encoding="utf-8") and module != "noesis_nb.tools.draftref"
        }
    )
    assert not users and not splits, f"draft ids are built or parsed outside tools.draftref / tools.types: {users + splits}"
