"""reks's own modules are imported as compiled, not through pytest's assertion rewriting.

pytest rewrites the asserts of every module of a distribution that declares a plugin:
installed (not editable), that is all of ``lsp_server``. reks's modules hold no assert a
test report needs, and each rewritten one is parsed and compiled from source again in
every run where pytest cannot cache it (``PYTHONDONTWRITEBYTECODE``, a read-only
site-packages): a quarter of a second per recording session. Checked on a real pytest
session in a subprocess, where nothing of reks was imported before pytest started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lsp_server

from .helpers import write

pytest_plugins = ["pytester"]

# From the project's conftest, once the session is over: the loader of each reks module.
_LOADERS = """
import json
import sys

import pytest


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    loaders = {
        name: type(module.__spec__.loader).__name__
        for name, module in list(sys.modules.items())
        if name.startswith("lsp_server.rts") and getattr(module, "__spec__", None)
    }
    (config.rootpath / "loaders.json").write_text(json.dumps(loaders))
"""


def _installed_layout(pytester: pytest.Pytester) -> None:
    """A distribution on the path whose files include ``lsp_server`` and which declares a
    plugin, as a non-editable install of reks does (the development venv's editable one
    lists no package files, so pytest marks nothing of it). The package is listed by its
    absolute path (a record lists only files that exist; pytest takes the package name
    from the path's last two parts)."""
    package = Path(lsp_server.__file__).resolve()
    info = pytester.path / "reks_layout-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: reks-layout\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nreks_layout = layout_plugin\n")
    (info / "RECORD").write_text(f"{package},,\n")
    write(pytester, "layout_plugin.py", '"""Declares nothing: its distribution is the point."""\n')


@pytest.mark.parametrize("flag", ["--reks", "--reks-dry-run"])
def test_reks_modules_are_not_rewritten(pytester: pytest.Pytester, flag: str) -> None:
    _installed_layout(pytester)
    write(pytester, "conftest.py", _LOADERS)
    write(pytester, "lib.py", "def f():\n    return 2\n")
    # The project's own asserts are still rewritten: a failure shows the values.
    write(pytester, "test_lib.py", "import lib\n\n\ndef test_f():\n    assert lib.f() == 3\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", flag)
    loaders = json.loads((pytester.path / "loaders.json").read_text())
    # The session's work was done by these: they were imported in this run.
    assert "lsp_server.rts.controller" in loaders
    # pytest imports the plugin module itself (and its package) before any hook runs.
    entry = {"lsp_server.rts", "lsp_server.rts.pytest_plugin"}
    rewritten = sorted(n for n, loader in loaders.items() if "Rewrit" in loader and n not in entry)
    assert rewritten == []
    if flag == "--reks":
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*assert 2 == 3*"])
