"""A transformation's run log records every project unit the transformed run executed, also
the code of a project module that the run imported first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse

LAZY = {
    "m.py": """
        def outer(x):
            from helper import inc  # imported by the first test run that gets here
            y = inc(x)
            return y


        def check(x):
            ok = x > 0
            return ok
    """,
    "helper.py": """
        def inc(x):
            z = x + 1
            return z
    """,
    "test_m.py": """
        from m import check, outer

        def test_both():
            assert check(2)
            assert outer(1) == 2
    """,
}


def test_a_run_log_records_a_project_module_first_imported_by_the_run(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(LAZY)
    analysis = analyse(root, Options(paths=[root / "m.py"], jobs=1, incremental=False))
    runs = {
        (r.transformation.function, r.transformation.body): set(r.units or [])
        for r in analysis.results
    }
    # check -> return True: the test goes on into outer, which imports helper.
    assert {"m.py::check", "m.py::outer", "helper.py::inc"} <= runs[("check", "return True")]
    # check -> return False fails at once: nothing of outer or helper ran.
    assert "helper.py::inc" not in runs[("check", "return False")]
