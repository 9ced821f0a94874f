"""A test walking the project's root (boltons' ``iter_find_files(root, ['*.py'])``) lists
the tools' folders there too: ``.pytest_cache``, ``.git``, reks's own store. What is in
them is no project code (``project.files.EXCLUDED_DIRS``: a file read inside one is no
dependency) and changes with every run of the tools, so their listing is no dependency
either: else pytest writing its cache, or a checkout cleaning it away, would select every
test walking the root and every test listing the session's objects, at every commit. A
project folder the walk lists still counts. Real pytest sessions on a temporary project."""

from __future__ import annotations

import shutil

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

TESTS = """
import gc
import os


def test_walk():
    root = os.path.dirname(__file__)
    found = [n for _, _, files in os.walk(root) for n in files if n.endswith(".py")]
    assert "mod.py" in found


def test_objects():
    assert gc.get_objects()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/mod.py", "X = 1\n")
    write(pytester, ".pytest_cache/v/cache/lastfailed", "{}\n")
    write(pytester, ".git/HEAD", "ref: refs/heads/main\n")
    write(pytester, "test_root_walks.py", TESTS)
    assert run(pytester) == {"test_walk", "test_objects"}
    return pytester


def test_a_tool_cache_cleaned_away_selects_nothing(project: pytest.Pytester) -> None:
    # What ``git clean -fdx`` between two checkouts does to pytest's cache.
    shutil.rmtree(project.path / ".pytest_cache")
    assert ran_and_failed(project) == (set(), set())


def test_a_tool_writing_its_folder_selects_nothing(project: pytest.Pytester) -> None:
    write(project, ".git/ORIG_HEAD", "0" * 40 + "\n")
    write(project, ".pytest_cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
    assert ran_and_failed(project) == (set(), set())


def test_a_new_module_in_a_walked_folder_still_selects_the_walk(
    project: pytest.Pytester,
) -> None:
    # Guard: a project folder's listing is the walk's dependency; a new module there is a
    # change for every test listing the session's objects too.
    write(project, "pkg/extra.py", "Y = 2\n")
    assert ran_and_failed(project) == ({"test_walk", "test_objects"}, set())
