"""Real pytest sessions with ``--reks`` on temporary projects: exactly which tests run after
each kind of edit."""

from __future__ import annotations

import pytest

from lsp_server.rts.store import store_path

from .helpers import edit, run, run_result, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:

    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3


        class Box:
            size = 2

            def grow(self, n):
                return self.size + n


        def f(x):
            return x + 1


        def g(x):
            return x * 2


        def prepare():
            return 7
        """,
    )
    write(
        pytester,
        "other.py",
        """
        def h():
            return "h"
        """,
    )
    write(
        pytester,
        "helper.py",
        """
        def make():
            return 41
        """,
    )
    write(
        pytester,
        "conftest.py",
        """
        import pytest


        @pytest.fixture(scope="session")
        def sess():
            import helper
            return helper.make()


        @pytest.fixture
        def small():
            return 5
        """,
    )
    write(pytester, "data/config.txt", "on\n")
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_f():
            assert mod.f(1) == 2


        def test_g():
            assert mod.g(2) == 4


        def test_box():
            assert mod.Box().grow(1) == 3


        def test_limit():
            assert mod.LIMIT == 3


        class TestPrepared:
            @classmethod
            def setup_class(cls):
                cls.value = mod.prepare()

            def test_one(self):
                assert self.value == 7

            def test_two(self):
                assert self.value > 0
        """,
    )
    write(
        pytester,
        "test_other.py",
        """
        import other


        def test_h():
            assert other.h() == "h"


        def test_sess(sess):
            assert sess == 41


        def test_small(small):
            assert small == 5


        def test_config():
            with open("data/config.txt") as fh:
                assert fh.read() == "on\\n"
        """,
    )
    write(
        pytester,
        "test_sess2.py",
        """
        def test_sess_again(sess):
            assert sess + 1 == 42
        """,
    )
    return pytester


ALL = {
    "test_f",
    "test_g",
    "test_box",
    "test_limit",
    "TestPrepared::test_one",
    "TestPrepared::test_two",
    "test_h",
    "test_sess",
    "test_small",
    "test_config",
    "test_sess_again",
}


def test_first_run_runs_all_then_nothing(project: pytest.Pytester) -> None:
    assert run(project) == ALL
    assert run(project) == set()


