"""The function units of the code objects a test ran: which function a code object is
the own code of, which functions (with their enclosing ones) a run reached, and the kinds
of values each returned. Kept by code identity for the pytest session."""

from __future__ import annotations

from types import CodeType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.file_units import Unit
from lsp_server.rts.getattr_branches import getattr_parts
from lsp_server.rts.identity import identity
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.tracing import CodeSet, ReturnKinds
from lsp_server.rts.unit_names import MODULE


class FunctionUnits:
    """Function units by code object; every answer is kept as long as the session."""

    def __init__(self, paths: ProjectPaths, states: FileStates) -> None:
        self.paths = paths
        self.states = states
        self._codes: list[CodeType] = []  # kept alive: their ids stay valid keys
        self._functions: dict[int, Unit | None] = {}  # by identity(code): see ``function_of``
        self._ran_of: dict[int, tuple[Unit, ...]] = {}  # by identity(code): see ``functions_ran``

    def return_kinds(self, ran: CodeSet, returns: ReturnKinds) -> dict[Unit, set[str]]:
        """The kinds each function unit whose own code is in ``ran`` returned (empty: it
        ran but never returned), from ``returns`` (``CodeTracer.take_returns``)."""
        out: dict[Unit, set[str]] = {}
        for key, code in ran.items():
            unit = self.function_of(code)
            if unit is not None:
                found = returns.get(key)
                out.setdefault(unit, set()).update(found[1] if found is not None else ())
        return out

    def functions_ran(self, ran: CodeSet) -> set[Unit]:
        """The function units ``ran`` ran: those whose code (or a function nested in them:
        a closure's behaviour comes from its maker too) is in it."""
        out: set[Unit] = set()
        for key, code in ran.items():
            found = self._ran_of.get(key)
            if found is None:
                found = self._ran_of[key] = self._function_and_enclosing(code)
            out.update(found)
        return out

    def _function_and_enclosing(self, code: CodeType) -> tuple[Unit, ...]:
        rel = self.paths.python_rel(code.co_filename)
        file_units = self.states.units(rel) if rel is not None else None
        if file_units is None or code.co_name == "<module>":
            return ()
        unit = file_units.unit_for_code(code)
        if unit.name == MODULE:
            return ()
        self._codes.append(code)  # its id stays a valid key
        return (unit, *file_units.enclosing(unit))

    def parts(self, code: CodeType, found: Unit) -> tuple[Unit, ...]:
        """What running ``code``, of function unit ``found``, depends on of the function:
        ``found`` itself, or parts of a split module ``__getattr__``."""
        file_units = self.states.units(found.path)
        return (found,) if file_units is None else getattr_parts(code, found, file_units)

    def function_of(self, code: CodeType) -> Unit | None:
        """The function unit whose own code ``code`` is (None: module or class code, a
        nested function, a file outside the project)."""
        if identity(code) in self._functions:
            return self._functions[identity(code)]
        unit: Unit | None = None
        rel = self.paths.python_rel(code.co_filename)
        file_units = self.states.units(rel) if rel is not None else None
        if file_units is not None:
            found = file_units.unit_for_code(code)
            qualname = getattr(code, "co_qualname", None)
            span = file_units.spans.get(found.name)
            if qualname is not None:
                exact = found.name == qualname
            else:
                exact = span is not None and span.first_line == code.co_firstlineno
                exact = exact and found.name.rsplit(".", 1)[-1] == code.co_name
            unit = found if exact and found.name != MODULE else None
        self._functions[identity(code)] = unit
        self._codes.append(code)  # its id stays a valid key
        return unit
