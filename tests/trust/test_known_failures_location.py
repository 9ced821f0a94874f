"""Learnt known-failure shapes go to the user's data folder, never into the installed
package, and the learnt shapes are the ones in force once written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import main
from lsp_server.trust import known_failures


def test_default_write_goes_to_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REKS_KNOWN_FAILURES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    packaged = Path(known_failures.DATA_PATH)
    before = packaged.read_bytes()
    args = ["engine-test", "--generator", "classes", "--engines", "rope", "--no-inverse"]
    assert main([*args, "--out", str(tmp_path / "r"), "--write-known-failures"]) == 0
    learnt = tmp_path / "data" / "reks" / "known_failures.json"
    assert json.loads(learnt.read_text())["shapes"]
    assert packaged.read_bytes() == before
    assert known_failures.active_path() == str(learnt)


def test_packaged_shapes_are_in_force_without_learnt_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(tmp_path / "none.json"))
    assert known_failures.active_path() == known_failures.DATA_PATH
    assert known_failures.load().shapes


def test_learnt_shapes_add_to_the_packaged_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shapes learnt here under an older reks (the user's file) must not hide the shapes a
    newer reks ships."""
    monkeypatch.delenv("REKS_KNOWN_FAILURES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    packaged = known_failures.load(known_failures.DATA_PATH).shapes
    assert packaged
    learnt = known_failures.FailureShape(
        "reks", "rename", "output-changed", frozenset({"learnt:here"}), (), 1, "", "x"
    )
    user_file = Path(known_failures.user_path())
    user_file.parent.mkdir(parents=True)
    user_file.write_text(known_failures.dumps([learnt], {"rope": "", "jedi": ""}))
    in_force = known_failures.load().shapes
    assert set(in_force) == set(packaged) | {learnt}
    assert len(in_force) == len(set(in_force))


def test_learning_a_shape_twice_keeps_one(tmp_path: Path) -> None:
    """A shape already in force (same engine, kind, oracle and features, in any order) is
    not written again."""
    path = tmp_path / "learnt.json"
    shape = known_failures.FailureShape(
        "reks", "inline", "output-changed", frozenset({"b", "a"}), (), 1, "", "x"
    )
    assert known_failures.learn(shape, str(path)) is True
    count = len(json.loads(path.read_text())["shapes"])
    again = known_failures.FailureShape(
        "reks", "inline", "output-changed", frozenset({"a", "b"}), (), 7, "other", "y"
    )
    assert known_failures.learn(again, str(path)) is False
    assert len(json.loads(path.read_text())["shapes"]) == count
