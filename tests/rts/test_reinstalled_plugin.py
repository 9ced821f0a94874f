"""A distribution reinstalled at the same version with other entry points changes the
environment: its ``pytest11`` plugin (or any entry point a test looks up) may be another
module now, and reks does not trace code outside the project. Checked in a real virtual
environment whose site directory holds the plugin's distribution, as ``pip install`` of a
local plugin leaves it, with sessions run by that environment's Python."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .helpers import write

pytest_plugins = ["pytester"]


def _site_packages(python: Path) -> Path:
    """The environment's site directory, as its own Python names it."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def _environment(tmp_path: Path) -> tuple[Path, Path]:
    """A venv without pip whose site directory also loads this Python's (where pytest and
    reks are installed); its Python and its site directory."""
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = _site_packages(python)
    outer = [p for p in sys.path if p.endswith("site-packages")]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in outer)
    (site / "outer.pth").write_text(lines)
    (site / "value_one.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n"
    )
    (site / "value_two.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 2\n"
    )
    return python, site


def _install(site: Path, plugin: str) -> None:
    """The plugin's distribution at version 1.0, its ``pytest11`` entry point ``plugin``,
    written afresh as a reinstall writes it."""
    info = site / "valueplug-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: valueplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\nvalueplug = {plugin}\n")
    (info / "RECORD").write_text("")


def _session(python: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pytest", "--reks", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=cwd,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_plugin_reinstalled_with_other_entry_points_reruns_the_tests(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    python, site = _environment(tmp_path)
    _install(site, "value_one")
    write(pytester, "test_value.py", "def test_value(value):\n    assert value == 1\n")
    first = _session(python, pytester.path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "1 passed" in first.stdout
    _install(site, "value_two")  # the same name and version: another plugin module
    second = _session(python, pytester.path)
    # A full run fails now, so the test must run (and fail), saying why.
    assert second.returncode == 1, second.stdout + second.stderr
    assert "1 failed" in second.stdout
    assert "entry points of valueplug-1.0.dist-info" in second.stdout
