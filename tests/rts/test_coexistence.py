"""reks next to the tools that broke pytest-testmon: coverage measuring the same run (its
``sys.monitoring`` core on 3.12+, where testmon loses most test->file links), and
templates compiled to Python code under an extensionless file name (Jinja2's suite, where
testmon crashes parsing the template as Python). Real pytest processes, real coverage,
real Jinja2."""

from __future__ import annotations

import sys

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import FILE

from .helpers import edit, write

pytest_plugins = ["pytester"]


def dependencies(root: str) -> dict[str, set[Unit]]:
    with DependencyStore(root) as store:
        return {nodeid: set(store.dependencies_of(nodeid)) for nodeid in store.test_records()}


def ran(result: pytest.RunResult) -> set[str]:
    """Test names a ``-rA``-less ``-v`` run reports as run."""
    return {
        line.split("::", 1)[1].split(" ", 1)[0]
        for line in result.outlines
        if "::" in line and (" PASSED" in line or " FAILED" in line or " ERROR" in line)
    }


@pytest.fixture
def shapes(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "pkg/__init__.py",
        "",
    )
    write(
        pytester,
        "pkg/geometry.py",
        """
        from pkg import units


        def area(w, h):
            return units.scale(w) * units.scale(h)


        def perimeter(w, h):
            return 2 * (units.scale(w) + units.scale(h))
        """,
    )
    write(
        pytester,
        "pkg/units.py",
        """
        FACTOR = 1


        def scale(x):
            return x * FACTOR
        """,
    )
    write(
        pytester,
        "tests/test_geometry.py",
        """
        from pkg.geometry import area, perimeter


        def test_area():
            assert area(2, 3) == 6


        def test_perimeter():
            assert perimeter(2, 3) == 10
        """,
    )
    write(
        pytester,
        "tests/test_units.py",
        """
        from pkg.units import scale


        def test_scale():
            assert scale(4) == 4
        """,
    )
    return pytester


@pytest.mark.parametrize("core", ["sysmon", "ctrace"])
def test_coverage_in_the_same_run_loses_no_dependency(
    shapes: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, core: str
) -> None:
    if core == "sysmon" and sys.version_info < (3, 12):
        pytest.skip("coverage's sys.monitoring core needs Python 3.12")
    pytest.importorskip("pytest_cov")
    monkeypatch.setenv("COVERAGE_CORE", core)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    plain = shapes.runpytest_subprocess("--reks", "-v")
    assert plain.ret == 0, plain.stdout.str()
    without = dependencies(str(shapes.path))
    assert len(without) == 3

    covered = shapes.runpytest_subprocess("--reks-all", "-v", "--cov=pkg", "--cov-report=term")
    assert covered.ret == 0, covered.stdout.str()
    covered.stdout.fnmatch_lines(["*pkg/geometry.py*100%*"])  # coverage measured the run too
    with_coverage = dependencies(str(shapes.path))
    assert with_coverage == without
    area = Unit("pkg/geometry.py", "area")
    assert area in with_coverage["tests/test_geometry.py::test_area"]
    assert Unit("pkg/units.py", "scale") in with_coverage["tests/test_geometry.py::test_perimeter"]

    edit(shapes, "pkg/units.py", "return x * FACTOR", "return x * FACTOR * 1")
    selected = shapes.runpytest_subprocess("--reks", "-v", "--cov=pkg")
    assert ran(selected) == {"test_area", "test_perimeter", "test_scale"}
    edit(shapes, "pkg/geometry.py", "return 2 * (", "return (2) * (")
    selected = shapes.runpytest_subprocess("--reks", "-v", "--cov=pkg")
    assert ran(selected) == {"test_perimeter"}


@pytest.fixture
def templates(pytester: pytest.Pytester) -> pytest.Pytester:
    pytest.importorskip("jinja2")
    write(pytester, "web/templates/page", "Hello {{ name }}!\n")
    write(pytester, "web/templates/footer", "-- {{ year }}\n")
    write(
        pytester,
        "web/render.py",
        """
        from pathlib import Path

        import jinja2

        ENV = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
            auto_reload=False,
        )


        def render(template, **values):
            return ENV.get_template(template).render(**values)
        """,
    )
    write(pytester, "web/__init__.py", "")
    write(
        pytester,
        "test_pages.py",
        """
        from web.render import render


        def test_page():
            assert render("page", name="reks") == "Hello reks!"


        def test_footer():
            assert render("footer", year=2026) == "-- 2026"
        """,
    )
    return pytester


def test_extensionless_templates_are_data_files(
    templates: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    args = ["--reks", "-v", "-p", "no:cacheprovider"]
    first = templates.runpytest_subprocess(*args)
    assert first.ret == 0, first.stdout.str() + first.stderr.str()
    assert ran(first) == {"test_page", "test_footer"}
    recorded = dependencies(str(templates.path))
    assert Unit("web/templates/page", FILE) in recorded["test_pages.py::test_page"]
    assert Unit("web/templates/page", FILE) not in recorded["test_pages.py::test_footer"]
    assert ran(templates.runpytest_subprocess(*args)) == set()

    (templates.path / "web/templates/page").write_text("Hi {{ name }}!\n")
    changed = templates.runpytest_subprocess(*args)
    assert ran(changed) == {"test_page"}
    assert changed.ret == 1  # and it fails: the template changed what the test sees
