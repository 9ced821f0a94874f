"""Each file's analysis is kept across sessions by content (``rts.analysis_cache``): an
unchanged file is not analysed again, a changed one is, and an entry that does not
belong to these bytes and this code is never used."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.analysis_digest import ANALYSIS_DIR
from lsp_server.rts.store import STORE_DIR
from lsp_server.rts.units import source_units

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _entries(root: Path) -> dict[str, int]:
    """Each kept analysis -> its inode (an entry written again gets a new one)."""
    folder = root / STORE_DIR / ANALYSIS_DIR
    return {p.name: p.stat().st_ino for p in folder.glob("*.pickle")}


def _project(pytester: pytest.Pytester) -> None:
    write(pytester, "calc.py", "def add(a, b):\n    return a + b\n\nLIMIT = 3\n")
    write(pytester, "other.py", "def twice(a):\n    return 2 * a\n")
    write(
        pytester,
        "test_calc.py",
        """
        from calc import add
        from other import twice

        def test_add():
            assert add(1, 2) == 3

        def test_twice():
            assert twice(2) == 4
        """,
    )


def test_an_unchanged_file_is_not_analysed_again(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester) == {"test_add", "test_twice"}
    first = _entries(pytester.path)
    assert len(first) >= 3  # calc.py, other.py, test_calc.py
    assert run(pytester, flag="--reks-all") == {"test_add", "test_twice"}
    assert _entries(pytester.path) == first


def test_a_changed_file_is_analysed_again_and_its_tests_selected(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    run(pytester)
    first = _entries(pytester.path)
    edit(pytester, "calc.py", "return a + b", "return b + a")
    assert run(pytester) == {"test_add"}
    second = _entries(pytester.path)
    changed = {name for name in first if second.get(name) != first[name]}
    assert len(changed) == 1  # calc.py's entry only
    assert run(pytester) == set()


def test_an_entry_for_other_bytes_or_cut_short_is_not_used(tmp_path: Path) -> None:
    cache = AnalysisCache(tmp_path)
    units = source_units("m.py", "def f():\n    return 1\n")
    assert cache.get("m.py", "h1") is None
    cache.put("m.py", "h1", units)
    assert cache.get("m.py", "h1") == units
    assert cache.get("m.py", "h2") is None  # other bytes
    assert cache.get("n.py", "h1") is None  # another file
    (entry,) = (tmp_path / STORE_DIR / ANALYSIS_DIR).glob("*.pickle")
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) - 10])
    assert cache.get("m.py", "h1") is None
    entry.write_bytes(pickle.dumps(("other analysis code", "m.py", "h1")) + data)
    assert cache.get("m.py", "h1") is None
    assert (cache.hits, cache.misses) == (1, 5)


def test_a_folder_that_cannot_be_written_only_costs_the_analysis(tmp_path: Path) -> None:
    (tmp_path / STORE_DIR).mkdir()
    (tmp_path / STORE_DIR / ANALYSIS_DIR).write_text("a file where the folder would be")
    cache = AnalysisCache(tmp_path)
    cache.put("m.py", "h1", source_units("m.py", "x = 1\n"))
    assert cache.get("m.py", "h1") is None
    assert os.path.isfile(tmp_path / STORE_DIR / ANALYSIS_DIR)


_KEEP_OR_ASK = """
import sys
from pathlib import Path

from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.units import source_units

root, action = Path(sys.argv[1]), sys.argv[2]
cache = AnalysisCache(root)
if action == "keep":
    cache.put("m.py", "raw", source_units("m.py", "import pluggy\\nX = pluggy.HookimplMarker\\n"))
print("hit" if cache.get("m.py", "raw") is not None else "miss")
"""


def _in_process(root: Path, userbase: Path, action: str) -> str:
    """``_KEEP_OR_ASK`` run by this interpreter with ``userbase`` as its user site."""
    env = {**os.environ, "PYTHONUSERBASE": str(userbase)}
    done = subprocess.run(
        [sys.executable, "-c", _KEEP_OR_ASK, str(root), action],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_an_entry_made_under_other_installed_distributions_is_not_used(tmp_path: Path) -> None:
    # An analysis proves names of installed libraries bound (``rts.library_names``): once a
    # distribution is installed, upgraded or removed, that proof is made again.
    userbase = tmp_path / "userbase"
    site_dir = Path(
        subprocess.run(
            [sys.executable, "-c", "import site; print(site.getusersitepackages())"],
            env={**os.environ, "PYTHONUSERBASE": str(userbase)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    site_dir.mkdir(parents=True)
    assert _in_process(tmp_path, userbase, "keep") == "hit"
    assert _in_process(tmp_path, userbase, "ask") == "hit"
    (site_dir / "newlib-1.0.dist-info").mkdir()
    assert _in_process(tmp_path, userbase, "ask") == "miss"
