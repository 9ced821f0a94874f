"""The tracer for Python 3.10/3.11 asked for by ``REKS_TRACER=instrumented`` (it runs on 3.12
too): project modules compiled with a marker per code object record which code each test
ran without a profile hook. Compiled with markers, a module keeps its line numbers, its
docstrings and pytest's assertion messages; a real session selects on them as with the
profile hook, with the kinds of values functions return."""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.rts.alive_code import any_project_module
from lsp_server.rts.file_units import Unit
from lsp_server.rts.instrument_loader import InstrumentingFinder, shared_table
from lsp_server.rts.instrumented_tracer import InstrumentedTracer
from lsp_server.rts.profile_tracer import ProfileTracer
from lsp_server.rts.reads import EVERY_NAME
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.tracer_choice import new_tracer

from .helpers import edit, run, traced_module, write

pytest_plugins = ["pytester"]

_MODULE = '''
"""The module's docstring."""
import importlib

TABLE = ["first", "second"]
REGISTERED = [getattr(importlib, "import_module"), *(name for name in TABLE)]


def first():
    """First's docstring."""
    return [n * 2 for n in range(3)]


def second():
    return sum(x for x in range(4))


def unused():
    return 0


def raising():
    value = 1
    raise ValueError(value)


class Thing:
    """Thing's docstring."""

    def method(self):
        square = lambda v: v * v
        return square(3)


def empty_generator_expression():
    return list(x for x in ())


def lookup(name):
    return getattr(importlib, name)


def constant_lookup():
    return getattr(importlib, "invalidate_caches")


def lazy_lookups(names):
    for name in names:
        yield getattr(importlib, name)
'''


@pytest.fixture
def marked_module(tmp_path: Path) -> object:
    """``marked`` (``_MODULE``) loaded through the finder, removed afterwards."""
    (tmp_path / "marked.py").write_text(_MODULE)
    table = shared_table()
    starts: list[str] = []
    finder = InstrumentingFinder(
        table,
        lambda path: path.startswith(str(tmp_path)),
        lambda code: starts.append(code.co_filename),
        lambda code: None,
    )
    finder.install()
    sys.path.insert(0, str(tmp_path))
    try:
        list(table.take())
        module = importlib.import_module("marked")
        assert starts == [str(tmp_path / "marked.py")]
        yield module
    finally:
        finder.uninstall()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("marked", None)


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[tuple[InstrumentedTracer, object]]:
    """A started tracer of ``tmp_path``'s code, and ``looks`` (``_MODULE``) imported under it
    (what its import ran taken)."""
    with traced_module(tmp_path, "looks", _MODULE) as (tracer, module):
        tracer.take()
        yield tracer, module


def _names(table_codes: object) -> set[str]:
    return {code.co_name for code in table_codes}  # type: ignore[attr-defined]


def test_the_marks_name_exactly_the_code_that_ran(marked_module: object) -> None:
    table = shared_table()
    at_import = _names(table.take())
    # The class body ran, and the generator expression of the module's top level.
    assert {"Thing", "<genexpr>"} <= at_import
    assert not {"first", "second", "unused", "method"} & at_import
    marked_module.first()  # type: ignore[attr-defined]
    marked_module.Thing().method()  # type: ignore[attr-defined]
    ran = _names(table.take())
    # A comprehension is counted with its function (3.12 has none: inlined); a lambda
    # marks itself.
    comprehension = {"<listcomp>"} if sys.version_info < (3, 12) else set()
    assert ran == {"first", "method", "<lambda>", *comprehension}
    marked_module.second()  # type: ignore[attr-defined]
    assert _names(table.take()) == {"second", "<genexpr>"}
    # An empty generator expression marks nothing of its own, yet it started.
    marked_module.empty_generator_expression()  # type: ignore[attr-defined]
    assert _names(table.take()) == {"empty_generator_expression", "<genexpr>"}
    assert _names(table.take()) == set()


def test_lines_docstrings_and_source_stay_as_written(marked_module: object) -> None:
    module = marked_module
    assert module.__doc__ == "The module's docstring."  # type: ignore[attr-defined]
    assert module.first.__doc__ == "First's docstring."  # type: ignore[attr-defined]
    assert module.Thing.__doc__ == "Thing's docstring."  # type: ignore[attr-defined]
    assert inspect.getsource(module.raising).startswith("def raising():")  # type: ignore[attr-defined]
    with pytest.raises(ValueError) as raised:
        module.raising()  # type: ignore[attr-defined]
    last = traceback.extract_tb(raised.value.__traceback__)[-1]
    assert last.line == "raise ValueError(value)"
    assert last.lineno == _MODULE.splitlines().index("    raise ValueError(value)") + 1


def test_lookups_are_read_as_they_run_or_from_constants_and_generators_read_any(
    traced: tuple[InstrumentedTracer, object], tmp_path: Path
) -> None:
    tracer, module = traced
    footprints = {code.co_filename for code, _ in tracer.take_footprints()}
    module.lookup("import_module")  # type: ignore[attr-defined]
    module.constant_lookup()  # type: ignore[attr-defined]
    list(module.lazy_lookups(["reload"]))  # type: ignore[attr-defined]
    ran = tracer.take()
    module.lookup("reload")  # type: ignore[attr-defined]  # watched again in the next test
    ran_next = tracer.take()
    assert footprints == {str(tmp_path / "looks.py")}
    key = {code.co_name: key for key, code in ran.items()}
    assert {"lookup", "constant_lookup", "lazy_lookups"} <= key.keys()
    assert {code.co_name for code in ran_next.values()} == {"lookup"}
    names = tracer.lookups.names
    # The module's top level looked ``import_module`` up under the import's hook.
    assert any(found == {"import_module"} for found in names.values())
    assert names[key["lookup"]] == {"import_module", "reload"}
    assert names[key["constant_lookup"]] == {"invalidate_caches"}
    # A generator's frame returns at each ``yield``: it may have read any name.
    assert EVERY_NAME in names[key["lazy_lookups"]]
    assert sys.getprofile() is None


