"""The pytest plugin of test factoring (entry point ``lsp_server.factoring.plugin``, also
loaded with ``-p lsp_server.factoring.plugin`` where reks is not installed).

One autouse fixture opens the boundary window for a test, at the same place in the fixture
order for capture and for replay:

- capture: ``REKS_FACTORING_REQUEST`` names a JSON request (test, boundaries, output); the
  requested test runs against the real E with its interactions recorded;
- replay: a test module that sets ``REKS_TRANSCRIPT`` (a factored test emitted by reks) runs
  with E answered from that transcript, skipped with the reason when the transcript is stale.

With a request, the outcome and duration of every test is written to the request's output.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.factoring import side_by_side

REQUEST_OPTION = "--reks-factoring-request"
"""A command-line option, not an environment variable: a copy of ``os.environ`` made by T
must be the same in the capturing and the replaying run."""
_RESULTS = "reks_factoring_results"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reks")
    group.addoption(
        "--reks-factored",
        action="store_true",
        default=False,
        help="run each test's valid factored version first, and the system test only when "
        "the factored one diverged, failed or is stale",
    )
    group.addoption(REQUEST_OPTION, default=None, help="(used by reks factor)")


def pytest_configure(config: pytest.Config) -> None:
    if (_request(config) or {}).get("capture"):
        from lsp_server.factoring.run_varying import watch_run_varying

        watch_run_varying()  # from the start: a session fixture's folder is fresh too
    if _request(config) is not None:  # only a request's results charge shared fixtures
        from lsp_server.factoring.shared_fixtures import SharedFixtureTiming

        config.pluginmanager.register(SharedFixtureTiming(), "reks-shared-fixture-timing")
    timer = side_by_side.timer_for(_request(config) or {}, _own_s)
    if timer is not None:
        config.stash[_timer_key] = timer
        config.pluginmanager.register(timer, "reks-side-by-side")
    if config.getoption("reks_factored", False):
        from lsp_server.factoring.workflow import FactoredFirst

        config.pluginmanager.register(FactoredFirst(), "reks-factored-first")


def _own_s(item: pytest.Item) -> float:
    """The item's time so far without shared fixtures (for ``side_by_side``)."""
    return float(item.config.stash.get(_results_key, {}).get(item.nodeid, {}).get("duration_s", 0))


_timer_key = pytest.StashKey[side_by_side.SideBySideTimer]()


def _request(config: pytest.Config) -> dict[str, Any] | None:
    cached: Any = getattr(config, "_reks_factoring_request", False)
    if cached is False:
        path = config.getoption("reks_factoring_request", None)
        cached = json.loads(Path(path).read_text(encoding="utf-8")) if path else None
        config._reks_factoring_request = cached  # type: ignore[attr-defined]
    return cached


_FIXTURE = "_reks_factoring"


def _uses_fixture(item: pytest.Item, wanted: dict[str, Any] | None) -> bool:
    """Whether ``_reks_factoring`` does anything for ``item``: it captures or profiles
    it (a request naming it) or replays its module's transcript."""
    if wanted is not None and (wanted.get("capture") or wanted.get("profile")):
        return item.nodeid in wanted["tests"] or _replays(item) or _overridden(item)
    return _replays(item) or _overridden(item)


def _overridden(item: pytest.Item) -> bool:
    """Whether a fixture of the project's takes the name for ``item``: it stays."""
    info = getattr(item, "_fixtureinfo", None)
    defs = () if info is None else info.name2fixturedefs.get(_FIXTURE, ())
    return any(getattr(d.func, "__module__", None) != __name__ for d in defs)


