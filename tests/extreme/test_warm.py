"""Warm workers kept between analyses: an edited function body is followed in the live
workers (no new collection), and its verdicts are those of a cold analysis."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.code_swap import compile_like
from lsp_server.extreme.pool import WorkerPool
from lsp_server.extreme.warm import WarmPools

from .conftest import rewritten_with_the_same_stamp, stamped_later, verdict_rows

SOURCE = """\
def label(x):
    text = "n%d" % x
    return 1


def double(x):
    y = x * 2
    return y
"""


def test_an_edited_body_is_reanalysed_on_the_warm_workers(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": SOURCE,
            "test_m.py": """
                from m import double, label

                def test_label_runs():
                    label(3)

                def test_double():
                    assert double(2) == 4
            """,
        }
    )
    warm = WarmPools()
    try:
        first = analyse(root, Options(jobs=1), warm=warm)
        assert ("label", "return 1", "undetected") in verdict_rows(first)
        (pool,) = [p for p, _ in warm._pools.values()]
        pids = [w.process.pid for w in pool.workers]
        # label now returns a string (so other transformations), two lines longer: double
        # moves down but is unchanged.
        edited = SOURCE.replace("    return 1\n", "    text = text.upper()\n\n    return text\n")
        (root / "m.py").write_text(edited)
        second = analyse(root, Options(jobs=1), warm=warm)
        assert warm.restarts == 1
        (again,) = [p for p, _ in warm._pools.values()]
        assert [w.process.pid for w in again.workers] == pids
        assert second.reused == {"m.py::double"}
        assert second.observed_tests == 1  # only the test that ran label before
        cold = analyse(root, Options(jobs=1, incremental=False))
        assert verdict_rows(second) == verdict_rows(cold)
        assert ("label", 'return ""', "undetected") in verdict_rows(second)

        test_file = root / "test_m.py"
        test_file.write_text(test_file.read_text() + "\ndef test_more():\n    double(1)\n")
        third = analyse(root, Options(jobs=1), warm=warm)
        assert warm.restarts == 2  # a test was added: collected afresh
        assert "test_m.py::test_more" in third.covering["m.py::double"]
    finally:
        warm.close()
    assert warm._pools == {}


def test_a_new_snapshot_sees_an_edit_that_kept_the_size_and_the_mtime(tmp_path: Path) -> None:
    from lsp_server.extreme.warm import snapshot_files

    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    first = snapshot_files(tmp_path)
    # Same size, same mtime (a second write within the file system's clock tick, or a
    # file system that stamps to the second): only the bytes say it changed.
    stat = (tmp_path / "a.py").stat()
    (tmp_path / "a.py").write_text("A = 2\n")
    os.utime(tmp_path / "a.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (tmp_path / "b.py").write_text("B = 22\n")
    second = snapshot_files(tmp_path, first)
    assert second.texts == {"a.py": "A = 2\n", "b.py": "B = 22\n"}
    third = snapshot_files(tmp_path, second)
    assert third.texts["a.py"] is second.texts["a.py"]  # unchanged bytes: the text is kept


@pytest.mark.slow  # two analyses, ~5-12 s
def test_an_edit_that_kept_the_size_and_the_mtime_is_followed_by_the_warm_workers(
    make_project: Callable[[dict[str, str]], Path], warm_pools: WarmPools
) -> None:
    tests = "from m import double\n\ndef test_double():\n    assert double(2) == 4\n"
    root = make_project({"m.py": SOURCE, "test_m.py": tests})
    stamped_later(root / "m.py")
    first = analyse(root, Options(jobs=1), warm=warm_pools)
    assert ("double", "return 0", "detected") in verdict_rows(first)
    # test_double fails now.
    rewritten_with_the_same_stamp(root / "m.py", SOURCE.replace("y = x * 2", "y = x * 3"))
    again = analyse(root, Options(jobs=1), warm=warm_pools)
    assert ("double", "(any)", "skipped") in verdict_rows(again)


CACHE = """\
class Cache:
    def __init__(self, size):
        self.__size = size
        self.sized = type(self).getsize is not Cache.getsize

    def getsize(self):
        n = self.__size
        return n
