"""rope in a worker process (``ProcessEngine``): real worker processes, real rope."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.jobs import Cancelled, Job
from lsp_server.refactor import rope_worker
from lsp_server.refactor.model import FileEdit, FileRename, RefactoringError, RefactorRequest
from lsp_server.refactor.process_engine import ProcessEngine
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin
from lsp_server.sandbox import SandboxProcess
from tests.support.processes import stop_process


@pytest.fixture
def remote(project: Path) -> Iterator[ProcessEngine]:
    engine = ProcessEngine()
    engine.add_root(str(project))
    yield engine
    engine.close()


def rename(path: Path, needle: str, new_name: str, text: str | None = None) -> RefactorRequest:
    offset = (text if text is not None else path.read_text()).index(needle) + len("def ")
    return RefactorRequest("rename", str(path), offset, args={"new_name": new_name})


def edit_of(result, path: Path) -> FileEdit:
    return next(e for e in result.edits if isinstance(e, FileEdit) and e.path == str(path))


def many_users(root: Path, files: int = 100) -> Path:
    """A project where renaming ``target`` keeps rope busy for a while."""
    root.mkdir()
    (root / "base.py").write_text("def target(x):\n    return x\n")
    for i in range(files):
        (root / f"user{i}.py").write_text(
            "from base import target\n\n\n"
            + "".join(f"def f{j}(a):\n    return target(a) + {j}\n\n\n" for j in range(20))
        )
    return root / "base.py"


def test_rope_runs_in_another_process_on_the_unsaved_buffers(remote: ProcessEngine, project: Path):
    util = project / "geometry/util.py"
    buffer = util.read_text() + "\n\ndef unsaved():\n    return double(1)\n"
    remote.set_overlay(str(util), buffer)
    result = remote.compute(rename(util, "def double", "twice", buffer))
    worker = remote.processes[str(project.resolve())].pid
    assert worker is not None and worker != os.getpid()
    assert "return twice(1)" in edit_of(result, util).new_text
    assert (Unit("geometry/util.py", "double"), Unit("geometry/util.py", "twice")) in {
        (c.old, c.new) for c in result.provenance.changes if c.origin is Origin.REPLACED
    }
    # the buffer is closed: the worker reads the disk again
    remote.set_overlay(str(util), None)
    again = remote.compute(rename(util, "def double", "twice"))
    assert "unsaved" not in edit_of(again, util).new_text
    assert remote.prepare_rename(str(util), util.read_text().index("quadruple")).name == (
        "quadruple"
    )


def test_applied_result_reaches_the_worker(remote: ProcessEngine, project: Path):
    util = project / "geometry/util.py"
    remote.apply(remote.compute(rename(util, "def double", "twice")), str(project))
    assert "def twice" in util.read_text()
    result = remote.compute(rename(util, "def twice", "thrice"))
    assert "def thrice(value)" in edit_of(result, util).new_text


def test_module_rename_and_move_in_the_worker(remote: ProcessEngine, project: Path):
    old, new = project / "geometry/util.py", project / "tools/numbers.py"
    (project / "tools").mkdir()
    (project / "tools/__init__.py").write_text("")
    result = remote.submit_module_move(str(old), str(new)).result(timeout=60)
    assert FileRename(str(old), str(new)) in result.edits
    assert result.provenance.kind == "move-module"


def test_prewarm_reports_progress_from_the_worker(remote: ProcessEngine, project: Path):
    seen: list[tuple[int, int | None]] = []
    job = Job(on_progress=lambda d, t, m: seen.append((d, t)))
    remote.prewarm(str(project), job).result(timeout=60)
    assert seen and seen[-1][0] == seen[-1][1]


def test_cancelling_a_running_rename_stops_rope_in_the_worker(tmp_path: Path):
    base = many_users(tmp_path / "many")
    engine = ProcessEngine()
    engine.add_root(str(base.parent))
    try:
        engine.prewarm(str(base.parent)).result(timeout=60)
        worker = engine.process_for(str(base)).pid
        job = RopeJob()
        future = engine.submit(rename(base, "def target", "aim"), job)
        time.sleep(0.3)
        job.cancel()
        with pytest.raises(Cancelled):
            future.result(timeout=30)
        assert engine.process_for(str(base)).pid == worker  # rope stopped, nothing killed
        assert engine.prepare_rename(str(base), 4).name == "target"
    finally:
        engine.close()


def stopped_worker(remote: ProcessEngine, path: Path) -> int:
    """The pid of ``path``'s worker, started and then stopped (SIGSTOP): a worker stuck in a
    task that never checks for cancellation."""
    remote.prepare_rename(str(path), path.read_text().index("double"))
    worker = remote.process_for(str(path)).pid
    assert worker is not None
    stop_process(worker)
    return worker


def test_a_worker_that_ignores_cancellation_is_replaced(
    remote: ProcessEngine, project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(rope_worker, "CANCEL_GRACE", 0.5)
    util = project / "geometry/util.py"
    worker = stopped_worker(remote, util)
    job = RopeJob()
    future = remote.submit(rename(util, "def double", "twice"), job)
    job.cancel()
    with pytest.raises(Cancelled):
        future.result(timeout=30)
    result = remote.compute(rename(util, "def double", "twice"))
    assert "def twice" in edit_of(result, util).new_text
    assert remote.process_for(str(util)).pid not in (None, worker)


def test_tasks_held_by_a_worker_killed_for_another_tasks_cancellation_are_answered(
    remote: ProcessEngine, project: Path, monkeypatch: pytest.MonkeyPatch
):
    """A worker that runs a cancelled task past the grace is killed; the other tasks it held
    did nothing wrong and are answered by the new worker, not failed with it."""
    monkeypatch.setattr(rope_worker, "CANCEL_GRACE", 0.5)
    util = project / "geometry/util.py"
    worker = stopped_worker(remote, util)
    job = RopeJob()
    cancelled = remote.submit(rename(util, "def double", "twice"), job)
    innocent = remote.submit(rename(util, "def quadruple", "q4"))
    job.cancel()
    with pytest.raises(Cancelled):
        cancelled.result(timeout=30)
    assert "def q4(value)" in edit_of(innocent.result(timeout=60), util).new_text
    assert remote.process_for(str(util)).pid not in (None, worker)


def test_a_crashed_worker_fails_the_request_and_is_restarted(remote: ProcessEngine, project: Path):
    util, app = project / "geometry/util.py", project / "app.py"
    buffer = app.read_text() + "\nfrom geometry.util import double\nkept = double(7)\n"
    remote.set_overlay(str(app), buffer)
    remote.prepare_rename(str(util), util.read_text().index("double"))
    worker = remote.process_for(str(util)).pid
    assert worker is not None
    stop_process(worker)  # so that it dies with the request in hand
    future = remote.submit(rename(util, "def double", "twice"))
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(RefactoringError, match=r"worker stopped .*try again"):
        future.result(timeout=30)
    # a new worker, which got the unsaved buffer too
    result = remote.compute(rename(util, "def double", "twice"))
    assert "kept = twice(7)" in edit_of(result, app).new_text
    assert remote.process_for(str(util)).pid not in (None, worker)


def test_answers_keep_coming_after_a_waiter_gave_up(remote: ProcessEngine, project: Path):
    util = project / "geometry/util.py"
    job = RopeJob()
    future = remote.submit(rename(util, "def double", "twice"), job)
    assert future.cancel()  # what asyncio.wrap_future does when the awaiting task is cancelled
    job.cancel()
    result = remote.submit(rename(util, "def quadruple", "q4")).result(timeout=30)
    assert "def q4(value)" in edit_of(result, util).new_text


def test_a_task_cancelled_while_queued_is_answered_at_once(tmp_path: Path):
    base = many_users(tmp_path / "many")
    engine = ProcessEngine()
    engine.add_root(str(base.parent))
    try:
        engine.prepare_rename(str(base), 4)  # started and answering
        long = engine.submit(rename(base, "def target", "aim"))
        job = RopeJob()
        queued = engine.submit(rename(base, "def target", "goal"), job)
        job.cancel()
        with pytest.raises(Cancelled):
            queued.result(timeout=60)
        assert not long.done()  # answered without waiting for the task before it
        assert long.result(timeout=120).edits
    finally:
        engine.close()


def test_a_worker_being_killed_is_never_handed_a_new_request(
    remote: ProcessEngine, project: Path, monkeypatch: pytest.MonkeyPatch
):
    """Between the kill of a worker that ignored a cancellation and its death, a request
    that arrives must start a new worker, not go to the dying one (and fail with it)."""
    monkeypatch.setattr(rope_worker, "CANCEL_GRACE", 0.2)
    util = project / "geometry/util.py"
    rope = remote.process_for(str(util))
    handed_out_while_killed: list[bool] = []

    class Watched(SandboxProcess):
        def kill(self) -> None:
            with rope._lock:
                handed_out_while_killed.append(rope._process is self)
            super().kill()

    rope._start = lambda root: (
        Watched(sys.executable, ["-m", "lsp_server.refactor.rope_process"], new_session=True),
        False,
    )
    remote.prepare_rename(str(util), util.read_text().index("double"))
    worker = rope.pid
    assert worker is not None
    stop_process(worker)
    job = RopeJob()
    future = remote.submit(rename(util, "def double", "twice"), job)
    job.cancel()
    with pytest.raises(Cancelled):
        future.result(timeout=30)
    assert handed_out_while_killed == [False]


def _early_worker_told(root: Path) -> SandboxProcess:
    from lsp_server.refactor import rope_spare

    rope_spare.start_early()
    early = rope_spare._early
    assert early is not None
    rope_spare.bind_early(str(root.resolve()))
    return early


def _worker_that_renames(project: Path) -> int | None:
    """The pid of the worker a new engine's rename of ``double`` in ``project`` ran in."""
    engine = ProcessEngine()
    try:
        engine.add_root(str(project))
        util = project / "geometry/util.py"
        result = engine.compute(rename(util, "def double", "twice"))
        assert "def twice" in edit_of(result, util).new_text
        return engine.process_for(str(util)).pid
    finally:
        engine.close()


