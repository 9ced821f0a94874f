"""``reks extreme --only``: analyse the named functions alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.extreme.conftest import REKS
from tests.support.reks import write_files

FILES = {
    "calc.py": """\
def double(x):
    y = x * 2
    return y


def triple(x):
    y = x * 3
    return y


class Box:
    def size(self):
        n = 3
        return n
""",
    "test_calc.py": """\
from calc import Box, double, triple


def test_all():
    double(2)
    triple(2)
    Box().size()
""",
}


@pytest.mark.slow  # a whole analysis in a subprocess, ~4-8 s
def test_only_analyses_the_named_functions(tmp_path: Path) -> None:
    write_files(tmp_path, FILES)
    done = subprocess.run(
        [*REKS, "extreme", "--json", "--jobs", "1", "--only", "triple, calc.py::Box.size"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {r["function"] for r in rows} == {"triple", "Box.size"}
    assert all(r["verdict"] == "undetected" for r in rows)