def _replays(item: pytest.Item) -> bool:
    return bool(getattr(getattr(item, "module", None), "REKS_TRANSCRIPT", None))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The autouse fixture leaves the fixture closure of the items it does nothing for:
    a fixture's setup and teardown cost every test of every project where reks is
    installed. Where it stays, its place in the closure is the one autouse gave it, the
    same for capture and replay. Parametrized items of one function share one closure
    list: it stays there when any of them uses it."""
    wanted = _request(config)
    kept = {
        id(getattr(item, "fixturenames", None)) for item in items if _uses_fixture(item, wanted)
    }
    for item in items:
        closure = getattr(item, "fixturenames", None)
        if type(closure) is list and id(closure) not in kept and _FIXTURE in closure:
            closure.remove(_FIXTURE)


@pytest.fixture(autouse=True)
def _reks_factoring(request: pytest.FixtureRequest) -> Iterator[None]:
    item = request.node
    wanted = _request(item.config)
    if wanted and wanted.get("capture") and item.nodeid in wanted["tests"]:
        _set_temp_root(request)
        yield from _capture(item, wanted)
        return
    if wanted and wanted.get("profile") and item.nodeid in wanted["tests"]:
        yield from _profile(item, Path(wanted["root"]))
        return
    module: Any = getattr(item, "module", None)
    transcript_name = getattr(module, "REKS_TRANSCRIPT", None)
    if transcript_name:
        yield from _replay(request, Path(module.__file__).parent / transcript_name)
        return
    yield


def _set_temp_root(request: pytest.FixtureRequest, replayed: dict[str, Any] | None = None) -> None:
    """Start the test's run-varying values: pytest's base temporary directory (only when
    the test has one: looking it up costs), and on replay the capture's fresh names and
    clock readings (``replayed``: the transcript)."""
    from lsp_server.factoring.run_varying import TEMP_ROOT

    base = None
    if replayed is None or replayed["uses_tmp_path"]:
        try:
            base = request.getfixturevalue("tmp_path_factory").getbasetemp()
        except pytest.FixtureLookupError:
            base = None
    replayed = replayed or {}
    TEMP_ROOT.set(
        str(base) if base else None,
        replayed.get("temp_names"),
        replayed.get("clock_readings"),
    )


def _capture(item: pytest.Item, wanted: dict[str, Any]) -> Iterator[None]:
    from lsp_server.factoring.boundary import BoundaryError, resolve
    from lsp_server.factoring.capture import Recorder
    from lsp_server.factoring.children import ChildWatch, project_packages
    from lsp_server.factoring.clock import ClockWatch
    from lsp_server.factoring.t_activity import TActivity

    root = Path(wanted["root"])
    try:
        boundaries = [resolve(spec) for spec in wanted["boundaries"]]
    except BoundaryError as exc:
        _captures(item)[item.nodeid] = (item, {"refusal": str(exc)})
        yield
        return
    recorder = Recorder(root, boundaries)
    recorder.start()
    children = ChildWatch(
        root, project_packages(root, recorder.t_module_names), recorder.in_environment
    )
    children.start()
    clock = ClockWatch(root, boundaries, recorder.in_environment)
    clock.start()
    activity = TActivity(root, boundaries, recorder.in_environment)
    activity.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        activity.stop()
        clock.stop()
        recorder.stop()
        for reason in (children.project_child(children.stop()), activity.refusal()):
            if reason is not None:
                recorder.refuse(reason)
        window = time.perf_counter() - started
        captured = {"recorder": recorder, "window_s": window, "clock_reads": clock.reads}
        captured.update(_run_varying())
        _captures(item)[item.nodeid] = (item, captured)


def _run_varying() -> dict[str, Any]:
    """The capture's fresh names and clock readings, by role number (for replay)."""
    from lsp_server.factoring.run_varying import TEMP_ROOT

    return {
        "temp_names": list(TEMP_ROOT.named),
        "clock_readings": list(TEMP_ROOT.readings),
        "clock_at_start": TEMP_ROOT.since,
    }


def _profile(item: pytest.Item, root: Path) -> Iterator[None]:
    """Time the test's calls below its code (fixtures included): the boundary candidates."""
    from lsp_server.factoring.suggest import BoundaryProfiler

    profiler = BoundaryProfiler(root, item.nodeid.split("::")[0])
    with profiler:
        yield
    item.config.stash.setdefault(_profiles_key, {})[item.nodeid] = profiler.candidates()


