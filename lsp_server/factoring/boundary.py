"""The boundary between the code under test (T) and its environment (E).

A boundary is named by a module (``sqlite3``, ``subprocess``, ``myapp.storage``: every function
and class it exports is E) or by a class (``myapp.storage.Store`` or ``myapp.storage:Store``:
that class and its instances are E). T is the project's own modules, test modules and conftest
files included, except E's. The boundary is drawn where T refers to E: the globals of T's
modules that are bound to E's objects are rebound to recording (capture) or answering (replay)
stand-ins for the duration of one test, and put back after it.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.project.files import ProjectPaths

_OUR_PACKAGE = "lsp_server."


class BoundaryError(ValueError):
    """The boundary names nothing importable, or T never refers to it."""


@dataclass(frozen=True)
class Boundary:
    """One named piece of E: a module, or a class (``cls`` set)."""

    spec: str
    module: types.ModuleType
    cls: type | None = None

    @property
    def name(self) -> str:
        if self.cls is not None:
            return f"{self.module.__name__}.{self.cls.__qualname__}"
        return self.module.__name__

    def owns_module(self, name: str) -> bool:
        """Whether the module called ``name`` is E's own code (never rebound)."""
        own = self.module.__name__
        if self.cls is not None:
            return name == own
        return name == own or name.startswith(own + ".")

    def members(self) -> Iterator[tuple[str, Any]]:
        """E's objects reachable from the boundary module, with their transcript names (the
        files they come from are E's code)."""
        if self.cls is not None:
            yield self.name, self.cls
            return
        yield self.module.__name__, self.module
        for value in list(vars(self.module).values()):
            name = self.member_name(value)
            if name is not None and value is not self.module:
                yield name, value

    def member_name(self, value: Any) -> str | None:
        """The transcript name of ``value`` if it is E's (a module, function or class of the
        boundary, ``_sqlite3.connect`` counting as ``sqlite3``'s), else None."""
        if self.cls is not None:
            return self.name if value is self.cls else None
        if isinstance(value, types.ModuleType):
            name = getattr(value, "__name__", None)
            return name if isinstance(name, str) and self.owns_module(name) else None
        if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
            return None
        origin = getattr(value, "__module__", None)
        if not isinstance(origin, str):
            return None
        if not (self.owns_module(origin) or self.owns_module(origin.lstrip("_"))):
            return None
        return (
            f"{self.module.__name__}.{value.__qualname__}"
            if origin.startswith("_")
            else (f"{origin}.{value.__qualname__}")
        )


def _is_plain_data(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str, bytes, type(None), tuple, frozenset))


def resolve(spec: str) -> Boundary:
    """The boundary ``spec`` names: a module, else ``module.Class`` / ``module:Class``."""
    text = spec.strip()
    if ":" in text:
        module_name, _, attr = text.partition(":")
        return _class_boundary(text, module_name, attr)
    try:
        return Boundary(text, importlib.import_module(text))
    except ImportError as exc:
        module_name, dot, attr = text.rpartition(".")
        if not dot:
            raise BoundaryError(f"no module or class called {text!r}: {exc}") from exc
        return _class_boundary(text, module_name, attr)


def _class_boundary(spec: str, module_name: str, attr: str) -> Boundary:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BoundaryError(f"no module {module_name!r} for boundary {spec!r}: {exc}") from exc
    value: Any = module
    for part in attr.split("."):
        value = getattr(value, part, None)
    if not isinstance(value, type):
        raise BoundaryError(f"{spec!r} names no class of {module_name}")
    return Boundary(spec, module, value)


def t_modules(root: Path, boundaries: Iterable[Boundary]) -> list[types.ModuleType]:
    """The loaded modules of the project (T): under the root, outside excluded folders, not
    E's own, not reks's."""
    own = list(boundaries)
    return [m for m in project_modules(root) if not any(b.owns_module(m.__name__) for b in own)]


def project_modules(root: Path) -> list[types.ModuleType]:
    """The loaded modules whose files are the project's (not reks's). Each module is judged
    once per session (every factored test asks; a project whose virtualenv lies under its
    root has a thousand modules there, each judged through its real path)."""
    known = _PROJECT_MODULES.setdefault(str(root), {})
    paths: ProjectPaths | None = None
    prefix = str(root)
    found = []
    for name, module in list(sys.modules.items()):
        verdict = known.get(name)
        if verdict is None or verdict[0] is not module:
            paths = paths or ProjectPaths(root)
            verdict = known[name] = (module, _is_project_module(name, module, paths, prefix))
        if verdict[1]:
            found.append(module)
    return found


def _is_project_module(name: str, module: Any, paths: ProjectPaths, prefix: str) -> bool:
    filename = getattr(module, "__file__", None)
    if not filename or not filename.startswith(prefix) or name.startswith(_OUR_PACKAGE):
        return False
    return paths.rel(filename) is not None


_PROJECT_MODULES: dict[str, dict[str, tuple[Any, bool]]] = {}
_MEMBER_NAMES: dict[tuple[str, ...], dict[int, tuple[Any, str | None]]] = {}
"""Per boundary: id of a value a global of T was bound to -> (the value, kept alive so that
its id stays its own; its transcript name if it is E's, else None). A session's factored
tests share T's modules: their globals are judged once."""


def _name_of(boundaries: list[Boundary], value: Any) -> str | None:
    return next(filter(None, (b.member_name(value) for b in boundaries)), None)


@dataclass
class Rebinding:
    """T's globals bound to E, rebound to stand-ins; ``restore`` puts the originals back."""

    saved: list[tuple[dict[str, Any], str, Any]] = field(default_factory=list)

    def restore(self) -> None:
        for namespace, name, value in reversed(self.saved):
            namespace[name] = value
        self.saved.clear()


def rebind(
    root: Path,
    boundaries: list[Boundary],
    stand_in: Callable[[str, Any], Any],
) -> Rebinding:
    """Rebind every global of T bound to a member of a boundary to ``stand_in(name, obj)``
    (one stand-in per member, shared by all of T's modules)."""
    made: dict[int, Any] = {}
    known = _MEMBER_NAMES.setdefault(tuple(b.spec for b in boundaries), {})
    rebinding = Rebinding()
    for module in t_modules(root, boundaries):
        namespace = vars(module)
        for attr, value in list(namespace.items()):
            verdict = known.get(id(value))
            if verdict is None or verdict[0] is not value:
                verdict = known[id(value)] = (value, _name_of(boundaries, value))
            if verdict[1] is None:
                continue
            if id(value) not in made:
                made[id(value)] = stand_in(verdict[1], value)
            rebinding.saved.append((namespace, attr, value))
            namespace[attr] = made[id(value)]
    return rebinding


def is_exception_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)
