"""The LSP glue: diagnostics with related locations, and the "Add assertion" edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_server.extreme.reneri import Diagnosis, diagnose
from lsp_server.lsp.convert import path_to_uri
from lsp_server.lsp.features.weak_test_diagnosis import assertion_edit, diagnostics_for
from tests.support.lsp import copy_example
from tests.support.reneri import run_pytest, undetected

TESTS = [
    "test_versioned_set.py::test_add",
    "test_versioned_set.py::test_equals",
    "test_versioned_set.py::test_intersection",
]


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Diagnosis]]:
    root = copy_example(tmp_path_factory.mktemp("lsp"))
    results = [
        undetected(root, "versioned_set.py", "VersionedSet._increment_version", "pass", TESTS),
        undetected(root, "versioned_set.py", "VersionedSet.is_empty", "return True", TESTS),
    ]
    return root, diagnose(root, results, runs=2)


def apply(source: str, edit: types.WorkspaceEdit, uri: str) -> str:
    assert edit.changes is not None
    (text_edit,) = edit.changes[uri]
    lines = source.splitlines(keepends=True)
    start = text_edit.range.start
    offset = sum(len(line) for line in lines[: start.line]) + start.character
    return source[:offset] + text_edit.new_text + source[offset:]


def test_diagnostics_sit_on_the_test_line_with_related_locations(
    diagnosed: tuple[Path, list[Diagnosis]],
) -> None:
    root, diagnoses = diagnosed
    published = diagnostics_for(root, diagnoses)
    test_uri = path_to_uri(str(root / "test_versioned_set.py"))
    assert list(published) == [test_uri]
    weak, masked = published[test_uri]
    assert weak.code == "weak-oracle" and masked.code == "no-propagation"
    assert weak.range.start.line == 5  # 0-based: line 6, ``s.add(1)``
    assert weak.range.start.character == 4
    assert weak.related_information is not None
    function, test_line = weak.related_information
    assert function.location.uri == path_to_uri(str(root / "versioned_set.py"))
    assert function.location.range.start.line == 12  # ``def _increment_version``
    assert (test_line.location.uri, test_line.location.range.start.line) == (test_uri, 5)
    assert weak.data["assertion"]["text"] == "    assert s.version == 1"
    assert weak.data["assertion"]["after"] == "    s.add(1)"
    assert "assertion" not in masked.data
    assert masked.range.start.line == 14  # ``assert one == other`` reaches is_empty


def test_add_assertion_edit_makes_the_transformation_detected(
    diagnosed: tuple[Path, list[Diagnosis]], tmp_path: Path
) -> None:
    root, diagnoses = diagnosed
    weak = next(iter(diagnostics_for(root, diagnoses).values()))[0]
    assertion = weak.data["assertion"]
    copy = tmp_path / "project"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    test_file = copy / "test_versioned_set.py"
    # The developer added a line above since the diagnosis: the edit follows the statement.
    source = test_file.read_text(encoding="utf-8").replace(
        "def test_add():\n", "def test_add():\n    # a comment added later\n"
    )
    uri = path_to_uri(str(test_file))
    edit = assertion_edit(uri, source, assertion["line"], assertion["text"], assertion["after"])
    assert edit is not None
    new_source = apply(source, edit, uri)
    assert "    s.add(1)\n    assert s.version == 1\n    assert s.contains(1)\n" in new_source
    test_file.write_text(new_source, encoding="utf-8")
    assert run_pytest(copy, TESTS[0]).returncode == 0
    module = copy / "versioned_set.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace("self._version += 1", "pass"), encoding="utf-8"
    )
    assert run_pytest(copy, TESTS[0]).returncode == 1


def test_no_edit_when_the_statement_is_gone() -> None:
    source = "def test_x():\n    s = make()\n"
    assert assertion_edit("file:///t.py", source, 2, "    assert s.a == 1", "    s.add(1)") is None
    edit = assertion_edit("file:///t.py", source.rstrip("\n"), 2, "    assert s.a == 1", "")
    assert edit is not None
    assert apply(source.rstrip("\n"), edit, "file:///t.py").endswith(
        "    s = make()\n    assert s.a == 1"
    )
