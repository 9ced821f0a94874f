"""Functions that ran while the project was imported: swapping their code afterwards cannot
show the change, so their verdicts come from the file rewritten in a private copy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.disk_check import BEFORE_IMPORT
from lsp_server.extreme.model import Verdict
from lsp_server.extreme.on_disk import rewrite_body
from tests.support.reks import run_pytest

# Each import-time shape of the toolz case (``_signatures.get_exclude_keywords -> return
# ()``): a cached constant from a module-level call, a decorator, a class body. Each also
# has a test that calls it without checking anything, so that in place it looks covered.
IMPORT_TIME_PROJECT = {
    "sigs.py": """
        def exclude_keywords():
            names = ("key", "default")
            return names

        EXCLUDED = exclude_keywords()

        def accepts(name):
            return name not in EXCLUDED

        REGISTRY = {}

        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn

        @register
        def double(x):
            return x * 2

        def label_for(kind):
            text = kind.upper()
            return text

        class Shape:
            LABEL = label_for("shape")
    """,
    "test_sigs.py": """
        from sigs import Shape, accepts, double, exclude_keywords, label_for, register

        def test_accepts():
            assert not accepts("key")
            assert accepts("x")

        def test_double():
            assert double(2) == 4

        def test_label():
            assert Shape.LABEL == "SHAPE"

        def test_calls_without_checking():
            exclude_keywords()
            register(len)
            label_for("x")
    """,
}
IMPORT_TIME_FUNCTIONS = ("exclude_keywords", "register", "label_for")


def test_import_time_functions_are_never_falsely_undetected(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(IMPORT_TIME_PROJECT)
    analysis = analyse(root, Options(jobs=1))
    assert {key.split("::")[1] for key in analysis.import_time} >= set(IMPORT_TIME_FUNCTIONS)
    for function in IMPORT_TIME_FUNCTIONS:
        rows = [r for r in analysis.results if r.transformation.function == function]
        assert rows, function
        for row in rows:
            assert row.verdict is Verdict.DETECTED, (function, row)
            assert BEFORE_IMPORT in row.reason  # by a pre-import worker (``pre_import``)
    assert analysis.checked_on_disk >= len(IMPORT_TIME_FUNCTIONS)
    # An ordinary function keeps the fast in-place verdict.
    accepts = [r for r in analysis.results if r.transformation.function == "accepts"]
    assert accepts and all("on disk" not in r.reason for r in accepts)
    assert (root / "sigs.py").read_text().count("return names") == 1  # the user's file intact


def test_without_the_disk_check_import_time_functions_are_not_analysable_in_place(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(IMPORT_TIME_PROJECT)
    analysis = analyse(root, Options(jobs=1, on_disk=False))
    for function in IMPORT_TIME_FUNCTIONS:
        rows = [r for r in analysis.results if r.transformation.function == function]
        assert rows and all(r.verdict is not Verdict.UNDETECTED for r in rows), function
        assert any("not analysable in place" in r.reason for r in rows), function


def test_rewrite_body_replaces_the_body_only() -> None:
    source = (
        "import os\n\n"
        "class A:\n"
        "    @staticmethod\n"
        "    def f(x):  # note\n"
        '        """Doc."""\n'
        "        y = x + 1\n"
        "        return y\n\n"
        "def g():\n"
        "    return 'é'\n"
    )
    assert rewrite_body(source, 5, "f", "return None") == (
        "import os\n\n"
        "class A:\n"
        "    @staticmethod\n"
        "    def f(x):  # note\n"
        '        """Doc."""; return None\n\n\n\n'
        "def g():\n"
        "    return 'é'\n"
    )
    assert rewrite_body(source, 10, "g", "pass").endswith("def g():\n    pass\n")


def test_rewrite_body_keeps_the_docstring_a_swap_in_place_keeps(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A swapped ``__code__`` leaves ``__doc__`` as it was, so a doctest of the function
    # still runs it in place; on disk the doctest vanished ("not found", exit 4) and the
    # two ways disagreed on parse's ``with_pattern``.
    root = make_project(
        {
            "mod.py": """
                def double(x):
                    \"\"\"
                    >>> double(2)
                    4
                    \"\"\"
                    return x * 2
            """
        }
    )
    path = root / "mod.py"
    path.write_text(rewrite_body(path.read_text(), 2, "double", "return None"))
    done = run_pytest(root, "--doctest-modules", "-p", "no:cacheprovider", "mod.py::mod.double")
    assert done.returncode == 1, done.stdout  # the doctest ran and failed


@pytest.mark.slow  # two analyses, each checking transformations on disk: ~8-30 s
def test_on_disk_verdicts_are_kept_after_an_edit_their_runs_did_not_reach(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # test_extra covers the import-time functions too (it imports sigs) but is the slowest
    # test and checks nothing, so it detects no transformation and is never moved first
    # (``test_order``): every disk run stops at an earlier failure and never reaches
    # ``triple``. (When it checked triple's result, the functions taking turns with two
    # workers could move it first for a sigs transformation, the run reached triple, and
    # the edit below rightly checked that verdict again: CI failed on it under load.)
    extra = {
        "tail.py": "def triple(x):\n    y = x * 3\n    return y\n",
        "test_extra.py": """
            import time
            from tail import triple
            from sigs import accepts

            def test_extra_calls():
                time.sleep(0.3)
                triple(1)
                accepts("x")
        """,
    }
    root = make_project({**IMPORT_TIME_PROJECT, **extra})
    first = analyse(root, Options(jobs=2))
    checked = {
        (r.transformation.function, r.transformation.body)
        for r in first.results
        if BEFORE_IMPORT in r.reason
    }
    assert {function for function, _ in checked} >= set(IMPORT_TIME_FUNCTIONS)
    (root / "tail.py").write_text("def triple(x):\n    y = x + x + x\n    return y\n")
    second = analyse(root, Options(jobs=2))
    assert second.checked_on_disk == 0
    assert [(r.transformation, r.verdict) for r in second.results] == [
        (r.transformation, r.verdict) for r in first.results
    ]


@pytest.mark.slow  # three analyses, ~5-15 s
def test_an_edit_of_what_ran_at_import_reaches_the_original_runs_that_read_it(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # test_accepts never calls exclude_keywords, but reads EXCLUDED, which it computed at
    # import: after the edit the test fails without any transformation, so accepts has
    # no verdict; its remembered detections must not be kept as if its tests were the same.
    root = make_project(IMPORT_TIME_PROJECT)
    first = analyse(root, Options(jobs=1, only=["accepts"]))
    assert {r.verdict for r in first.results} == {Verdict.DETECTED}
    sigs = root / "sigs.py"
    sigs.write_text(sigs.read_text().replace('("key", "default")', '("default",)'))
    again = analyse(root, Options(jobs=1, only=["accepts"]))
    cold = analyse(root, Options(jobs=1, only=["accepts"], incremental=False))
    assert [r.verdict for r in cold.results] == [Verdict.SKIPPED]
    assert [(r.verdict, r.reason) for r in again.results] == [
        (r.verdict, r.reason) for r in cold.results
    ]
