"""Files a parametrize generator opens while it is consumed, attributed per parameter set.

``@pytest.mark.parametrize("case", cases())`` with a generator reading one data file after
the other (jmespath's compliance tests) runs while its file is collected; what a collection
opened counts for every test of the file, so an edit of one data file reran all of them.
Here ``Metafunc.parametrize`` is wrapped while tests are recorded: the files an iterator
of argument values opens go, in order, to a log of their own (``FileWatcher.divert``), and
each parameter set depends on the files opened before it was produced. A value cannot hold
what was read after it was produced, unless it is filled later: each value is copied when
produced and compared once the iterator is done, and a parameter set of anything but plain
data (numbers, strings, lists, tuples, sets, dicts, ``pytest.param`` of those) or one that
changed makes every set of that call depend on every file it opened. A collection (a list
built at import) is not consumed lazily: what building it opened is the collection's, as
before. Not seen: a generator that also leaves what it read in module state the tests read.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from lsp_server.rts.audit_events import FileWatcher

_ParameterSet = type(pytest.param(None))
_NOT_PLAIN = object()


@dataclass
class _Call:
    """One ``parametrize`` call over an iterator: each parameter set's values (kept alive,
    compared by identity with a test's parameters) and the files it depends on."""

    argnames: tuple[str, ...]
    whole: bool  # a one-name string: each value is the name's, not a tuple of values
    sets: list[tuple[tuple[object, ...], frozenset[str]]] = field(default_factory=list)
    opened: frozenset[str] = frozenset()


class ParametrizeFiles:
    """Wraps ``Metafunc.parametrize`` while ``watching``; ``files_of(item)`` answers."""

    def __init__(self, watcher: FileWatcher) -> None:
        self._watcher = watcher
        # By the test function's node id (its items' ids without the parameters).
        self._calls: dict[str, list[_Call]] = {}

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        original = pytest.Metafunc.parametrize
        recorder = self

        def parametrize(
            metafunc: pytest.Metafunc, argnames: Any, argvalues: Any, **kw: Any
        ) -> None:
            # pytest warns of an iterator (not a collection) it consumes: one more here
            # would fail a project that turns warnings into errors.
            if isinstance(argvalues, Collection) or not isinstance(argvalues, Iterable):
                return original(metafunc, argnames, argvalues, **kw)
            call = _Call(*_names(argnames))
            recorder._calls.setdefault(metafunc.definition.nodeid, []).append(call)
            return original(metafunc, argnames, recorder._consume(call, argvalues), **kw)

        pytest.Metafunc.parametrize = parametrize  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            pytest.Metafunc.parametrize = original  # type: ignore[method-assign]

    def _consume(self, call: _Call, argvalues: Iterable[object]) -> Iterator[object]:
        """``argvalues``, one by one, noting the files opened before each was produced."""
        log: list[str] = []
        previous = self._watcher.divert(log)
        produced: list[tuple[object, int, object]] = []  # each value, files, its copy
        try:
            for value in argvalues:
                produced.append((value, len(log), _plain(value)))
                yield value
        finally:
            self._watcher.divert(previous)
        call.opened = frozenset(log)
        # Any value filled after it was produced (or one that cannot be compared) may hold
        # what any file held.
        whole = bool(log) and any(
            copy is _NOT_PLAIN or _plain(value) != copy for value, _, copy in produced
        )
        for value, count, _ in produced:
            opened = call.opened if whole else frozenset(log[:count])
            call.sets.append((_values(value, call.whole), opened))

    def files_of(self, item: pytest.Item) -> set[str]:
        """The files opened while producing ``item``'s parameters, up to each set of them."""
        callspec = getattr(item, "callspec", None)
        if callspec is None or not isinstance(item, pytest.Function) or item.parent is None:
            return set()
        files: set[str] = set()
        for call in self._calls.get(f"{item.parent.nodeid}::{item.originalname}", ()):
            mine = tuple(callspec.params.get(name, _NOT_PLAIN) for name in call.argnames)
            # Equal sets (the same objects) are indistinguishable: the test has them all.
            matched = [
                opened
                for values, opened in call.sets
                if len(values) == len(mine) and all(map(operator.is_, values, mine))
            ]
            for opened in matched or [call.opened]:
                files |= opened
        return files


def _names(argnames: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """``parametrize``'s argument names and whether each value is the one name's whole,
    parsed as pytest does (``"x,"`` takes tuples)."""
    if isinstance(argnames, str):
        names = tuple(n.strip() for n in argnames.split(",") if n.strip())
        return names, len(names) == 1 and not argnames.rstrip().endswith(",")
    return tuple(argnames), False


def _values(value: object, whole: bool) -> tuple[object, ...]:
    """The values ``value`` gives the argument names, as pytest's ``ParameterSet`` takes
    them."""
    if isinstance(value, _ParameterSet):
        return tuple(value.values)
    if whole:
        return (value,)
    try:
        return tuple(cast(Iterable[object], value))
    except TypeError:
        return ()


def _plain(value: object) -> object:
    """A copy of ``value`` made of tuples and constants; ``_NOT_PLAIN`` unless it is plain."""
    try:
        return _copy(value)
    except (RecursionError, _NotPlain):
        return _NOT_PLAIN


class _NotPlain(Exception):
    pass


def _copy(value: object) -> object:
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return (type(value), value)
    if isinstance(value, float):
        return (float, value.hex())
    if isinstance(value, _ParameterSet):
        return (_ParameterSet, _copy(value.values), value.id, len(value.marks))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(map(_copy, value)))
    if isinstance(value, dict):
        return (type(value), tuple((_copy(k), _copy(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return (type(value), frozenset(map(_copy, value)))
    raise _NotPlain
