"""Suggest boundaries: where a test spends its time below the project's code.

The test runs once under ``cProfile`` (inside its own pytest process, see ``plugin``). Every
call edge from project code into code that is not the project's (``subprocess.run``,
``sqlite3.Connection.execute``, ``time.sleep``, a slow package), or from one project module
into another, charges the callee's cumulative time and the call count to the module T would
name as the boundary. The expected saving of a boundary is that time minus what replay costs
per recorded call; a boundary that saves nothing is listed as refused, with the reason.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lsp_server.factoring.boundary import BoundaryError, project_modules, resolve, t_modules
from lsp_server.factoring.children import ChildWatch, project_packages
from lsp_server.factoring.transcript import DEFAULT_MAX_BYTES, show_size
from lsp_server.project.files import ProjectPaths, is_test_path

REPLAY_COST_PER_CALL_S = 25e-6
"""What answering one call from a transcript costs (measured by ``bench/factoring_speed.py``,
with a margin): a boundary whose E time per call is below this is not worth factoring."""
BYTES_PER_CALL = 160
"""Typical transcript bytes per recorded interaction, for the size estimate."""

_NOT_BOUNDARIES = frozenset(
    {"builtins", "io", "_io", "pytest", "_pytest", "pluggy", "lsp_server", "importlib",
     "abc", "typing", "functools", "contextlib", "cProfile", "_lsprof", "posix", "genericpath",
     "posixpath", "ntpath", "codecs", "_codecs", "re", "_sre", "collections", "enum",
     "threading", "_thread", "inspect", "dataclasses", "copy", "operator", "itertools",
     "_imp", "marshal", "zipimport", "_frozen_importlib", "_frozen_importlib_external",
     "weakref", "_weakref", "stat", "_stat", "__main__", "runpy"}
)  # fmt: skip
"""Language plumbing: never a useful environment (and ``open`` is not rebindable in T's
globals)."""

_BUILTIN = re.compile(r"<built-in method (?:(?P<mod>[\w.]+)\.)?(?P<name>\w+)>")
_METHOD = re.compile(r"<method '\w+' of '(?P<cls>[\w.]+)' objects>")


@dataclass
class Candidate:
    """One boundary T could be factored at."""

    boundary: str
    time_s: float
    calls: int
    kind: str
    """``external`` (outside the project) or ``internal`` (a project module)."""
    saving_s: float = 0.0
    transcript_bytes: int = 0
    refused: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Modules:
    """File -> module name of what is loaded in this process."""

    def __init__(self) -> None:
        self.by_file: dict[str, str] = {}
        for key, module in list(sys.modules.items()):
            filename = getattr(module, "__file__", None)
            # The module's own name, not the key: requests puts urllib3's modules in again
            # as ``requests.packages.urllib3.*``.
            name = getattr(module, "__name__", None)
            if filename:
                self.by_file[filename] = name if isinstance(name, str) else key

    def public(self, name: str) -> str:
        """``_sqlite3`` -> ``sqlite3`` when that is loaded: T names the public module."""
        stripped = name.lstrip("_")
        return stripped if stripped != name and stripped in sys.modules else name


def _external_module(key: tuple[str, int, str], modules: _Modules) -> str | None:
    filename, _, label = key
    if filename == "~":
        match = _BUILTIN.match(label) or _METHOD.match(label)
        if match is None:
            return None
        groups = match.groupdict()
        if match.re is _METHOD:
            # ``<method 'append' of 'list' objects>``: a builtin type is no environment
            dotted = groups["cls"].rpartition(".")[0]
        else:
            dotted = groups.get("mod") or ""
        head = dotted.split(".")[0]
        return modules.public(head) if head else None
    name = modules.by_file.get(filename)
    return modules.public(name.split(".")[0]) if name else None


class BoundaryProfiler:
    """A profile hook on the test's thread (``sys.setprofile``: that thread only) that times
    each call from T into code that is not T's, from its entry to its return: the time E
    takes, waits on its own threads and child processes included. A call from one project
    module into another (neither a test file) is charged to the callee as an internal
    candidate, less the time its calls into external modules take: that time is charged to
    those modules, the better boundary (requests' sessions module spends its time in
    urllib3 and the socket; with urllib3 as E, all of requests stays under test). Calls E
    makes while an external call is running are E's own business.

    A boundary that holds the code under test is never offered (factoring would refuse it):
    one whose calls start a child process that runs the project (``python -m app.worker``),
    and one outside which no function of T runs (a package holding all of T). So the hook
    also notes each module of T that runs with the modules of T open around it then, and a
    ``ChildWatch`` notes which external call started each child."""

    def __init__(self, root: Path, test_file: str) -> None:
        self._root = root
        self._paths = ProjectPaths(root)
        self._test_file = test_file
        self._t_module: dict[str, str | None] = {}
        """File -> its module's name when it is T's (a project file, not a test)."""
        self._t_frames: dict[int, str] = {}
        self._t_open: dict[str, int] = {}
        self._t_open_now: frozenset[str] | None = frozenset()
        self.t_runs: set[tuple[str, frozenset[str]]] = set()
        """(module of T that ran, the modules of T open around it then)."""
        self._children: ChildWatch | None = None
        self.children: list[tuple[list[str], str]] = []
        """Command lines started below an external call, with that call's file or label."""
        self._project: dict[str, str | None] = {}
        self._open: dict[int, tuple[str, str, float]] = {}
        """id(frame) or -1 for an open C call -> (file or label, kind, start)."""
        self._inside = {"internal": 0, "external": 0}
        self._below_open: dict[str, float] = {}
        """External file or label -> its time inside the open internal call."""
        self.below: dict[str, dict[str, float]] = {}
        """Internal file -> external file or label -> time spent there below it."""
        self.time: dict[tuple[str, str], float] = {}
        self.calls: dict[tuple[str, str], int] = {}

    def __enter__(self) -> BoundaryProfiler:
        names = [m.__name__ for m in project_modules(self._root)]
        self._children = ChildWatch(
            self._root, project_packages(self._root, names), self._in_external, self._external
        )
        self._children.start()
        sys.setprofile(self._event)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)
        if self._children is not None:
            self.children = self._children.stop_with_places()

    def _in_external(self) -> bool:
        return self._inside["external"] > 0

    def _external(self) -> str:
        """The file or label of the external call running now."""
        return next((w for w, kind, _ in self._open.values() if kind == "external"), "")

    def _note_t(self, frame: Any, event: str) -> None:
        """Keep the modules of T open on the stack, and note each run of T's code in them."""
        if event == "return":
            module = self._t_frames.pop(id(frame), None)
            if module is not None:
                self._t_open[module] -= 1
                if not self._t_open[module]:
                    del self._t_open[module]
                    self._t_open_now = None
            return
        filename = frame.f_code.co_filename
        if filename not in self._t_module:
            rel = self._rel(filename)
            is_t = rel is not None and not _is_test_file(rel, self._test_file)
            self._t_module[filename] = frame.f_globals.get("__name__") if is_t else None
        module = self._t_module[filename]
        if module is None:
            return
        if self._t_open_now is None:
            self._t_open_now = frozenset(self._t_open)
        self.t_runs.add((module, self._t_open_now))
        self._t_frames[id(frame)] = module
        if module not in self._t_open:
            self._t_open_now = None
        self._t_open[module] = self._t_open.get(module, 0) + 1

    def _rel(self, filename: str) -> str | None:
        if filename not in self._project:
            self._project[filename] = self._paths.python_rel(filename)
        return self._project[filename]

    def _event(self, frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "return"):
            self._note_t(frame, event)
        if event == "call":
            if self._inside["external"] or frame.f_back is None:
                return
            caller = self._rel(frame.f_back.f_code.co_filename)
            if caller is None:
                return
            callee = self._rel(frame.f_code.co_filename)
            if callee is None:
                self._start(id(frame), frame.f_code.co_filename, "external")
            elif (
                callee != caller
                and not self._inside["internal"]
                and not (
                    _is_test_file(callee, self._test_file) or _is_test_file(caller, self._test_file)
                )
            ):
                self._start(id(frame), frame.f_code.co_filename, "internal")
        elif event == "return":
            self._stop(id(frame))
        elif event == "c_call":
            if not self._inside["external"] and self._rel(frame.f_code.co_filename) is not None:
                label = _c_label(arg)
                if label[3:] not in _NOT_BOUNDARIES:  # sum(), len(): T's own plumbing
                    self._start(-1, label, "external")
        elif event in ("c_return", "c_exception"):
            self._stop(-1)

    def _start(self, key: int, where: str, kind: str) -> None:
        self._open[key] = (where, kind, time.perf_counter())
        self._inside[kind] += 1

    def _stop(self, key: int) -> None:
        opened = self._open.pop(key, None)
        if opened is None:
            return
        where, kind, started = opened
        self._inside[kind] -= 1
        took = time.perf_counter() - started
        if kind == "external" and self._inside["internal"]:
            self._below_open[where] = self._below_open.get(where, 0.0) + took
        elif kind == "internal":
            below = self.below.setdefault(where, {})
            for external, seconds in self._below_open.items():
                below[external] = below.get(external, 0.0) + seconds
            self._below_open = {}
        self.time[(where, kind)] = self.time.get((where, kind), 0.0) + took
        self.calls[(where, kind)] = self.calls.get((where, kind), 0) + 1

    def candidates(self) -> list[dict[str, Any]]:
        modules = _Modules()
        found: dict[str, Candidate] = {}
        for (where, kind), seconds in self.time.items():
            name = _candidate_name(where, kind, modules)
            if name is None:
                continue
            if kind == "internal":  # less what its external candidates below it take
                below = self.below.get(where, {}).items()
                seconds -= sum(t for e, t in below if _candidate_name(e, "external", modules))
            entry = found.setdefault(name, Candidate(name, 0.0, 0, kind))
            entry.time_s += max(0.0, seconds)
            entry.calls += self.calls[(where, kind)]
        for entry in found.values():
            entry.refused = self._holds_t(entry.boundary, modules) or self._unreferenced(
                entry.boundary
            )
        return [c.to_json() for c in found.values()]

    def _unreferenced(self, name: str) -> str:
        """Why a boundary at ``name`` would replace nothing ("" when T refers to it): the
        boundary is drawn at T's globals bound to E, and ``datetime.strptime`` spends its
        time in ``_strptime`` without T naming that module."""
        try:
            boundary = resolve(name)
        except BoundaryError as exc:
            return str(exc)
        for module in t_modules(self._root, [boundary]):
            if any(boundary.member_name(value) for value in list(vars(module).values())):
                return ""
        return (
            f"the code under test never refers to {name} (its time there is spent through "
            "another module): a boundary there would replace nothing"
        )

    def _holds_t(self, boundary: str, modules: _Modules) -> str:
        """Why ``boundary`` holds the code under test ("" when it does not)."""
        started = [
            argv
            for argv, where in self.children
            if where and _candidate_name(where, "external", modules) == boundary
        ]
        if started and self._children is not None:
            reason = self._children.project_child(started)
            if reason is not None:
                return reason
        if not any(
            not _owns(boundary, module) and not any(_owns(boundary, o) for o in around)
            for module, around in self.t_runs
        ):
            return (
                f"the test runs none of the project's own code outside {boundary}: its "
                "factored test would check nothing of T"
            )
        return ""


