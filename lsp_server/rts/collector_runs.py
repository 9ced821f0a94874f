"""What the garbage collector runs on its own belongs to no test.

Finalizers of cyclic garbage (weakref callbacks, ``__del__``) run when a collection frees
it. An automatic collection starts whenever allocations pass a threshold: it falls in
whichever test runs then, after every allocation of the tests and plugins before, and frees
what earlier tests left. On jinja the weakref callback of a ``ModuleLoader`` a loader test
had made (``lambda x: sys.modules.pop(package_name, None)``, a lookup by a name held in a
variable) ran inside ``test_list_add`` in about half the whole-suite recordings, which then
depended on every name (``<names> *``, 2,888 units against 2,525). A test whose outcome
rests on such a run fails by chance, as one whose finalizer ran between tests, which is
attributed to no test either (``Recorder``).

So what an automatic collection runs is set apart (``CodeTracer.set_apart``) and dropped
when its test ends, unless the test asked for a collection: ``gc.collect()`` (the frame a
collection starts from names ``collect``) runs finalizers where the test says, and the test
depends on every finalizer that ran in it, whichever collection ran it (one may free the
garbage before the test asks). Code seen apart is seen again when it runs outside the
collection (``CodeTracer.see_again``). The instrumented tracer of 3.10/3.11 cannot set its
markers apart: what a collection runs stays the test's there, as before.
"""

from __future__ import annotations

import gc
from sys import _getframe
from types import FrameType

from lsp_server.rts.tracing import CodeSet, CodeTracer, SpanToken

ASKING_NAME = "collect"
"""A frame starting a collection whose code names this asked for it (``gc.collect()``,
``from gc import collect``, a helper so named)."""


def asked_for(frame: FrameType | None) -> bool:
    """Whether the collection started from ``frame`` was asked for; unknown (no Python
    frame) counts as asked: what it runs stays the test's."""
    return frame is None or ASKING_NAME in frame.f_code.co_names


class CollectorRuns:
    """Sets apart what automatic collections run while the tracer records, per test."""

    def __init__(self, tracer: CodeTracer) -> None:
        self._tracer = tracer
        self._token: SpanToken | None = None
        self._ran: CodeSet = {}
        self._asked = False
        self._watching = False

    def start(self) -> None:
        if self._tracer.sets_apart and not self._watching:
            gc.callbacks.append(self._on_collection)
            self._watching = True

    def stop(self) -> None:
        if self._watching:
            if self._on_collection in gc.callbacks:  # a test may have emptied the list
                gc.callbacks.remove(self._on_collection)
            self._watching = False
            if self._token is not None:  # stopped within a collection: keep what ran
                self._tracer.close_span(self._token)
                self._token = None

    def take(self) -> CodeSet:
        """What the test ending now depends on of what automatic collections ran in it:
        all of it when it asked for a collection, else nothing. Starts afresh."""
        ran, asked = self._ran, self._asked
        self._ran, self._asked = {}, False
        return ran if asked else {}

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            try:
                frame: FrameType | None = _getframe(1)
            except ValueError:
                frame = None
            if asked_for(frame):
                self._asked = True
            else:
                self._token = self._tracer.set_apart()
            return
        token, self._token = self._token, None
        if token is None:
            return
        ran = self._tracer.set_back(token)
        if ran:
            self._ran.update(ran)
            self._tracer.see_again()
