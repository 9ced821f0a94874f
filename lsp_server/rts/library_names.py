"""Whether a name a module takes from an installed library it imported already is there.

``import_raise`` proves a top-level statement cannot raise at import; a name of the
standard library it checks by importing the module here. An installed library's names it
could not, so ``from typing_extensions import NoExtraItems`` or ``T =
(typing_extensions.TypeAliasType,)`` added under ``import typing_extensions`` made the
module unit change and every importer rerun (typeguard 2fde422: 505 tests, pytest-testmon
373; 1cd7638: 509, 397).

Such a statement runs no library code of its own when the module it names was imported
by an earlier top-level statement of the same module (``Scope.libraries``): it reads one
name of the module's namespace. Whether the namespace holds it after the import is asked
once of a fresh process of the interpreter that runs the tests, on the caller's
``sys.path`` (``_PROBE``): the module must come from the interpreter's installed packages
(not the project's folder: its code is the project's) and hold the name in its
``__dict__`` (a submodule not imported yet, or a name a module ``__getattr__`` makes, does
not count). The installed distributions are in the environment's fingerprint: once they
change, every test reruns, so the answer holds for the code recorded against them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping, Set
from typing import TYPE_CHECKING

from lsp_server.rts.probe_process import probe_answer, probing
from lsp_server.rts.stdlib_values import resolves, stdlib_has

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope


_PROBE = r"""
import importlib, json, os, sys, sysconfig
spec = json.loads(sys.argv[1])
sys.path[:] = spec["path"]
module = importlib.import_module(spec["module"])
installed = [os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "")
             for k in ("purelib", "platlib")]
path = os.path.realpath(getattr(module, "__file__", None) or os.sep)
inside = any(path.startswith(folder) for folder in installed)
names = sorted(k for k in vars(module) if isinstance(k, str)) if inside else []
print(json.dumps({"installed": inside, "names": names}))
"""

_NAMES: dict[tuple[bool, str, str, tuple[str, ...]], frozenset[str]] = {}


def takes_known(scope: Scope, module: str, name: str) -> bool:
    """Whether ``from module import name`` cannot raise: the standard library's, or an
    installed library's that a statement before imported."""
    found = stdlib_has(scope, module, name)
    return found or library_binds(scope.library_modules, module, name)


def attribute_known(node: ast.Attribute, scope: Scope, local: Set[str]) -> bool:
    """Whether ``node`` (``m.a.b``) cannot raise: ``stdlib_values.resolves``, or ``lib.name``
    of an installed library (``library_attribute``) whose name no class body names
    (``local``) hide."""
    if resolves(node, scope):
        return True
    hidden = isinstance(node.value, ast.Name) and node.value.id in local
    return not hidden and library_attribute(node, scope.libraries)


def library_binds(imported: Set[str], module: str, name: str) -> bool:
    """Whether ``from module import name`` cannot raise: ``module`` is one a statement
    before imported (``imported``) and, as installed, binds ``name`` at its top level."""
    return module in imported and name in installed_names(module)


def library_attribute(node: ast.Attribute, libraries: Mapping[str, str]) -> bool:
    """Whether ``lib.name`` cannot raise: ``lib`` is a name an earlier ``import`` bound to
    an installed library module (``libraries``) which binds ``name`` at its top level."""
    if not isinstance(node.value, ast.Name) or node.value.id not in libraries:
        return False
    return node.attr in installed_names(libraries[node.value.id])


def installed_names(module: str) -> frozenset[str]:
    """The names ``module`` binds once imported, asked of a fresh process of this
    interpreter; none when it is no installed library's or the probe failed."""
    key = (probing(), sys.executable, module, tuple(sys.path))
    found = _NAMES.get(key)
    if found is None:
        found = _NAMES[key] = _run_probe(module)
    return found


def _run_probe(module: str) -> frozenset[str]:
    found = probe_answer(_PROBE, {"module": module, "path": sys.path})
    if not isinstance(found, dict) or found.get("installed") is not True:
        return frozenset()
    return frozenset(name for name in found.get("names", ()) if isinstance(name, str))