def _candidate_name(where: str, kind: str, modules: _Modules) -> str | None:
    """The boundary a profiled file or C label names (None: language plumbing)."""
    if where.startswith("<c>"):
        name: str | None = where[3:]
    elif kind == "internal":
        name = modules.by_file.get(where)
    else:
        name = _external_module((where, 0, ""), modules)
    if not name or name.split(".")[0] in _NOT_BOUNDARIES:
        return None
    return name


def _owns(boundary: str, module: str) -> bool:
    return module == boundary or module.startswith(boundary + ".")


def _c_label(function: Any) -> str:
    """``<c>module`` of a builtin T calls (``time.sleep`` -> ``<c>time``)."""
    owner = getattr(function, "__self__", None)
    module = getattr(function, "__module__", None)
    if module is None and owner is not None and not isinstance(owner, type(sys)):
        module = type(owner).__module__  # a method of a C object: sqlite3.Connection.execute
    elif module is None and owner is not None:
        module = owner.__name__
    name = (module or "builtins").split(".")[0]
    stripped = name.lstrip("_")
    return "<c>" + (stripped if stripped != name and stripped in sys.modules else name)


def _is_test_file(rel: str, test_file: str) -> bool:
    return rel == test_file or is_test_path(rel)


NOISE_S = 0.0005
"""Candidates whose E time is below this are not listed."""


