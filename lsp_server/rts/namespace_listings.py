"""What ``vars`` and ``dir`` read, recorded as they run (``rts.runtime_lookups``).

``vars(obj)`` reads every name of ``obj``, a binding only of a module or a class: an
instance's ``__dict__`` holds what the code that ran stored there (sqlparse's cli reads
``vars(args)`` of an argparse namespace): ``site_values.record_vars``.

``dir`` returns names, read-only, and only the names of what it is given:

* no argument: the caller's namespace. A function's holds its own variables, no binding;
  a class body's the names that body bound so far, class members (pyflakes's
  ``class DetectClassScopedMagic: names = dir()``, run at import, made every test that
  imported the checker read every name of every module); a module's, every binding of it.
* a module or a class outside the project (``dir(builtins)``): no project binding, unless
  project code stored into it, which then ran and is a dependency already.
* a project class, or an instance of one: the members of its classes, any of them
  (``lookups.ATTRIBUTE_LOOKUP``, as ``getattr(self, name)``); a project module: every name,
  and a package's the submodules imported so far too (``PACKAGE_LISTING``).

A ``__dir__`` of the project that ``dir`` calls is project code, traced as any.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from types import CodeType, FrameType, ModuleType

from lsp_server.rts.lookups import ATTRIBUTE_LOOKUP
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.site_values import Source, record_vars, value_at

_NO_VALUE = object()


PACKAGE_LISTING = "<package listing>"
"""Read by code listing a project package's namespace (``dir(pkg)``): it holds the
submodules the session imported so far, which another module's new import changes (a
state of the session: ``listing_marks.statement_listing`` for a module's top level)."""

OWN_CLASS_LISTING = "<own class listing>"
"""Read by a class body's ``dir()``: the class's own members so far (``own_listing``)."""


def own_listing(names: set[str], class_unit: bool) -> set[str]:
    """``names`` with ``OWN_CLASS_LISTING`` settled: any class member (``ATTRIBUTE_LOOKUP``)
    for a class with a unit of its own (its members may be units apart); nothing more for
    one whose body is part of the unit its code runs in (the module's, a function's), which
    whoever ran the listing depends on: any change of the body changes it."""
    if OWN_CLASS_LISTING not in names:
        return names
    rest = names - {OWN_CLASS_LISTING}
    return rest | {ATTRIBUTE_LOOKUP} if class_unit else rest


def record_listing(
    function: object,
    frame: FrameType,
    code: CodeType,
    sources: tuple[Source | None, ...],
    names: set[str],
    is_project_file: Callable[[str], bool],
) -> bool:
    """Record what ``function`` (``vars`` or ``dir``), called at a site of ``code``
    (running in ``frame``) with arguments from ``sources``, reads; False when it reads
    every name (given up)."""
    if function is vars:
        return record_vars(frame, sources, names)
    if not sources:
        if code.co_flags & inspect.CO_OPTIMIZED:
            return True  # a function's own variables
        if code.co_name != "<module>":
            names.add(OWN_CLASS_LISTING)  # a class body: its members so far
            return True
        names.add(EVERY_NAME)
        return False
    value = _NO_VALUE if len(sources) != 1 or sources[0] is None else value_at(frame, sources[0])
    if value is _NO_VALUE or (value is None and sources[0] != ("const", None)):
        names.add(EVERY_NAME)  # computed, or not found
        return False
    if isinstance(value, ModuleType):
        if _in_project(getattr(value, "__file__", None), is_project_file):
            names.add(EVERY_NAME)
            if hasattr(value, "__path__"):  # a package: its submodules imported so far
                names.add(PACKAGE_LISTING)
            return False
        return True
    classes = value.__mro__ if isinstance(value, type) else type(value).__mro__
    if any(_in_project(_file_of(c), is_project_file) for c in classes):
        names.add(ATTRIBUTE_LOOKUP)
    return True


def _file_of(cls: type) -> object:
    module = type.__dict__["__module__"].__get__(cls)
    found = sys.modules.get(module) if isinstance(module, str) else None
    return getattr(found, "__file__", None)


def _in_project(filename: object, is_project_file: Callable[[str], bool]) -> bool:
    return isinstance(filename, str) and is_project_file(filename)
