"""Every harborlight module imports alone, as `python -c "import harborlight.x"` does: an import cycle entered
at the wrong module (store/__init__ re-exporting from commit/, which imports store/) fails only when that
module is the first of its cycle to be imported, which a suite importing everything in one order never sees.

The unit tier starts no process, so each import runs here on an emptied `harborlight` namespace: every
harborlight module is dropped from `sys.modules` and executed again, third-party ones stay loaded (they
import no harborlight module, so they take no part in its cycles). Only the modules inside an import cycle
can fail that way, so those are imported first one by one; every module is imported in one pass as well."""

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import harborlight

ROOT = Path(harborlight.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
MODULES = sorted(FILES)


def _imported(module: str, path: Path) -> set[str]:
    """The harborlight modules `module` names in any import statement (top level, in functions, under
    TYPE_CHECKING: more edges than run at import time, which only makes the cycles found larger), and its
    parent package, which importing it runs first."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = {module.rpartition(".")[0]} if "." in module else set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in FILES and name != module}


def _in_cycles() -> list[str]:
    """The modules on an import cycle: members of a strongly connected component of more than one module
    (Tarjan's algorithm)."""
    edges = {m: _imported(m, p) for m, p in FILES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cyclic: list[str] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cyclic.extend(component)

    for m in MODULES:
        if m not in index:
            visit(m)
    return sorted(cyclic)


@pytest.fixture
def emptied() -> Iterator[None]:
    """No harborlight module loaded during the test; the loaded ones put back after it, so the other tests
    keep the module objects (and the classes) they imported."""
    ours = {k: v for k, v in sys.modules.items() if k == "harborlight" or k.startswith("harborlight.")}
    try:
        yield
    finally:
        _drop_harborlight()
        sys.modules.update(ours)


def _drop_harborlight() -> None:
    for name in [k for k in sys.modules if k == "harborlight" or k.startswith("harborlight.")]:
        del sys.modules[name]


def test_the_module_list_and_the_cycle_finder_see_the_package():
    assert len(MODULES) > 150 and "harborlight.store" in MODULES and "harborlight.app" in MODULES
    # the store package and its client import each other (the package's __init__ loads the client)
    assert {"harborlight.store", "harborlight.store.client"} <= set(_in_cycles())


@pytest.mark.parametrize("module", _in_cycles())
def test_a_module_on_an_import_cycle_imports_alone(module, emptied):
    _drop_harborlight()
    try:
        importlib.import_module(module)
    except Exception as e:
        pytest.fail(f'`python -c "import {module}"` fails: {type(e).__name__}: {e}')


def test_every_module_imports(emptied):
    _drop_harborlight()
    failed = {}
    for module in MODULES:
        try:
            importlib.import_module(module)
        except Exception as e:
            failed[module] = f"{type(e).__name__}: {e}"
    assert failed == {}
