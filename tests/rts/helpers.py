"""Running real pytest sessions on pytester projects and reading which tests ran."""

from __future__ import annotations

import contextlib
import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from lsp_server.rts.instrumented_tracer import InstrumentedTracer


def write(pytester: pytest.Pytester, path: str, text: str) -> None:
    target = pytester.path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text).lstrip("\n"))


def edit(pytester: pytest.Pytester, path: str, old: str, new: str) -> None:
    target = pytester.path / path
    text = target.read_text()
    assert old in text, f"{old!r} not in {path}"
    target.write_text(text.replace(old, new))


def names(reports: list[pytest.TestReport]) -> set[str]:
    return {r.nodeid.split("::", 1)[1] if "::" in r.nodeid else r.nodeid for r in reports}


@contextlib.contextmanager
def recording_plugin_only() -> Iterator[None]:
    """In-process runs under this load the recording plugin alone: finding and loading
    every installed plugin's entry point again (and printing their versions) cost about a
    tenth of an rts test's time. The installed plugins are part of the environment a store
    records, so a test that mixes such runs with runs loading every plugin (subprocesses,
    xdist) sees a changed environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        patch.setenv("PYTEST_PLUGINS", "lsp_server.rts.pytest_plugin")
        yield


# ``filterwarnings = error`` for a project run in-process: pytest warns at configuration
# that the recording plugin, imported by the test process already, cannot be rewritten
# (a real project's single pytest process never sees that warning).
ERROR_FILTERS_INI = (
    "[pytest]\nfilterwarnings =\n    error\n"
    "    ignore:Module already imported:pytest.PytestAssertRewriteWarning\n"
)


def run(
    pytester: pytest.Pytester, *args: str, flag: str = "--reks", every_plugin: bool = False
) -> set[str]:
    """Run pytest in-process; the names (node id without the file) of the tests that ran.
    Only the recording plugin is loaded unless ``every_plugin`` (see
    ``recording_plugin_only``)."""
    # New or renamed modules within the same second: the import system's directory
    # caches must not hide them.
    importlib.invalidate_caches()
    with contextlib.nullcontext() if every_plugin else recording_plugin_only():
        recorder = pytester.inline_run(flag, *args)
    ran = [
        r
        for r in recorder.getreports("pytest_runtest_logreport")
        if r.when == "call" or (r.when == "setup" and not r.passed)
    ]
    return names(ran)


def ran_and_failed(pytester: pytest.Pytester, *args: str) -> tuple[set[str], set[str]]:
    """A ``--reks`` run as ``run`` makes it: the names of the tests that ran, and of those
    that failed."""
    importlib.invalidate_caches()
    with recording_plugin_only():
        recorder = pytester.inline_run("--reks", *args)
    reports = [r for r in recorder.getreports("pytest_runtest_logreport") if r.when == "call"]
    return names(reports), names([r for r in reports if r.failed])


def run_result(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """``pytester.runpytest`` in-process with the plugins ``run`` loads."""
    importlib.invalidate_caches()
    with recording_plugin_only():
        return pytester.runpytest_inprocess(*args)


@contextlib.contextmanager
def traced_module(
    folder: Path, name: str, source: str, is_test_file: Callable[[str], bool] | None = None
) -> Iterator[tuple[InstrumentedTracer, ModuleType]]:
    """A started instrumented tracer of ``folder``'s code, and the module ``name`` (written
    there from ``source``) imported under it; all undone afterwards."""
    (folder / f"{name}.py").write_text(source)
    sys.path.insert(0, str(folder))
    tracer = InstrumentedTracer(lambda path: path.startswith(str(folder)), is_test_file)
    tracer.start()
    try:
        yield tracer, importlib.import_module(name)
    finally:
        tracer.stop()
        sys.path.remove(str(folder))
        sys.modules.pop(name, None)