def rank(
    raw: list[dict[str, Any]], max_transcript_bytes: int = DEFAULT_MAX_BYTES
) -> list[Candidate]:
    """Candidates by expected saving, refused ones (no saving, or a transcript estimated
    over ``max_transcript_bytes``) last, with the reason."""
    ranked = []
    for data in raw:
        if data["time_s"] < NOISE_S:
            continue
        candidate = Candidate(**data)
        replay_cost = candidate.calls * REPLAY_COST_PER_CALL_S
        candidate.saving_s = candidate.time_s - replay_cost
        candidate.transcript_bytes = candidate.calls * BYTES_PER_CALL
        if candidate.refused:  # it holds the code under test (see ``BoundaryProfiler``)
            pass
        elif candidate.saving_s <= 0:
            candidate.refused = (
                f"replay would not be faster: E takes {candidate.time_s * 1000:.2f} ms over "
                f"{candidate.calls} calls, replaying them costs about {replay_cost * 1000:.2f} ms"
            )
        elif candidate.transcript_bytes > max_transcript_bytes:
            candidate.refused = (
                f"its transcript would be about {show_size(candidate.transcript_bytes)} "
                f"({candidate.calls} calls), over the limit of {show_size(max_transcript_bytes)}"
            )
        ranked.append(candidate)
    ranked.sort(key=lambda c: (bool(c.refused), -c.saving_s))
    return ranked
