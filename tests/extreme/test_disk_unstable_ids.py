"""The plain way (the file rewritten in a private copy, pytest afresh) on a covering test
whose id changes at each collection (a parameter drawn then: marshmallow's
``test_invalid_datetime_deserialization[<now>]``): pytest says "not found" whatever the
transformation does, which is no detection."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lsp_server.extreme.model import Transformation, Verdict
from lsp_server.extreme.on_disk import PrivateCopy

MOD = """
def f():
    return 1
"""

TESTS = """
import time

import pytest

import mod


@pytest.mark.parametrize("drawn", [time.time_ns()])
def test_f(drawn):
    assert mod.f() == 1


def test_g():
    assert mod.f() == 1
"""


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "mod.py").write_text(textwrap.dedent(MOD).lstrip())
    (root / "test_mod.py").write_text(textwrap.dedent(TESTS).lstrip())
    return root


def test_a_test_id_drawn_at_collection_gives_an_error_not_a_detection(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    gone = Transformation("mod.py", "f", 1, "return None")
    with PrivateCopy(root) as copy:
        unstable = copy.run(gone, ["test_mod.py::test_f[1]"], 60.0)
        stable = copy.run(gone, ["test_mod.py::test_g"], 60.0)
    assert unstable.verdict == Verdict.ERROR, unstable
    assert "test_mod.py::test_f[1]" in unstable.detail
    assert stable.verdict == Verdict.DETECTED, stable
