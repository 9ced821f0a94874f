"""Unit checksums of the analysis come from the dependency store for files whose bytes are
the ones the store recorded (no parse), and from parsing every other file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lsp_server.extreme.state import TOP_LEVEL, Checksums
from lsp_server.rts.file_units import Unit
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.store.writes import FileSnapshot
from lsp_server.rts.unit_names import MODULE
from lsp_server.rts.units import file_checksum, path_units

SRC = "X = 1\n\ndef f():\n    return X\n\ndef g():\n    return 2\n"


def _record(root: Path, snapshot: FileSnapshot) -> None:
    with DependencyStore(root) as store:
        store.record_test(
            "t.py::a",
            "passed",
            0.1,
            [Unit("m.py", "f")],
            {"m.py": snapshot},
            environment="env",
            options=None,
            session_id=None,
        )


def test_a_file_the_store_recorded_unchanged_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SRC)
    raw = file_checksum((tmp_path / "m.py").read_bytes())
    # Checksums no parse yields: only the store can be their source.
    _record(tmp_path, FileSnapshot("m.py", raw, {"f": "stored-f", MODULE: "stored-module"}))
    checksums = Checksums(tmp_path)
    assert checksums.get("m.py::f") == "stored-f"
    assert checksums.get(f"m.py::{MODULE}") == "stored-module"
    assert checksums.get("m.py::g") is None  # not a unit of the recorded file


def test_an_edited_file_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SRC)
    raw = file_checksum((tmp_path / "m.py").read_bytes())
    _record(tmp_path, FileSnapshot("m.py", raw, {"f": "stored-f", MODULE: "stored-module"}))
    (tmp_path / "m.py").write_text(SRC.replace("return X", "return X + 1"))
    parsed = path_units(tmp_path, Path("m.py")).checksums
    assert Checksums(tmp_path).get("m.py::g") == _function_checksum(parsed, "g")


def _function_checksum(parsed: Mapping[str, str], name: str) -> str:
    """A unit's checksum as the analysis keeps it: a function's body, header (defaults,
    decorators) and docstring together."""
    parts = (parsed[name], parsed.get(f"{name}.<def>"), parsed.get(f"{name}.<doc>"))
    return ":".join(part for part in parts if part is not None)


def test_a_default_value_is_its_functions_not_the_top_levels(tmp_path: Path) -> None:
    # Its defaults unit (``f.<defaults>``) is in the body unit too: an edit of the value
    # changes the verdicts of the runs that executed ``f``, not of every run in the file.
    keys = (f"m.py::{TOP_LEVEL}", "m.py::f")
    (tmp_path / "m.py").write_text(SRC.replace("def f():", "def f(a=1):"))
    top, function = map(Checksums(tmp_path).get, keys)
    (tmp_path / "m.py").write_text(SRC.replace("def f():", "def f(a=2):"))
    after = Checksums(tmp_path)
    assert after.get(keys[0]) == top
    assert after.get(keys[1]) != function


def test_store_and_parse_agree_on_a_real_recording(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SRC)
    snapshot = FileStates(tmp_path).snapshot("m.py")
    assert snapshot is not None
    _record(tmp_path, snapshot)
    from_store = Checksums(tmp_path)
    parsed = path_units(tmp_path, Path("m.py")).checksums
    for name in ("f", "g", "X", MODULE):
        assert from_store.get(f"m.py::{name}") == _function_checksum(parsed, name)


def test_dependency_keys_of_few_and_of_many_tests(tmp_path: Path) -> None:
    from lsp_server.rts.store.queries import FEW_TESTS

    (tmp_path / "m.py").write_text(SRC)
    snapshot = FileStates(tmp_path).snapshot("m.py")
    assert snapshot is not None
    names = [f"t.py::test_{i}" for i in range(FEW_TESTS + 1)]
    with DependencyStore(tmp_path) as store:
        for i, nodeid in enumerate(names):
            units = [Unit("m.py", "f" if i % 2 else "g"), Unit("m.py", MODULE)]
            store.record_test(
                nodeid,
                "passed",
                0.1,
                units,
                {"m.py": snapshot},
                environment="e",
                options=None,
                session_id=None,
            )
        many = store.dependency_keys(names)
        few = store.dependency_keys(names[:2])
    assert few == {
        names[0]: {"m.py::g", f"m.py::{MODULE}"},
        names[1]: {"m.py::f", f"m.py::{MODULE}"},
    }
    assert many[names[0]] == few[names[0]] and len(many) == len(names)
