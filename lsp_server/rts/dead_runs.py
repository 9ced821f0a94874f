"""Module code run while a value that version guards read is not the process's own, and
processes started by a test.

The analysis resolves a top-level ``if sys.version_info >= (3, 11):`` with the values of
the interpreter running the tests (``rts.version_guards``): the branch that does not run
is left out of the module unit and is the file's ``DEAD`` unit. A test that patches
``sys.version_info`` (or ``sys.platform``, ...) and then runs the module's code again
(``importlib.reload``, an import, ``runpy``, ``exec`` of its code object) may run that
branch. Every tracer opens a module window when module code starts (``CodeTracer``): there
the values are compared with the ones the process started with, by identity (a few
comparisons per module execution, nothing per event); when one differs, a *marker* joins
the code that ran: a copy of the module's code object, which the attribution turns into
the module unit and the file's ``DEAD`` unit. It joins the module's window, hence its
import footprint: a module object made under other values keeps the other branch's
definitions, and whichever test uses them later depends on the module.

Only values that differ when the module's code starts count: one patched and restored
before the reload runs the branch that runs on import (``DEAD`` is not seen). A value equal
to the original but another object counts as changed (conservative).

A process the test starts (``rts.audit_events.watch_processes``) may be another
interpreter, or patch the values itself, and import the project's modules: every project
module loaded here then stands for its ``DEAD`` unit in the test (a marker per file, made
from no code of the module: the module part is not added, the child's imports are not
seen, as before). On 21db5d3 the module unit held the dead text, and a test that imported
the module in-process and ran it in a child was selected by an edit of the other branch.
"""

from __future__ import annotations

import os
import sys
import typing
from collections.abc import Callable
from types import CodeType

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.identity import identity
from lsp_server.rts.unit_names import DEAD, MODULE

_ORIGINALS = (sys.version_info, sys.hexversion, sys.platform, os.name)
"""What the conditions ``version_guards`` resolves read, as the process started with them
(``version_guards._FIXED``; ``typing.TYPE_CHECKING`` is ``False`` in every process)."""

_EMPTY_MODULE = compile("", "<reks>", "exec")


def values_changed() -> bool:
    """Whether a value version guards read is not the process's own now."""
    version_info, hexversion, platform, name = _ORIGINALS
    return (
        sys.version_info is not version_info
        or sys.hexversion is not hexversion
        or sys.platform is not platform
        or os.name is not name
        or typing.TYPE_CHECKING is not False  # a test reloading a module "as a type checker"
    )


class DeadRuns:
    """The markers: of module code run under other values (one per module code object,
    both kept: their identities stay keys), and of modules loaded when a process started
    (one per file)."""

    def __init__(self) -> None:
        self._markers: dict[int, tuple[CodeType, CodeType]] = {}  # identity(code) -> both
        self._files: dict[str, CodeType | None] = {}  # a file -> its process marker, if any
        self.ran: dict[int, bool] = {}
        """identity(marker) -> whether the module's code ran (else: a process started)."""

    def note(self, code: CodeType, seen: dict[int, CodeType]) -> None:
        """Module ``code`` starts: its marker joins ``seen`` when the values differ."""
        if not values_changed():
            return
        found = self._markers.get(identity(code))
        if found is None:
            found = self._markers[identity(code)] = (code, code.replace())
            self.ran[identity(found[1])] = True
        seen[identity(found[1])] = found[1]

    def window(self, code: CodeType) -> dict[int, CodeType]:
        """A new window for module ``code``, which starts: with its marker when the values
        differ."""
        seen: dict[int, CodeType] = {}
        self.note(code, seen)
        return seen

    def process_markers(self, is_project_file: Callable[[str], bool]) -> dict[int, CodeType]:
        """A process starts: the markers of the project's modules loaded here."""
        out: dict[int, CodeType] = {}
        for module in list(sys.modules.values()):
            filename = getattr(module, "__file__", None)
            if not isinstance(filename, str) or not filename.endswith(".py"):
                continue
            if filename not in self._files:
                self._files[filename] = self._process_marker(filename, is_project_file)
            marker = self._files[filename]
            if marker is not None:
                out[identity(marker)] = marker
        return out

    def _process_marker(
        self, filename: str, is_project_file: Callable[[str], bool]
    ) -> CodeType | None:
        """A new process marker of module file ``filename``; None for a library's."""
        if not is_project_file(filename):
            return None
        marker = _EMPTY_MODULE.replace(co_filename=filename)
        self.ran[identity(marker)] = False  # kept in ``_files``: its identity stays a key
        return marker


DEAD_RUNS = DeadRuns()
"""The process's markers: the tracers and the recorder note them, the attribution reads them."""


def module_units(code: CodeType, file_units: FileUnits) -> tuple[Unit, ...]:
    """The units module code ``code`` of ``file_units``' file stands for: its module part,
    with the ``DEAD`` unit for a marker of a run under other values; the ``DEAD`` unit
    alone for a marker of a process started (none without dead branches)."""
    module = Unit(file_units.path, MODULE)
    ran = DEAD_RUNS.ran.get(identity(code))
    if ran is None:
        return (module,)
    dead = (Unit(file_units.path, DEAD),) if DEAD in file_units.checksums else ()
    return (*dead, module) if ran else dead
