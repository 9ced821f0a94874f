"""The worker's index of live project functions (``code_swap.index_functions``), built once
before it forks its children: it finds the functions of the project's files, and resolves
the real path of each file its functions come from once, never of code from no file."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

from lsp_server.extreme.code_swap import index_functions
from lsp_server.extreme.real_paths import real_path


def _import(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_index_holds_each_copy_of_a_project_function(tmp_path: Path) -> None:
    source = "def make(step):\n    def add(x):\n        return x + step\n    return add\n"
    (tmp_path / "calc_index.py").write_text(source)
    module = _import(tmp_path / "calc_index.py", "calc_index")
    copies = [module.make(1), module.make(2)]
    index = index_functions(str(tmp_path))
    key = (real_path(str(tmp_path / "calc_index.py")), "add")
    assert {id(f) for f in index[key]} == {id(f) for f in copies}
    assert [f.__name__ for f in index[(key[0], "make")]] == ["make"]


def test_code_from_no_file_is_never_resolved_as_a_path(tmp_path: Path) -> None:
    # Generated code (attrs' ``__init__``, ``exec`` of a string) names no file: resolving
    # such a name against the working directory cost the worker a ``realpath`` each (606
    # of the 1,025 names of functions in a worker of reks's own dev venv).
    index_functions(str(tmp_path))  # every name already alive resolved once
    namespace: dict[str, object] = {}
    exec(compile("def made():\n    return 1\n", f"<generated {tmp_path}>", "exec"), namespace)
    before = real_path.cache_info().currsize
    assert index_functions(str(tmp_path)) == {}
    assert real_path.cache_info().currsize == before
