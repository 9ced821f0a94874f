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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lsp_server.project.files import ProjectPaths

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
        for name, module in list(sys.modules.items()):
            filename = getattr(module, "__file__", None)
            if filename:
                self.by_file[filename] = name

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


class StackSampler:
    """Samples the test thread's stack every ``interval`` seconds and charges each sample to
    the outermost frame below the innermost project frame: the time a call from T into E is
    still running, also while E waits on its own threads or a child process (which a
    deterministic profiler of one thread does not see)."""

    def __init__(self, root: Path, interval: float = 0.002) -> None:
        import threading

        self._paths = ProjectPaths(root)
        self._interval = interval
        self._target = threading.get_ident()
        self._stop = threading.Event()
        self.samples: dict[str, int] = {}
        """File of the charged E frame -> samples."""
        self._thread = threading.Thread(target=self._run, daemon=True, name="reks-sampler")

    def __enter__(self) -> StackSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            frame = sys._current_frames().get(self._target)
            callee = None
            while frame is not None:
                filename = frame.f_code.co_filename
                if self._paths.rel(filename) is not None:
                    if callee is not None:
                        self.samples[callee] = self.samples.get(callee, 0) + 1
                    break
                callee = filename
                frame = frame.f_back

    def seconds_by_module(self) -> dict[str, float]:
        modules = _Modules()
        found: dict[str, float] = {}
        for filename, count in self.samples.items():
            name = _external_module((filename, 0, ""), modules)
            if name and name.split(".")[0] not in _NOT_BOUNDARIES:
                found[name] = found.get(name, 0.0) + count * self._interval
        return found


def profile_candidates(
    stats: dict[Any, Any], root: Path, test_file: str, sampled: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """Candidates from ``pstats.Stats(...).stats`` of one test (run in the test process),
    with the time ``StackSampler`` saw below T where that is more."""
    paths = ProjectPaths(root)
    modules = _Modules()
    found: dict[str, Candidate] = {}
    for callee, (_, _, _, _, callers) in stats.items():
        callee_rel = paths.rel(callee[0]) if callee[0] != "~" else None
        for caller, (_, calls, _, cumulative) in callers.items():
            caller_rel = paths.rel(caller[0]) if caller[0] != "~" else None
            if caller_rel is None:
                continue
            if callee_rel is None:
                name = _external_module(callee, modules)
                kind = "external"
            elif (
                callee_rel != caller_rel
                and not _is_test_file(callee_rel, test_file)
                and not _is_test_file(caller_rel, test_file)
            ):  # a project module below T's code, not the code under test itself
                name = modules.by_file.get(callee[0])
                kind = "internal"
            else:
                continue
            if not name or name.split(".")[0] in _NOT_BOUNDARIES:
                continue
            entry = found.setdefault(name, Candidate(name, 0.0, 0, kind))
            entry.time_s += cumulative
            entry.calls += calls
    for name, seconds in (sampled or {}).items():
        entry = found.setdefault(name, Candidate(name, 0.0, 1, "external"))
        entry.time_s = max(entry.time_s, seconds)
    return [c.to_json() for c in found.values()]


def _is_test_file(rel: str, test_file: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel == test_file or name == "conftest.py" or name.startswith("test_")


NOISE_S = 0.0005
"""Candidates whose E time is below this are not listed."""


def rank(raw: list[dict[str, Any]]) -> list[Candidate]:
    """Candidates by expected saving, refused ones (no saving) last, with the reason."""
    ranked = []
    for data in raw:
        if data["time_s"] < NOISE_S:
            continue
        candidate = Candidate(**data)
        replay_cost = candidate.calls * REPLAY_COST_PER_CALL_S
        candidate.saving_s = candidate.time_s - replay_cost
        candidate.transcript_bytes = candidate.calls * BYTES_PER_CALL
        if candidate.saving_s <= 0:
            candidate.refused = (
                f"replay would not be faster: E takes {candidate.time_s * 1000:.2f} ms over "
                f"{candidate.calls} calls, replaying them costs about {replay_cost * 1000:.2f} ms"
            )
        ranked.append(candidate)
    ranked.sort(key=lambda c: (bool(c.refused), -c.saving_s))
    return ranked
