"""The code a transformation's run log is called back for: the project's, not all code.

With global ``PY_START`` events every code object a child ran (pytest's, the standard
library's, installed packages') was instrumented and called back once, only to be found
outside the project: ~1.4 ms of a ~6 ms child on more-itertools. Local events are set
instead, in the worker before it forks, on the code of every live function of the project
and on the code nested in it; children inherit them. Project code made later is watched as
it is made: the transformation swapped in (``RunLog.start``), functions a warm worker's
``refresh`` rebuilt, and any code run through ``exec`` or ``eval``, which the import system
uses for every module it loads (a project module a test imports first, a reload): an audit
hook sees each such code object before it runs. Python 3.12+ (``sys.monitoring``).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable, Iterator
from typing import Any

from lsp_server.extreme.real_paths import real_path

_WATCHES: list[CodeWatch] = []
"""The watches of this process, which its audit hook serves (a hook cannot be removed)."""
_HOOKED = False


def nested_codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (functions, classes, lambdas)."""
    pending = [code]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))


class CodeWatch:
    """Local ``PY_START`` events of ``tool`` on the code of files under ``root``."""

    def __init__(self, tool: int, root: str) -> None:
        self.tool = tool
        self.prefix = os.path.realpath(root) + os.sep
        self._events: Any = getattr(sys, "monitoring")  # noqa: B009 - 3.12+ only
        _hook(self)

    def functions(self, functions: Iterable[types.FunctionType]) -> None:
        """Watch the code of ``functions`` (theirs are under the root: the worker's index)."""
        for function in functions:
            self.code(function.__code__)

    def code(self, code: types.CodeType) -> None:
        mon = self._events
        for each in nested_codes(code):
            mon.set_local_events(self.tool, each, mon.events.PY_START)

    def made(self, code: types.CodeType) -> None:
        """New code about to run: watched when it comes from a file under the root."""
        name = code.co_filename
        if name[:1] != "<" and real_path(name).startswith(self.prefix):
            self.code(code)

    def close(self) -> None:
        if self in _WATCHES:
            _WATCHES.remove(self)


def _hook(watch: CodeWatch) -> None:
    global _HOOKED
    _WATCHES.append(watch)
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "exec" or not _WATCHES:
        return
    code = args[0] if args else None
    if not isinstance(code, types.CodeType):
        return
    for watch in list(_WATCHES):
        try:
            watch.made(code)
        except Exception:  # an audit hook that raises stops the exec itself
            watch.close()  # its tool was freed meanwhile: nothing is recorded anyway