def test_function_body_edit(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x * 2", "return x + x")
    assert run(project) == {"test_g"}
    assert run(project) == set()


def test_comment_and_format_only_edit_selects_nothing(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x * 2", "return x*2  # doubled\n\n\n")
    edit(project, "mod.py", "LIMIT = 3", "# limits\nLIMIT  =  3")
    assert run(project) == set()


def test_class_attribute_edit(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "size = 2", "size = 3")
    ran = run(project)
    # The class is a unit of its own: only the test that uses it runs.
    assert ran == {"test_box"}


def test_module_constant_edit(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "LIMIT = 3", "LIMIT = 4")
    ran = run(project)
    assert "test_limit" in ran
    assert not ran & {"test_h", "test_sess", "test_small", "test_config", "test_sess_again"}


def test_setup_class_dependency(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return 7", "return 8")
    # setup_class ran once, during test_one, but both methods depend on it.
    assert run(project) == {"TestPrepared::test_one", "TestPrepared::test_two"}


def test_session_fixture_dependency(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "helper.py", "return 41", "return 40 + 1")
    # The session fixture was set up once, for test_sess; test_sess_again uses it too.
    assert run(project) == {"test_sess", "test_sess_again"}


def test_conftest_fixture_and_module_edits(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "conftest.py", "return 5", "return 4 + 1")
    assert run(project) == {"test_small"}
    # A new constant nothing reads selects nothing; a new import may run anything.
    edit(project, "conftest.py", "import pytest", "import pytest\nFLAG = 1")
    assert run(project) == set()
    # A standard-library import nobody reads is a binding; any other import runs code.
    edit(project, "conftest.py", "import pytest", "import pytest\nimport json")
    assert run(project) == set()
    edit(project, "conftest.py", "import json", "import _pytest")
    assert run(project) == ALL


def test_data_file_read_by_a_test(project: pytest.Pytester) -> None:
    run(project)
    (project.path / "data/config.txt").write_text("off\n")
    assert run(project) == {"test_config"}  # and it fails
    assert run(project) == {"test_config"}  # failed tests always rerun
    (project.path / "data/config.txt").write_text("on\n")
    assert run(project) == {"test_config"}
    assert run(project) == set()


def test_data_file_deleted(project: pytest.Pytester) -> None:
    run(project)
    (project.path / "data/config.txt").unlink()
    assert run(project) == {"test_config"}


def test_renamed_test_file_is_new(project: pytest.Pytester) -> None:
    run(project)
    (project.path / "test_sess2.py").rename(project.path / "test_sess3.py")
    assert run(project) == {"test_sess_again"}
    assert run(project) == set()


def test_unparsable_source(project: pytest.Pytester) -> None:
    write(
        project,
        "lazy.py",
        """
        def value():
            return 1
        """,
    )
    write(
        project,
        "test_lazy.py",
        """
        def test_lazy():
            import lazy
            assert lazy.value() == 1
        """,
    )
    assert run(project) == {*ALL, "test_lazy"}
    edit(project, "lazy.py", "return 1", "return (1")
    assert run(project) == {"test_lazy"}  # fails: SyntaxError at import
    edit(project, "lazy.py", "return (1", "return 1")
    assert run(project) == {"test_lazy"}
    assert run(project) == set()


def test_failing_test_reruns_until_fixed(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "other.py", 'return "h"', 'return "x"')
    assert run(project) == {"test_h"}
    assert run(project) == {"test_h"}
    edit(project, "other.py", 'return "x"', 'return "h"')
    assert run(project) == {"test_h"}
    assert run(project) == set()


def test_without_cacheprovider(project: pytest.Pytester) -> None:
    assert run(project, "-p", "no:cacheprovider") == ALL
    edit(project, "mod.py", "return x + 1", "return 1 + x")
    assert run(project, "-p", "no:cacheprovider") == {"test_f"}


def test_marker_expression_in_addopts(project: pytest.Pytester) -> None:
    write(
        project,
        "pytest.ini",
        """
        [pytest]
        addopts = -m "not slow"
        markers = slow: slow
        """,
    )
    write(
        project,
        "test_slow.py",
        """
        import pytest
        import mod


        @pytest.mark.slow
        def test_slow():
            assert mod.f(0) == 1
        """,
    )
    assert run(project) == ALL
    edit(project, "mod.py", "return x + 1", "return 1 + x")
    assert run(project) == {"test_f"}


def test_keyword_selection_keeps_other_records(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x + 1", "return 1 + x")
    edit(project, "mod.py", "return x * 2", "return x + x")
    assert run(project, "-k", "test_f") == {"test_f"}
    assert run(project) == {"test_g"}
    assert run(project) == set()


def test_last_failed(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "other.py", 'return "h"', 'return "x"')
    edit(project, "mod.py", "return x + 1", "return 1 + x")
    assert run(project, "--lf") == {"test_h", "test_f"}
    edit(project, "mod.py", "return x * 2", "return x + x")
    # --lf narrows to the last failure; reks still selects it (it failed last time).
    assert run(project, "--lf") == {"test_h"}
    assert run(project) == {"test_h", "test_g"}


def test_explicit_node_ids(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x + 1", "return 1 + x")
    assert run(project, "test_mod.py::test_g", "test_mod.py::test_f") == {"test_f"}


def test_exit_first_keeps_unrun_tests_selected(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x + 1", "return x + 2")  # test_f fails
    edit(project, "mod.py", "return x * 2", "return x + x")
    assert run(project, "-x") == {"test_f"}
    assert run(project) == {"test_f", "test_g"}


def test_reks_all_reruns_everything(project: pytest.Pytester) -> None:
    run(project)
    assert run(project, flag="--reks-all") == ALL


def test_dry_run_lists_reasons_without_running(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x * 2", "return x + x")
    result = run_result(project, "--reks-dry-run")
    result.stdout.fnmatch_lines(
        [
            "*test_mod.py::test_g  (mod.py::g changed)*",
            "*reks: 1 would run; 10 unchanged not run: 5 deselected, 5 in 2 files not collected*",
        ]
    )
    assert result.ret == 0
    assert run(project) == {"test_g"}


def test_summary_line(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "mod.py", "return x * 2", "return x + x")
    result = run_result(project, "--reks")
    result.stdout.fnmatch_lines(
        ["*reks: 1 selected; 10 unchanged not run: 5 deselected, 5 in 2 files not collected*"]
    )
    result = run_result(project, "--reks")
    assert result.ret == 0  # nothing to run is a success


def test_inert_without_options(project: pytest.Pytester) -> None:
    # pytest-asyncio is left out: unconfigured in this inner project it warns about its
    # loop scope, and that warning would surface in our own suite's summary.
    result = project.runpytest("-p", "no:asyncio")
    result.assert_outcomes(passed=len(ALL))
    assert not (project.path / ".reks").exists()


def test_corrupt_store(project: pytest.Pytester) -> None:
    path = store_path(project.path)
    path.parent.mkdir()
    path.write_bytes(b"garbage" * 200)
    result = run_result(project, "--reks")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*is corrupt*reks store --rebuild*"])
    assert path.read_bytes() == b"garbage" * 200
    assert run(project, flag="--reks-all") == ALL
    assert path.with_name(path.name + ".bak").exists()
    assert run(project) == set()


def test_changed_plugin_option_selects_everything(project: pytest.Pytester) -> None:
    run(project)
    write(
        project,
        "pytest.ini",
        """
        [pytest]
        log_level = INFO
        """,
    )
    result = run_result(project, "--reks-dry-run")
    # The reason says which option changed.
    result.stdout.fnmatch_lines(
        ["*test_mod.py::test_f  (environment changed: option ini.log_level*"]
    )
    assert run(project) == ALL
    assert run(project) == set()


def test_collection_time_code_and_data(project: pytest.Pytester) -> None:
    """Parameters built at import time by a helper function, and read from a data file:
    same node ids after the edit, so only collection-time tracing can select them."""
    write(
        project,
        "cases.py",
        """
        def build():
            return [1, 2]
        """,
    )
    write(project, "data/cases.txt", "3\n4\n")
    write(
        project,
        "test_cases.py",
        """
        import pytest

        import cases

        with open("data/cases.txt") as fh:
            FROM_FILE = [int(line) for line in fh]


        @pytest.mark.parametrize("n", cases.build(), ids=["a", "b"])
        def test_built(n):
            assert n < 3


        @pytest.mark.parametrize("n", FROM_FILE, ids=["c", "d"])
        def test_read(n):
            assert n > 2
        """,
    )
    assert run(project) == {*ALL, "test_built[a]", "test_built[b]", "test_read[c]", "test_read[d]"}
    edit(project, "cases.py", "[1, 2]", "[1, 5]")
    assert run(project) == {"test_built[a]", "test_built[b]", "test_read[c]", "test_read[d]"}
    (project.path / "data/cases.txt").write_text("3\n1\n")
    assert run(project) == {"test_built[b]", "test_built[a]", "test_read[c]", "test_read[d]"}


def test_a_reks_run_does_not_open_with_pytest_asyncios_configuration_warning(
    project: pytest.Pytester,
) -> None:
    """pytest-asyncio (installed with reks's dev tools) warns about its unset loop scope in
    every run of a project that never configured it: noise that is not the project's."""
    pytest.importorskip("pytest_asyncio")
    result = project.runpytest_subprocess("--reks", "-p", "asyncio")
    assert result.ret == 0
    output = result.stdout.str() + result.stderr.str()
    assert "PytestDeprecationWarning" not in output and "is unset" not in output