_profiles_key = pytest.StashKey[dict]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Load the replay machinery once per session, before the first factored test runs: a
    cost of the session, not of each factored test. A request's ``clock_shift_s`` moves the
    wall clock forward for the session (``reks factor``'s check that a factored test does
    not depend on when it runs)."""
    shifted = (_request(session.config) or {}).get("clock_shift_s")
    if shifted:
        from lsp_server.factoring import wall_clock

        wall_clock.shift(float(shifted))
        wall_clock.watch_children()
    modules: list[Any] = [getattr(i, "module", None) for i in session.items]
    factored = [m for m in modules if getattr(m, "REKS_TRANSCRIPT", None)]
    if factored:
        from lsp_server.factoring.replay import prepare_session

        prepare_session(Path(factored[0].__file__).parent / factored[0].REKS_TRANSCRIPT)


def _replay(request: pytest.FixtureRequest, path: Path) -> Iterator[None]:
    from lsp_server.factoring import transcript
    from lsp_server.factoring.boundary import resolve
    from lsp_server.factoring.replay import Replayer

    item = request.node
    try:
        data = transcript.load(path)
    except transcript.TranscriptError as error:  # an older reks wrote it: no replay error
        pytest.skip(f"stale factored test: {error}; recapture it")
    root = (path.parent / data.get("root", ".")).resolve()
    verdict = transcript.staleness(data, root)
    if verdict.stale:
        pytest.skip(f"stale factored test of {data['test']}: {verdict.reason()}; recapture it")
    pinned = data["t_clock"] == transcript.CLOCK_PINNED
    if pinned:  # before the test's start is taken: T's readings are the capture's moment's
        from lsp_server.factoring import wall_clock

        wall_clock.pin(data["clock_at_start"])
    _set_temp_root(request, data)
    replayer = Replayer(data, root, [resolve(spec) for spec in data["boundary"]])
    item.stash[_replay_key] = replayer
    replayer.start()
    try:
        yield
    finally:
        replayer.stop()
        if pinned:
            wall_clock.unpin()
    _finish(replayer, item.stash.get(_call_failed_key, False))


def _finish(replayer: Any, call_failed: bool) -> None:
    """At teardown: a divergence T swallowed, or calls it never made. After a failed call,
    calls T never made mean T used E differently: the transcript's answers were not E's
    and the failure says nothing about the system test (which must run): a divergence, as
    in the paper, not a failure of T. Reported through ``pytest.fail``: a BaseException
    out of a fixture's teardown would leave pytest's setup state broken for the next test."""
    from lsp_server.factoring.replay import ReplayDivergence

    if call_failed and replayer.divergence is not None:
        return  # reported by the call already
    try:
        replayer.finish(after_failure=call_failed)
    except ReplayDivergence as exc:
        pytest.fail(str(exc), pytrace=False)


_call_failed_key = pytest.StashKey[bool]()


_captured_key = pytest.StashKey[dict]()


def _captures(item: pytest.Item) -> dict[str, tuple[Any, dict[str, Any]]]:
    return item.config.stash.setdefault(_captured_key, {})


_replay_key = pytest.StashKey[Any]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome: Any = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        item.stash[_call_failed_key] = True
    if _request(item.config) is None:
        return
    results = item.config.stash.setdefault(_results_key, {})
    entry = results.setdefault(
        item.nodeid, {"outcome": "passed", "duration_s": 0.0, "shared_s": 0.0}
    )
    from lsp_server.factoring.shared_fixtures import SharedFixtureClock

    shared = SharedFixtureClock.of(item.config).take()
    entry["duration_s"] += max(0.0, report.duration - shared)
    entry["shared_s"] += shared
    if report.failed or (report.skipped and entry["outcome"] == "passed"):
        entry["outcome"] = "failed" if report.failed else "skipped"
        entry["phase"] = report.when
        entry["message"] = str(report.longrepr)[-2000:]
    replayer = item.stash.get(_replay_key, None)
    if replayer is not None:
        entry["replayed_calls"] = replayer.answered
        if replayer.divergence is not None:
            entry["divergence"] = str(replayer.divergence)


_results_key = pytest.StashKey[dict]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    wanted = _request(session.config)
    if wanted is None:
        return
    from lsp_server.project.text import write_json_atomic

    out: dict[str, Any] = {"tests": session.config.stash.get(_results_key, {})}
    captured = session.config.stash.get(_captured_key, {})
    out["profiles"] = session.config.stash.get(_profiles_key, {})
    timer = session.config.stash.get(_timer_key, None)
    out["runs"] = timer.runs if timer is not None else {}
    out["captures"] = {nodeid: _capture_summary(*pair) for nodeid, pair in captured.items()}
    if wanted.get("clock_shift_s"):
        from lsp_server.factoring.wall_clock import CHILDREN

        out["children"] = CHILDREN
    write_json_atomic(wanted["output"], out)


def _capture_summary(item: Any, captured: dict[str, Any]) -> dict[str, Any]:
    from lsp_server.factoring import transcript
    from lsp_server.factoring.test_shape import test_shape

    summary: dict[str, Any] = {"test": test_shape(item)}
    recorder = captured.get("recorder")
    if recorder is None:
        summary["refusal"] = captured.get("refusal")
        return summary
    summary["refusal"] = recorder.refusal
    summary["window_s"] = captured["window_s"]
    summary["clock_reads"] = captured.get("clock_reads", [])
    summary["transcript"] = {
        "format": transcript.FORMAT,
        "version": transcript.VERSION,
        "test": item.nodeid,
        "boundary": [b.spec for b in recorder.boundaries],
        "python": transcript.python_version(),
        "captured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "pickled": False,
        "environment": transcript.environment_checksums(recorder.boundaries, recorder.root),
        "objects": recorder.objects,
        "constants": recorder.constants,
        "events": recorder.events,
        "t_clock_reads": captured.get("clock_reads", []),
        "temp_names": captured.get("temp_names", []),
        "clock_readings": captured.get("clock_readings", []),
        "clock_at_start": captured.get("clock_at_start"),
        "t_clock": transcript.CLOCK_REAL,
    }
    limit = (_request(item.config) or {}).get("max_transcript_bytes")
    too_big = transcript.size_refusal(summary["transcript"], limit) if limit else None
    if too_big and summary["refusal"] is None:
        summary["refusal"], summary["transcript"] = too_big, None
    return summary