def test_a_project_module_imported_before_recording_keeps_the_usual_tracer(
    marked_module: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REKS_TRACER", "instrumented")
    module_file = str(marked_module.__file__)  # type: ignore[attr-defined]
    assert any_project_module(lambda path: path == module_file)
    # Its code has no markers: the profile hook (``sys.monitoring`` on 3.12) records.
    usual = new_tracer(lambda path: path == module_file)
    assert not isinstance(usual, InstrumentedTracer)
    assert isinstance(usual, ProfileTracer) != hasattr(sys, "monitoring")
    other = new_tracer(lambda path: path == module_file + "-other")
    assert isinstance(other, InstrumentedTracer)


def _project(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pkg/__init__.py",
        """
        def double(x):
            return 2 * x


        def halve(x):
            return x / 2


        def settle(x):
            if x:
                return
            x = 1


        def flag(x):
            return True


        def makers(n):
            return [lambda: i for i in range(n)], (lambda: n)


        def first_of(items):
            for item in items:
                return item


        def counted(n):
            yield n


        async def waited():
            return "done"
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import asyncio

        from pkg import counted, double, first_of, flag, halve, makers, settle, waited


        def test_double():
            assert double(2) == 4


        def test_halve():
            assert halve(4) == 2


        def test_others():
            assert settle(True) is None and settle(False) is None and flag(0) is True
            made, one = makers(2)
            assert [m() for m in made] == [1, 1] and one() == 2
            assert first_of([]) is None and first_of([b""]) == b""
            assert list(counted(3)) == [3]
            assert asyncio.run(waited()) == "done"
        """,
    )


_KINDS = {
    "double": ["int"],
    "halve": ["float"],
    "settle": ["none"],
    "flag": ["bool"],
    "makers": ["tuple"],
    "first_of": ["bytes", "none"],
    "counted": [],  # a generator's frame returns no result
    "waited": ["str"],
}


def test_a_session_selects_by_the_marks_and_records_return_kinds(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REKS_TRACER", "instrumented")
    _project(pytester)
    assert run(pytester) == {"test_double", "test_halve", "test_others"}
    with DependencyStore(pytester.path) as store:
        records = store.test_records()
        since = store.return_kinds_since()
        kinds = store.return_kinds([Unit("pkg/__init__.py", name) for name in _KINDS])
    # Recorded with kinds, as the profile hook records them.
    assert since is not None
    assert all(r.session_id is not None and r.session_id >= since for r in records.values())
    assert {unit.name: found for unit, (_, found) in kinds.items()} == _KINDS
    edit(pytester, "pkg/__init__.py", "return 2 * x", "return x + x")
    assert run(pytester) == {"test_double"}
    assert run(pytester) == set()


def test_pytest_still_explains_a_failed_assertion(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REKS_TRACER", "instrumented")
    _project(pytester)
    edit(pytester, "test_pkg.py", "== 4", "== 5")
    result = pytester.runpytest_inprocess("--reks")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*assert 4 == 5*", "*where 4 = double(2)*"])


def test_project_code_compiled_elsewhere_counts_in_every_test_and_marked_code_outlives_it(
    traced: tuple[InstrumentedTracer, object], tmp_path: Path
) -> None:
    tracer, module = traced
    source_file = tmp_path / "elsewhere.py"
    source_file.write_text("def made_elsewhere():\n    return 1\n")
    namespace: dict[str, object] = {}
    exec(compile(source_file.read_text(), str(source_file), "exec"), namespace)
    tracer.take()
    later = {code.co_name for code in tracer.take().values()}
    tracer.stop()
    # No marker in it: every test from then on may have run it.
    assert "made_elsewhere" in later
    # Marked code still runs once recording stopped (teardown, atexit).
    assert module.lookup("import_module") is importlib.import_module  # type: ignore[attr-defined]
    assert module.Thing().method() == 9  # type: ignore[attr-defined]


def test_another_tools_profile_hook_stays_and_what_it_hides_reads_any_name(
    tmp_path: Path,
) -> None:
    (tmp_path / "looks.py").write_text(_MODULE)
    events: list[str] = []

    def profiler(frame: object, event: str, arg: object) -> None:
        if len(events) < 5:
            events.append(event)

    sys.path.insert(0, str(tmp_path))
    tracer = InstrumentedTracer(lambda path: path.startswith(str(tmp_path)))
    tracer.start()
    sys.setprofile(profiler)
    try:
        module = importlib.import_module("looks")
        module.lookup("reload")
        still = sys.getprofile()
        ran = tracer.take()
    finally:
        sys.setprofile(None)
        tracer.stop()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("looks", None)
    assert still is profiler
    assert events
    key = {code.co_name: key for key, code in ran.items()}
    assert EVERY_NAME in tracer.lookups.names[key["lookup"]]