"""


def test_a_method_naming_its_own_class_compiles_without_free_variables() -> None:
    (method,) = [n for n in ast.walk(ast.parse(CACHE)) if getattr(n, "name", "") == "__init__"]
    code = compile_like(method, (), "m.py", "Cache")  # raised SwapError: ('Cache',) free
    assert code.co_freevars == ()
    assert "Cache" in code.co_names and "_Cache__size" in code.co_names


@pytest.mark.slow  # three analyses, ~5-12 s
def test_an_edited_method_naming_its_own_class_is_followed(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # cachetools' Cache.__init__ reads Cache.getsizeof: the method compiled inside a class
    # of that name made ``Cache`` a free variable, the swap was refused and every edit
    # started the workers afresh.
    root = make_project(
        {
            "m.py": CACHE,
            "test_m.py": """
                from m import Cache

                def test_size():
                    assert Cache(3).getsize() == 3
                    assert not Cache(3).sized
            """,
        }
    )
    warm = WarmPools()
    try:
        analyse(root, Options(jobs=1), warm=warm)
        edited = CACHE.replace("        self.__size = size\n", "        self.__size = size + 0\n")
        (root / "m.py").write_text(edited)
        second = analyse(root, Options(jobs=1, only=["m.py::Cache.__init__"]), warm=warm)
        assert warm.restarts == 1
        cold = analyse(root, Options(jobs=1, incremental=False))
        init = [r for r in verdict_rows(cold) if r[0] == "Cache.__init__"]
        assert verdict_rows(second) == init
    finally:
        warm.close()


DOCUMENTED = '''\
def shout(x):
    """Loud."""
    text = x.upper()
    return text
'''


@pytest.mark.slow  # three analyses, ~5-12 s
def test_an_edited_docstring_is_followed_and_seen_by_the_tests(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # test_doc reads shout.__doc__: the live function must show the new docstring, and
    # following it (no new collection) gives the verdicts of a cold analysis.
    root = make_project(
        {
            "m.py": DOCUMENTED,
            "test_m.py": """
                from m import shout

                def test_doc():
                    shout("a")
                    assert shout.__doc__ == "Quiet."
            """,
        }
    )
    warm = WarmPools()
    try:
        first = analyse(root, Options(jobs=1), warm=warm)
        assert {r.verdict.value for r in first.results} == {"skipped"}  # test_doc fails
        (root / "m.py").write_text(DOCUMENTED.replace("Loud.", "Quiet.") + "\n")
        second = analyse(root, Options(jobs=1), warm=warm)
        assert warm.restarts == 1
    finally:
        warm.close()
    cold = analyse(root, Options(jobs=1, incremental=False))
    assert {r.verdict.value for r in cold.results} == {"undetected"}
    assert verdict_rows(second) == verdict_rows(cold)


SPARE_SOURCE = """\
def excluded():
    names = ("key", "default")
    return names


EXCLUDED = excluded()


def accepts(name):
    ok = name not in EXCLUDED
    return ok
"""

SPARE_TESTS = """\
from m import accepts

def test_accepts():
    assert accepts("x")
    assert not accepts("key")
