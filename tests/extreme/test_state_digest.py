"""``StateDigest``: what a run can leave behind in the project's modules and the process is
seen, and a state put back exactly reads as fresh. Real modules imported from files."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from lsp_server.extreme.state_digest import StateDigest

STATEFUL = """
import functools
import itertools

counter = 0
events = []
table = {"a": 1}
ids = itertools.count()

@functools.lru_cache(maxsize=None)
def square(x):
    return x * x

def make_adder(step):
    def add(x):
        return x + step
    return add

adder = make_adder(1)

class Config:
    level = 1

    def __init__(self):
        self.name = "x"

default = Config()

class Point:
    __slots__ = ("x", "y")

    def __init__(self):
        self.x, self.y = 1, 2

origin = Point()
"""


@pytest.fixture
def stateful(tmp_path: Path) -> Iterator[tuple[ModuleType, Callable[[], StateDigest]]]:
    """A project module with state of every kind, imported from a file under a root, and
    how to take the digest of that root."""
    root = tmp_path / "project"
    root.mkdir()
    name = f"stateful_{abs(hash(tmp_path)) % 10**8}"
    (root / f"{name}.py").write_text(textwrap.dedent(STATEFUL))
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(name)

        def take() -> StateDigest:
            digest = StateDigest.take(str(root))
            assert digest is not None
            return digest

        yield module, take
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(name, None)


def test_an_untouched_state_reads_as_fresh(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    module, take = stateful
    module.square(3)  # the cache filled before: the fresh state holds it
    digest = take()
    assert not digest.changed()
    module.square(3)  # a hit: no new entry
    assert not digest.changed()


@pytest.mark.parametrize(
    "change",
    [
        "module.counter += 1",
        "module.events.append(1)",
        "module.table['b'] = 2",
        "module.table['a'] = 10**6",
        "next(module.ids)",
        "module.square(4)",
        "module.adder.__closure__[0].cell_contents = 2",
        "module.Config.level = 2",
        "module.Config.added = 1",
        "del module.Config.level",
        "module.default.name = 'y'",
        "module.origin.x = 5",
        "module.make_adder.__defaults__ = (1,)",
        "module.make_adder.marked = True",
        "module.adder.__dict__ = {}",
        "module.make_adder.__kwdefaults__ = {'step': 1}",
        "module.make_adder.__code__ = module.make_adder.__code__.replace()",
        "module.make_adder.__annotations__ = {}",
        "module.make_adder.__name__ = 'renamed'",
        "module.Config.__init__.__dict__['seen'] = 1",
        "module.events.append(1); module.events.pop(); module.events.append(2)",
        "module.added_name = 1",
        "os.environ['REKS_DIGEST_TEST'] = '1'",
        "sys.path.append('/nowhere')",
    ],
)
def test_what_a_run_leaves_behind_is_seen(
    stateful: tuple[ModuleType, Callable[[], StateDigest]], change: str
) -> None:
    module, take = stateful
    module.square(3)
    digest = take()
    saved_path, saved_environ = list(sys.path), dict(os.environ)
    try:
        exec(change, {"module": module, "os": os, "sys": sys})
        assert digest.changed()
    finally:
        sys.path[:] = saved_path
        os.environ.clear()
        os.environ.update(saved_environ)


def test_a_value_put_back_reads_as_fresh_and_a_key_moved_does_not(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    module, take = stateful
    digest = take()
    events = module.events
    module.events = []
    module.events = events  # the same object back, in the same place
    assert not digest.changed()
    level = vars(module.Config)["level"]
    del module.Config.level
    module.Config.level = level  # same value, but the namespace's order changed
    assert digest.changed()


def test_a_new_module_is_a_change(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    _, take = stateful
    digest = take()
    sys.modules["reks_digest_new_module"] = ModuleType("reks_digest_new_module")
    try:
        assert digest.changed()
    finally:
        del sys.modules["reks_digest_new_module"]
    assert not digest.changed()


def test_reading_a_functions_signature_reads_as_fresh(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    """``inspect.signature`` makes a function's annotations where it had none: the fresh
    state holds them already, so a run that only inspects a function leaves no state."""
    module, take = stateful
    digest = take()
    inspect.signature(module.make_adder)
    inspect.signature(module.Config.__init__)
    assert not digest.changed()


_AUDITED: list[str] | None = None
"""Where the audit hook below notes the events it sees (None: not noting)."""


def _note_audit_event(event: str, args: tuple[object, ...]) -> None:
    if _AUDITED is not None:
        _AUDITED.append(event)


def test_a_check_raises_no_audit_event_per_function(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    """A function's ``__code__``, ``__defaults__`` and ``__kwdefaults__`` getters each raise
    an audit event, which every audit hook of a worker answers in Python (reks adds several):
    a check after each run of a kept child reads hundreds of functions."""
    global _AUDITED
    _, take = stateful
    digest = take()
    sys.addaudithook(_note_audit_event)  # cannot be removed: it notes nothing after this test
    _AUDITED = []
    try:
        assert not digest.changed()
        seen = list(_AUDITED)
    finally:
        _AUDITED = None
    assert "object.__getattr__" not in seen


def test_a_subclass_made_and_kept_outside_the_project_is_a_change(
    stateful: tuple[ModuleType, Callable[[], StateDigest]],
) -> None:
    """The project's classes are read with their subclasses: one made by a run and held by
    a library's module (no project namespace changed) is state a fresh child lacks."""
    module, take = stateful
    digest = take()
    held = textwrap
    held.reks_kept_subclass = type("Sub", (module.Config,), {})  # type: ignore[attr-defined]
    try:
        assert digest.changed()
    finally:
        del held.reks_kept_subclass  # type: ignore[attr-defined]


def test_a_test_module_importing_pytest_mark_keeps_a_readable_state(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``from pytest import mark`` reached pytest's configuration, and through it every
    object of pytest and its plugins (this session's: past ``LIMIT``): the digest was not
    taken and the worker forked per transformation (boltons' test modules). The runner's
    configuration is compared by identity; the module's own state is still read."""
    root = tmp_path / "project"
    root.mkdir()
    name = f"marked_{abs(hash(tmp_path)) % 10**8}"
    (root / f"{name}.py").write_text("from pytest import mark\n\nseen = []\n")
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(name)
        # This session's configuration, as in a worker's collection: an in-process pytester
        # run earlier in this process ends by setting it to None.
        monkeypatch.setattr(module.mark, "_config", request.config)
        digest = StateDigest.take(str(root))
        assert digest is not None
        assert not digest.changed()
        module.seen.append(1)
        assert digest.changed()
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(name, None)
