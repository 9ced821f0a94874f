"""A ``reks extreme`` run starts its pytest worker as a fork of its own process (pytest
and reks imported once, ``extreme.fork_safety``) only where no test can tell: a project
with a module of the same name as one reks imported gets a new interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.fork_safety import worker_can_fork

# The test writes down what the worker that runs it had imported before the tests, and
# where ``difflib`` comes from: reks's process imports the standard library's.
PROBE_TEST = """
    import json, sys, warnings
    from calc import total

    def test_total():
        import difflib
        seen = {"reks_analysis": "lsp_server.extreme.analysis" in sys.modules,
                "difflib": getattr(difflib, "__file__", ""),
                "warnings_ignored": [f[2].__name__ for f in warnings.filters if f[0] == "ignore"]}
        with open("seen.json", "w") as handle:
            json.dump(seen, handle)
        assert total([1, 2]) == 3
"""
CALC = """
    def total(values):
        result = 0
        for value in values:
            result += value
        return result
"""


def _extreme(root: Path) -> dict[str, object]:
    # ``reks`` as its console script starts: from a script outside the project (``-c``
    # would put the project on reks's own import path, and reks would import its difflib).
    script = root.parent / "run_reks.py"
    script.write_text("import sys\nfrom lsp_server.cli import main\nsys.exit(main())\n")
    done = subprocess.run(
        [sys.executable, str(script), "extreme", "--json", "--jobs", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    verdicts = {r["transformation"]: r["verdict"] for r in json.loads(done.stdout)}
    assert verdicts == {"return 0": "detected", "return 1": "detected"}, done.stdout
    seen: dict[str, object] = json.loads((root / "seen.json").read_text())
    return seen


def test_the_worker_is_a_fork_of_the_reks_process_that_imported_pytest_already(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"calc.py": CALC, "test_calc.py": PROBE_TEST})
    seen = _extreme(root)
    assert seen["reks_analysis"] is True  # reks's own modules: the worker is its fork
    assert not str(seen["difflib"]).startswith(str(root))
    # A new interpreter's filters, not reks's (its command line ignores SyntaxWarning).
    assert "SyntaxWarning" not in seen["warnings_ignored"]  # type: ignore[operator]


def test_a_project_module_named_like_one_reks_imported_gets_a_new_interpreter(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # reks's process holds the standard library's difflib; the tests import this one.
    root = make_project({"calc.py": CALC, "test_calc.py": PROBE_TEST, "difflib.py": "MARK = 1\n"})
    seen = _extreme(root)
    assert seen["difflib"] == str(root / "difflib.py")
    assert seen["reks_analysis"] is False


def test_reks_inside_a_pytest_session_starts_its_worker_as_a_new_interpreter(
    tmp_path: Path,
) -> None:
    # This process is a pytest session: pytest's assertion rewriter is among its import
    # hooks, and a forked child would find the worker module through it (it cannot run a
    # module as ``__main__``: every worker of an in-process analysis died at its start).
    assert any(type(hook).__name__ == "AssertionRewritingHook" for hook in sys.meta_path)
    (tmp_path / "calc.py").write_text("x = 1\n")
    assert not worker_can_fork(tmp_path, dict(os.environ), sys.executable)


# A package of the project whose ``__init__`` defines ``total``: ``calc/`` is never a
# folder pytest puts on the import path (it holds an ``__init__.py``), so its module named
# like the standard library's ``difflib`` can only be imported as ``calc.difflib``.
CALC_PACKAGE = {"calc/__init__.py": CALC, "calc/difflib.py": "MARK = 1\n"}


def test_a_module_named_like_one_reks_imported_inside_a_package_still_lets_the_worker_fork(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({**CALC_PACKAGE, "test_calc.py": PROBE_TEST})
    seen = _extreme(root)
    assert seen["reks_analysis"] is True
    assert not str(seen["difflib"]).startswith(str(root))


def test_a_module_named_like_one_reks_imported_in_a_test_folder_gets_a_new_interpreter(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``tests/`` has no ``__init__.py``: pytest puts it on the import path for its tests,
    # after its own imports (difflib among them), so the probe looks at ``sqlite3``, which
    # reks's process imported (its store) and pytest did not.
    probe = PROBE_TEST.replace("difflib", "sqlite3")
    files = {"calc.py": CALC, "tests/test_calc.py": probe, "tests/sqlite3.py": "M = 1\n"}
    root = make_project(files)
    seen = _extreme(root)
    assert seen["sqlite3"] == str(root / "tests" / "sqlite3.py")
    assert seen["reks_analysis"] is False


def test_a_package_that_puts_its_own_folder_on_the_import_path_gets_a_new_interpreter(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # Code can put any folder on ``sys.path``, a package's own included: the package rule
    # cannot tell what it adds, so such a project keeps the rule of every folder.
    own_folder = "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
    own_folder += textwrap.dedent(CALC)
    probe = PROBE_TEST.replace("difflib", "sqlite3")  # not imported by pytest itself
    files = {"calc/__init__.py": own_folder, "calc/sqlite3.py": "M = 1\n", "test_calc.py": probe}
    root = make_project(files)
    seen = _extreme(root)
    assert seen["sqlite3"] == str(root / "calc" / "sqlite3.py")
    assert seen["reks_analysis"] is False


# A src layout whose tests find the package through pytest's ``pythonpath`` option: the
# option puts ``src`` on the import path, never ``src/calc``, so the module named like the
# standard library's can only be imported as ``calc.difflib``.
SRC_LAYOUT = {
    "src/calc/__init__.py": CALC,
    "src/calc/difflib.py": "MARK = 1\n",
    "test_calc.py": PROBE_TEST,
}


def test_a_pythonpath_option_naming_the_source_folder_still_lets_the_worker_fork(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    options = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    root = make_project({**SRC_LAYOUT, "pyproject.toml": options})
    seen = _extreme(root)
    assert seen["reks_analysis"] is True
    assert not str(seen["difflib"]).startswith(str(root))


def test_a_pythonpath_option_naming_a_package_folder_gets_a_new_interpreter(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``lib`` holds an ``__init__.py``, so only the option puts it on the import path.
    probe = PROBE_TEST.replace("difflib", "sqlite3")  # not imported by pytest itself
    files = {
        "calc.py": CALC,
        "lib/__init__.py": "",
        "lib/sqlite3.py": "M = 1\n",
        "test_calc.py": probe,
        "pytest.ini": "[pytest]\npythonpath = lib\n",
    }
    root = make_project(files)
    seen = _extreme(root)
    assert seen["sqlite3"] == str(root / "lib" / "sqlite3.py")
    assert seen["reks_analysis"] is False