"""


def _spare(warm: WarmPools) -> WorkerPool:
    (spare,) = warm._spares.values()
    return spare


def _saved_on_spares(
    make_project: Callable[[dict[str, str]], Path],
    conftest: str,
    saves: Sequence[str],
    meanwhile: Callable[[WarmPools], None] = lambda warm: None,
) -> WarmPools:
    """Analyse the spare project (its ``conftest``) on warm workers, do ``meanwhile`` to the
    pools, then save m.py with each of ``saves`` (the names ``excluded`` returns) and
    analyse again: the last analysis's verdicts must be a cold one's. The pools, closed."""
    files = {"m.py": SPARE_SOURCE, "test_m.py": SPARE_TESTS, "conftest.py": conftest}
    root = make_project(files)
    warm = WarmPools()
    try:
        again = analyse(root, Options(jobs=1), warm=warm)
        meanwhile(warm)
        for names in saves:
            (root / "m.py").write_text(SPARE_SOURCE.replace('("key", "default")', names))
            again = analyse(root, Options(jobs=1), warm=warm)
    finally:
        warm.close()
    cold = analyse(root, Options(jobs=1, incremental=False))
    assert verdict_rows(again) == verdict_rows(cold)
    return warm


@pytest.mark.slow  # three analyses, ~6-15 s
@pytest.mark.parametrize("conftest", ["", "import m\n"])
def test_a_restart_starts_from_a_spare_unless_its_session_imported_an_edit(
    make_project: Callable[[dict[str, str]], Path], conftest: str
) -> None:
    # An edit of ``excluded`` (it ran at import) cannot be followed: the pool restarts,
    # from the spare spawned when it was given back (Python and pytest started). When the
    # conftest imports m, a spare waiting to collect would hold the old EXCLUDED: the
    # spare waits before pytest starts (no conftest loaded) and sees the edit.
    warm = _saved_on_spares(make_project, conftest, ['("default",)'])
    assert (warm.restarts, warm.spares_used, warm.spares_started) == (2, 1, 2)


@pytest.mark.slow  # four analyses, ~8-20 s
def test_a_conftest_importing_the_project_gets_a_spare_that_started_before_pytest(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The conftest imports m: a spare waiting to collect would hold the old EXCLUDED after
    # the edit. A spare that waits before pytest starts (Python, pytest and reks imported,
    # no conftest, nothing of the project) is usable after any edit, and sees the new code.
    saves = ['("default",)', '("default", "key")']
    warm = _saved_on_spares(make_project, "import m\n", saves)
    assert (warm.restarts, warm.spares_used) == (3, 2)


@pytest.mark.slow  # three analyses, ~6-15 s
def test_a_spare_whose_process_died_is_not_used(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A spare waits from one give-back to the next restart (a spare waiting before pytest,
    # for many saves): one that died meanwhile (killed, out of memory) leaves the restart
    # to start from nothing, not failing the analysis.
    def kill_the_spare(warm: WarmPools) -> None:
        _spare(warm).workers[0].process.kill()

    warm = _saved_on_spares(make_project, "import m\n", ['("default",)'], kill_the_spare)
    assert (warm.restarts, warm.spares_used) == (2, 0)


@pytest.mark.slow  # three analyses, ~5-12 s
def test_a_spare_waiting_before_pytest_imported_the_sessions_libraries(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The conftest imports m and a library (colorsys: pytest imports no such module): the
    # spare waiting before pytest imports the library meanwhile, not m, and the restart
    # from it sees the edit.
    def spare_imported_the_library(warm: WarmPools) -> None:
        assert _spare(warm).waiting() == set()  # nothing of the project
        assert "colorsys" in _spare(warm).libraries

    conftest = "import colorsys\nimport m\n"
    warm = _saved_on_spares(make_project, conftest, ['("default",)'], spare_imported_the_library)
    assert warm.spares_used == 1


@pytest.mark.slow  # three analyses, ~5-15 s
def test_a_kept_pool_whose_worker_died_is_started_afresh(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A worker of the kept pool killed between two saves (out of memory, by hand): the
    # next analysis starts the pool afresh instead of failing on the dead worker.
    tests = "from m import double\n\ndef test_double():\n    assert double(2) == 4\n"
    root = make_project({"m.py": SOURCE, "test_m.py": tests})
    warm = WarmPools()
    try:
        analyse(root, Options(jobs=1), warm=warm)
        ((pool, _),) = warm._pools.values()
        pool.workers[0].process.kill()
        (root / "m.py").write_text(SOURCE.replace("y = x * 2", "y = x + x"))
        again = analyse(root, Options(jobs=1), warm=warm)
        assert warm.restarts == 2
    finally:
        warm.close()
    cold = analyse(root, Options(jobs=1, incremental=False))
    assert verdict_rows(again) == verdict_rows(cold)
