"""The names a test reads, and the binding units they lead to.

A function's code object lists the global and attribute names it reads (``co_names``);
string constants that look like names (``getattr(obj, "x")``, ``mock.patch("m.f")``,
fixture names) count as reads too. Code that looks names up by a computed string
(``globals()``, ``vars``, ``getattr`` with a variable...) can read anything: a test that ran
such code depends on every unit of every module it depends on.

Names are recorded with each test under the pseudo path ``NAMES`` so that a binding added
later (a new function shadowing a builtin or an imported name, a new attribute of a class)
selects exactly the tests that read its name.
"""

from __future__ import annotations

from types import CodeType

from lsp_server.rts.lookups import DYNAMIC_NAMES, copies_docs
from lsp_server.rts.units import NAMES

__all__ = ["EVERY_NAME", "NAMES", "builds_classes", "code_reads"]

EVERY_NAME = "*"
"""The ``NAMES`` unit of a test that may read any name: any new binding selects it."""

_CLASS_HOOKS = frozenset(("__init_subclass__", "__set_name__", "__prepare__", "__mro_entries__"))


def code_reads(code: CodeType) -> tuple[frozenset[str], bool]:
    """Names ``code`` reads (not its nested code objects': they count when they run) and
    whether it looks names up dynamically."""
    names = set(code.co_names)
    strings = [c for c in code.co_consts if isinstance(c, str)]
    for const in code.co_consts:
        if isinstance(const, (tuple, frozenset)):
            strings.extend(c for c in const if isinstance(c, str))
    for text in strings:
        if 0 < len(text) < 200:
            names.update(p for p in text.replace(":", ".").split(".") if p.isidentifier())
    if "__doc__" in names and copies_docs(code):
        # A wrapper copying a docstring: it shows only to whoever reads __doc__ later.
        names.discard("__doc__")
    return frozenset(names), not DYNAMIC_NAMES.isdisjoint(code.co_names)


def builds_classes(code: CodeType) -> bool:
    """Whether ``code`` is a hook that runs when a class statement runs: it may record every
    class (a registry) or read every attribute of it, so a new class or attribute anywhere
    in the module can matter to a test that reads none of their names. A metaclass's
    ``__new__``/``__init__`` is told by its signature (metaclass, name, bases, namespace)."""
    if code.co_name in _CLASS_HOOKS:
        return True
    return (
        code.co_name in ("__new__", "__init__")
        and code.co_argcount >= 4
        and (
            code.co_varnames[0] in ("mcs", "mcls", "metacls", "meta", "metaclass", "cls")
            and code.co_varnames[2] == "bases"
        )
    )
