"""A test listing a project folder (``pkgutil.iter_modules``, ``os.listdir``, ``glob``,
``Path.iterdir``) sees which files are there: a new file nobody imports, a data file
added or removed, changes what it lists though no unit changed. It depends on the folder's
listing (``rts.directory_listings``); the import system listing a package's folder to find
a module (every import does) is no listing by the test. Real pytest sessions on a temporary
project."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

TESTS = """
import glob
import os
import pathlib
import pkgutil

import plugins


def test_walk():
    assert [m.name for m in pkgutil.iter_modules(plugins.__path__)] == ["a"]


def test_glob():
    assert len(glob.glob(os.path.join(os.path.dirname(__file__), "data", "*.txt"))) == 1


def test_iterdir():
    assert len(list((pathlib.Path(__file__).parent / "data").iterdir())) == 1


def test_lazy_import():
    import plugins.a

    assert plugins.a.X == 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "plugins/__init__.py", "")
    write(pytester, "plugins/a.py", "X = 1\n")
    write(pytester, "data/one.txt", "1\n")
    write(pytester, "test_listings.py", TESTS)
    assert run(pytester) == {"test_walk", "test_glob", "test_iterdir", "test_lazy_import"}
    return pytester


def test_a_new_module_file_selects_the_package_walk(project: pytest.Pytester) -> None:
    write(project, "plugins/b.py", "X = 2\n")
    assert ran_and_failed(project) == ({"test_walk"}, {"test_walk"})


def test_a_new_data_file_selects_the_tests_listing_its_folder(project: pytest.Pytester) -> None:
    write(project, "data/two.txt", "2\n")
    ran, failed = ran_and_failed(project)
    assert ran == failed == {"test_glob", "test_iterdir"}


def test_a_data_file_removed_selects_the_tests_listing_its_folder(
    project: pytest.Pytester,
) -> None:
    (project.path / "data" / "one.txt").unlink()
    ran, failed = ran_and_failed(project)
    assert ran == failed == {"test_glob", "test_iterdir"}


def test_a_data_file_edited_selects_no_listing(project: pytest.Pytester) -> None:
    # Precision: the listing is the names in the folder, not the files' bytes.
    write(project, "data/one.txt", "one\n")
    assert ran_and_failed(project) == (set(), set())