def test_the_early_worker_told_the_root_serves_that_folder(project: Path):
    """``reks serve`` tells its first worker the root of the client's ``initialize``
    before the server has imported its code: the engine hands that worker to that
    folder (told once: a second root message would be taken for a task) and it renames."""
    early = _early_worker_told(project)
    assert _worker_that_renames(project) == early.pid


def test_an_early_worker_told_another_root_is_not_used_for_this_one(project: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    early = _early_worker_told(elsewhere)
    assert _worker_that_renames(project) != early.pid
    early.process.wait(timeout=30)  # ended: no other folder can use it


_WITHOUT_ROPE = """
import sys
from lsp_server.refactor.process_engine import ProcessEngine
from lsp_server.refactor.model import RefactorRequest
from lsp_server.refactor.rope_thread import RopeJob
import lsp_server.server  # everything the language server imports

root, util = sys.argv[1], sys.argv[2]
engine = ProcessEngine()
engine.add_root(root)
text = open(util).read() + "\\nkept = double(2)\\n"
engine.set_overlay(util, text)
offset = text.index("def double") + len("def ")
request = RefactorRequest("rename", util, offset, args={"new_name": "twice"})
result = engine.compute(request, RopeJob())
assert any("kept = twice(2)" in getattr(edit, "new_text", "") for edit in result.edits)
cancelled = RopeJob()
cancelled.cancel()
engine.close()
print(sorted(name for name in sys.modules if name == "rope" or name.startswith("rope.")))
"""


def test_the_server_process_never_imports_rope(project: Path):
    """rope runs in the worker: the server's process (its imports, its jobs, a rename
    through the worker) never loads it, a tenth of a second of its start (issue 15)."""
    util = project / "geometry/util.py"
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ROPE, str(project), str(util)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_a_rename_cancelled_while_rope_parses_the_files_is_answered_promptly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Before its rename starts, rope parses every file that holds the old name (the
    syntax check) without looking at its task handle: a rename cancelled then must stop
    at the next file, not run on until the worker is killed for it (issue 15)."""
    monkeypatch.setattr(rope_worker, "CANCEL_GRACE", 30.0)
    root = tmp_path / "wide"
    root.mkdir()
    (root / "base.py").write_text("def target(x):\n    return x\n")
    body = "".join(f"def f{j}(a):\n    b = [a, {j}]\n    return b\n\n\n" for j in range(150))
    for i in range(300):
        (root / f"user{i}.py").write_text(f"from base import target\n\n\n{body}")
    base = root / "base.py"
    engine = ProcessEngine()
    engine.add_root(str(root))
    try:
        engine.prepare_rename(str(base), 4)  # the worker is up, has read ahead, is idle
        worker = engine.process_for(str(base)).pid
        job = RopeJob()
        future = engine.submit(rename(base, "def target", "aim"), job)
        time.sleep(0.5)  # rope is parsing the 300 files (seconds of work)
        job.cancel()
        cancelled = time.monotonic()
        with pytest.raises(Cancelled):
            future.result(timeout=60)
        assert time.monotonic() - cancelled < 1.5
        assert engine.process_for(str(base)).pid == worker
    finally:
        engine.close()
